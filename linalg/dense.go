package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/par"
)

// DenseEigen is the direct EigenSolver: it densifies A and B (DenseOf) and
// solves the eigenproblem with dense factorizations. The zero value is
// ready to use.
//
// Standard problem (b nil), k eigenpairs of A:
//   - when k ≤ n/4 (few pairs), the partial path: A = Q·T·Qᵀ by blocked
//     Householder tridiagonalisation (LAPACK's dsytrd algorithm, run in
//     parallel: sytrdLower), the k wanted eigenvalues
//     of T by Sturm-sequence bisection, their eigenvectors by inverse
//     iteration with reorthogonalisation inside clusters (tridiagEig: the
//     method of LAPACK's dstebz and dstein), and the back-transformation
//     v = Q·z by the stored reflectors (dormqr, in parallel over blocks of
//     rows of zᵀ: applyTridiagQT). This costs 4n³/3 + O(n²k) flops. When
//     the optional LAPACK backend is built in (build tag openblas) its
//     dsyevr is tried first.
//   - otherwise, or when inverse iteration fails its accuracy checks, the
//     full decomposition: for n > 64 the same tridiagonalisation and
//     back-transformation around every eigenpair of T by divide and
//     conquer (tridiagDC: Cuppen's method with Gu–Eisenstat eigenvectors,
//     the method of LAPACK's dstedc; about 4.7n³ flops, nearly all in
//     parallel level-3 products), and gonum's EigenSym (QR algorithm)
//     for n ≤ 64, when divide and conquer fails its checks, and in the
//     openblas build (where EigenSym is LAPACK's dsyevr).
//
// Generalized problem A·v = λ·B·v with B symmetric positive definite: the
// Cholesky factorization B = L·Lᵀ (Cholesky, blocked and parallel), the
// standard problem C·z = λ·z for C = L⁻¹·A·L⁻ᵀ (two blocked triangular
// solves, the second restricted to the lower triangle: 4n³/3 flops), and
// v = L⁻ᵀ·z. Vectors are then B-orthonormal: Vᵀ·B·V = Zᵀ·Z = I. When B is
// not numerically positive definite (Cholesky fails, or the estimated
// condition number λ_max/λ_min of B exceeds 1/(100·RankTol)), DenseEigen
// falls back to GenSymEig, which reduces B by its eigen-decomposition and
// solves the problem on range(B) (eigenvalues of B at most RankTol·λ_max
// are dropped); an error is returned when range(B) has fewer than k
// dimensions.
//
// Vectors are sign-fixed by FixSigns; EigenResult.Residual is the largest
// relative residual ‖A·v − λ·B·v‖/(‖A·v‖ + |λ|·‖B·v‖) of the returned pairs
// and MatVecs counts the operator applications DenseOf needed (0 for
// operators that implement Densifier). Eigs reports the decomposition's
// progress to the reporter ctx carries and stops inside it when ctx is
// cancelled, as SymEigContext does.
type DenseEigen struct {
	// RankTol is the relative threshold below which eigenvalues of B count
	// as zero (see GenOptions.RankTol). If zero, it is defaulted to 1e-10.
	RankTol float64
}

// Name implements EigenSolver.
func (DenseEigen) Name() string { return "dense" }

// Eigs implements EigenSolver.
func (s DenseEigen) Eigs(ctx context.Context, a, b SymOperator, k int, order Order) (*EigenResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := a.Dim()
	if n == 0 {
		return nil, errors.New("linalg: dense eigensolver: empty operator")
	}
	if k < 1 || k > n {
		return nil, fmt.Errorf("linalg: dense eigensolver: k = %d pairs wanted, must be in [1, %d]", k, n)
	}
	if err := checkOrder("dense eigensolver", order); err != nil {
		return nil, err
	}
	if b != nil && b.Dim() != n {
		return nil, fmt.Errorf("linalg: dense eigensolver: A is %d×%d but B is %d×%d", n, n, b.Dim(), b.Dim())
	}
	tol, err := RankTolerance(s.RankTol)
	if err != nil {
		return nil, err
	}
	res := &EigenResult{}
	ad := densify(a, res)
	if err := checkFiniteSym(ad); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var bd *mat.SymDense
	if b == nil {
		vals, vecs, err := symEigK(ad, k, order, newStage(ctx, n, fmt.Sprintf("eigen-decomposition of order %d", n)))
		if err != nil {
			return nil, err
		}
		res.Values, res.Vectors = vals, vecs
	} else {
		bd = densify(b, res)
		if err := checkFiniteSym(bd); err != nil {
			return nil, fmt.Errorf("constraint matrix B: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vals, vecs, err := genEigChol(ctx, ad, bd, k, order, tol)
		if err != nil {
			return nil, err
		}
		res.Values, res.Vectors = vals, vecs
	}
	res.Residual = pairResidual(ad, bd, res.Values, res.Vectors)
	return res, nil
}

// isIdentity reports whether b is exactly the identity matrix (an O(n²)
// scan, against the O(n³) reduction it saves). The generalized solvers
// (genEigChol, GenSymEig) then solve the standard problem: the same pairs
// without a Cholesky factorisation and two triangular solves per call —
// the M-step of seed 003's EM is posed with B = I on every iteration.
func isIdentity(b *mat.SymDense) bool {
	n := b.SymmetricDim()
	raw := b.RawSymmetric()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if row[j] != want {
				return false
			}
		}
	}
	return true
}

