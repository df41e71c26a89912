package linalg

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// SymOperator is a symmetric n×n matrix given by its action on a block of
// vectors. Iterative solvers need nothing else, so a Gram matrix, a
// product such as K̃·L·K̃ with a sparse L, or Xᵀ·X for a tall X can be
// used without being formed.
type SymOperator interface {
	// Dim is n.
	Dim() int
	// MulBlockTo sets dst = A·src for an n×m block src. dst is n×m and
	// does not alias src. Implementations must be deterministic (the same
	// bits whatever GOMAXPROCS is).
	MulBlockTo(dst, src *mat.Dense)
}

// Densifier is implemented by operators that hold (or can cheaply build)
// their matrix. Dense solvers use it instead of applying the operator to
// the identity.
type Densifier interface {
	SymDense() *mat.SymDense
}

// DenseOf returns the matrix of a, from Densifier when implemented and
// otherwise by applying a to blocks of the identity.
func DenseOf(a SymOperator) *mat.SymDense {
	if d, ok := a.(Densifier); ok {
		return d.SymDense()
	}
	n := a.Dim()
	out := mat.NewSymDense(n, nil)
	const blk = 64
	for lo := 0; lo < n; lo += blk {
		hi := min(lo+blk, n)
		e := mat.NewDense(n, hi-lo, nil)
		for j := lo; j < hi; j++ {
			e.Set(j, j-lo, 1)
		}
		col := mat.NewDense(n, hi-lo, nil)
		a.MulBlockTo(col, e)
		for j := lo; j < hi; j++ {
			for i := 0; i <= j; i++ {
				// Symmetrise: A[i][j] from both triangles.
				v := col.At(i, j-lo)
				if i >= lo {
					v = 0.5 * (v + col.At(j, i-lo))
				}
				out.SetSym(i, j, v)
			}
		}
	}
	return out
}

// SymDenseOp wraps a symmetric matrix as a SymOperator.
type SymDenseOp struct{ M *mat.SymDense }

// Dim implements SymOperator.
func (o SymDenseOp) Dim() int { return o.M.SymmetricDim() }

// MulBlockTo implements SymOperator.
func (o SymDenseOp) MulBlockTo(dst, src *mat.Dense) {
	checkBlock(o.Dim(), dst, src)
	blas64.Symm(blas.Left, 1, o.M.RawSymmetric(), src.RawMatrix(), 0, dst.RawMatrix())
}

// SymDense implements Densifier.
func (o SymDenseOp) SymDense() *mat.SymDense { return o.M }

// SymMul returns A·M for a symmetric A stored as gonum stores it (the
// upper triangle). The product runs by blocks of symMulRows rows of A,
// each expanded from the stored triangle into full rows and multiplied by
// gonum's cache-blocked, parallel Dgemm: mat.Mul of a SymDense calls
// Dsymm, which is serial and unblocked (the dense M-step of MIE on 10 000
// MNIST rows, L·Φ with Φ 10 000×664: 48 s with Dsymm, 22 s this way).
// The expansion buffer holds symMulRows·n numbers. Block boundaries depend
// only on n: the result does not depend on GOMAXPROCS. (SymDenseOp still
// multiplies by Dsymm: moving it here changes the rounding of every
// solver that applies one.)
func SymMul(a *mat.SymDense, m *mat.Dense) *mat.Dense {
	out, _ := symMul(a, m, nil) // a nil stage is never cancelled
	return out
}

