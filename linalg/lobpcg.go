package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

// LOBPCG is the locally optimal block preconditioned conjugate gradient
// eigensolver for the symmetric-definite pencil A·v = λ·B·v (B positive
// definite; b nil means B = I), at either end of the spectrum, with an
// optional preconditioner.
//
// # Algorithm
//
// A block X of sx = k + max(4, k/10) vectors (the extra "guard" vectors
// speed up convergence of the k-th pair and keep clusters at the boundary
// whole; sx ≤ n/5) is improved by Rayleigh–Ritz on the B-orthonormal basis
//
//	S = [X, P, W],   W = T·R,   R = A·X − B·X·Θ,
//
// where T is Precond (T ≈ A⁻¹ for the smallest pairs, for example an
// incomplete factorisation or a shift-inverted solve; nil means T = I) and
// P holds the previous search directions. The new X are the sx Ritz vectors
// at the wanted end; the new P is their component along [P, W], computed
// directly rather than as a difference of close vectors (Hetmaniuk and
// Lehoucq 2006). Every product A·W and B·W is explicit; A·X, B·X, A·P and
// B·P follow by the same linear combinations as X and P.
//
// The robustness measures are those of Duersch, Shao, Yang and Gu (2018):
// W is B-orthogonalised against X and P twice and B-orthonormalised by
// SVQB (Stathopoulos and Wu 2002: eigen-decomposition of the scaled Gram
// matrix Wᵀ·B·W), dropping directions that are numerically dependent, in
// two rounds; P is B-orthogonalised against X and B-orthonormalised the
// same way, and when its Gram matrix is ill-conditioned (smallest scaled
// eigenvalue below 1e-10) P is dropped for that step (a restart, as in
// Knyazev's BLOPEX and SciPy's lobpcg when their Cholesky factorisation
// fails); if the Rayleigh–Ritz Gram matrix of S is still numerically
// singular the step is redone without P. If every new direction is
// dependent on X and P (stagnation), W is replaced by random vectors.
// Converged pairs are soft-locked: they stay in X and in the Rayleigh–Ritz
// projection, but their residuals are no longer added to the basis.
// Problems too small for the method (n < 5k) are solved densely with
// GenSymEig.
//
// # Convergence
//
// A pair converges when its relative residual
//
//	ρ = ‖A·x − θ·B·x‖ / max(‖A·x‖ + |θ|·‖B·x‖, ‖A‖·‖x‖)
//
// is at most Tol, ‖A‖ being estimated from the products computed so far
// (the second term keeps the test meaningful for θ ≈ 0, the null vector of
// a Laplacian). When the k wanted pairs pass, A·X and B·X are recomputed
// explicitly for them and the solver stops only if the test still holds;
// EigenResult.Residual is the largest explicit ρ. Iterations counts LOBPCG
// steps; MatVecs counts single-vector applications of A (B and the
// preconditioner are applied about as often). On a *NotConvergedError the
// returned result holds the current approximations.
//
// Ill-conditioned B: the smallest pairs are well determined and converge
// as for B = I (tested with cond(B) = 1e10). The largest pairs of such a
// pencil live in the near-null space of B; they are determined only to
// about eps·cond(B) (a relative residual of 1e-6 at cond(B) = 1e10, even
// for the dense GenSymEig), and the unpreconditioned iteration crawls
// there. Precondition with T ≈ B⁻¹ (tested with cond(B) = 1e4), add a
// ridge to B, or, when A is positive definite, solve B·v = μ·A·v for the
// smallest μ = 1/λ.
//
// Memory: about nine n×sx blocks (six when B = I). Convergence without a
// preconditioner depends on the relative gap between the wanted eigenvalues
// and the rest of the spectrum, like conjugate gradients on an operator of
// that condition number; Lanczos is usually faster for the standard
// problem without a preconditioner.
//
// References: A. V. Knyazev (2001), Toward the optimal preconditioned
// eigensolver: LOBPCG, SIAM J. Sci. Comput. 23(2); U. Hetmaniuk and
// R. Lehoucq (2006), Basis selection in LOBPCG, J. Comput. Phys. 218;
// J. A. Duersch, M. Shao, C. Yang and M. Gu (2018), A robust and efficient
// implementation of LOBPCG, SIAM J. Sci. Comput. 40(5); A. Stathopoulos
// and K. Wu (2002), A block orthogonalization procedure with constant
// synchronization requirements, SIAM J. Sci. Comput. 23(6).
type LOBPCG struct {
	// Tol is the relative residual tolerance ρ ≤ Tol of every returned
	// pair. Zero means 1e-10.
	Tol float64
	// MaxIter is the maximum number of LOBPCG steps. Zero means 1000.
	MaxIter int
	// Precond, if not nil, is a symmetric positive definite T ≈ A⁻¹ (or
	// (A − σ·B)⁻¹ for a shift σ below the wanted eigenvalues) applied to
	// the residuals. Its output must be finite.
	Precond SymOperator
	// Seed seeds the random initial block (PCG of math/rand/v2). Zero
	// means a fixed default seed.
	Seed uint64
}