// densify returns the matrix of a, counting operator applications.
func densify(a SymOperator, res *EigenResult) *mat.SymDense {
	if _, ok := a.(Densifier); !ok {
		res.MatVecs += a.Dim()
	}
	return DenseOf(a)
}

// genEigChol solves A·v = λ·B·v through the Cholesky factorization of B,
// falling back to GenSymEig when B is not numerically positive definite.
func genEigChol(ctx context.Context, a, b *mat.SymDense, k int, order Order, tol float64) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if isIdentity(b) {
		return symEigK(a, k, order, newStage(ctx, n, fmt.Sprintf("eigen-decomposition of order %d", n)))
	}
	fallback := func() ([]float64, *mat.Dense, error) {
		vals, vecs, err := genSymEigRange(ctx, a, b, k, tol, order)
		if err != nil {
			return nil, nil, err
		}
		if len(vals) < k {
			return nil, nil, fmt.Errorf("linalg: dense eigensolver: B has numerical rank %d (eigenvalues above %.1e·λ_max), fewer than the k = %d pairs wanted; lower k or add a ridge to B", len(vals), tol, k)
		}
		return vals, vecs, nil
	}
	st := newGenStage(ctx, n)
	f, err := choleskyShifted(b, 0, st)
	if err != nil {
		var npd *NotPositiveDefiniteError
		if errors.As(err, &npd) {
			return fallback()
		}
		return nil, nil, err
	}
	if lmax, lmin := f.extremeEigs(10); !(lmin > 100*tol*lmax) {
		return fallback()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return f.reducedEig(a, k, order, st)
}

// reducedEig returns k pairs of A·v = λ·B·v for B = L·Lᵀ (the receiver):
// C = L⁻¹·A·L⁻ᵀ, C·z = λ·z, v = L⁻ᵀ·z (B-orthonormal, sign-fixed). st
// (nil: none) reports and cancels the decomposition of C.
func (f *CholFactor) reducedEig(a mat.Symmetric, k int, order Order, st *stage) ([]float64, *mat.Dense, error) {
	ad, ok := a.(*mat.SymDense)
	if !ok {
		ad = mat.NewSymDense(a.SymmetricDim(), nil)
		ad.CopySym(a)
	}
	const part = "reduction to standard form, C = L⁻¹·A·L⁻ᵀ"
	st.announce(part)
	st.begin(part)
	c := f.congruence(ad, st)
	if err := st.err(); err != nil {
		return nil, nil, err
	}
	vals, z, err := symEigK(c, k, order, st)
	if err != nil {
		return nil, nil, err
	}
	// V = L⁻ᵀ·Z, through Vᵀ = Zᵀ·L⁻¹.
	zt := transposeOf(z)
	f.bwdRows(zt)
	v := transposeOf(zt)
	FixSigns(v)
	return vals, v, nil
}

