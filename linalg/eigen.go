// Package linalg holds the dense eigen-solvers of dimred: the symmetric
// eigenproblem (top-k at either end), the generalized symmetric-definite
// problem A·v = λ·B·v with a ridge and rank handling (gonum has no
// generalized symmetric solver), deterministic ordering and sign fixing,
// and principal angles between subspaces for tests and diagnostics.
package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Order says which end of the spectrum a solver returns.
type Order int

const (
	// Largest returns eigenvalues in decreasing order.
	Largest Order = iota
	// Smallest returns eigenvalues in increasing order.
	Smallest
)

// SymEig returns the k eigenpairs of the symmetric matrix a at the end of
// the spectrum given by order (k ≤ 0 means all), as values and the matrix
// whose columns are the unit eigenvectors, signs fixed by FixSigns.
//
// When 0 < k ≤ n/4 the pairs come from the partial path of DenseEigen
// (tridiagonalisation, bisection, inverse iteration, back-transformation:
// 4n³/3 + O(n²k) flops); otherwise, or if that path fails its accuracy
// checks, from the full decomposition a = Q·Λ·Qᵀ: by divide and conquer
// on the tridiagonal form when n > 64 (fullEig; about 4.7n³ flops, in
// parallel), by gonum's EigenSym for smaller matrices or if divide and
// conquer fails its checks. Iterative solvers for large sparse problems
// live elsewhere.
func SymEig(a mat.Symmetric, k int, order Order) ([]float64, *mat.Dense, error) {
	return SymEigContext(context.Background(), a, k, order)
}

// SymEigContext is SymEig that reports how far the decomposition has got
// to the reporter ctx carries (package progress: for orders of at least
// progress.MinOrder, a line per tenth of the tridiagonal reduction and of
// the back-transformation, at most one per progress.MinGap) and stops
// between blocks of those O(n³) kernels, returning an error that wraps
// ctx.Err(), when ctx is cancelled. The pairs are SymEig's, bit for bit.
// The divide and conquer between the two parts reports and stops too. A
// decomposition handed to one call that can do neither (LAPACK's dsyevr
// in the openblas build, gonum's EigenSym) is announced by a line, is not
// started after a cancellation, and gives the context's error instead of
// its result when cancelled while it ran.
func SymEigContext(ctx context.Context, a mat.Symmetric, k int, order Order) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, nil, errors.New("linalg: empty matrix")
	}
	if err := checkOrder("eigen-decomposition", order); err != nil {
		return nil, nil, err
	}
	if err := checkFiniteSym(a); err != nil {
		return nil, nil, err
	}
	sd, ok := a.(*mat.SymDense)
	if !ok {
		sd = mat.NewSymDense(n, nil)
		sd.CopySym(a)
	}
	return symEigK(sd, k, order, newStage(ctx, n, fmt.Sprintf("eigen-decomposition of order %d", n)))
}

func checkFiniteSym(a mat.Symmetric) error {
	n := a.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("linalg: matrix entry (%d,%d) is %v", i, j, v)
			}
		}
	}
	return nil
}

// order of indices into ascending vals for the requested end.
func pickIndex(n, k int, order Order) []int {
	if k <= 0 || k > n {
		k = n
	}
	idx := make([]int, k)
	for i := range idx {
		if order == Largest {
			idx[i] = n - 1 - i
		} else {
			idx[i] = i
		}
	}
	return idx
}

func selectPairs(vals []float64, _ *mat.Dense, k int, order Order) []float64 {
	idx := pickIndex(len(vals), k, order)
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = vals[j]
	}
	return out
}

func selectVecs(vals []float64, vecs *mat.Dense, k int, order Order) *mat.Dense {
	idx := pickIndex(len(vals), k, order)
	r, _ := vecs.Dims()
	out := mat.NewDense(r, len(idx), nil)
	src, dst := vecs.RawMatrix(), out.RawMatrix()
	for i := 0; i < r; i++ {
		row, orow := src.Data[i*src.Stride:], dst.Data[i*dst.Stride:]
		for c, j := range idx {
			orow[c] = row[j]
		}
	}
	FixSigns(out)
	return out
}

