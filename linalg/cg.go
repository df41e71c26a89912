package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/progress"
)

// CG is the preconditioned conjugate gradient LinearSolver for a symmetric
// positive definite A (Hestenes & Stiefel 1952; Saad, Iterative Methods for
// Sparse Linear Systems, 2nd ed., Alg. 9.1). The columns of the right-hand
// side block run in lockstep: every iteration applies A (and the
// preconditioner) once to the block of still-active columns, and each
// column has its own step lengths
//
//	α = rᵀz / pᵀAp,  x += α·p,  r −= α·Ap,  z = M⁻¹r,  β = r'ᵀz' / rᵀz,  p = z' + β·p.
//
// A column stops when its relative residual ‖r‖/‖b‖ reaches Tol; the
// residual is then recomputed as b − A·x (one more application to the
// columns that claim convergence) and the column restarts from it if the
// recurrence had drifted (residual replacement), so the tolerance holds for
// the true residual. Zero right-hand-side columns give zero solutions. The
// zero value is ready to use.
//
// The iterates depend only on the inputs (dot products are summed in fixed
// row blocks), so the result is bit-identical whatever GOMAXPROCS is when
// the operators are.
type CG struct {
	// Tol is the relative residual ‖A·x − b‖/‖b‖ every column must reach.
	// If zero, it is defaulted to DefaultCGTol.
	Tol float64
	// MaxIter bounds the iterations. If zero, it is defaulted to 2n + 100:
	// CG ends in at most n steps in exact arithmetic, rounding (loss of
	// conjugacy) delays convergence (Greenbaum & Strakoš 1992) and twice n
	// leaves room for that; the 100 covers small systems at tight
	// tolerances. A good preconditioner needs far fewer.
	MaxIter int
	// Precond applies M⁻¹, a symmetric positive definite approximation of
	// A⁻¹ (for instance NystromPreconditioner). Nil means none.
	Precond SymOperator
}

// DefaultCGTol is CG's relative residual tolerance when none is given.
const DefaultCGTol = 1e-10

// Name implements LinearSolver.
func (CG) Name() string { return "cg" }

