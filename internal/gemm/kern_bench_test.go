package gemm

import (
	"math/rand/v2"
	"testing"
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
