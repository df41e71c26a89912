package kernel

import (
	"context"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
)

// Hot kernels of `dimred bench` at the sizes of its quick workloads (one
// operation takes about a second or less). Run:
//
//	go test -run XXX -bench . ./kernel

// The RBF Gram matrix of 2000 MNIST-sized rows (one triangle, 2000²·784/2
// multiply-adds, then 2000²/2 exponentials).
func BenchmarkGramRBF2000x784(b *testing.B) {
	x, _ := testdata.Classes(2000, 784, 10)
	k := Kernel{Type: "rbf", Gamma: 1.0 / 784}
	for b.Loop() {
		if _, err := k.Gram(x, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Centring a 2000×2000 Gram matrix in place (K̃ = H·K·H; centring a centred
// matrix again costs the same).
func BenchmarkCenterGram2000(b *testing.B) {
	x, _ := testdata.Classes(2000, 50, 10)
	g, err := Kernel{Type: "rbf", Gamma: 1.0 / 50}.Gram(x, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := CenterGram(g); err != nil {
			b.Fatal(err)
		}
	}
}

// MKL-SR's three base kernels (seed 002 §4.1: linear, polynomial, RBF) on
// 1520 face-sized rows (seed 002 Table 4 at 40 per person): one Gram
// matrix per kernel, against all three from one shared product
// (GramsContext).
func BenchmarkGramsMKL1520x1024(b *testing.B) {
	x, _ := testdata.Classes(1520, 1024, 38)
	ks := []Kernel{Linear(), Poly(2, 1), RBF(1)}
	b.Run("separate", func(b *testing.B) {
		for b.Loop() {
			for _, k := range ks {
				if _, err := k.Gram(x, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			if _, err := GramsContext(context.Background(), ks, x, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The median pairwise distance of RBF sigma=auto: every pair of a sample
// of AutoWidthSample rows of 1024 columns.
func BenchmarkMedianDistance1000x1024(b *testing.B) {
	x, _ := testdata.Classes(1520, 1024, 38)
	for b.Loop() {
		if _, err := MedianDistance(x, AutoWidthSample); err != nil {
			b.Fatal(err)
		}
	}
}