// Solve implements LinearSolver. When MaxIter is reached before every
// column converged it returns the current iterate and its SolveInfo along
// with a *NotConvergedError; it returns ctx.Err() when ctx is cancelled
// (checked every iteration) and an error when A or the preconditioner
// turns out not to be positive definite.
func (s CG) Solve(ctx context.Context, a SymOperator, rhs *mat.Dense) (*mat.Dense, *SolveInfo, error) {
	n := a.Dim()
	rr, m := rhs.Dims()
	if n == 0 || m == 0 {
		return nil, nil, errors.New("linalg: cg: empty operator or right-hand side")
	}
	if rr != n {
		return nil, nil, fmt.Errorf("linalg: cg: right-hand side has %d rows, operator is %d×%d", rr, n, n)
	}
	if s.Precond != nil && s.Precond.Dim() != n {
		return nil, nil, fmt.Errorf("linalg: cg: preconditioner is %d×%d, operator is %d×%d", s.Precond.Dim(), s.Precond.Dim(), n, n)
	}
	tol := s.Tol
	if tol == 0 {
		tol = DefaultCGTol
	}
	if !(tol > 0) {
		return nil, nil, fmt.Errorf("linalg: cg: Tol = %v, must be positive", s.Tol)
	}
	maxIter := s.MaxIter
	if maxIter == 0 {
		maxIter = 2*n + 100
	}
	if maxIter < 0 {
		return nil, nil, fmt.Errorf("linalg: cg: MaxIter = %d, must be ≥ 0 (0 means 2n+100)", s.MaxIter)
	}
	x := mat.NewDense(n, m, nil)
	bnorm := colNorms(rhs)
	res := make([]float64, m) // final relative residuals
	var act []int             // active columns
	for j, b := range bnorm {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, nil, fmt.Errorf("linalg: cg: right-hand side column %d is not finite", j)
		}
		if b > 0 {
			act = append(act, j)
		}
	}
	info := &SolveInfo{}
	precond := func(dst, src *mat.Dense) {
		if s.Precond == nil {
			dst.Copy(src)
		} else {
			s.Precond.MulBlockTo(dst, src)
		}
	}
	// State of the active columns, compacted: column c of xc, r, p is the
	// original column act[c].
	var xc, r, p *mat.Dense
	var rho []float64
	if k := len(act); k > 0 {
		xc, r, p = mat.NewDense(n, k, nil), mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
		gatherCols(r, rhs, act)
		precond(p, r) // p = z = M⁻¹·r
		rho = colDots(r, p)
		if err := checkPositive(rho, act, "preconditioner", "rᵀ·M⁻¹·r"); err != nil {
			return nil, nil, err
		}
	}
	it := 0
	meter := progress.Start(ctx, n, "cg of order %d", n)
	for len(act) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if it == maxIter {
			break
		}
		it++
		q := mat.NewDense(n, len(act), nil)
		a.MulBlockTo(q, p)
		pq := colDots(p, q)
		if err := checkPositive(pq, act, "operator", "pᵀ·A·p"); err != nil {
			return nil, nil, err
		}
		alpha := make([]float64, len(act))
		for c := range act {
			alpha[c] = rho[c] / pq[c]
		}
		colAxpy(xc, alpha, p, 1)
		colAxpy(r, alpha, q, -1)
		rn := colNorms(r)
		if meter != nil {
			worst := 0.0
			for c, j := range act {
				worst = math.Max(worst, rn[c]/bnorm[j])
			}
			meter.Say("iteration %d: %d of %d right-hand sides converged, largest relative residual %.1e (tolerance %.0e)", it, m-len(act), m, worst, tol)
		}
		var claim []int
		for c, j := range act {
			if rn[c] <= tol*bnorm[j] {
				claim = append(claim, c)
			}
		}
		restart := make([]bool, len(act))
		done := make([]bool, len(act))
		if len(claim) > 0 {
			// Check the claims on the true residual b − A·x.
			xs := mat.NewDense(n, len(claim), nil)
			gatherCols(xs, xc, claim)
			tr := mat.NewDense(n, len(claim), nil)
			a.MulBlockTo(tr, xs)
			bs := mat.NewDense(n, len(claim), nil)
			gatherCols(bs, rhs, indexOf(act, claim))
			tr.Sub(bs, tr)
			trn := colNorms(tr)
			for i, c := range claim {
				j := act[c]
				if trn[i] <= tol*bnorm[j] {
					done[c] = true
					res[j] = trn[i] / bnorm[j]
					copyCol(x, j, xc, c)
				} else {
					// Residual replacement: go on from the true residual,
					// with a steepest-descent step for this column.
					copyCol(r, c, tr, i)
					restart[c] = true
				}
			}
			var keep []int
			for c := range act {
				if !done[c] {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				act = nil
				break
			}
			if len(keep) < len(act) {
				xc, r, p = subCols(xc, keep), subCols(r, keep), subCols(p, keep)
				rho, restart = pick(rho, keep), pick(restart, keep)
				act = indexOf(act, keep)
			}
		}
		z := mat.NewDense(n, len(act), nil)
		precond(z, r)
		rhoNew := colDots(r, z)
		if err := checkPositive(rhoNew, act, "preconditioner", "rᵀ·M⁻¹·r"); err != nil {
			return nil, nil, err
		}
		beta := make([]float64, len(act))
		for c := range act {
			if !restart[c] {
				beta[c] = rhoNew[c] / rho[c]
			}
		}
		colScale(p, beta) // p = z + β·p
		p.Add(p, z)
		rho = rhoNew
	}
	info.Iterations = it
	if len(act) > 0 {
		// Not converged: report the true residuals of the active columns.
		ax := mat.NewDense(n, len(act), nil)
		a.MulBlockTo(ax, xc)
		bs := mat.NewDense(n, len(act), nil)
		gatherCols(bs, rhs, act)
		ax.Sub(bs, ax)
		trn := colNorms(ax)
		for c, j := range act {
			res[j] = trn[c] / bnorm[j]
			copyCol(x, j, xc, c)
		}
	}
	for _, v := range res {
		info.Residual = max(info.Residual, v)
	}
	if len(act) > 0 {
		return x, info, &NotConvergedError{Solver: "cg", Converged: m - len(act), Wanted: m,
			Iterations: it, Residual: info.Residual, Tol: tol}
	}
	return x, info, nil
}

