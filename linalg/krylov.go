package linalg

// Shared machinery of the iterative eigensolvers (Lanczos, LOBPCG,
// Randomized): input validation, seeded random blocks, guarded operator
// application, orthonormalisation with rank handling, and residuals.
//
// Every routine here is sequential or uses gonum BLAS whose parallel
// partition depends only on matrix sizes, so results are bit-identical
// whatever GOMAXPROCS is.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// iterDefaultSeed is the seed used when a solver's Seed is 0.
const iterDefaultSeed = 0x6469_6d72_6564 // "dimred"

// iterRand returns the PCG generator of a solver seed (a fixed default
// when seed is 0).
func iterRand(seed uint64) *rand.Rand {
	if seed == 0 {
		seed = iterDefaultSeed
	}
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// fillNormal sets every entry of m to a standard normal draw, row by row.
func fillNormal(m *mat.Dense, rng *rand.Rand) {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		row := m.RawRowView(i)
		for j := 0; j < c; j++ {
			row[j] = rng.NormFloat64()
		}
	}
}

// iterValidate checks the arguments of EigenSolver.Eigs and returns n.
func iterValidate(ctx context.Context, name string, a, b SymOperator, k int, order Order) (int, error) {
	if ctx == nil {
		return 0, fmt.Errorf("linalg: %s: nil context", name)
	}
	if a == nil {
		return 0, fmt.Errorf("linalg: %s: operator A is nil", name)
	}
	if err := checkOrder(name, order); err != nil {
		return 0, err
	}
	n := a.Dim()
	if n < 1 {
		return 0, fmt.Errorf("linalg: %s: operator A has dimension %d (need at least 1)", name, n)
	}
	if k < 1 || k > n {
		return 0, fmt.Errorf("linalg: %s: k = %d eigenpairs requested; k must be in [1, %d] (the operator dimension)", name, k, n)
	}
	if b != nil && b.Dim() != n {
		return 0, fmt.Errorf("linalg: %s: A is %d×%d but B is %d×%d", name, n, n, b.Dim(), b.Dim())
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return n, nil
}

// iterStop resolves a solver's Tol and MaxIter (zero means the given
// defaults) and rejects negative or non-finite values, naming the field.
func iterStop(name string, tol float64, maxIter int, defTol float64, defMaxIter int) (float64, int, error) {
	if tol < 0 || math.IsNaN(tol) || math.IsInf(tol, 0) {
		return 0, 0, fmt.Errorf("linalg: %s: Tol = %v; it must be ≥ 0 (0 means %g)", name, tol, defTol)
	}
	if maxIter < 0 {
		return 0, 0, fmt.Errorf("linalg: %s: MaxIter = %d; it must be ≥ 0 (0 means %d)", name, maxIter, defMaxIter)
	}
	if tol == 0 {
		tol = defTol
	}
	if maxIter == 0 {
		maxIter = defMaxIter
	}
	return tol, maxIter, nil
}

// applyOp sets dst = op·src and checks that the result is finite. A panic
// inside the operator (for example a size mismatch in a user FuncOp) is
// returned as an error instead of crashing the caller.
func applyOp(solver, what string, op SymOperator, dst, src *mat.Dense) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("linalg: %s: operator %s panicked: %v", solver, what, r)
		}
	}()
	op.MulBlockTo(dst, src)
	if i, j, ok := firstNonFinite(dst); !ok {
		return fmt.Errorf("linalg: %s: operator %s returned %v at row %d of block column %d (the operator must map finite vectors to finite vectors)",
			solver, what, dst.At(i, j), i, j)
	}
	return nil
}