// SymMulContext is SymMul, bit for bit, reporting its progress under the
// name what (at order n ≥ progress.MinOrder) and stopping between row
// blocks when ctx (nil: none) is cancelled; the error then wraps ctx's.
// A dense graph times Φ at 10 000 rows is an O(n²·r) step of tens of
// seconds (the exact kernel MIE/BERE M-step).
func SymMulContext(ctx context.Context, a *mat.SymDense, m *mat.Dense, what string) (*mat.Dense, error) {
	n := a.SymmetricDim()
	st := newStage(ctx, n, what)
	st.begin(fmt.Sprintf("product with %d columns", m.RawMatrix().Cols))
	out, err := symMul(a, m, st)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// symMul is SymMul; st (nil: none) hears the fraction of rows done after
// each block and stops the product before the next when cancelled.
func symMul(a *mat.SymDense, m *mat.Dense, st *stage) (*mat.Dense, error) {
	n := a.SymmetricDim()
	r, c := m.Dims()
	if r != n {
		panic(fmt.Sprintf("linalg: symmetric matrix of order %d applied to %d rows", n, r))
	}
	out := mat.NewDense(n, c, nil)
	raw := a.RawSymmetric()
	bs := min(n, symMulRows)
	buf := make([]float64, bs*n)
	for lo := 0; lo < n; lo += bs {
		if !st.done(float64(lo) / float64(n)) {
			return nil, st.err()
		}
		hi := min(lo+bs, n)
		rows := mat.NewDense(hi-lo, n, buf[:(hi-lo)*n])
		// Aᵢⱼ for j ≥ i is in stored row i; for j < i at (j, i), read a
		// stored row segment at a time.
		for i := lo; i < hi; i++ {
			copy(rows.RawRowView(i - lo)[i:], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		}
		for j := 0; j < hi-1; j++ {
			seg := raw.Data[j*raw.Stride : j*raw.Stride+n]
			for i := max(lo, j+1); i < hi; i++ {
				rows.RawRowView(i - lo)[j] = seg[i]
			}
		}
		out.Slice(lo, hi, 0, c).(*mat.Dense).Mul(rows, m)
	}
	return out, nil
}

// symMulRows is the row block of SymMul.
const symMulRows = 128

// GramOp is the operator XᵀX (p×p) of an n×p matrix X, applied as
// Xᵀ·(X·V) without forming XᵀX: 4·n·p·m flops for an m-column block
// instead of n·p² to form it.
type GramOp struct{ X *mat.Dense }

// Dim implements SymOperator.
func (o GramOp) Dim() int { _, p := o.X.Dims(); return p }

// MulBlockTo implements SymOperator.
func (o GramOp) MulBlockTo(dst, src *mat.Dense) {
	checkBlock(o.Dim(), dst, src)
	n, _ := o.X.Dims()
	_, m := src.Dims()
	t := mat.NewDense(n, m, nil)
	t.Mul(o.X, src)
	dst.Mul(o.X.T(), t)
}

// SymDense implements Densifier: XᵀX formed by CrossProduct (n·p² flops,
// in parallel).
func (o GramOp) SymDense() *mat.SymDense { return CrossProduct(o.X) }

// OuterOp is the operator XXᵀ (n×n) of an n×p matrix X, applied as
// X·(Xᵀ·V).
type OuterOp struct{ X *mat.Dense }

// Dim implements SymOperator.
func (o OuterOp) Dim() int { n, _ := o.X.Dims(); return n }

// MulBlockTo implements SymOperator.
func (o OuterOp) MulBlockTo(dst, src *mat.Dense) {
	checkBlock(o.Dim(), dst, src)
	_, p := o.X.Dims()
	_, m := src.Dims()
	t := mat.NewDense(p, m, nil)
	t.Mul(o.X.T(), src)
	dst.Mul(o.X, t)
}

// SymDense implements Densifier: XXᵀ formed with one symmetric rank-k
// update.
func (o OuterOp) SymDense() *mat.SymDense {
	n, _ := o.X.Dims()
	out := mat.NewSymDense(n, nil)
	out.SymOuterK(1, o.X)
	return out
}

// SymView returns the symmetric matrix stored in the square *mat.Dense d
// (its upper triangle), sharing d's memory when its stride allows.
func SymView(d *mat.Dense) *mat.SymDense {
	raw := d.RawMatrix()
	if raw.Rows != raw.Cols {
		panic(fmt.Sprintf("linalg: SymView of a %d×%d matrix", raw.Rows, raw.Cols))
	}
	if raw.Stride == raw.Cols {
		return mat.NewSymDense(raw.Rows, raw.Data[:raw.Rows*raw.Cols])
	}
	out := mat.NewSymDense(raw.Rows, nil)
	for i := 0; i < raw.Rows; i++ {
		for j := i; j < raw.Rows; j++ {
			out.SetSym(i, j, d.At(i, j))
		}
	}
	return out
}

// ShiftOp is A + Sigma·I.
type ShiftOp struct {
	A     SymOperator
	Sigma float64
}

// Dim implements SymOperator.
func (o ShiftOp) Dim() int { return o.A.Dim() }

// MulBlockTo implements SymOperator.
func (o ShiftOp) MulBlockTo(dst, src *mat.Dense) {
	o.A.MulBlockTo(dst, src)
	if o.Sigma != 0 {
		r, c := src.Dims()
		for i := 0; i < r; i++ {
			d, s := dst.RawRowView(i), src.RawRowView(i)
			for j := 0; j < c; j++ {
				d[j] += o.Sigma * s[j]
			}
		}
	}
}

// SymDense implements Densifier: the matrix of A (DenseOf, so A's own
// Densifier when it has one) plus Sigma on the diagonal, in a new matrix.
func (o ShiftOp) SymDense() *mat.SymDense {
	inner := DenseOf(o.A)
	n := inner.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	out.CopySym(inner)
	for i := 0; i < n; i++ {
		out.SetSym(i, i, out.At(i, i)+o.Sigma)
	}
	return out
}

// FuncOp is an operator given by a function.
type FuncOp struct {
	N   int
	Mul func(dst, src *mat.Dense)
}

// Dim implements SymOperator.
func (o FuncOp) Dim() int { return o.N }

// MulBlockTo implements SymOperator.
func (o FuncOp) MulBlockTo(dst, src *mat.Dense) { o.Mul(dst, src) }

// MulBlock returns A·src in a new matrix.
func MulBlock(a SymOperator, src *mat.Dense) *mat.Dense {
	_, m := src.Dims()
	dst := mat.NewDense(a.Dim(), m, nil)
	a.MulBlockTo(dst, src)
	return dst
}

func checkBlock(n int, dst, src *mat.Dense) {
	r, c := src.Dims()
	dr, dc := dst.Dims()
	if r != n || dr != n || dc != c {
		panic(fmt.Sprintf("linalg: operator of size %d applied to %d×%d into %d×%d", n, r, c, dr, dc))
	}
}

// FullSymOp is a symmetric matrix stored with both triangles (a centred
// Gram matrix K̃, for example). Its products run as one parallel matrix
// product in gonum's fastest form, dstᵀ = srcᵀ·M (rows of M are its
// columns), where SymDenseOp's Dsymm is serial: 5× faster for the blocks
// of a Lanczos iteration on a 5000×5000 kernel matrix (measured).
type FullSymOp struct{ M *mat.Dense }

// Dim implements SymOperator.
func (o FullSymOp) Dim() int { n, _ := o.M.Dims(); return n }

// MulBlockTo implements SymOperator.
func (o FullSymOp) MulBlockTo(dst, src *mat.Dense) {
	checkBlock(o.Dim(), dst, src)
	st := mat.DenseCopyOf(src.T())
	var dt mat.Dense
	dt.Mul(st, o.M.T())
	dst.Copy(dt.T())
}

// SymDense implements Densifier (sharing M's memory when it can).
func (o FullSymOp) SymDense() *mat.SymDense { return SymView(o.M) }
