package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

// Lanczos is a block Lanczos eigensolver with thick restart and full
// reorthogonalisation for the standard symmetric problem A·v = λ·v
// (b must be nil; use LOBPCG for A·v = λ·B·v). It returns the k eigenpairs
// at either end of the spectrum of an implicit operator that is applied
// only to blocks of vectors.
//
// # Algorithm
//
// With an orthonormal basis V (n×j) of a block Krylov subspace, the next
// block Q and a coupling matrix G, the solver keeps the relation
//
//	A·V = V·H + Q·G,   H = Vᵀ·A·V (j×j),   Vᵀ·Q = 0.
//
// Each step appends Q to V, applies A to it (one block product) and
// orthogonalises the result against the whole basis (block classical
// Gram–Schmidt twice, then Cholesky-QR twice, with a column-by-column
// modified Gram–Schmidt fallback: full reorthogonalisation, robust rather
// than fast; the basis is small). The projection coefficients fill the
// block column of H, so H is the explicit Rayleigh quotient, not a
// three-term recurrence that rounding would corrupt. When the new block is
// (nearly) dependent on the basis (an invariant subspace was found), the
// dependent columns are replaced by random vectors orthogonal to the basis
// and the iteration continues in the rest of the space.
//
// When the basis reaches Subspace columns, the Ritz pairs (θᵢ, V·sᵢ) of H
// are computed; the residual of a Ritz pair is ‖A·y − θ·y‖ = ‖G·s‖ without
// any product with A. If the k wanted pairs have not converged, the basis
// is thick-restarted (Wu and Simon 2000; Stathopoulos, Saad and Wu 1998):
// V ← V·S₁ with the l = k + (Subspace − k)/2 best Ritz vectors S₁, H ← diag(θ),
// G ← G·S₁, and the expansion continues from the same Q. A block of size
// Block > 1 finds eigenvalues of multiplicity up to Block, which
// single-vector Lanczos cannot separate in exact arithmetic.
//
// When the Krylov subspace would fill the space (n < k + 2·Block, or the
// subspace capped at n − Block cannot hold k + Block vectors), the problem
// is solved exactly: the operator is densified with DenseOf and SymEig
// computes the pairs.
//
// # Convergence
//
// A pair converges when its relative residual
//
//	ρ = ‖A·y − θ·y‖ / max(‖A·y‖ + |θ|, ‖A‖)
//
// is at most Tol, with ‖A‖ estimated by the largest |Ritz value| seen (the
// second term keeps the test meaningful for θ ≈ 0). When the estimates say
// that all k wanted pairs have converged, the residuals are recomputed with
// an explicit product A·Y (k more operator applications) and the solver
// stops only if these pass too; EigenResult.Residual is the largest
// explicit ρ. With Tol 1e-10 the eigenvalues are accurate to about
// Tol²·‖A‖/gap and 1e-10·‖A‖ at worst, and the vectors to Tol·‖A‖/gap
// (Davis–Kahan). Eigenvalues of multiplicity larger than Block may be
// found with fewer copies than they have (a Krylov method sees one vector
// per eigenspace per start vector); raise Block when that matters.
//
// Iterations counts restart cycles; MatVecs counts single-vector
// applications of A. On a *NotConvergedError the returned result holds the
// current approximations and their explicit residual.
//
// References: C. Lanczos (1950); G. H. Golub and R. Underwood (1977), the
// block Lanczos method; K. Wu and H. Simon (2000), thick-restart Lanczos,
// SIAM J. Matrix Anal. Appl. 22(2); G. W. Stewart (2001), the Krylov–Schur
// algorithm; J. W. Daniel, W. B. Gragg, L. Kaufman and G. W. Stewart
// (1976), reorthogonalisation ("twice is enough").
type Lanczos struct {
	// Tol is the relative residual tolerance ρ ≤ Tol of every returned
	// pair. Zero means 1e-10. Values below about 1e-13 may not be
	// attainable in float64.
	Tol float64
	// MaxIter is the maximum number of restart cycles. Zero means 1000.
	MaxIter int
	// Block is the number of vectors added per step (the block size).
	// Zero means 4 (capped at n).
	Block int
	// Subspace is the largest basis size before a restart. Zero means
	// max(2k, k+32); it is capped at n − Block and must hold at least
	// k + Block vectors.
	Subspace int
	// Seed seeds the random start block and breakdown vectors (PCG of
	// math/rand/v2). Zero means a fixed default seed.
	Seed uint64
}