// congruence returns C = L⁻¹·A·L⁻ᵀ: G = A·L⁻ᵀ row by row, then the lower
// triangle of Gᵀ·L⁻ᵀ = L⁻¹·A·L⁻ᵀ (A symmetric), both by fwdRows. st
// (nil: none) hears the fraction of the two solves' work done and stops
// them when its context is cancelled (the result is then nil).
func (c *CholFactor) congruence(a *mat.SymDense, st *stage) *mat.SymDense {
	n := c.n
	g := mat.NewDense(n, n, nil)
	raw := a.RawSymmetric()
	gd := g.RawMatrix().Data
	par.Blocks(n, denseTile, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 0; j < i; j++ {
				gd[i*n+j] = raw.Data[j*raw.Stride+i]
			}
			copy(gd[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		}
	})
	w1, w2 := fwdWork(n, n, false), fwdWork(n, n, true)
	c.fwdRows(g, false, st.share(0, w1/(w1+w2), w1))
	if st.halted() {
		return nil
	}
	h := transposeOf(g)
	c.fwdRows(h, true, st.share(w1/(w1+w2), w2/(w1+w2), w2))
	if st.halted() {
		return nil
	}
	out := mat.NewSymDense(n, nil)
	od := out.RawSymmetric()
	hd := h.RawMatrix().Data
	par.Blocks(n, denseTile, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i; j < n; j++ {
				od.Data[i*od.Stride+j] = hd[j*n+i]
			}
		}
	})
	return out
}

// symEigK returns the k eigenpairs of a at the end given by order (k ≤ 0
// or k > n: all), values in that order and unit vectors sign-fixed: the
// partial path (partialSymEig, then partialEig) when 0 < k ≤ n/4; else,
// or on failure, the full decomposition by fullSymEig (divide and conquer)
// when n > dcMinSize; and gonum's EigenSym for small matrices or when the
// full path fails its checks. st (nil: none) reports the pure-Go paths'
// progress and stops them when its context is cancelled (the error says
// so; a stopped path is not retried by the next).
func symEigK(a *mat.SymDense, k int, order Order, st *stage) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if k <= 0 || k > n {
		k = n
	}
	if k <= n/4 {
		il, iu := 0, k-1
		if order == Largest {
			il, iu = n-k, n-1
		}
		if partialSymEig != nil {
			var vals []float64
			var vecs *mat.Dense
			var ok bool
			if err := st.unmetered(func() { vals, vecs, ok = partialSymEig(a, il, iu) }); err != nil {
				return nil, nil, err
			}
			if ok {
				return orderPairs(vals, vecs, order)
			}
		}
		vals, vecs, ok := partialEig(a, il, iu, st)
		if err := st.err(); err != nil {
			return nil, nil, err
		}
		if ok {
			return orderPairs(vals, vecs, order)
		}
	}
	if n > dcMinSize && fullSymEig != nil {
		vals, vecs, ok := fullSymEig(a, st)
		if err := st.err(); err != nil {
			return nil, nil, err
		}
		if ok {
			return selectPairs(vals, vecs, k, order), selectVecs(vals, vecs, k, order), nil
		}
	}
	// Small matrices, the fallback when divide and conquer failed one of
	// its checks (the QR algorithm), and every full decomposition of the
	// openblas build (LAPACK's dsyevr behind mat.EigenSym).
	var es mat.EigenSym
	var ok bool
	if err := st.unmetered(func() { ok = es.Factorize(a, true) }); err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errors.New("linalg: symmetric eigen-decomposition did not converge")
	}
	vals := es.Values(nil) // ascending
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return selectPairs(vals, &vecs, k, order), selectVecs(vals, &vecs, k, order), nil
}

// orderPairs turns ascending pairs into the requested order and fixes the
// signs.
func orderPairs(vals []float64, vecs *mat.Dense, order Order) ([]float64, *mat.Dense, error) {
	out := selectVecs(vals, vecs, len(vals), order)
	return selectPairs(vals, nil, len(vals), order), out, nil
}

// partialEig computes eigenpairs il..iu (0-based, ascending) of the
// symmetric matrix a: tridiagonalisation by sytrdLower (A = Q·T·Qᵀ,
// reflectors stored below the sub-diagonal as Dsytrd leaves them),
// tridiagEig on T, and z ← Q·z by applyTridiagQ. It has the
// signature of the partialSymEig hook but st; ok is false when inverse
// iteration failed its checks or st stopped it.
func partialEig(a *mat.SymDense, il, iu int, st *stage) ([]float64, *mat.Dense, bool) {
	n := a.SymmetricDim()
	m := iu - il + 1
	if n == 0 || il < 0 || iu >= n || m <= 0 {
		return nil, nil, false
	}
	w, d, e, tau := tridiagonalize(a, st)
	if st.halted() {
		return nil, nil, false
	}
	vals, z, ok := tridiagEig(d, e, il, iu)
	if !ok {
		return nil, nil, false
	}
	st.begin("back-transformation")
	if !applyTridiagQ(n, w, tau, z, m, st) {
		return nil, nil, false
	}
	return vals, mat.NewDense(n, m, z), true
}

