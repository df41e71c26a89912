package embed

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// rowSpace returns an orthonormal basis Q (p×r) of the row space of a
// linear representation Φ — the directions v with Φ·v ≠ 0 — from the
// eigen-decomposition of ΦᵀΦ (p ≤ n) or ΦΦᵀ (p > n: v = Φᵀu/√λ).
// Directions with eigenvalue at most tol times the largest are null.
func rowSpace(ctx context.Context, phi *mat.Dense, tol float64) (*mat.Dense, error) {
	n, p := phi.Dims()
	var vals []float64
	var q *mat.Dense
	var err error
	if p <= n {
		var s mat.Dense
		s.Mul(phi.T(), phi)
		vals, q, err = linalg.SymEigContext(ctx, linalg.Symmetrize(&s), 0, linalg.Largest)
	} else {
		var g mat.Dense
		g.Mul(phi, phi.T())
		var u *mat.Dense
		vals, u, err = linalg.SymEigContext(ctx, linalg.Symmetrize(&g), 0, linalg.Largest)
		if err == nil {
			q = new(mat.Dense)
			q.Mul(phi.T(), u)
			_, c := q.Dims()
			for j := 0; j < c; j++ {
				s := 0.0
				if vals[j] > 0 {
					s = 1 / math.Sqrt(vals[j])
				}
				for i := 0; i < p; i++ {
					q.Set(i, j, q.At(i, j)*s)
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 || vals[0] <= 0 {
		return nil, errors.New("embed: the training representation is zero (all rows identical)")
	}
	r := 0
	for r < len(vals) && vals[r] > tol*vals[0] {
		r++
	}
	rows, _ := q.Dims()
	return mat.DenseCopyOf(q.Slice(0, rows, 0, r)), nil
}

// solveJitter solves the problem with Jitter·I added to the constraint in
// coefficient space, on the row space of Φ (see Problem.Jitter).
//
// Linear space: with Q an orthonormal basis of the row space and Ψ = Φ·Q,
//
//	(Ψᵀ·A·Ψ + ε_A·I)·z = λ·(Ψᵀ·B·Ψ + ε_B·I + Jitter·I)·z,   v = Q·z.
//
// Kernel space: in the explicit feature coordinates Ψ = Q·Λ^{1/2} of
// K̃ = Q·Λ·Qᵀ (DualFeatures; range(K̃) only), a dual coefficient a = Q·Λ^{-1/2}·w
// has ‖a‖² = wᵀ·Λ⁻¹·w, so
//
//	(Ψᵀ·A·Ψ + ε_A·I)·w = λ·(Ψᵀ·B·Ψ + ε_B·I + Jitter·Λ⁻¹)·w,   a = Q·Λ^{-1/2}·w,
//
// which is the same problem as K̃·A·K̃·a = λ·(K̃·B·K̃ + ε_B·K̃ + Jitter·I)·a on
// range(K̃) (ε_A, ε_B: ObjectiveRidge, Ridge) without squaring the spectrum
// of K̃.
func (s *solve) jitter() ([]float64, *mat.Dense, error) {
	p, rep := s.p, s.prep
	tol := p.RankTol
	if tol == 0 {
		tol = 1e-10
	}
	var psi, back *mat.Dense
	var err error
	if rep.Dual {
		psi, back, err = DualFeatures(s.ctx, rep.Phi, tol)
	} else {
		back, err = rowSpace(s.ctx, rep.Phi, tol)
		if err == nil {
			psi = new(mat.Dense)
			psi.Mul(rep.Phi, back)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	n, r := psi.Dims()
	progress.Step(s.ctx, r, "objective and constraint matrices Φᵀ·G·Φ of order %d from %d rows", r, n)
	a, err := scatter(s.ctx, psi, p.Objective, "objective matrix")
	if err != nil {
		return nil, nil, err
	}
	var b *mat.SymDense
	if p.Constraint == nil {
		b = mat.NewSymDense(r, nil)
		for j := 0; j < r; j++ {
			b.SetSym(j, j, 1)
		}
	} else {
		if b, err = scatter(s.ctx, psi, p.Constraint, "constraint matrix"); err != nil {
			return nil, nil, err
		}
		for j := 0; j < r; j++ {
			b.SetSym(j, j, b.At(j, j)+p.Ridge)
		}
	}
	for j := 0; j < r; j++ {
		a.SetSym(j, j, a.At(j, j)+p.ObjectiveRidge)
		jit := p.Jitter
		if rep.Dual { // Λ⁻¹ with λⱼ = ‖Ψ_j‖²
			jit /= mat.Dot(psi.ColView(j), psi.ColView(j))
		}
		b.SetSym(j, j, b.At(j, j)+jit)
	}
	var vals []float64
	var w *mat.Dense
	progress.Step(s.ctx, r, "jittered generalized eigen-decomposition of order %d", r)
	if p.Minimize {
		vals, w, err = minimizeViaSum(s.ctx, a, b, tol, s.k)
	} else {
		vals, w, err = linalg.GenSymEigContext(s.ctx, a, b, s.k, linalg.GenOptions{RankTol: p.RankTol, Order: p.order()})
	}
	if err != nil {
		return nil, nil, err
	}
	var v mat.Dense
	v.Mul(back, w)
	linalg.FixSigns(&v)
	return vals, &v, nil
}

// minimizeViaSum returns the smallest eigenpairs of A·w = λ·B·w for
// positive semi-definite A and B through the equivalent problem
//
//	A·w = θ·(A + B)·w,   λ = θ/(1 − θ),
//
// rescaling each w so that wᵀ·B·w = 1. Reducing by A + B instead of B
// matters when B is positive definite only thanks to a tiny jitter (its
// condition number can reach 1e15, and a rank cut on it would drop the
// directions that matter most — those with zero objective, which collapse
// each class in KNDA); A + B is far better conditioned. Directions with
// 1 − θ ≤ tol (B numerically null: λ = ∞) are dropped.
func minimizeViaSum(ctx context.Context, a, b *mat.SymDense, tol float64, want int) ([]float64, *mat.Dense, error) {
	m := mat.NewSymDense(a.SymmetricDim(), nil)
	m.AddSym(a, b)
	if want >= a.SymmetricDim() {
		want = 0
	}
	theta, w, err := linalg.GenSymEigContext(ctx, a, m, want, linalg.GenOptions{RankTol: tol, Order: linalg.Smallest})
	if err != nil {
		return nil, nil, err
	}
	k := 0
	for k < len(theta) && 1-theta[k] > tol {
		k++
	}
	if want > 0 && k < len(theta) {
		// Directions with B numerically null came among the wanted ones:
		// every pair, so that the count of finite ones is right.
		return minimizeViaSum(ctx, a, b, tol, 0)
	}
	if k == 0 {
		return nil, nil, errors.New("embed: the constraint is numerically zero on every direction")
	}
	r, _ := w.Dims()
	vals := make([]float64, k)
	out := mat.NewDense(r, k, nil)
	for j := 0; j < k; j++ {
		vals[j] = theta[j] / (1 - theta[j])
		s := 1 / math.Sqrt(1-theta[j])
		for i := 0; i < r; i++ {
			out.Set(i, j, w.At(i, j)*s)
		}
	}
	return vals, out, nil
}

// tied returns the test of numerically equal neighbouring eigenvalues of
// breakTies for the values vals.
func (p *Problem) tied(vals []float64, viaSum bool) func(a, b float64) bool {
	tol := p.TieTol
	if tol == 0 {
		tol = 1e-10
	}
	const u = 0x1p-53
	big := 0.0
	for _, v := range vals {
		big = math.Max(big, math.Abs(v))
	}
	return func(a, b float64) bool {
		noise := 1e3 * u * big
		if viaSum {
			l := 1 + math.Max(math.Abs(a), math.Abs(b))
			noise = 1e3 * u * l * l
		}
		return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))+noise
	}
}

// breakTies rotates, in place, the columns of coef inside every cluster of
// numerically equal eigenvalues so that they diagonalise the secondary
// objective Vᵀ·Φᵀ·TieBreak·Φ·V, ordered largest first. The rotation is
// orthogonal inside each cluster, so the columns stay eigenvectors with
// the same (equal) eigenvalues and stay orthonormal under the constraint.
//
// Two neighbouring eigenvalues a, b are tied when
// |a − b| ≤ TieTol·max(|a|, |b|) + noise, with noise the rounding level of
// the solver that produced them: 1e3·u·max|λ| for a direct reduction by
// the constraint (its eigenvalues are those of a matrix of norm max|λ|),
// 1e3·u·(1 + |λ|)² for the reduction by A + B (λ = θ/(1 − θ), θ ∈ [0, 1]).
// A tolerance relative to max|λ| alone would merge every small eigenvalue
// of a minimisation that also has a few enormous ones.
func (p *Problem) breakTies(rep *Prepared, vals []float64, coef *mat.Dense, viaSum bool) {
	tied := p.tied(vals, viaSum)
	rows, _ := coef.Dims()
	changed := false
	for lo := 0; lo < len(vals); {
		hi := lo + 1
		for hi < len(vals) && tied(vals[hi-1], vals[hi]) {
			hi++
		}
		if hi-lo > 1 {
			vc := mat.DenseCopyOf(coef.Slice(0, rows, lo, hi))
			var pv mat.Dense
			pv.Mul(rep.Phi, vc)
			s, _ := scatter(nil, &pv, p.TieBreak, "") // a nil context never stops it
			if _, u, err := linalg.SymEig(s, 0, linalg.Largest); err == nil {
				var rot mat.Dense
				rot.Mul(vc, u)
				coef.Slice(0, rows, lo, hi).(*mat.Dense).Copy(&rot)
				changed = true
			}
		}
		lo = hi
	}
	if changed {
		linalg.FixSigns(coef)
	}
}