const (
	lobpcgDefaultTol     = 1e-10
	lobpcgDefaultMaxIter = 1000
	// lobpcgPRestart: P is dropped for a step when the smallest
	// eigenvalue of its scaled Gram matrix is below this.
	lobpcgPRestart = 1e-10
	// lobpcgDrop: W directions whose scaled Gram eigenvalue is below this
	// (relative to the largest) are dropped as dependent.
	lobpcgDrop = 1e-14
)

// Name implements EigenSolver.
func (LOBPCG) Name() string { return "lobpcg" }

// Eigs implements EigenSolver.
func (s LOBPCG) Eigs(ctx context.Context, a, b SymOperator, k int, order Order) (*EigenResult, error) {
	const name = "lobpcg"
	n, err := iterValidate(ctx, name, a, b, k, order)
	if err != nil {
		return nil, err
	}
	tol, maxIter, err := iterStop(name, s.Tol, s.MaxIter, lobpcgDefaultTol, lobpcgDefaultMaxIter)
	if err != nil {
		return nil, err
	}
	if s.Precond != nil && s.Precond.Dim() != n {
		return nil, fmt.Errorf("linalg: lobpcg: A is %d×%d but the preconditioner is %d×%d", n, n, s.Precond.Dim(), s.Precond.Dim())
	}
	sx := min(k+max(4, k/10), n/5)
	if sx < k {
		return denseEigs(name, a, b, k, order)
	}
	r := &lobpcgRun{name: name, n: n, sx: sx, k: k, a: a, b: b, t: s.Precond, order: order,
		tol: tol, maxIter: maxIter, rng: iterRand(s.Seed)}
	return r.run(ctx)
}

// lobpcgRun is the state of one LOBPCG solve. When B = I the B-images
// alias their vectors (bx == x, bp == p, bw == w) and are never updated
// separately.
type lobpcgRun struct {
	name         string
	n, sx, k     int
	a, b, t      SymOperator
	order        Order
	tol          float64
	maxIter      int
	rng          *rand.Rand
	x, ax, bx    *mat.Dense // n×sx Ritz block and its images
	p, ap, bp    *mat.Dense // n×sx buffers: np search directions
	w, aw, bw    *mat.Dense // n×sx buffers: nw new directions
	np, nw       int
	theta, rho   []float64
	anorm        float64
	matvecs      int
	tmp          []float64
	vax, vbx     *mat.Dense // explicit A·X, B·X of the k wanted pairs
	iterations   int
	normsBefore  []float64 // scratch of orthoW
	normsScratch []float64 // scratch of orthoW
	anScratch    []float64 // scratch of applyA (2·sx)
}

func (r *lobpcgRun) bIsI() bool { return r.b == nil }

// bImage returns m, a B-image, or nil when B = I (m then aliases the
// vectors themselves and must not be transformed a second time).
func (r *lobpcgRun) bImage(m *mat.Dense) *mat.Dense {
	if r.bIsI() {
		return nil
	}
	return m
}

