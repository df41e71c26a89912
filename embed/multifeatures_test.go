package embed

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

// MultiNystromFeatures are every kernel's Gram matrix with the landmarks
// times its map, side by side: checked against kernel.Gram per kernel (a
// second computation that shares no code with the blocked one) to 1e-12
// relative, on rows spread over several blocks.
func TestMultiNystromFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 2500 // more rows than one block (nystromBlock) holds
	x := mat.NewDense(n, 6, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 6; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	lm := mat.DenseCopyOf(x.Slice(0, 40, 0, 6))
	ks := []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBF(1.5)}
	ctx := context.Background()
	var maps []*mat.Dense
	for _, k := range ks {
		m, err := NystromMap(ctx, k, lm)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	got, err := MultiNystromFeatures(ctx, ks, lm, maps, x)
	if err != nil {
		t.Fatal(err)
	}
	c := 0
	for i, k := range ks {
		g, err := k.Gram(x, lm)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(g, maps[i])
		_, r := maps[i].Dims()
		part := got.Slice(0, n, c, c+r)
		if !mat.EqualApprox(part, &want, 1e-12*mat.Norm(&want, 1)) {
			t.Errorf("kernel %d: features differ from k(x, L)·T", i+1)
		}
		c += r
	}
	if _, p := got.Dims(); p != c {
		t.Errorf("%d feature columns, the maps give %d", p, c)
	}
	if _, err := MultiNystromFeatures(ctx, ks, lm, maps[:2], x); err == nil {
		t.Error("3 kernels with 2 maps: no error")
	}
}