// fullEig computes every eigenpair of the symmetric matrix a (values
// ascending): tridiagonalisation by sytrdLower, all eigenpairs of T by
// divide and conquer (tridiagDC), and z ← Q·z by applyTridiagQ, about
// 4n³/3 + 2n³ flops plus at most 4n³/3 in the merges, nearly all of it in
// parallel level-3 products. It is the fullSymEig of the pure-Go build;
// ok is false when divide and conquer failed one of its checks (the
// caller then uses EigenSym) or st (nil: none) stopped it.
func fullEig(a *mat.SymDense, st *stage) ([]float64, *mat.Dense, bool) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, nil, false
	}
	w, d, e, tau := tridiagonalize(a, st)
	if st.halted() {
		return nil, nil, false
	}
	st.announce("eigenpairs of the tridiagonal matrix (divide and conquer)")
	vals, z, ok := tridiagDC(d, e, st)
	if !ok || st.err() != nil {
		return nil, nil, false
	}
	st.begin("back-transformation")
	if !applyTridiagQ(n, w, tau, z, n, st) {
		return nil, nil, false
	}
	return vals, mat.NewDense(n, n, z), true
}

// tridiagonalize reduces a to tridiagonal form by sytrdLower: it returns
// the row-major n×n work matrix holding the reflectors below its
// sub-diagonal (for applyTridiagQ), the diagonal d, the off-diagonal e
// (length n − 1) and the reflector scalars tau. st (nil: none) meters the
// reduction and may stop it (st.halted; the outputs are then incomplete).
func tridiagonalize(a *mat.SymDense, st *stage) (w, d, e, tau []float64) {
	n := a.SymmetricDim()
	// Lower triangle of a, row-major: w[i*n+j] = A(j, i) for j ≤ i (a
	// stores its upper triangle), by 32×32 tiles, bands of rows in
	// parallel.
	w = make([]float64, n*n)
	raw := a.RawSymmetric()
	const tile = 32
	par.Blocks(n, tile, func(i0, i1 int) {
		for j0 := 0; j0 < i1; j0 += tile {
			for j := j0; j < min(j0+tile, i1); j++ {
				src := raw.Data[j*raw.Stride:]
				for i := max(i0, j); i < i1; i++ {
					w[i*n+j] = src[i]
				}
			}
		}
	})
	d = make([]float64, n)
	e = make([]float64, max(n-1, 1))
	tau = make([]float64, max(n-1, 1))
	st.begin("tridiagonal reduction")
	sytrdLower(n, w, n, d, e, tau, st)
	return w, d, e[:n-1], tau
}

// pairResidual returns max_j ‖A·v_j − λ_j·B·v_j‖/(‖A·v_j‖ + |λ_j|·‖B·v_j‖)
// (B = I when b is nil).
func pairResidual(a, b *mat.SymDense, vals []float64, v *mat.Dense) float64 {
	av := MulBlock(SymDenseOp{a}, v)
	bv := v
	if b != nil {
		bv = MulBlock(SymDenseOp{b}, v)
	}
	n, k := v.Dims()
	worst := 0.0
	for j := 0; j < k; j++ {
		var rr, aa, bb float64
		for i := 0; i < n; i++ {
			x, y := av.At(i, j), bv.At(i, j)
			r := x - vals[j]*y
			rr += r * r
			aa += x * x
			bb += y * y
		}
		den := math.Sqrt(aa) + math.Abs(vals[j])*math.Sqrt(bb)
		if den > 0 {
			worst = max(worst, math.Sqrt(rr)/den)
		}
	}
	return worst
}

// applyTridiagQ sets z ← Q·z for the n×m row-major z, with
// Q = H_0·…·H_{n−2} from sytrdLower (reflector i acts on rows i+1..n−1,
// its vector below the sub-diagonal of column i of w): through zᵀ and
// applyTridiagQT. It returns false when st (nil: none) stopped it (z is
// then incomplete).
func applyTridiagQ(n int, w, tau, z []float64, m int, st *stage) bool {
	if n < 2 || m == 0 {
		return true
	}
	zt := make([]float64, m*n)
	transposeTo(zt, z, n, m)
	if !applyTridiagQT(n, w, tau, zt, m, st) {
		return false
	}
	transposeTo(z, zt, m, n)
	return true
}