// indexOf returns sub mapped through idx: out[i] = idx[sub[i]].
func indexOf(idx, sub []int) []int {
	out := make([]int, len(sub))
	for i, c := range sub {
		out[i] = idx[c]
	}
	return out
}

// gatherCols sets dst[:, i] = src[:, cols[i]].
func gatherCols(dst, src *mat.Dense, cols []int) {
	n, _ := src.Dims()
	for i := 0; i < n; i++ {
		d, s := dst.RawRowView(i), src.RawRowView(i)
		for c, j := range cols {
			d[c] = s[j]
		}
	}
}

// copyCol sets dst[:, j] = src[:, c].
func copyCol(dst *mat.Dense, j int, src *mat.Dense, c int) {
	n, _ := src.Dims()
	for i := 0; i < n; i++ {
		dst.Set(i, j, src.At(i, c))
	}
}

// subCols returns the columns cols of a in a new matrix.
func subCols(a *mat.Dense, cols []int) *mat.Dense {
	n, _ := a.Dims()
	out := mat.NewDense(n, len(cols), nil)
	gatherCols(out, a, cols)
	return out
}

func pick[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, c := range idx {
		out[i] = v[c]
	}
	return out
}

// checkPositive returns an error naming the first column whose quadratic
// form is not positive.
func checkPositive(v []float64, act []int, what, form string) error {
	for c, x := range v {
		if !(x > 0) {
			return fmt.Errorf("linalg: cg: %s is not positive definite (%s = %.3g for right-hand side column %d)", what, form, x, act[c])
		}
	}
	return nil
}

// cgRowBlock is the fixed row block of the column reductions.
const cgRowBlock = 2048

// colDots returns the column dot products aᵀb, summed over fixed row
// blocks (in parallel) and then over the blocks in order: deterministic.
func colDots(a, b *mat.Dense) []float64 {
	n, m := a.Dims()
	nb := (n + cgRowBlock - 1) / cgRowBlock
	part := make([]float64, nb*m)
	par.Blocks(n, cgRowBlock, func(lo, hi int) {
		acc := part[(lo/cgRowBlock)*m : (lo/cgRowBlock+1)*m]
		for i := lo; i < hi; i++ {
			ra, rb := a.RawRowView(i), b.RawRowView(i)
			for j, v := range ra {
				acc[j] += v * rb[j]
			}
		}
	})
	out := make([]float64, m)
	for blk := 0; blk < nb; blk++ {
		for j := range out {
			out[j] += part[blk*m+j]
		}
	}
	return out
}

// colNorms returns the Euclidean norms of the columns (scaled sums of
// squares, so that huge or tiny entries neither overflow nor underflow).
func colNorms(a *mat.Dense) []float64 {
	n, m := a.Dims()
	scale := make([]float64, m)
	for i := 0; i < n; i++ {
		for j, v := range a.RawRowView(i) {
			scale[j] = max(scale[j], math.Abs(v))
		}
	}
	nb := (n + cgRowBlock - 1) / cgRowBlock
	part := make([]float64, nb*m)
	par.Blocks(n, cgRowBlock, func(lo, hi int) {
		acc := part[(lo/cgRowBlock)*m : (lo/cgRowBlock+1)*m]
		for i := lo; i < hi; i++ {
			for j, v := range a.RawRowView(i) {
				if s := scale[j]; s > 0 && !math.IsInf(s, 0) {
					w := v / s
					acc[j] += w * w
				}
			}
		}
	})
	out := make([]float64, m)
	for j := range out {
		s := 0.0
		for blk := 0; blk < nb; blk++ {
			s += part[blk*m+j]
		}
		switch {
		case math.IsNaN(scale[j]) || math.IsInf(scale[j], 0):
			out[j] = scale[j]
		default:
			out[j] = scale[j] * math.Sqrt(s)
		}
	}
	return out
}

