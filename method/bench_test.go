package method

import (
	"strconv"
	"testing"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/testdata"
)

// GDA on 1000 rows: the spectral-regression route (one Cholesky of
// K̃ + αI and a C×C problem) against the dense n×n generalized
// eigenproblem; both solve the same regularised problem (tested in
// gda_test.go). Run: go test -run XXX -bench GDA ./method
func BenchmarkGDARegression1000(b *testing.B) { benchGDA(b, embed.Regression) }

func BenchmarkGDADense1000(b *testing.B) { benchGDA(b, embed.Dense) }

func benchGDA(b *testing.B, s embed.Solver) {
	x, y := testdata.Classes(1000, 20, 5)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (GDA{Engine: Engine{Solver: s}}).Fit(x, y, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// KPCA on 1000 rows (full eigen-decomposition of the centred Gram matrix).
func BenchmarkKPCA1000(b *testing.B) {
	x, _ := testdata.Classes(1000, 20, 5)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (KPCA{}).Fit(x, nil, 10); err != nil {
			b.Fatal(err)
		}
	}
}

// MIE (linear, 20 EM iterations at most) and kMIE on n rows of 20
// columns, 10 output dimensions: the dense n×n graph of seed 003 per
// iteration. Run: go test -run XXX -bench 'MIE' -benchtime 1x ./method
// (docs/variational-embedding.md reports the sizes reached).
func BenchmarkMIE(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		x, y := testdata.Classes(n, 20, 5)
		for _, m := range []struct {
			name string
			m    Method
		}{{"mie", MIE{}}, {"kmie", KMIE{}}} {
			b.Run(m.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					f, err := m.m.Fit(x, y, 10)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(f.(*Fitted).Trace.(VariationalResult).Iterations), "iterations")
				}
			})
		}
	}
}

// Semi-supervised MKL-SR (linear, polynomial and RBF kernels, the
// default) on 1520 rows of 1024 columns in 38 classes with half the
// labels hidden: the size of seed 002 Table 4 at 40 images per person.
// Run: go test -run XXX -bench MKLSR -benchtime 3x ./method
// (docs/spectral-regression.md reports it).
func BenchmarkMKLSRSemi1520(b *testing.B) {
	x, y := testdata.Classes(1520, 1024, 38)
	for i := range y {
		if (i/38)%2 == 1 { // every class keeps half its labels
			y[i] = -1
		}
	}
	for b.Loop() {
		f, err := (MKLSR{}).Fit(x, y, 37)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(f.(*Fitted).Trace.(MKLResult).Iterations), "iterations")
	}
}
