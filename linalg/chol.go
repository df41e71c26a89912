package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/gemm"
	"github.com/dimred/dimred/internal/par"
)

// Tile sizes of the blocked dense kernels. cholStep is the width of a block
// column of the Cholesky factorization (the inner dimension of every
// trailing update); denseTile is the side of the square tiles that the parallel
// loops hand out. Both are fixed, never derived from the number of workers,
// so the results are bit-identical whatever GOMAXPROCS is. They are
// variables only so that tests can shrink them and exercise the blocked
// code on small matrices.
var (
	cholStep  = 128
	denseTile = 64
)

// NotPositiveDefiniteError reports a Cholesky factorization that met a
// pivot that is not positive: the leading (Pivot+1)×(Pivot+1) block of the
// matrix is not numerically positive definite.
type NotPositiveDefiniteError struct {
	Pivot int     // 0-based index of the failing pivot
	Value float64 // the value of the pivot, ≤ 0 or NaN
	N     int     // size of the matrix
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("linalg: matrix (%d×%d) is not positive definite: Cholesky pivot %d is %.3g (the leading %d×%d block is not numerically positive definite; add a ridge)",
		e.N, e.N, e.Pivot, e.Value, e.Pivot+1, e.Pivot+1)
}

// CholFactor is the Cholesky factorization A = L·Lᵀ of a symmetric positive
// definite matrix, with L lower triangular, computed by Cholesky.
type CholFactor struct {
	n int
	l []float64 // n×n row-major, L in the lower triangle, zeros above
}

// Cholesky computes the Cholesky factorization A = L·Lᵀ of the symmetric
// positive definite matrix a. Only the upper triangle of a (gonum's storage)
// is read.
//
// The algorithm is the right-looking blocked Cholesky (LAPACK's dpotrf,
// Golub & Van Loan, Matrix Computations, 4th ed., Alg. 4.2.2) on block
// columns of width 128: for each block column j,
//
//	L_jj = chol(A_jj)                    (unblocked Cholesky–Crout)
//	L_ij = A_ij · L_jjᵀ⁻¹,  i > j        (triangular solves, parallel over row tiles)
//	A_ik −= L_ij · L_kjᵀ,   i ≥ k > j    (matrix products on 64×64 tiles, in parallel)
//
// The trailing update, which holds almost all of the n³/3 flops, runs as
// independent denseTile products in the A·Bᵀ form (gonum's fastest dgemm kernel)
// spread over the cores by par.Blocks; each denseTile is computed by the same
// sequence of operations whatever the number of workers, so the factor is
// bit-identical whatever GOMAXPROCS is. The update runs at about
// 8 GFLOP/s per core (gonum's dgemm kernel); at n = 4000 on two shared
// cores it took 1.4–3 s against 3.3–7.7 s for mat.Cholesky
// (BenchmarkCholesky4000).
//
// An error of type *NotPositiveDefiniteError, naming the pivot, is returned
// when a pivot is not positive (or is NaN): a is then not numerically
// positive definite. Positive but tiny pivots are accepted; CholFactor.Cond
// estimates the conditioning.
func Cholesky(a *mat.SymDense) (*CholFactor, error) { return CholeskyShifted(a, 0) }

// CholeskyShifted is Cholesky of A + shift·I, formed while copying A into
// the factor's storage: A itself is not modified and no third n×n matrix
// is needed (a kernel ridge system factorised from its Gram matrix).
func CholeskyShifted(a *mat.SymDense, shift float64) (*CholFactor, error) {
	return choleskyShifted(a, shift, nil)
}