const (
	lanczosDefaultTol     = 1e-10
	lanczosDefaultMaxIter = 1000
	lanczosDefaultBlock   = 4
)

// Name implements EigenSolver.
func (Lanczos) Name() string { return "lanczos" }

// Eigs implements EigenSolver.
func (s Lanczos) Eigs(ctx context.Context, a, b SymOperator, k int, order Order) (*EigenResult, error) {
	const name = "lanczos"
	n, err := iterValidate(ctx, name, a, b, k, order)
	if err != nil {
		return nil, err
	}
	if b != nil {
		return nil, errors.New("linalg: lanczos solves the standard problem A·v = λ·v only (b must be nil); use LOBPCG for the generalized problem A·v = λ·B·v")
	}
	tol, maxIter, bl, m, err := s.settings(n, k)
	if err != nil {
		return nil, err
	}
	if m < 0 {
		return denseEigs(name, a, nil, k, order)
	}
	l := min(k+(m-k)/2, m-bl)

	rng := iterRand(s.Seed)
	ow := &orthoWork{rng: rng, relDrop: math.Min(1e-12, 1e-2*tol)}
	vb := mat.NewDense(n, m, nil) // basis V
	qb := mat.NewDense(n, bl, nil)
	wb := mat.NewDense(n, bl, nil)
	h := mat.NewDense(m, m, nil)
	var g *mat.Dense // bl×j coupling A·V − V·H = Q·G
	tmp := make([]float64, 64*m)
	norms := make([]float64, bl)
	res := &EigenResult{}

	fillNormal(qb, rng)
	ow.orthoAgainst(nil, qb, 0)
	meter := progress.Start(ctx, n, "%s eigen-solver of order %d", name, n)
	j := 0
	anorm := 0.0
	for iter := 1; ; iter++ {
		for j+bl <= m {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			denseColumns(vb, j, j+bl).Copy(qb)
			if err := applyOp(name, "A", a, wb, qb); err != nil {
				return nil, err
			}
			res.MatVecs += bl
			colNormsTo(norms, wb)
			anorm = math.Max(anorm, maxOf(norms))
			c, r := ow.orthoAgainst(denseColumns(vb, 0, j+bl), wb, anorm)
			for row := 0; row < j; row++ {
				for col := 0; col < bl; col++ {
					h.Set(row, j+col, c.At(row, col))
					h.Set(j+col, row, c.At(row, col))
				}
			}
			for r1 := 0; r1 < bl; r1++ {
				for r2 := 0; r2 < bl; r2++ {
					h.Set(j+r1, j+r2, 0.5*(c.At(j+r1, r2)+c.At(j+r2, r1)))
				}
			}
			j += bl
			qb, wb = wb, qb
			g = mat.NewDense(bl, j, nil)
			g.Slice(0, bl, j-bl, j).(*mat.Dense).Copy(r)
		}

		theta, sv, hnorm, err := ritzPairs(h, j, max(k, l), order)
		if err != nil {
			return nil, fmt.Errorf("linalg: lanczos: %w", err)
		}
		anorm = math.Max(anorm, hnorm)
		var gs mat.Dense
		gs.Mul(g, sv.Slice(0, j, 0, k))
		est := make([]float64, k)
		colNormsTo(est, &gs)
		nconv := 0
		for i := 0; i < k; i++ {
			if est[i] <= tol*math.Max(2*math.Abs(theta[i]), anorm) {
				nconv++
			}
		}
		res.Iterations = iter
		meter.Say("restart %d: %d of %d pairs converged", iter, nconv, k)
		if nconv == k || iter >= maxIter {
			x := mat.NewDense(n, k, nil)
			x.Mul(denseColumns(vb, 0, j), sv.Slice(0, j, 0, k))
			ax := mat.NewDense(n, k, nil)
			if err := applyOp(name, "A", a, ax, x); err != nil {
				return nil, err
			}
			res.MatVecs += k
			rho := make([]float64, k)
			relResiduals(rho, x, ax, x, theta, anorm)
			res.Residual = maxOf(rho)
			if res.Residual <= tol || iter >= maxIter {
				FixSigns(x)
				res.Values, res.Vectors = theta[:k:k], x
				if res.Residual > tol {
					return res, &NotConvergedError{Solver: name, Converged: countConverged(rho, tol), Wanted: k,
						Iterations: iter, Residual: res.Residual, Tol: tol}
				}
				return res, nil
			}
			// The residual estimates were optimistic (rounding in the
			// relation A·V = V·H + Q·G): keep iterating.
		}

		// Thick restart with the l best Ritz vectors.
		rowTransformTo(denseColumns(vb, 0, l), denseColumns(vb, 0, j), sv.Slice(0, j, 0, l).(*mat.Dense), tmp)
		h.Zero()
		for i := 0; i < l; i++ {
			h.Set(i, i, theta[i])
		}
		var gn mat.Dense
		gn.Mul(g, sv.Slice(0, j, 0, l))
		g = &gn
		j = l
	}
}