// firstNonFinite returns the first NaN or ±Inf entry of m (ok = false),
// or ok = true when every entry is finite.
func firstNonFinite(m *mat.Dense) (int, int, bool) {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		row := m.RawRowView(i)
		for j := 0; j < c; j++ {
			if v := row[j]; math.IsNaN(v) || math.IsInf(v, 0) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// colNormsTo sets out[j] = ‖m[:, j]‖₂ (accumulated row by row, in a fixed
// order).
func colNormsTo(out []float64, m *mat.Dense) {
	r, c := m.Dims()
	for j := range out[:c] {
		out[j] = 0
	}
	for i := 0; i < r; i++ {
		row := m.RawRowView(i)
		for j := 0; j < c; j++ {
			out[j] += row[j] * row[j]
		}
	}
	for j := range out[:c] {
		out[j] = math.Sqrt(out[j])
	}
}

// relResiduals sets rho[j] to the relative residual of the pair
// (vals[j], x[:, j]) of A·x = λ·B·x given ax = A·x and bx = B·x (bx = x
// for B = I):
//
//	ρⱼ = ‖A·xⱼ − λⱼ·B·xⱼ‖ / max(‖A·xⱼ‖ + |λⱼ|·‖B·xⱼ‖, ‖A‖·‖xⱼ‖)
//
// where anorm estimates ‖A‖₂. The first term of the denominator is the
// one of EigenResult.Residual; the second keeps the measure meaningful
// for λ ≈ 0 (the null vector of a Laplacian), where the first term
// vanishes with the residual. x, ax, bx are n×c with c ≤ len(vals).
func relResiduals(rho []float64, x, ax, bx *mat.Dense, vals []float64, anorm float64) {
	r, c := x.Dims()
	res := make([]float64, 4*c)
	rr, an, bn, xn := res[:c], res[c:2*c], res[2*c:3*c], res[3*c:]
	for i := 0; i < r; i++ {
		xr, ar, br := x.RawRowView(i), ax.RawRowView(i), bx.RawRowView(i)
		for j := 0; j < c; j++ {
			d := ar[j] - vals[j]*br[j]
			rr[j] += d * d
			an[j] += ar[j] * ar[j]
			bn[j] += br[j] * br[j]
			xn[j] += xr[j] * xr[j]
		}
	}
	for j := 0; j < c; j++ {
		den := math.Max(math.Sqrt(an[j])+math.Abs(vals[j])*math.Sqrt(bn[j]), anorm*math.Sqrt(xn[j]))
		switch {
		case den > 0:
			rho[j] = math.Sqrt(rr[j]) / den
		case rr[j] == 0:
			rho[j] = 0
		default:
			rho[j] = math.Inf(1)
		}
	}
}

// maxOf returns the largest entry of v (0 for an empty slice).
func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// countConverged returns how many of rho[:k] are at most tol.
func countConverged(rho []float64, tol float64) int {
	c := 0
	for _, r := range rho {
		if r <= tol {
			c++
		}
	}
	return c
}

// denseColumns returns the n×c view of the first c columns of m.
func denseColumns(m *mat.Dense, c0, c1 int) *mat.Dense {
	r, _ := m.Dims()
	return m.Slice(0, r, c0, c1).(*mat.Dense)
}

// rowTransformTo sets dst = src·t row block by row block. dst may share
// memory with src when, for every row i, the first element of row i of dst
// is not after that of src (true when both are column views of the same
// buffer with the same stride starting at the same column): each block of
// rows is computed into tmp before it is written.
func rowTransformTo(dst, src, t *mat.Dense, tmp []float64) {
	const rb = 64
	n, c := src.Dims()
	_, c2 := t.Dims()
	if c == 0 || c2 == 0 {
		return
	}
	if len(tmp) < rb*c2 {
		panic("linalg: rowTransformTo buffer too small")
	}
	for lo := 0; lo < n; lo += rb {
		hi := min(lo+rb, n)
		tb := mat.NewDense(hi-lo, c2, tmp[:(hi-lo)*c2])
		tb.Mul(src.Slice(lo, hi, 0, c), t)
		dst.Slice(lo, hi, 0, c2).(*mat.Dense).Copy(tb)
	}
}

// orthoWork holds the buffers and state of orthonormalisation against a
// basis. The zero value is not usable; see newOrthoWork.
type orthoWork struct {
	rng *rand.Rand
	// relDrop: a column whose remainder after projection is at most
	// relDrop·max(‖w₀‖, floor) is treated as dependent and replaced by a
	// random direction.
	relDrop float64
	// Breakdowns counts columns replaced by random directions.
	breakdowns int
	buf        []float64 // reused copy of the block in cholQR2
}

// orthoAgainst makes the columns of w (n×bw) orthonormal and orthogonal to
// the columns of v (n×j, orthonormal; v may be nil). On return w holds Q and
//
//	w₀ = v·c + Q·r + E,   ‖E[:, i]‖ ≤ relDrop·max(‖w₀[:, i]‖, floor),
//
// with c j×bw (nil when v is nil) and r bw×bw. A column whose remainder is
// below the drop level (an invariant subspace, a rank-deficient block) gets
// a zero column in r and is replaced by a random unit vector orthogonal to v
// and to the other columns, so the basis can always be extended.
//
// The method is block classical Gram–Schmidt against v twice (Daniel et
// al. 1976: "twice is enough"), then Cholesky-QR twice on the
// column-equilibrated block with a third projection against v in between
// (CholQR2, Fukaya et al. 2014); when the Gram matrix is ill-conditioned
// or a column is negligible it falls back to modified Gram–Schmidt with
// reorthogonalisation, column by column, which never loses a direction
// that is above the drop level.
func (o *orthoWork) orthoAgainst(v, w *mat.Dense, floor float64) (c, r *mat.Dense) {
	_, bw := w.Dims()
	j := 0
	if v != nil {
		_, j = v.Dims()
	}
	if j > 0 {
		c = mat.NewDense(j, bw, nil)
	}
	norms0 := make([]float64, bw)
	colNormsTo(norms0, w)
	drop := make([]float64, bw)
	for i := range drop {
		drop[i] = o.relDrop * math.Max(norms0[i], floor)
	}
	if j > 0 {
		projectOut(v, w, c)
		projectOut(v, w, c)
	}
	if r, ok := o.cholQR2(v, w, c, drop); ok {
		return c, r
	}
	return c, o.mgs(v, w, c, drop)
}

// projectOut sets w ← w − v·(vᵀ·w) and adds vᵀ·w to c.
func projectOut(v, w, c *mat.Dense) {
	_, j := v.Dims()
	_, bw := w.Dims()
	var t mat.Dense
	t.ReuseAs(j, bw)
	t.Mul(v.T(), w)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, v.RawMatrix(), t.RawMatrix(), 1, w.RawMatrix())
	c.Add(c, &t)
}

// cholQR2 orthonormalises w (already orthogonal to v) by two Cholesky-QR
// passes on the column-equilibrated block, with a projection against v
// between them. On success w holds Q, c is updated and r is returned; ok
// is false, and w and c are untouched, when a column is at or below its
// drop level or the block is too ill-conditioned for Cholesky-QR.
func (o *orthoWork) cholQR2(v, w, c *mat.Dense, drop []float64) (*mat.Dense, bool) {
	_, bw := w.Dims()
	norms := make([]float64, bw)
	colNormsTo(norms, w)
	inv := make([]float64, bw)
	for i, s := range norms {
		if !(s > drop[i]) {
			return nil, false
		}
		inv[i] = 1 / s
	}
	// Equilibrate a copy: the condition test must not depend on column
	// scaling, and w must stay intact if the factorisation is rejected.
	n, _ := w.Dims()
	if cap(o.buf) < n*bw {
		o.buf = make([]float64, n*bw)
	}
	we := mat.NewDense(n, bw, o.buf[:n*bw])
	we.Copy(w)
	scaleCols(we, inv)
	r1, ok := cholQRStep(we, 1e10)
	if !ok {
		return nil, false
	}
	// w = we₀·diag(norms) = Q1·r1·diag(norms).
	scaleCols(r1, norms)
	var dc *mat.Dense
	if v != nil {
		_, j := v.Dims()
		c2 := mat.NewDense(j, bw, nil)
		projectOut(v, we, c2)
		// Q1 = v·c2 + Q1' ⇒ w₀ = v·(c + c2·r1) + Q1'·r1.
		dc = mat.NewDense(j, bw, nil)
		dc.Mul(c2, r1)
	}
	r2, ok := cholQRStep(we, 1e4)
	if !ok {
		return nil, false
	}
	w.Copy(we)
	if dc != nil {
		c.Add(c, dc)
	}
	var r mat.Dense
	r.Mul(r2, r1)
	return &r, true
}

// cholQRStep factors w = Q·R by the Cholesky factor R of wᵀw, overwriting
// w with Q. It fails when the factorisation breaks down or the estimated
// condition number of wᵀw exceeds maxCond.
func cholQRStep(w *mat.Dense, maxCond float64) (*mat.Dense, bool) {
	_, bw := w.Dims()
	g := mat.NewSymDense(bw, nil)
	g.SymOuterK(1, w.T())
	var ch mat.Cholesky
	if !ch.Factorize(g) || !(ch.Cond() <= maxCond) {
		return nil, false
	}
	var u mat.TriDense
	ch.UTo(&u)
	blas64.Trsm(blas.Right, blas.NoTrans, 1, u.RawTriangular(), w.RawMatrix())
	return mat.DenseCopyOf(&u), true
}

// scaleCols multiplies column j of m by s[j].
func scaleCols(m *mat.Dense, s []float64) {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		row := m.RawRowView(i)
		for j := 0; j < c; j++ {
			row[j] *= s[j]
		}
	}
}

