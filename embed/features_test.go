package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
)

// Prepared.Features: on rank-deficient linear rows (a repeated column) it
// keeps the range (rank columns, Φ·w reproduced by the model), and a
// minimisation solved on it gives the subspace the dense route gives on
// the original representation; on a kernel space it gives the dual
// route's subspace, with the kernel model's Transform reproducing the
// training embedding.
func TestPreparedFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 30
	x := mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		a, b, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		x.SetRow(i, []float64{a, b, c, a + b})
	}
	w := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			w.SetSym(i, j, rng.NormFloat64())
		}
	}
	l, _ := graph.LaplacianOf(w)
	for _, sp := range []Space{Linear{}, Kernel{K: kernel.RBF(1.5)}} {
		prep, err := sp.Prepare(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		f, err := prep.Features(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, r := f.Phi.Dims(); !prep.Dual && r != 3 {
			t.Errorf("linear: %d range coordinates, want the rank 3", r)
		}
		prob := &Problem{Objective: l, Minimize: true, Dims: 2, Solver: Dense}
		a, err := prob.Solve(prep)
		if err != nil {
			t.Fatal(err)
		}
		b, err := prob.Solve(f)
		if err != nil {
			t.Fatal(err)
		}
		ang, _ := linalg.PrincipalAngles(a.Train, b.Train)
		for _, v := range ang {
			if v > 1e-8 {
				t.Errorf("%s: features and the original differ by %.3g rad", sp.Name(), v)
			}
		}
		z, err := b.Model.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		var d mat.Dense
		d.Sub(z, b.Train)
		if m := mat.Norm(&d, math.Inf(1)); m > 1e-8 {
			t.Errorf("%s: Transform(train) differs from Φ·w by %.3g", sp.Name(), m)
		}
	}
}