// cols returns the n×c view of the first c columns of m.
func (r *lobpcgRun) cols(m *mat.Dense, c int) *mat.Dense { return denseColumns(m, 0, c) }

func (r *lobpcgRun) applyA(dst, src *mat.Dense) error {
	_, c := src.Dims()
	r.matvecs += c
	if err := applyOp(r.name, "A", r.a, dst, src); err != nil {
		return err
	}
	// ‖A‖ ≥ ‖A·s‖/‖s‖ for every column s.
	an, sn := r.anScratch[:c], r.anScratch[r.sx:r.sx+c]
	colNormsTo(an, dst)
	colNormsTo(sn, src)
	for i := range an {
		if sn[i] > 0 {
			r.anorm = math.Max(r.anorm, an[i]/sn[i])
		}
	}
	return nil
}

func (r *lobpcgRun) applyB(dst, src *mat.Dense) error {
	if r.bIsI() {
		if &dst.RawMatrix().Data[0] != &src.RawMatrix().Data[0] {
			dst.Copy(src)
		}
		return nil
	}
	return applyOp(r.name, "B", r.b, dst, src)
}

func (r *lobpcgRun) run(ctx context.Context) (*EigenResult, error) {
	n, sx := r.n, r.sx
	r.x, r.ax = mat.NewDense(n, sx, nil), mat.NewDense(n, sx, nil)
	r.p, r.ap = mat.NewDense(n, sx, nil), mat.NewDense(n, sx, nil)
	r.w, r.aw = mat.NewDense(n, sx, nil), mat.NewDense(n, sx, nil)
	if r.bIsI() {
		r.bx, r.bp, r.bw = r.x, r.p, r.w
	} else {
		r.bx, r.bp, r.bw = mat.NewDense(n, sx, nil), mat.NewDense(n, sx, nil), mat.NewDense(n, sx, nil)
	}
	r.tmp = make([]float64, 64*3*sx)
	r.rho = make([]float64, sx)
	r.normsBefore, r.normsScratch = make([]float64, sx), make([]float64, sx)
	r.anScratch = make([]float64, 2*sx)

	if err := r.initX(); err != nil {
		return nil, err
	}
	meter := progress.Start(ctx, n, "%s eigen-solver of order %d", r.name, n)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		relResiduals(r.rho, r.x, r.ax, r.bx, r.theta, r.anorm)
		conv := countConverged(r.rho[:r.k], r.tol)
		meter.Say("iteration %d: %d of %d pairs converged, largest residual %.1e (tolerance %.0e)", r.iterations, conv, r.k, maxOf(r.rho[:r.k]), r.tol)
		if conv == r.k || r.iterations >= r.maxIter {
			res, err, done := r.verify()
			if done {
				return res, err
			}
		}
		r.iterations++
		if err := r.step(); err != nil {
			return nil, err
		}
	}
}

// initX fills X with a random block, B-orthonormalises it and performs
// the first Rayleigh–Ritz projection on span(X).
func (r *lobpcgRun) initX() error {
	for attempt := 0; ; attempt++ {
		fillNormal(r.x, r.rng)
		if err := r.applyB(r.bx, r.x); err != nil {
			return err
		}
		kept, ratio := svqbDrop(r.x, r.bImage(r.bx), nil, lobpcgDrop, r.tmp)
		if ratio < -1e-8 {
			return fmt.Errorf("linalg: lobpcg: B is not positive definite (xᵀ·B·x < 0 for a random block); the generalized problem needs B ≻ 0 (add a ridge with ShiftOp)")
		}
		if kept == r.sx {
			break
		}
		if attempt == 3 {
			return fmt.Errorf("linalg: lobpcg: B is singular to working precision (random block of %d vectors has B-rank %d); add a ridge with ShiftOp", r.sx, kept)
		}
	}
	if err := r.applyA(r.ax, r.x); err != nil {
		return err
	}
	r.np, r.nw = 0, 0
	return r.rayleighRitz()
}