// FixSigns flips the sign of every column of v so that its entry of largest
// magnitude is positive (the first such entry on ties), making eigenvector
// output deterministic; scikit-learn's svd_flip follows the same rule.
func FixSigns(v *mat.Dense) {
	r, c := v.Dims()
	if r == 0 || c == 0 {
		return
	}
	raw := v.RawMatrix()
	// Row by row (the storage order), each column keeping its own best.
	best := make([]float64, c)
	at := make([]int, c)
	for j := range best {
		best[j] = -1
	}
	for i := 0; i < r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		for j, x := range row {
			if a := math.Abs(x); a > best[j]*(1+1e-12) {
				best[j], at[j] = a, i
			}
		}
	}
	flip := make([]bool, c)
	some := false
	for j := range flip {
		flip[j] = raw.Data[at[j]*raw.Stride+j] < 0
		some = some || flip[j]
	}
	if !some {
		return
	}
	for i := 0; i < r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		for j, f := range flip {
			if f {
				row[j] = -row[j]
			}
		}
	}
}

// GenOptions configures GenSymEig.
type GenOptions struct {
	// Ridge is added to the diagonal of B before the reduction
	// (B + Ridge·I). Zero means no ridge.
	Ridge float64
	// RankTol: eigenvalues of B (after the ridge) at most RankTol times the
	// largest are treated as zero, and the problem is solved on the range
	// of B (the null space of B carries no constraint and is dropped).
	// If zero, it is defaulted to 1e-10.
	RankTol float64
	// Order says which end of the spectrum to return.
	Order Order
}

// GenSymEig solves the generalized symmetric-definite eigenproblem
//
//	A·v = λ·B·v,   vᵀ·B·v = 1,
//
// for the k eigenpairs at the end given by opt.Order (k ≤ 0: all that
// exist on the range of B). B is reduced through its eigen-decomposition
// B = Q·Λ·Qᵀ: with P = Q_r·Λ_r^{-1/2} over the r eigenvalues above the rank
// tolerance, the problem becomes the standard symmetric one
// (Pᵀ·A·P)·z = λ·z with v = P·z. When B is singular this solves the problem
// restricted to range(B) (so at most r pairs exist), which is the usual
// meaning of a rank-deficient constraint; a ridge makes B definite.
// Columns of the returned matrix are B-orthonormal and sign-fixed.
func GenSymEig(a, b mat.Symmetric, k int, opt GenOptions) ([]float64, *mat.Dense, error) {
	return GenSymEigContext(context.Background(), a, b, k, opt)
}

// GenSymEigContext is GenSymEig with SymEigContext's progress lines and
// cancellation (the same pairs, bit for bit).
func GenSymEigContext(ctx context.Context, a, b mat.Symmetric, k int, opt GenOptions) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if b.SymmetricDim() != n {
		return nil, nil, fmt.Errorf("linalg: A is %d×%d but B is %d×%d", n, n, b.SymmetricDim(), b.SymmetricDim())
	}
	if err := checkFiniteSym(b); err != nil {
		return nil, nil, fmt.Errorf("constraint matrix B: %w", err)
	}
	tol, err := RankTolerance(opt.RankTol)
	if err != nil {
		return nil, nil, err
	}
	if err := checkOrder("generalized eigen-decomposition", opt.Order); err != nil {
		return nil, nil, err
	}
	if math.IsNaN(opt.Ridge) || math.IsInf(opt.Ridge, 0) {
		return nil, nil, fmt.Errorf("linalg: ridge %v; must be finite", opt.Ridge)
	}
	bb := mat.NewSymDense(n, nil)
	bb.CopySym(b)
	if opt.Ridge != 0 {
		for i := 0; i < n; i++ {
			bb.SetSym(i, i, bb.At(i, i)+opt.Ridge)
		}
	}
	if isIdentity(bb) {
		return SymEigContext(ctx, a, k, opt.Order)
	}
	// A well-conditioned B (every eigenvalue above the rank tolerance, with
	// a margin) is reduced by its Cholesky factor, B = L·Lᵀ: one
	// factorisation and two triangular solves instead of an
	// eigen-decomposition of B, and the same pairs.
	st := newGenStage(ctx, n)
	f, err := choleskyShifted(bb, 0, st)
	if err := st.err(); err != nil {
		return nil, nil, err
	}
	if err == nil {
		if lmax, lmin := f.extremeEigs(10); lmin > 100*tol*lmax {
			return f.reducedEig(a, k, opt.Order, st)
		}
	}
	return genSymEigRange(ctx, a, bb, k, tol, opt.Order)
}