// transposeTo sets dst (c×r, row-major) to the transpose of src (r×c),
// by 32×32 tiles, in parallel over bands of rows of src.
func transposeTo(dst, src []float64, r, c int) {
	const tile = 32
	par.Blocks(r, tile, func(i0, i1 int) {
		for j0 := 0; j0 < c; j0 += tile {
			j1 := min(j0+tile, c)
			for i := i0; i < i1; i++ {
				row := src[i*c+j0 : i*c+j1]
				for j, x := range row {
					dst[(j0+j)*r+i] = x
				}
			}
		}
	})
}

// applyTridiagQT sets zt ← zt·Qᵀ for the m×n row-major zt (that is,
// z ← Q·z for z = ztᵀ, the vectors being the rows of zt). The reflectors
// are grouped in blocks of 32 in the compact WY form H = I − V·T·Vᵀ,
// whose T (larftForward) and Vᵀ (copied out with its unit diagonal and
// zeros: 32 contiguous rows) are computed once, in parallel; the blocks
// are then applied from the last to the first to slabs of 128 rows of zt
// in parallel, Z ← Z − ((Z·V)·Tᵀ)·Vᵀ: Z·V as dot products along the
// reflectors' whole length and the update as axpys along it, the long
// vectors with which the product kernels run fastest (Dlarfb's layout,
// and Dormqr's, run them over the 32 reflectors or the slab), the update
// in column chunks of 512. Each row of zt goes through the same sums
// whatever the slab, and a product split over goroutines keeps each
// element's sum, so results depend neither on the number of workers nor
// on the slab size: 128-row slabs give the bits of 32-row ones (compared
// at n = 3 000) 1.34× faster, the smaller products' packing amortised
// over more rows. This is Dormqr's computation (about 2·n²·m flops),
// without Dormqr's temporary writes into the shared reflector storage,
// which would race. st (nil: none) is told the fraction of rows of zt done
// after each slab and stops the remaining slabs when its context is
// cancelled; the result is false then.
func applyTridiagQT(n int, w, tau, zt []float64, m int, st *stage) bool {
	if n < 2 || m == 0 {
		return true
	}
	bi := blas64.Implementation()
	const ib, slab, chunk = 32, 128, 512
	k := n - 1 // reflectors; they live in the (n−1)×(n−1) matrix w[n:]
	v := w[n:]
	nblk := (k + ib - 1) / ib
	ts, vts := make([][]float64, nblk), make([][]float64, nblk)
	par.Blocks(nblk, 1, func(b, _ int) {
		i := b * ib
		kb, r := min(ib, k-i), k-i
		ts[b] = make([]float64, kb*kb)
		larftForward(r, kb, v[i*n+i:], n, tau[i:i+kb], ts[b], kb)
		vt := make([]float64, kb*r) // Vᵀ: row a is reflector i+a on rows i+1..n−1
		for a := 0; a < kb; a++ {
			vt[a*r+a] = 1
			for j := a + 1; j < r; j++ {
				vt[a*r+j] = v[(i+j)*n+i+a]
			}
		}
		vts[b] = vt
	})
	var rows atomic.Int64
	par.Blocks(m, slab, func(lo, hi int) {
		if st.halted() {
			return
		}
		c := hi - lo
		wk := make([]float64, c*ib)
		for b := nblk - 1; b >= 0; b-- {
			i := b * ib
			kb, r := min(ib, k-i), k-i
			zs := zt[lo*n+i+1:] // c×r, leading dimension n
			vt := vts[b]
			bi.Dgemm(blas.NoTrans, blas.Trans, c, kb, r, 1, zs, n, vt, r, 0, wk, kb)
			bi.Dtrmm(blas.Right, blas.Upper, blas.Trans, blas.NonUnit, c, kb, 1, ts[b], kb, wk, kb)
			for j := 0; j < r; j += chunk {
				bi.Dgemm(blas.NoTrans, blas.NoTrans, c, min(chunk, r-j), kb, -1, wk, kb, vt[j:], r, 1, zs[j:], n)
			}
		}
		st.done(float64(rows.Add(int64(c))) / float64(m))
	})
	return !st.halted()
}