// step performs one LOBPCG iteration from the residuals in r.rho.
func (r *lobpcgRun) step() error {
	n, sx := r.n, r.sx
	active := make([]int, 0, sx)
	for i, v := range r.rho {
		if v > r.tol {
			active = append(active, i)
		}
	}
	if len(active) == 0 {
		// Only the explicit check failed; keep improving the whole block.
		for i := range r.rho {
			active = append(active, i)
		}
	}
	na := len(active)
	// W = residuals of the active pairs.
	for i := 0; i < n; i++ {
		wr, ar, br := r.w.RawRowView(i), r.ax.RawRowView(i), r.bx.RawRowView(i)
		for c, j := range active {
			wr[c] = ar[j] - r.theta[j]*br[j]
		}
	}
	if r.t != nil {
		if err := applyOp(r.name, "preconditioner", r.t, r.cols(r.aw, na), r.cols(r.w, na)); err != nil {
			return err
		}
		r.w, r.aw = r.aw, r.w
		if r.bIsI() {
			r.bw = r.w
		}
	}
	// P: the directions of the active pairs, B-orthonormal and B-orthogonal to X.
	if r.np > 0 {
		compactCols(r.p, active)
		compactCols(r.ap, active)
		if !r.bIsI() {
			compactCols(r.bp, active)
		}
		r.np = na
		r.orthoP()
	}
	if err := r.orthoW(na); err != nil {
		return err
	}
	if err := r.applyA(r.cols(r.aw, r.nw), r.cols(r.w, r.nw)); err != nil {
		return err
	}
	return r.rayleighRitz()
}

// compactCols moves columns idx (increasing) of m to the front.
func compactCols(m *mat.Dense, idx []int) {
	rows, _ := m.Dims()
	for i := 0; i < rows; i++ {
		row := m.RawRowView(i)
		for c, j := range idx {
			row[c] = row[j]
		}
	}
}

// projectB removes from u (n×c) its B-components along the n×m block y
// given by = B·y: u ← u − y·(byᵀ·u); images listed in pairs (uImg,
// yImg) get the same combination.
func projectB(u, y, by *mat.Dense, pairs ...*mat.Dense) {
	var coef mat.Dense
	coef.Mul(by.T(), u)
	gemmSub(u, y, &coef)
	for i := 0; i+1 < len(pairs); i += 2 {
		gemmSub(pairs[i], pairs[i+1], &coef)
	}
}

// gemmSub sets u ← u − y·c without a temporary.
func gemmSub(u, y, c *mat.Dense) {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, y.RawMatrix(), c.RawMatrix(), 1, u.RawMatrix())
}

// orthoP B-orthogonalises P against X and B-orthonormalises it, or drops
// P (np = 0) when it is ill-conditioned.
func (r *lobpcgRun) orthoP() {
	np := r.np
	p, ap := r.cols(r.p, np), r.cols(r.ap, np)
	x, ax := r.x, r.ax
	for pass := 0; pass < 2; pass++ {
		if r.bIsI() {
			projectB(p, x, x, ap, ax)
		} else {
			projectB(p, x, r.bx, ap, ax, r.cols(r.bp, np), r.bx)
		}
	}
	kept, ratio := svqbDrop(p, r.bImage(r.cols(r.bp, np)), []*mat.Dense{ap}, lobpcgPRestart, r.tmp)
	if kept < np || ratio < lobpcgPRestart {
		r.np = 0
	}
}