// genSymEigRange solves the pencil on range(B) through the
// eigen-decomposition of B (see GenSymEig).
func genSymEigRange(ctx context.Context, a mat.Symmetric, bb *mat.SymDense, k int, tol float64, order Order) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	bvals, bvecs, err := SymEigContext(ctx, bb, 0, Largest)
	if err != nil {
		return nil, nil, fmt.Errorf("constraint matrix B: %w", err)
	}
	if bvals[0] <= 0 {
		return nil, nil, errors.New("linalg: constraint matrix B has no positive eigenvalue (it is zero or negative semi-definite)")
	}
	r := 0
	for r < n && bvals[r] > tol*bvals[0] {
		r++
	}
	p := mat.NewDense(n, r, nil)
	for j := 0; j < r; j++ {
		s := 1 / math.Sqrt(bvals[j])
		for i := 0; i < n; i++ {
			p.Set(i, j, bvecs.At(i, j)*s)
		}
	}
	c := Congruence(a, p)
	vals, z, err := SymEigContext(ctx, c, k, order)
	if err != nil {
		return nil, nil, err
	}
	var v mat.Dense
	v.Mul(p, z)
	FixSigns(&v)
	return vals, &v, nil
}

// Congruence returns the symmetric matrix Pᵀ·A·P.
func Congruence(a mat.Symmetric, p mat.Matrix) *mat.SymDense {
	var ap, c mat.Dense
	ap.Mul(a, p)
	c.Mul(p.T(), &ap)
	return Symmetrize(&c)
}

// Symmetrize returns (M + Mᵀ)/2 as a SymDense; M must be square.
func Symmetrize(m mat.Matrix) *mat.SymDense {
	n, _ := m.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(m.At(i, j)+m.At(j, i)))
		}
	}
	return s
}

// PrincipalAngles returns the principal angles (radians, ascending) between
// the column spaces of a and b, min(rank) of them. With orthonormal bases
// Qa, Qb (thin QR, b the one with fewer columns), the cosines are the
// singular values of Qaᵀ·Qb and the sines those of Qb − Qa·(Qaᵀ·Qb);
// angles below π/4 are taken from the sines, the others from the cosines
// (Björck & Golub 1973), so that small angles are accurate to about 1e-16
// instead of the √ε ≈ 1.5e-8 floor of arccos. Used to compare subspaces
// whose bases differ by signs, order or rotation within degenerate
// eigenspaces.
func PrincipalAngles(a, b mat.Matrix) ([]float64, error) {
	if _, ca := a.Dims(); true {
		if _, cb := b.Dims(); cb > ca {
			a, b = b, a
		}
	}
	qa, err := orthonormalBasis(a)
	if err != nil {
		return nil, err
	}
	qb, err := orthonormalBasis(b)
	if err != nil {
		return nil, err
	}
	var m, r mat.Dense
	m.Mul(qa.T(), qb)
	r.Mul(qa, &m)
	r.Sub(qb, &r)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return nil, errors.New("linalg: SVD failed in PrincipalAngles")
	}
	cos := svd.Values(nil) // descending: angles ascending
	if !svd.Factorize(&r, mat.SVDNone) {
		return nil, errors.New("linalg: SVD failed in PrincipalAngles")
	}
	sin := svd.Values(nil) // descending: angles descending
	ang := make([]float64, len(cos))
	for i, c := range cos {
		s := sin[len(sin)-1-i]
		if s < math.Sqrt2/2 {
			ang[i] = math.Asin(math.Max(0, s))
		} else {
			ang[i] = math.Acos(math.Min(1, math.Max(-1, c)))
		}
	}
	sort.Float64s(ang)
	return ang, nil
}

func orthonormalBasis(a mat.Matrix) (*mat.Dense, error) {
	r, c := a.Dims()
	if r < c {
		return nil, fmt.Errorf("linalg: basis with %d columns in dimension %d", c, r)
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, c)), nil
}

// checkOrder refuses an Order that is neither Largest nor Smallest.
func checkOrder(name string, order Order) error {
	if order != Largest && order != Smallest {
		return fmt.Errorf("linalg: %s: order %d is neither Largest (%d) nor Smallest (%d)", name, int(order), int(Largest), int(Smallest))
	}
	return nil
}

// RankTolerance returns the relative rank tolerance t to use: 1e-10 for
// zero, t itself for 0 < t < 1, an error naming the value otherwise (a
// negative tolerance keeps null directions, one of 1 or more drops every
// direction, NaN compares false with everything).
func RankTolerance(t float64) (float64, error) {
	switch {
	case t == 0:
		return 1e-10, nil
	case t > 0 && t < 1:
		return t, nil
	}
	return 0, fmt.Errorf("linalg: rank tolerance %v; must be in [0, 1) (0 = 1e-10)", t)
}
