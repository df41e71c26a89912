package embed

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
)

// responses returns the graph eigenvectors y of A·y = λ·B·y in ℝⁿ used by
// spectral regression. Class-block objectives with an identity constraint
// reduce to a C×C problem on the class indicators; other graphs are solved
// densely in ℝⁿ.
func (p *Problem) responses(n int) (*mat.Dense, error) {
	if cb, ok := p.Objective.(*graph.ClassBlock); ok {
		if _, ok := p.Constraint.(graph.Identity); ok || p.Constraint == nil {
			vals, y, err := cb.EigIndicatorSpan(0, p.order())
			if err != nil {
				return nil, err
			}
			return keepNonzero(vals, y), nil
		}
	}
	var b *mat.SymDense
	if p.Constraint == nil {
		b = graph.Identity(n).Dense()
	} else {
		b = p.Constraint.Dense()
	}
	vals, y, err := linalg.GenSymEig(p.Objective.Dense(), b, 0, linalg.GenOptions{Order: p.order()})
	if err != nil {
		return nil, err
	}
	return keepNonzero(vals, y), nil
}

// keepNonzero drops responses whose eigenvalue is (numerically) zero.
func keepNonzero(vals []float64, y *mat.Dense) *mat.Dense {
	big := 0.0
	for _, v := range vals {
		big = max(big, abs(v))
	}
	var keep []int
	for j, v := range vals {
		if abs(v) > 1e-10*big {
			keep = append(keep, j)
		}
	}
	r, _ := y.Dims()
	out := mat.NewDense(r, max(len(keep), 1), nil)
	for c, j := range keep {
		out.SetCol(c, mat.Col(nil, j, y))
	}
	if len(keep) == 0 {
		return nil
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// regressionAlpha is the ridge of the regression step: p.Ridge, or when
// that is zero a numerical safeguard of 1e-10 times the mean diagonal of
// ΦᵀΦ (linear) or K̃ (kernel), which leaves the solution the minimum-norm
// interpolant for practical purposes.
func (p *Problem) regressionAlpha(rep *Rep) float64 {
	if p.Ridge > 0 {
		return p.Ridge
	}
	n, q := rep.Phi.Dims()
	t := 0.0
	if rep.Dual {
		for i := 0; i < n; i++ {
			t += rep.Phi.At(i, i)
		}
		return 1e-10 * t / float64(n)
	}
	for i := 0; i < n; i++ {
		for _, v := range rep.Phi.RawRowView(i) {
			t += v * v
		}
	}
	return 1e-10 * t / float64(q)
}

func (p *Problem) solveRegression(rep *Rep) ([]float64, *mat.Dense, error) {
	n, q := rep.Phi.Dims()
	y, err := p.responses(n)
	if err != nil {
		return nil, nil, err
	}
	if y == nil {
		return nil, nil, errors.New("embed: the graph has no non-degenerate eigenvector")
	}
	alpha := p.regressionAlpha(rep)
	var lhs *mat.SymDense
	var rhs mat.Dense
	if rep.Dual {
		lhs = linalg.Symmetrize(rep.Phi) // K̃ + αI
		rhs.CloneFrom(y)
	} else {
		lhs = scatter(rep.Phi, graph.Identity(n)) // ΦᵀΦ + αI
		rhs.Mul(rep.Phi.T(), y)
	}
	for i := 0; i < q; i++ {
		lhs.SetSym(i, i, lhs.At(i, i)+alpha)
	}
	var chol mat.Cholesky
	if !chol.Factorize(lhs) {
		return nil, nil, fmt.Errorf("embed: regression matrix is not positive definite (alpha=%g); increase alpha", alpha)
	}
	var v mat.Dense
	if err := chol.SolveTo(&v, &rhs); err != nil {
		return nil, nil, fmt.Errorf("embed: regression solve: %w", err)
	}
	return p.ritz(rep, &v)
}

// ritz orders (and rotates) the directions spanned by the columns of v by
// the original problem restricted to their span: with Sa = Vᵀ·Φᵀ·A·Φ·V and
// Sb = Vᵀ·(Φᵀ·B·Φ + ε·M)·V (M the feature metric; Sb = VᵀMV when B is nil), solve Sa·z = λ·Sb·z and
// return V·z. This fixes the order of directions inside degenerate
// eigenspaces of the graph, where spectral regression alone leaves it
// arbitrary.
func (p *Problem) ritz(rep *Rep, v *mat.Dense) ([]float64, *mat.Dense, error) {
	var pv mat.Dense
	pv.Mul(rep.Phi, v) // n×k projections of the training rows
	var sa mat.Dense
	sa.Mul(pv.T(), p.Objective.Apply(&pv))
	objRidge := p.ObjectiveRidge
	// Vᵀ·M·V for the feature metric M (K̃ or I).
	var vmv mat.Dense
	if rep.Dual {
		vmv.Mul(v.T(), &pv)
	} else {
		vmv.Mul(v.T(), v)
	}
	if objRidge != 0 {
		sa.Apply(func(i, j int, x float64) float64 { return x + objRidge*vmv.At(i, j) }, &sa)
	}
	var sb mat.Dense
	if p.Constraint != nil {
		sb.Mul(pv.T(), p.Constraint.Apply(&pv))
		if p.Ridge != 0 {
			sb.Apply(func(i, j int, x float64) float64 { return x + p.Ridge*vmv.At(i, j) }, &sb)
		}
	} else {
		sb.CloneFrom(&vmv)
	}
	vals, z, err := linalg.GenSymEig(linalg.Symmetrize(&sa), linalg.Symmetrize(&sb), 0, linalg.GenOptions{Order: p.order()})
	if err != nil {
		return nil, nil, err
	}
	var out mat.Dense
	out.Mul(v, z)
	linalg.FixSigns(&out)
	return vals, &out, nil
}