// orthoW B-orthogonalises the na new directions in W against X and P,
// B-orthonormalises them (dropping dependent ones) and sets r.nw; W is
// replaced by random directions if none is left.
func (r *lobpcgRun) orthoW(na int) error {
	for attempt := 0; ; attempt++ {
		w := r.cols(r.w, na)
		before := r.normsBefore[:na]
		colNormsTo(before, w)
		nw := na
		for round := 0; round < 2 && nw > 0; round++ {
			w = r.cols(r.w, nw)
			bw := r.cols(r.bw, nw)
			passes := 1
			if round == 0 {
				passes = 2
			}
			for pass := 0; pass < passes; pass++ {
				r.projectW(w, bw, round > 0)
			}
			if round == 0 {
				if err := r.applyB(bw, w); err != nil {
					return err
				}
				// Columns that vanished under projection carry no new
				// direction: zero them so that SVQB drops them.
				after := r.normsScratch[:nw]
				colNormsTo(after, w)
				for c := range after {
					if !(after[c] > 1e-13*before[c]) {
						zeroCol(w, c)
						if !r.bIsI() {
							zeroCol(bw, c)
						}
					}
				}
			}
			nw, _ = svqbDrop(w, r.bImage(bw), nil, lobpcgDrop, r.tmp)
		}
		if nw > 0 {
			r.nw = nw
			return nil
		}
		if attempt == 2 {
			return fmt.Errorf("linalg: lobpcg: no search direction independent of the current basis (iteration %d)", r.iterations)
		}
		// Stagnation: continue with random directions.
		fillNormal(r.cols(r.w, na), r.rng)
	}
}

// projectW B-orthogonalises w against X and P; when updateBW is set the
// B-image bw follows by the same combination (it is recomputed explicitly
// otherwise).
func (r *lobpcgRun) projectW(w, bw *mat.Dense, updateBW bool) {
	p, bp := r.cols(r.p, r.np), r.cols(r.bp, r.np)
	switch {
	case r.bIsI():
		projectB(w, r.x, r.x)
		if r.np > 0 {
			projectB(w, p, p)
		}
	case updateBW:
		projectB(w, r.x, r.bx, bw, r.bx)
		if r.np > 0 {
			projectB(w, p, bp, bw, bp)
		}
	default:
		projectB(w, r.x, r.bx)
		if r.np > 0 {
			projectB(w, p, bp)
		}
	}
}

func zeroCol(m *mat.Dense, c int) {
	rows, _ := m.Dims()
	for i := 0; i < rows; i++ {
		m.Set(i, c, 0)
	}
}

// rayleighRitz solves the projected problem on S = [X, P, W] and updates
// X, P and their images.
func (r *lobpcgRun) rayleighRitz() error {
	for {
		theta, cm, err := r.projectedPairs()
		if err == nil {
			r.theta = theta
			r.update(cm)
			return nil
		}
		if r.np == 0 {
			return fmt.Errorf("linalg: lobpcg: Rayleigh–Ritz failed at iteration %d: %w (is B positive definite?)", r.iterations, err)
		}
		r.np = 0 // retry without P
	}
}

// projectedPairs returns the sx wanted Ritz pairs of the Gram matrices of
// S = [X, P, W] (coefficient matrix ns×sx).
func (r *lobpcgRun) projectedPairs() ([]float64, *mat.Dense, error) {
	blocks := []struct{ v, av, bv *mat.Dense }{{r.x, r.ax, r.bx}}
	if r.np > 0 {
		blocks = append(blocks, struct{ v, av, bv *mat.Dense }{r.cols(r.p, r.np), r.cols(r.ap, r.np), r.cols(r.bp, r.np)})
	}
	if r.nw > 0 {
		blocks = append(blocks, struct{ v, av, bv *mat.Dense }{r.cols(r.w, r.nw), r.cols(r.aw, r.nw), r.cols(r.bw, r.nw)})
	}
	ns := 0
	off := make([]int, len(blocks))
	for i, bk := range blocks {
		off[i] = ns
		_, c := bk.v.Dims()
		ns += c
	}
	ga, gb := mat.NewDense(ns, ns, nil), mat.NewDense(ns, ns, nil)
	for i, bi := range blocks {
		for j := i; j < len(blocks); j++ {
			bj := blocks[j]
			_, ci := bi.v.Dims()
			_, cj := bj.v.Dims()
			ga.Slice(off[i], off[i]+ci, off[j], off[j]+cj).(*mat.Dense).Mul(bi.v.T(), bj.av)
			gb.Slice(off[i], off[i]+ci, off[j], off[j]+cj).(*mat.Dense).Mul(bi.v.T(), bj.bv)
		}
	}
	for i := 0; i < ns; i++ {
		for j := 0; j < i; j++ {
			ga.Set(i, j, ga.At(j, i))
			gb.Set(i, j, gb.At(j, i))
		}
	}
	return smallPencil(Symmetrize(ga), Symmetrize(gb), r.sx, r.order)
}