// colAxpy sets y[:, j] += sign·alpha[j]·x[:, j].
func colAxpy(y *mat.Dense, alpha []float64, x *mat.Dense, sign float64) {
	n, _ := y.Dims()
	par.Blocks(n, cgRowBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ry, rx := y.RawRowView(i), x.RawRowView(i)
			for j, v := range rx {
				ry[j] += sign * alpha[j] * v
			}
		}
	})
}

// colScale sets y[:, j] *= beta[j].
func colScale(y *mat.Dense, beta []float64) {
	n, _ := y.Dims()
	for i := 0; i < n; i++ {
		ry := y.RawRowView(i)
		for j := range ry {
			ry[j] *= beta[j]
		}
	}
}

// NystromPreconditioner returns the randomized Nyström preconditioner of
// Frangella, Tropp & Udell ("Randomized Nyström preconditioning", SIAM J.
// Matrix Anal. Appl. 44, 2023; arXiv:2110.02820) for A + shift·I with A
// symmetric positive semi-definite, to be used as CG.Precond on
// ShiftOp{A, shift}. With the rank-ℓ Nyström approximation
// Â = U·Λ̂·Uᵀ (their Algorithm 2.1, ℓ = rank, from a seeded Gaussian test
// matrix Ω):
//
//	Ω = qr(randn(n, ℓ)),  Y = A·Ω,  ν = √n·ε·‖Y‖₂,  Y_ν = Y + ν·Ω,
//	Ωᵀ·Y_ν = Cᵀ·C (Cholesky),  B = Y_ν·C⁻¹,  B = U·Σ·Vᵀ (thin SVD),
//	Λ̂ = max(0, Σ² − ν·I),
//
// the preconditioner is (their eq. 5.3)
//
//	P⁻¹ = (λ̂_ℓ + μ)·U·(Λ̂ + μ·I)⁻¹·Uᵀ + (I − U·Uᵀ),   μ = shift,
//
// applied as x + U·diag((λ̂_ℓ + μ)/(λ̂_i + μ) − 1)·Uᵀ·x. When ℓ is at least
// the effective dimension of A at μ, the preconditioned system has a
// condition number bounded by a small constant with high probability
// (their Theorem 5.1), so CG needs a few tens of iterations whatever the
// conditioning of A + μ·I. Building it costs ℓ applications of A (one
// block) and O(n·ℓ²) flops. The same seed gives the same preconditioner.
func NystromPreconditioner(ctx context.Context, a SymOperator, shift float64, rank int, seed uint64) (SymOperator, error) {
	n := a.Dim()
	if rank < 1 || rank > n {
		return nil, fmt.Errorf("linalg: Nyström preconditioner: rank = %d, must be in [1, %d]", rank, n)
	}
	if !(shift >= 0) || math.IsInf(shift, 0) {
		return nil, fmt.Errorf("linalg: Nyström preconditioner: shift = %v, must be finite and ≥ 0", shift)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	omega := randomOrthonormal(rand.New(rand.NewPCG(seed, 0x6e7973747230)), n, rank)
	y := MulBlock(a, omega)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// ‖Y‖₂ from the small Gram matrix YᵀY.
	var yty mat.SymDense
	yty.SymOuterK(1, y.T())
	var es mat.EigenSym
	if !es.Factorize(&yty, false) {
		return nil, errors.New("linalg: Nyström preconditioner: eigen-decomposition of YᵀY failed")
	}
	ev := es.Values(nil)
	ynorm := math.Sqrt(max(0, ev[len(ev)-1]))
	if math.IsNaN(ynorm) || math.IsInf(ynorm, 0) {
		return nil, errors.New("linalg: Nyström preconditioner: A·Ω is not finite")
	}
	nu := math.Sqrt(float64(n)) * machEps * ynorm
	if nu == 0 {
		nu = safeMin
	}
	// Y_ν = Y + ν·Ω, small = Ωᵀ·Y_ν (symmetrised).
	y.Add(y, scaled(nu, omega))
	var sm mat.Dense
	sm.Mul(omega.T(), y)
	f, err := Cholesky(Symmetrize(&sm))
	if err != nil {
		return nil, fmt.Errorf("linalg: Nyström preconditioner: Ωᵀ·A·Ω is not positive definite (is A positive semi-definite?): %w", err)
	}
	// B = Y_ν·L⁻ᵀ (Ωᵀ·Y_ν = L·Lᵀ, C = Lᵀ): rows of Y_ν forward-solved.
	f.fwdRows(y, false, nil)
	var svd mat.SVD
	if !svd.Factorize(y, mat.SVDThinU) {
		return nil, errors.New("linalg: Nyström preconditioner: SVD failed")
	}
	sig := svd.Values(nil)
	u := &mat.Dense{}
	svd.UTo(u)
	lam := make([]float64, rank)
	for i, sv := range sig {
		lam[i] = max(0, sv*sv-nu)
	}
	den := lam[rank-1] + shift
	if !(den > 0) {
		return nil, fmt.Errorf("linalg: Nyström preconditioner: λ̂_ℓ + shift = %v; with a zero shift the rank must not exceed the numerical rank of A", den)
	}
	d := make([]float64, rank)
	for i := range d {
		d[i] = den/(lam[i]+shift) - 1
	}
	return &nystromPrecond{u: u, d: d, lambda: lam, shift: shift}, nil
}

// randomOrthonormal returns an n×k matrix with orthonormal columns: the
// thin Q of the QR factorization of a Gaussian matrix drawn from rng
// (Haar-distributed for k = n).
//
// The thin Q comes from Dgeqrf and Dorgqr (mat.QR would form the full n×n
// Q).
func randomOrthonormal(rng *rand.Rand, n, k int) *mat.Dense {
	g := make([]float64, n*k)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	impl := lapackgo.Implementation{}
	tau := make([]float64, k)
	q1, q2 := make([]float64, 1), make([]float64, 1)
	impl.Dgeqrf(n, k, g, k, tau, q1, -1)
	impl.Dorgqr(n, k, k, g, k, tau, q2, -1)
	work := make([]float64, max(int(q1[0]), int(q2[0]), 1))
	impl.Dgeqrf(n, k, g, k, tau, work, len(work))
	impl.Dorgqr(n, k, k, g, k, tau, work, len(work))
	return mat.NewDense(n, k, g)
}

func scaled(alpha float64, a *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(alpha, a)
	return &out
}

// nystromPrecond applies P⁻¹ = I + U·diag(d)·Uᵀ.
type nystromPrecond struct {
	u      *mat.Dense // n×ℓ, orthonormal columns
	d      []float64  // (λ̂_ℓ + μ)/(λ̂_i + μ) − 1
	lambda []float64  // Λ̂, descending
	shift  float64
}

func (p *nystromPrecond) Dim() int { n, _ := p.u.Dims(); return n }

func (p *nystromPrecond) MulBlockTo(dst, src *mat.Dense) {
	checkBlock(p.Dim(), dst, src)
	var t mat.Dense
	t.Mul(p.u.T(), src) // ℓ×m
	_, m := src.Dims()
	for i, di := range p.d {
		row := t.RawRowView(i)
		for j := 0; j < m; j++ {
			row[j] *= di
		}
	}
	dst.Mul(p.u, &t)
	dst.Add(dst, src)
}