// settings returns the tolerance, restart limit, block size and subspace
// size (m < 0: solve densely) of s for an n×n problem with k wanted pairs.
func (s Lanczos) settings(n, k int) (tol float64, maxIter, bl, m int, err error) {
	if tol, maxIter, err = iterStop("lanczos", s.Tol, s.MaxIter, lanczosDefaultTol, lanczosDefaultMaxIter); err != nil {
		return 0, 0, 0, 0, err
	}
	switch {
	case s.Block < 0:
		return 0, 0, 0, 0, fmt.Errorf("linalg: lanczos: Block = %d; it must be ≥ 0 (0 means %d)", s.Block, lanczosDefaultBlock)
	case s.Subspace < 0:
		return 0, 0, 0, 0, fmt.Errorf("linalg: lanczos: Subspace = %d; it must be ≥ 0 (0 means max(2k, k+32))", s.Subspace)
	}
	bl = s.Block
	if bl == 0 {
		bl = lanczosDefaultBlock
	}
	bl = min(bl, n)
	if s.Subspace > 0 && s.Subspace < k+bl {
		return 0, 0, 0, 0, fmt.Errorf("linalg: lanczos: Subspace = %d cannot hold k + Block = %d vectors", s.Subspace, k+bl)
	}
	m = s.Subspace
	if m == 0 {
		m = max(2*k, k+32)
	}
	m = min(m, n-bl)
	if m < k+bl {
		m = -1 // the Krylov subspace would fill the space: solve exactly
	}
	return tol, maxIter, bl, m, nil
}

// ritzPairs returns the want Ritz values of the symmetric j×j leading
// block of h at the end given by order (in that order), the j×want matrix
// of their eigenvectors, and the spectral norm of the block.
func ritzPairs(h *mat.Dense, j, want int, order Order) ([]float64, *mat.Dense, float64, error) {
	hs := mat.NewSymDense(j, nil)
	for r := 0; r < j; r++ {
		for c := r; c < j; c++ {
			hs.SetSym(r, c, 0.5*(h.At(r, c)+h.At(c, r)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(hs, true) {
		return nil, nil, 0, errors.New("eigen-decomposition of the projected matrix did not converge")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	idx := pickIndex(j, want, order)
	theta := make([]float64, len(idx))
	sv := mat.NewDense(j, len(idx), nil)
	for c, p := range idx {
		theta[c] = vals[p]
		for r := 0; r < j; r++ {
			sv.Set(r, c, vecs.At(r, p))
		}
	}
	return theta, sv, math.Max(math.Abs(vals[0]), math.Abs(vals[j-1])), nil
}