// smallPencil returns the want pairs, at the end given by order, of the
// small pencil (ga, gb) whose gb is a well-conditioned positive definite
// Gram matrix: with gb = Uᵀ·U (Cholesky), the eigenvectors z of
// U⁻ᵀ·ga·U⁻¹ give v = U⁻¹·z (gb-orthonormal). It fails when gb is not
// numerically positive definite or its condition number exceeds 1e12
// (the basis is degenerate).
func smallPencil(ga, gb *mat.SymDense, want int, order Order) ([]float64, *mat.Dense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(gb) {
		return nil, nil, errors.New("the Gram matrix of the basis is not positive definite")
	}
	if c := ch.Cond(); !(c <= 1e12) {
		return nil, nil, fmt.Errorf("the basis is degenerate (Gram matrix condition number %.1e)", c)
	}
	var u mat.TriDense
	ch.UTo(&u)
	c := mat.DenseCopyOf(ga)
	blas64.Trsm(blas.Left, blas.Trans, 1, u.RawTriangular(), c.RawMatrix())
	blas64.Trsm(blas.Right, blas.NoTrans, 1, u.RawTriangular(), c.RawMatrix())
	vals, z, err := SymEig(Symmetrize(c), want, order)
	if err != nil {
		return nil, nil, err
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, u.RawTriangular(), z.RawMatrix())
	return vals, z, nil
}

// update sets P ← P·C_P + W·C_W and X ← X·C_X + P (and the same for the A-
// and B-images), row block by row block in place.
func (r *lobpcgRun) update(cm *mat.Dense) {
	sx, np, nw := r.sx, r.np, r.nw
	cx := rawSlice(cm, 0, sx, sx)
	var cp, cw blas64.General
	if np > 0 {
		cp = rawSlice(cm, sx, sx+np, sx)
	}
	if nw > 0 {
		cw = rawSlice(cm, sx+np, sx+np+nw, sx)
	}
	imgs := [][3]*mat.Dense{{r.x, r.p, r.w}, {r.ax, r.ap, r.aw}}
	if !r.bIsI() {
		imgs = append(imgs, [3]*mat.Dense{r.bx, r.bp, r.bw})
	}
	const rb = 64
	tx := r.tmp[:rb*sx]
	tp := r.tmp[rb*sx : 2*rb*sx]
	for _, m := range imgs {
		x, p, w := m[0], m[1], m[2]
		for lo := 0; lo < r.n; lo += rb {
			hi := min(lo+rb, r.n)
			bp := blas64.General{Rows: hi - lo, Cols: sx, Stride: sx, Data: tp[:(hi-lo)*sx]}
			bx := blas64.General{Rows: hi - lo, Cols: sx, Stride: sx, Data: tx[:(hi-lo)*sx]}
			clear(bp.Data)
			if np > 0 {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, rawSlice(p, lo, hi, np), cp, 0, bp)
			}
			if nw > 0 {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, rawSlice(w, lo, hi, nw), cw, 1, bp)
			}
			copy(bx.Data, bp.Data)
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, rawSlice(x, lo, hi, sx), cx, 1, bx)
			for i := lo; i < hi; i++ {
				copy(x.RawRowView(i)[:sx], bx.Data[(i-lo)*sx:(i-lo+1)*sx])
				copy(p.RawRowView(i)[:sx], bp.Data[(i-lo)*sx:(i-lo+1)*sx])
			}
		}
	}
	if nw > 0 || np > 0 {
		r.np = sx
	}
	r.nw = 0
}

// rawSlice returns rows [lo, hi) and the first c columns of m as a BLAS
// matrix.
func rawSlice(m *mat.Dense, lo, hi, c int) blas64.General {
	return m.Slice(lo, hi, 0, c).(*mat.Dense).RawMatrix()
}