// choleskyShifted is CholeskyShifted reporting the factorisation's
// progress to st and stopping between its panels when st's context is
// cancelled (nil: neither; the LAPACK backend's dpotrf does neither, but
// is not started after a cancellation and says that it runs unmetered).
func choleskyShifted(a *mat.SymDense, shift float64, st *stage) (*CholFactor, error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, errors.New("linalg: Cholesky of an empty matrix")
	}
	raw := a.RawSymmetric()
	l := make([]float64, n*n)
	// Copy the upper triangle of a into the lower triangle of l (row i of
	// l holds column i of the upper triangle), by tiles for cache reuse.
	par.Blocks(n, denseTile, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := l[i*n : i*n+i+1]
			for j := range row {
				row[j] = raw.Data[j*raw.Stride+i]
			}
			row[i] += shift
		}
	})
	if backendPotrf != nil && n >= 256 {
		// LAPACK's blocked dpotrf through the optional backend: it does
		// not name the failing pivot, so a failure is re-run here to do so.
		var ok bool
		if err := st.unmetered(func() { ok = backendPotrf(n, l) }); err != nil {
			return nil, err
		}
		if ok {
			return &CholFactor{n: n, l: l}, nil
		}
		for i := 0; i < n; i++ { // restore the lower triangle of A + shift·I
			row := l[i*n : i*n+i+1]
			for j := range row {
				row[j] = raw.Data[j*raw.Stride+i]
			}
			row[i] += shift
		}
	}
	if err := cholBlocked(n, l, n, st); err != nil {
		return nil, err
	}
	return &CholFactor{n: n, l: l}, nil
}

// backendPotrf, when set by the optional LAPACK backend, factorises in
// place the n×n lower triangle stored row-major in l (strict upper zero)
// and reports success.
var backendPotrf func(n int, l []float64) bool

// cholBlocked overwrites the lower triangle of the n×n row-major matrix a
// (leading dimension lda) with its Cholesky factor; the strict upper
// triangle is set to zero. st (nil: none) hears the fraction of the flops
// done before each panel, 1 − (rest/n)³, and stops the factorisation there
// when its context is cancelled (the error is the context's).
func cholBlocked(n int, a []float64, lda int, st *stage) error {
	bi := blas64.Implementation()
	for j0 := 0; j0 < n; j0 += cholStep {
		if f := float64(n-j0) / float64(n); !st.done(1 - f*f*f) {
			return st.err()
		}
		jb := min(cholStep, n-j0)
		j1 := j0 + jb
		if err := cholUnblocked(jb, a[j0*lda+j0:], lda, j0, n); err != nil {
			return err
		}
		rest := n - j1
		if rest == 0 {
			break
		}
		// Panel: A[j1:n, j0:j1] ← A[j1:n, j0:j1]·L_jj⁻ᵀ.
		par.Blocks(rest, denseTile, func(lo, hi int) {
			bi.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, hi-lo, jb, 1,
				a[j0*lda+j0:], lda, a[(j1+lo)*lda+j0:], lda)
		})
		// Trailing update of the lower tiles of A[j1:n, j1:n].
		nt := (rest + denseTile - 1) / denseTile
		par.Blocks(nt*(nt+1)/2, 1, func(t, _ int) {
			p, q := triIndex(t) // denseTile row p ≥ denseTile column q
			r0, c0 := j1+p*denseTile, j1+q*denseTile
			mr, mc := min(denseTile, n-r0), min(denseTile, n-c0)
			bi.Dgemm(blas.NoTrans, blas.Trans, mr, mc, jb, -1,
				a[r0*lda+j0:], lda, a[c0*lda+j0:], lda, 1, a[r0*lda+c0:], lda)
		})
	}
	// Clear the strict upper triangle (the diagonal tiles' updates wrote
	// there).
	par.Blocks(n, denseTile, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			clear(a[i*lda+i+1 : i*lda+n])
		}
	})
	return nil
}

// triIndex maps t = p(p+1)/2 + q, 0 ≤ q ≤ p, to (p, q).
func triIndex(t int) (p, q int) {
	p = int((math.Sqrt(8*float64(t)+1) - 1) / 2)
	for p*(p+1)/2 > t {
		p--
	}
	for (p+1)*(p+2)/2 <= t {
		p++
	}
	return p, t - p*(p+1)/2
}

