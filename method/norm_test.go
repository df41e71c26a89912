package method

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
)

// norm=unit reaches the methods whose final directions are not the
// engine's (CKFD, MKL-SR), the kernel methods on the engine (GDA), and
// LQMI's own default: every direction has unit length in its space — for a
// kernel model, with training embedding Z = K̃·A, αⱼᵀK̃αⱼ = αⱼ·Zⱼ — and
// with norm=constraint it does not.
func TestNormUnitReachesMethods(t *testing.T) {
	x, y := loadSklearn(t, "wine")
	x = minmax(x)
	y = compact(y)
	kernelLengths := func(f Model) []float64 {
		t.Helper()
		ff := f.(*Fitted)
		a := ff.Model.(*embed.KernelModel).A
		_, k := a.Dims()
		out := make([]float64, k)
		for j := range out {
			out[j] = math.Sqrt(mat.Dot(a.ColView(j), ff.Train.ColView(j)))
		}
		return out
	}
	linearLengths := func(w *mat.Dense) []float64 {
		_, k := w.Dims()
		out := make([]float64, k)
		for j := range out {
			out[j] = mat.Norm(w.ColView(j), 2)
		}
		return out
	}
	ckfdLengths := func(f Model) []float64 {
		t.Helper()
		chain := f.(*Fitted).Model.(embed.Chain)
		return linearLengths(chain[len(chain)-1].(*embed.LinearModel).W)
	}
	lqmiLengths := func(f Model) []float64 {
		t.Helper()
		return linearLengths(f.(*Fitted).Model.(*embed.LinearModel).W)
	}
	for _, tc := range []struct {
		name    string
		fit     func(norm embed.Norm) (Model, error)
		lengths func(Model) []float64
		auto    bool // the method's default is unit length
	}{
		{"gda", func(n embed.Norm) (Model, error) {
			return GDA{Kernel: kernel.RBF(1), Engine: Engine{Norm: n}}.Fit(x, y, 2)
		}, kernelLengths, false},
		{"mklsr", func(n embed.Norm) (Model, error) {
			return MKLSR{Kernels: []kernel.Kernel{kernel.Linear(), kernel.RBF(1)}, Engine: Engine{Norm: n}}.Fit(x, y, 2)
		}, kernelLengths, false},
		{"ckfd", func(n embed.Norm) (Model, error) {
			return CKFD{Kernel: kernel.RBF(1), Engine: Engine{Norm: n}}.Fit(x, y, 2)
		}, ckfdLengths, false},
		{"lqmi", func(n embed.Norm) (Model, error) {
			return LQMI{Engine: Engine{Norm: n}}.Fit(x, y, 2)
		}, lqmiLengths, true},
	} {
		for _, norm := range []embed.Norm{"", embed.NormConstraint, embed.NormUnit} {
			f, err := tc.fit(norm)
			if err != nil {
				t.Fatalf("%s norm=%q: %v", tc.name, norm, err)
			}
			unit := norm == embed.NormUnit || norm == "" && tc.auto
			for j, l := range tc.lengths(f) {
				if got := math.Abs(l-1) < 1e-9; got != unit {
					t.Errorf("%s norm=%q: direction %d has length %v (unit length wanted: %v)", tc.name, norm, j, l, unit)
				}
			}
		}
	}
}