// mgs orthonormalises w column by column (modified Gram–Schmidt, each
// column projected twice against v and the previous columns), replacing
// columns below their drop level by random directions. Columns are copied
// to contiguous vectors so that the column sweeps stay cache-friendly.
func (o *orthoWork) mgs(v, w, c *mat.Dense, drop []float64) *mat.Dense {
	n, bw := w.Dims()
	j := 0
	if v != nil {
		_, j = v.Dims()
	}
	r := mat.NewDense(bw, bw, nil)
	q := make([][]float64, bw)
	coef := make([]float64, j)
	for i := 0; i < bw; i++ {
		x := mat.Col(nil, i, w)
		for pass := 0; pass < 2; pass++ {
			o.projectVec(v, q[:i], x, coef, func(t int, a float64) { r.Set(t, i, r.At(t, i)+a) })
			if j > 0 {
				for t := 0; t < j; t++ {
					c.Set(t, i, c.At(t, i)+coef[t])
				}
			}
		}
		s := blas64.Nrm2(blas64.Vector{N: n, Inc: 1, Data: x})
		if s > drop[i] {
			r.Set(i, i, s)
			blas64.Scal(1/s, blas64.Vector{N: n, Inc: 1, Data: x})
		} else {
			// Breakdown: the column lies in span(v, q₀..qᵢ₋₁) to working
			// accuracy. Continue with a random direction (its coefficients
			// are not part of the relation: r[i][i] = 0).
			o.breakdowns++
			x = o.randomOrthogonal(v, q[:i], n, coef)
		}
		q[i] = x
	}
	for i := 0; i < bw; i++ {
		w.SetCol(i, q[i])
	}
	return r
}