// cholUnblocked factors the m×m lower triangle of a in place by the
// Cholesky–Crout (dot product) recurrence
//
//	L_jj = √(A_jj − Σ_{k<j} L_jk²),  L_ij = (A_ij − Σ_{k<j} L_ik·L_jk)/L_jj.
//
// off and n only serve the error message.
func cholUnblocked(m int, a []float64, lda, off, n int) error {
	for j := 0; j < m; j++ {
		rj := a[j*lda : j*lda+j]
		d := a[j*lda+j] - floats.Dot(rj, rj)
		if !(d > 0) {
			return &NotPositiveDefiniteError{Pivot: off + j, Value: d, N: n}
		}
		d = math.Sqrt(d)
		a[j*lda+j] = d
		inv := 1 / d
		for i := j + 1; i < m; i++ {
			ri := a[i*lda : i*lda+j+1]
			ri[j] = (ri[j] - floats.Dot(ri[:j], rj)) * inv
		}
	}
	return nil
}

// Dim returns n.
func (c *CholFactor) Dim() int { return c.n }

// L returns the lower triangular factor. It shares storage with c and must
// not be modified.
func (c *CholFactor) L() *mat.TriDense {
	return mat.NewTriDense(c.n, mat.Lower, c.l)
}

// LogDet returns log det A = 2·Σ log L_ii.
func (c *CholFactor) LogDet() float64 {
	s := 0.0
	for i := 0; i < c.n; i++ {
		s += math.Log(c.l[i*c.n+i])
	}
	return 2 * s
}

// Cond returns an estimate of the 2-norm condition number of A = L·Lᵀ:
// λ_max by a few power iterations on A and λ_min by inverse iteration on
// A⁻¹ (two triangular solves per step), both from a fixed start vector.
// The estimate of λ_max is from below and that of λ_min from above, so
// the estimate is a lower bound of the true condition number that is
// usually within a small factor of it. It costs O(n²) per iteration.
func (c *CholFactor) Cond() float64 {
	lmax, lmin := c.extremeEigs(8)
	return lmax / lmin
}

// extremeEigs estimates the extreme eigenvalues of A = L·Lᵀ with iters
// power and inverse iterations.
func (c *CholFactor) extremeEigs(iters int) (lmax, lmin float64) {
	n := c.n
	lt := blas64.Triangular{N: n, Stride: n, Data: c.l, Uplo: blas.Lower, Diag: blas.NonUnit}
	vec := func(y []float64) blas64.Vector { return blas64.Vector{N: n, Inc: 1, Data: y} }
	// A·x = L·(Lᵀ·x): lmax ≈ ‖Lᵀx‖² = xᵀAx.
	lmax = halfPowerIteration(n, iters,
		func(y []float64) { blas64.Trmv(blas.Trans, lt, vec(y)) },
		func(y []float64) { blas64.Trmv(blas.NoTrans, lt, vec(y)) })
	// A⁻¹·x = L⁻ᵀ·(L⁻¹·x): 1/λmin ≈ ‖L⁻¹x‖² = xᵀA⁻¹x.
	inv := halfPowerIteration(n, iters,
		func(y []float64) { blas64.Trsv(blas.NoTrans, lt, vec(y)) },
		func(y []float64) { blas64.Trsv(blas.Trans, lt, vec(y)) })
	if !(inv > 0) || math.IsInf(inv, 0) {
		return lmax, 0
	}
	return lmax, 1 / inv
}

// halfPowerIteration runs iters steps of the power method on M = G·F from
// a fixed start vector, with F and G applied in place, and returns the
// last ‖F·x‖² = xᵀ·M·x for unit x (M = Fᵀ·F).
func halfPowerIteration(n, iters int, f, g func(y []float64)) float64 {
	x := make([]float64, n)
	for i := range x {
		// A fixed, non-symmetric pseudo-random start.
		x[i] = 1 + 0.5*math.Sin(float64(3*i+1))
	}
	floats.Scale(1/floats.Norm(x, 2), x)
	val := 0.0
	for it := 0; it < iters; it++ {
		f(x)
		val = floats.Dot(x, x)
		g(x)
		nrm := floats.Norm(x, 2)
		if !(nrm > 0) || math.IsInf(nrm, 0) {
			return math.Inf(1)
		}
		floats.Scale(1/nrm, x)
	}
	return val
}

