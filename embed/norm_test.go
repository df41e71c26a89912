package embed

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
)

// Norm changes the scale of each direction and nothing else: against the
// default (constraint) solution of the same problem, every unit-norm
// column is the constraint column times one positive factor (so the same
// subspace, direction by direction, and the same values), and its length
// in feature space — ‖w‖ in the linear space, αᵀK̃α in a kernel space,
// with K̃ written out by testdata.CentredRBF — is 1. Both routes
// (dense, regression) and the statistics path are covered.
func TestNormUnit(t *testing.T) {
	x, y := engIris(t)
	n, _ := x.Dims()
	kern := kernel.RBF(1)
	for _, tc := range []struct {
		name  string
		space Space
		route Solver
	}{{"linear dense", Linear{}, Dense}, {"linear regression", Linear{}, Regression},
		{"kernel dense", Kernel{K: kern}, Dense}, {"kernel regression", Kernel{K: kern}, Regression}} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func(norm Norm) *Result {
				p := &Problem{Space: tc.space, Objective: graph.BetweenClass(y), Constraint: graph.Identity(n),
					Ridge: 1e-3, Solver: tc.route, MaxDims: 2, Norm: norm}
				r, err := p.Fit(x)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			c, u := mk(""), mk(NormUnit)
			vc, vu := engCoef(t, c.Model), engCoef(t, u.Model)
			var metric *mat.Dense
			if _, ok := tc.space.(Kernel); ok {
				metric, _ = testdata.CentredRBF(x, 1) // kern is RBF(1): exp(−‖x−y‖²/2)
			}
			_, k := vu.Dims()
			for j := 0; j < k; j++ {
				if math.Abs(c.Values[j]-u.Values[j]) > 1e-12*math.Abs(c.Values[j]) {
					t.Errorf("value %d: %v with norm=unit, %v without", j, u.Values[j], c.Values[j])
				}
				l := length(vu.ColView(j), metric)
				if math.Abs(l-1) > 1e-10 {
					t.Errorf("direction %d: feature-space length %v, want 1", j, l)
				}
				f := length(vc.ColView(j), metric) // vu = vc / f
				for i := 0; i < vc.RawMatrix().Rows; i++ {
					if d := math.Abs(vu.At(i, j)*f - vc.At(i, j)); d > 1e-10*(1+math.Abs(vc.At(i, j))) {
						t.Fatalf("direction %d row %d: %v·%v ≠ %v (not the same direction rescaled)", j, i, vu.At(i, j), f, vc.At(i, j))
					}
				}
			}
			// The training embedding is rescaled the same way.
			if d := engTrainZ(t, tc.space, x, u.Model); !mat.EqualApprox(d, u.Train, 1e-9) {
				t.Error("Result.Train is not the training embedding of the rescaled model")
			}
		})
	}
	t.Run("statistics", func(t *testing.T) {
		s, err := ScatterOf(x, y, true)
		if err != nil {
			t.Fatal(err)
		}
		r, err := (&ScatterProblem{Block: graph.BetweenClassBlock(s.Counts), Ridge: 1e-3, Solver: Dense, MaxDims: 2, Norm: NormUnit}).Solve(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		w := r.Model.(*LinearModel).W
		for j := 0; j < 2; j++ {
			if l := length(w.ColView(j), nil); math.Abs(l-1) > 1e-12 {
				t.Errorf("direction %d: length %v, want 1", j, l)
			}
		}
	})
	if _, err := (&Problem{Space: Linear{}, Objective: graph.Identity(n), Norm: "unitary"}).Fit(x); err == nil {
		t.Error("norm \"unitary\": no error")
	}
}

// length is √(vᵀ·M·v) (M nil: the identity).
func length(v mat.Vector, m *mat.Dense) float64 {
	if m == nil {
		return math.Sqrt(mat.Dot(v, v))
	}
	var mv mat.VecDense
	mv.MulVec(m, v)
	return math.Sqrt(mat.Dot(v, &mv))
}
