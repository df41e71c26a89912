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