// SolveTo sets dst = A⁻¹·rhs = L⁻ᵀ·L⁻¹·rhs. dst and rhs are n×m; they may
// be the same matrix. The two triangular solves run blocked (products on
// tiles with gonum's dgemm) and in parallel over blocks of right-hand sides.
func (c *CholFactor) SolveTo(dst, rhs *mat.Dense) error {
	r, m := rhs.Dims()
	if r != c.n {
		return fmt.Errorf("linalg: Cholesky solve: right-hand side has %d rows, want %d", r, c.n)
	}
	if dr, dc := dst.Dims(); dr != r || dc != m {
		return fmt.Errorf("linalg: Cholesky solve: destination is %d×%d, want %d×%d", dr, dc, r, m)
	}
	// Work on Y = rhsᵀ (m×n): A·X = R ⇔ Xᵀ = Rᵀ·L⁻ᵀ·L⁻¹, row by row.
	y := transposeOf(rhs)
	c.fwdRows(y, false, nil)
	c.bwdRows(y)
	dst.Copy(y.T())
	return nil
}

func transposeOf(a mat.Matrix) *mat.Dense {
	r, cc := a.Dims()
	t := mat.NewDense(cc, r, nil)
	t.Copy(a.T())
	return t
}

// fwdRows sets Y ← Y·L⁻ᵀ for the m×n row-major Y (each row y solves
// L·xᵀ = yᵀ by forward substitution), in parallel over tiles of rows. With
// lower set, a row denseTile [r0, r1) is only solved for the column tiles that
// start before r1 (forward substitution needs no later column), which is
// all the lower triangle of the square result needs; entries beyond are
// left unspecified. sh (nil: none) hears each tile's work when it is done
// (rows·columns², its triangular solve's flops up to a constant; see
// fwdWork) and skips the tiles left once its context is cancelled.
func (c *CholFactor) fwdRows(y *mat.Dense, lower bool, sh *share) {
	n, l := c.n, c.l
	raw := y.RawMatrix()
	m := raw.Rows
	bi := blas64.Implementation()
	par.Blocks(m, denseTile, func(r0, r1 int) {
		if !sh.ok() {
			return
		}
		defer sh.add(fwdTileWork(n, r0, r1, lower))
		rows := r1 - r0
		ydat := raw.Data[r0*raw.Stride:]
		end := n
		if lower {
			end = min(n, r1)
		}
		for j0 := 0; j0 < end; j0 += denseTile {
			jb := min(denseTile, n-j0)
			if j0 > 0 {
				// Y[:, J] −= Y[:, 0:j0]·L[J, 0:j0]ᵀ
				gemmNTChunked(rows, jb, j0, ydat, raw.Stride, l[j0*n:], n, ydat[j0:], raw.Stride)
			}
			bi.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, rows, jb, 1,
				l[j0*n+j0:], n, ydat[j0:], raw.Stride)
		}
	})
}

// fwdTileWork is the work of fwdRows on the row tile [r0, r1) of a factor
// of order n: rows·end² with end the columns solved.
func fwdTileWork(n, r0, r1 int, lower bool) float64 {
	end := n
	if lower {
		end = min(n, r1)
	}
	return float64(r1-r0) * float64(end) * float64(end)
}

// fwdWork is the work of fwdRows on m rows (the sum of fwdTileWork).
func fwdWork(n, m int, lower bool) float64 {
	w := 0.0
	for r0 := 0; r0 < m; r0 += denseTile {
		w += fwdTileWork(n, r0, min(r0+denseTile, m), lower)
	}
	return w
}