// verify recomputes A·X and B·X for the k wanted pairs and their
// residuals. done reports whether the solve is over (converged, or out of
// iterations); otherwise the explicit products replace the updated ones.
func (r *lobpcgRun) verify() (*EigenResult, error, bool) {
	n, k := r.n, r.k
	if r.vax == nil {
		r.vax, r.vbx = mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
	}
	x := r.cols(r.x, k)
	if err := r.applyA(r.vax, x); err != nil {
		return nil, err, true
	}
	if err := r.applyB(r.vbx, x); err != nil {
		return nil, err, true
	}
	rho := make([]float64, k)
	relResiduals(rho, x, r.vax, r.vbx, r.theta, r.anorm)
	worst := maxOf(rho)
	if worst > r.tol && r.iterations < r.maxIter {
		r.cols(r.ax, k).Copy(r.vax)
		if !r.bIsI() {
			r.cols(r.bx, k).Copy(r.vbx)
		}
		return nil, nil, false
	}
	v := mat.DenseCopyOf(x)
	FixSigns(v)
	res := &EigenResult{Values: append([]float64(nil), r.theta[:k]...), Vectors: v,
		Iterations: r.iterations, MatVecs: r.matvecs, Residual: worst}
	if worst > r.tol {
		return res, &NotConvergedError{Solver: r.name, Converged: countConverged(rho, r.tol), Wanted: k,
			Iterations: r.iterations, Residual: worst, Tol: r.tol}, true
	}
	return res, nil, true
}

// svqbDrop B-orthonormalises the columns of u (n×c) given bu = B·u (nil
// when B = I) by SVQB: with D = diag(uᵀ·B·u)^(-1/2) and the
// eigen-decomposition D·uᵀ·B·u·D = Z·Σ·Zᵀ, u ← u·D·Z·Σ^(-1/2), keeping only
// the eigenvalues above drop·max Σ (columns whose B-norm is zero are
// dropped). The matrices in also (n×c, images of u under other operators)
// get the same transformation. The kept columns are moved to the front; it
// returns their number and the ratio min Σ / max Σ over all eigenvalues
// (negative when uᵀ·B·u is indefinite).
func svqbDrop(u, bu *mat.Dense, also []*mat.Dense, drop float64, tmp []float64) (int, float64) {
	_, c := u.Dims()
	g := mat.NewSymDense(c, nil)
	var gd mat.Dense
	if bu == nil {
		gd.Mul(u.T(), u)
	} else {
		gd.Mul(u.T(), bu)
	}
	d := make([]float64, c)
	for i := 0; i < c; i++ {
		if v := gd.At(i, i); v > 0 && !math.IsInf(v, 0) {
			d[i] = 1 / math.Sqrt(v)
		}
	}
	for i := 0; i < c; i++ {
		for j := i; j < c; j++ {
			g.SetSym(i, j, 0.5*(gd.At(i, j)+gd.At(j, i))*d[i]*d[j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(g, true) {
		return 0, 0
	}
	sig := es.Values(nil)
	var z mat.Dense
	es.VectorsTo(&z)
	smax := sig[c-1]
	if !(smax > 0) {
		return 0, 0
	}
	keep := 0
	for i := c - 1; i >= 0 && sig[i] > drop*smax; i-- {
		keep++
	}
	m := mat.NewDense(c, max(keep, 1), nil)
	for col := 0; col < keep; col++ {
		src := c - 1 - col
		s := 1 / math.Sqrt(sig[src])
		for i := 0; i < c; i++ {
			m.Set(i, col, d[i]*z.At(i, src)*s)
		}
	}
	ratio := sig[0] / smax
	if keep == 0 {
		return 0, ratio
	}
	rowTransformTo(u, u, m, tmp)
	if bu != nil {
		rowTransformTo(bu, bu, m, tmp)
	}
	for _, o := range also {
		rowTransformTo(o, o, m, tmp)
	}
	return keep, ratio
}