// projectVec subtracts from x its components along the columns of v and
// the vectors q, storing the v-coefficients in coef and reporting each
// q-coefficient through addQ (which may be nil).
func (o *orthoWork) projectVec(v *mat.Dense, q [][]float64, x, coef []float64, addQ func(t int, a float64)) {
	n := len(x)
	xv := blas64.Vector{N: n, Inc: 1, Data: x}
	if v != nil && len(coef) > 0 {
		cv := blas64.Vector{N: len(coef), Inc: 1, Data: coef}
		blas64.Gemv(blas.Trans, 1, v.RawMatrix(), xv, 0, cv)
		blas64.Gemv(blas.NoTrans, -1, v.RawMatrix(), cv, 1, xv)
	}
	for t, qt := range q {
		qv := blas64.Vector{N: n, Inc: 1, Data: qt}
		a := blas64.Dot(qv, xv)
		blas64.Axpy(-a, qv, xv)
		if addQ != nil {
			addQ(t, a)
		}
	}
}

// randomOrthogonal returns a random unit vector orthogonal to the columns
// of v and to the vectors q. It panics if they already span the space
// (callers keep the basis size below n).
func (o *orthoWork) randomOrthogonal(v *mat.Dense, q [][]float64, n int, coef []float64) []float64 {
	for attempt := 0; attempt < 5; attempt++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = o.rng.NormFloat64()
		}
		s0 := blas64.Nrm2(blas64.Vector{N: n, Inc: 1, Data: x})
		for pass := 0; pass < 3; pass++ {
			o.projectVec(v, q, x, coef, nil)
		}
		s := blas64.Nrm2(blas64.Vector{N: n, Inc: 1, Data: x})
		if s > 1e-8*s0 {
			blas64.Scal(1/s, blas64.Vector{N: n, Inc: 1, Data: x})
			return x
		}
	}
	panic("linalg: no direction left orthogonal to the basis (basis spans the space)")
}

// denseEigs solves A·v = λ·B·v (B = I when b is nil) through the dense
// matrices of the operators (DenseOf) and SymEig or GenSymEig, for
// problems too small for an iterative method. MatVecs counts the
// applications of A needed to form it (0 for a Densifier).
func denseEigs(name string, a, b SymOperator, k int, order Order) (*EigenResult, error) {
	am, err := denseOfChecked(name, "A", a)
	if err != nil {
		return nil, err
	}
	res := &EigenResult{}
	if _, ok := a.(Densifier); !ok {
		res.MatVecs = a.Dim()
	}
	var vals []float64
	var vecs *mat.Dense
	var bm *mat.SymDense
	if b == nil {
		vals, vecs, err = SymEig(am, k, order)
	} else {
		if bm, err = denseOfChecked(name, "B", b); err != nil {
			return nil, err
		}
		// B must be positive definite: keep every direction of B above
		// rounding level (a near-singular B is still definite).
		vals, vecs, err = GenSymEig(am, bm, k, GenOptions{Order: order, RankTol: 1e-15})
		if err == nil && len(vals) < k {
			err = fmt.Errorf("B has numerical rank %d < k = %d (it must be positive definite)", len(vals), k)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("linalg: %s (dense fallback): %w", name, err)
	}
	var ax, bx mat.Dense
	ax.Mul(am, vecs)
	if bm != nil {
		bx.Mul(bm, vecs)
	} else {
		bx.CloneFrom(vecs)
	}
	rho := make([]float64, k)
	relResiduals(rho, vecs, &ax, &bx, vals, mat.Norm(am, 2))
	res.Values, res.Vectors, res.Residual = vals, vecs, maxOf(rho)
	return res, nil
}

// denseOfChecked is DenseOf with a panic in the operator returned as an
// error.
func denseOfChecked(name, what string, op SymOperator) (m *mat.SymDense, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("linalg: %s: operator %s panicked: %v", name, what, r)
		}
	}()
	m = DenseOf(op)
	if err := checkFiniteSym(m); err != nil {
		return nil, fmt.Errorf("linalg: %s: operator %s: %w", name, what, err)
	}
	return m, nil
}