// bwdRows sets Y ← Y·L⁻¹ for the m×n row-major Y (each row y solves
// Lᵀ·xᵀ = yᵀ by back substitution). The block column L[J1:n, J] is packed
// transposed so that the products take gonum's A·Bᵀ form.
func (c *CholFactor) bwdRows(y *mat.Dense) {
	n, l := c.n, c.l
	raw := y.RawMatrix()
	m := raw.Rows
	bi := blas64.Implementation()
	nb := (n + denseTile - 1) / denseTile
	pack := make([]float64, denseTile*n)
	for b := nb - 1; b >= 0; b-- {
		j0 := b * denseTile
		jb := min(denseTile, n-j0)
		j1 := j0 + jb
		rest := n - j1
		// pack = L[j1:n, j0:j1]ᵀ (jb × rest).
		for i := 0; i < rest; i++ {
			row := l[(j1+i)*n+j0 : (j1+i)*n+j1]
			for j, v := range row {
				pack[j*rest+i] = v
			}
		}
		par.Blocks(m, denseTile, func(r0, r1 int) {
			rows := r1 - r0
			ydat := raw.Data[r0*raw.Stride:]
			if rest > 0 {
				// Y[:, J] −= Y[:, j1:n]·L[j1:n, J]
				gemmNTChunked(rows, jb, rest, ydat[j1:], raw.Stride, pack, max(rest, 1), ydat[j0:], raw.Stride)
			}
			bi.Dtrsm(blas.Right, blas.Lower, blas.NoTrans, blas.NonUnit, rows, jb, 1,
				l[j0*n+j0:], n, ydat[j0:], raw.Stride)
		})
	}
}

// gemmNTChunked sets C −= A·Bᵀ (C m×n, A m×k, B n×k, row-major) by dgemm
// on fixed chunks of the inner dimension: dot products stay short enough
// to run from cache, and the chunking does not depend on anything but k,
// so the result is deterministic. Its callers run it on parallel tiles,
// hence gemm.DgemmTile (no OpenBLAS threads inside the tiles).
func gemmNTChunked(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	const kc = 256
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		gemm.DgemmTile(blas.NoTrans, blas.Trans, m, n, kb, -1, a[k0:], lda, b[k0:], ldb, 1, c, ldc)
	}
}

// CholeskySolver is the direct LinearSolver: it densifies the operator
// (DenseOf) and factors it with Cholesky. The zero value is ready to use.
type CholeskySolver struct{}

// Name implements LinearSolver.
func (CholeskySolver) Name() string { return "cholesky" }

// Solve implements LinearSolver. It returns a *NotPositiveDefiniteError
// when A is not numerically positive definite. SolveInfo.Residual is the
// largest relative residual ‖A·x − r‖/‖r‖ over the columns. The
// factorisation reports its progress to ctx's reporter and stops between
// its panels when ctx is cancelled (the error is then ctx's).
func (CholeskySolver) Solve(ctx context.Context, a SymOperator, rhs *mat.Dense) (*mat.Dense, *SolveInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := a.Dim()
	if r, _ := rhs.Dims(); r != n {
		return nil, nil, fmt.Errorf("linalg: cholesky solve: right-hand side has %d rows, operator is %d×%d", r, n, n)
	}
	// A ShiftOp over a held matrix is factorised from that matrix without
	// forming A + σ·I separately (two n×n matrices at the peak, not three).
	st := newStage(ctx, n, fmt.Sprintf("Cholesky solve of order %d", n))
	st.begin("factorization")
	var f *CholFactor
	var err error
	if sh, ok := a.(ShiftOp); ok {
		if d, ok := sh.A.(Densifier); ok {
			f, err = choleskyShifted(d.SymDense(), sh.Sigma, st)
		}
	}
	if f == nil && err == nil {
		f, err = choleskyShifted(DenseOf(a), 0, st)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	_, m := rhs.Dims()
	x := mat.NewDense(n, m, nil)
	if err := f.SolveTo(x, rhs); err != nil {
		return nil, nil, err
	}
	return x, &SolveInfo{Residual: relResidual(a, x, rhs)}, nil
}

// relResidual returns max_j ‖A·x_j − r_j‖/‖r_j‖ (columns with r_j = 0 use
// ‖A·x_j‖).
func relResidual(a SymOperator, x, rhs *mat.Dense) float64 {
	ax := MulBlock(a, x)
	n, m := rhs.Dims()
	worst := 0.0
	for j := 0; j < m; j++ {
		var rr, dd float64
		for i := 0; i < n; i++ {
			r := rhs.At(i, j)
			d := ax.At(i, j) - r
			rr += r * r
			dd += d * d
		}
		res := math.Sqrt(dd)
		if rr > 0 {
			res /= math.Sqrt(rr)
		}
		worst = max(worst, res)
	}
	return worst
}
