package method

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

// GDA by spectral regression (the default) against a direct dense solution
// of its generalized eigenproblem K̃·W_b·K̃·a = λ·(K̃K̃ + α·K̃)·a, built here
// from scratch (Gram matrix, centring, products, GenSymEig), on the wine
// data: the coefficient subspaces agree to principal angles < 1e-6 and the
// eigenvalues to 1e-8.
func TestGDAMatchesDenseEigenproblem(t *testing.T) {
	x, y := loadSklearn(t, "wine")
	x = minmax(x)
	y = compact(y)
	n, _ := x.Dims()
	for _, alpha := range []float64{1e-3, 1e-1} {
		m, err := GDA{Alpha: param.Set(alpha), Kernel: kernel.RBF(1)}.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := m.(*Fitted)
		a := f.Model.(*embed.KernelModel).A

		g, _ := kernel.RBF(1).Gram(x, nil)
		kernel.CenterGram(g)
		rel := 0.0
		for i := 0; i < n; i++ {
			rel += g.At(i, i) / float64(n)
		}
		wb := graph.BetweenClass(y).Dense()
		var kw, kwk, kk mat.Dense
		kw.Mul(g, wb)
		kwk.Mul(&kw, g)
		kk.Mul(g, g)
		var b mat.Dense
		b.Add(&kk, scaled(alpha*rel, g))
		vals, v, err := linalg.GenSymEig(linalg.Symmetrize(&kwk), linalg.Symmetrize(&b), 2, linalg.GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ang, err := linalg.PrincipalAngles(a, v)
		if err != nil {
			t.Fatal(err)
		}
		if ang[len(ang)-1] > 1e-6 {
			t.Errorf("alpha=%g: principal angles %v between regression and dense GDA", alpha, ang)
		}
		relClose(t, "GDA eigenvalues", f.Values, vals, 1e-8)

		// The engine's own dense solver gives the same subspace too.
		md, err := GDA{Alpha: param.Set(alpha), Kernel: kernel.RBF(1), Engine: Engine{Solver: embed.Dense}}.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		ang, _ = linalg.PrincipalAngles(a, md.(*Fitted).Model.(*embed.KernelModel).A)
		if ang[len(ang)-1] > 1e-6 {
			t.Errorf("alpha=%g: engine dense vs regression angles %v", alpha, ang)
		}
	}
}

func scaled(f float64, m mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Scale(f, m)
	return &out
}
