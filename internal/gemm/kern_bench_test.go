package gemm

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

func BenchmarkKernel(b *testing.B) {
	skipWithoutKernel(b)
	r := rand.New(rand.NewPCG(1, 1))
	a, bb := randSlice(r, 256*mr), randSlice(r, 256*nr)
	var acc [mr * nr]float64
	for b.Loop() {
		kern6x8(256, &a[0], &bb[0], &acc[0])
	}
	b.ReportMetric(2*256*mr*nr*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// A Lanczos block: 4 vectors against a 5000×5000 matrix (C = V·Mᵀ).
func BenchmarkSkinny(b *testing.B) {
	skipWithoutKernel(b)
	r := rand.New(rand.NewPCG(1, 1))
	n := 5000
	v, m, c := randSlice(r, 4*n), randSlice(r, n*n), make([]float64, 4*n)
	for b.Loop() {
		Dgemm(blas.NoTrans, blas.Trans, 4, n, n, 1, v, n, m, n, 0, c, n)
	}
	b.ReportMetric(float64(n)*float64(n)*8*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// A few rows (or columns) of C against a large operand: the regression
// solvers' block products (GDA on 10 000 MNIST rows: Vᵀ·K with 9 columns
// of V, 88 times per fit, and an n×400 basis times 400×9 coefficients).
func BenchmarkFewRows(b *testing.B) {
	skipWithoutKernel(b)
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range []struct {
		name    string
		m, n, k int
		tB      blas.Transpose
	}{
		{"9x5000x5000T", 9, 5000, 5000, blas.Trans},
		{"6x5000x5000T", 6, 5000, 5000, blas.Trans},
		{"12x5000x5000N", 12, 5000, 5000, blas.NoTrans},
		{"19x5000x5000T", 19, 5000, 5000, blas.Trans},
		{"40x5000x5000T", 40, 5000, 5000, blas.Trans},
		{"9x300x300T", 9, 300, 300, blas.Trans},
		{"10000x9x400N", 10000, 9, 400, blas.NoTrans}, // few columns: the same product transposed
	} {
		a, bb, c := randSlice(r, sh.m*sh.k), randSlice(r, sh.k*sh.n), make([]float64, sh.m*sh.n)
		ldb := sh.n
		if sh.tB == blas.Trans {
			ldb = sh.k
		}
		b.Run(sh.name, func(b *testing.B) {
			for b.Loop() {
				Dgemm(blas.NoTrans, sh.tB, sh.m, sh.n, sh.k, 1, a, sh.k, bb, ldb, 0, c, sh.n)
			}
			b.ReportMetric(2*float64(sh.m)*float64(sh.n)*float64(sh.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
