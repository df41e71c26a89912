package gemm

import (
	"os"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Env is the environment variable that, set to "gonum", keeps this
// package's kernel out of every product: the pure-Go build then uses
// gonum's own Dgemm, the openblas build OpenBLAS's for the tiles of
// MulTile and DgemmTile too (for comparisons; the numbers then differ in
// the last bits).
const Env = "DIMRED_GEMM"

// forTiles reports whether the products of code that already runs in
// parallel tiles (MulTile, DgemmTile) go to this package's kernel: where
// the CPU has it, unless DIMRED_GEMM=gonum.
//
// Why: in the pure-Go build every product already runs on the kernel,
// and these functions change nothing. In the openblas build every product
// goes to OpenBLAS, which runs its own threads inside each call; a Gram
// matrix or a neighbour search that computes its row blocks on every core
// (par.Blocks) then starts OpenBLAS's threads from every block, more
// threads than cores, and measured slower than the pure-Go build (RBF Gram
// of 5 000 MNIST rows 0.38 s against 0.32 s, kNN of 10 000 rows 1.37 s
// against 1.05 s; docs/backend.md). OpenBLAS 0.3.21 has no per-call thread
// count (openblas_set_num_threads is process-wide, and changing it while
// other goroutines call OpenBLAS would make results depend on timing), so
// such products go to the kernel, whose goroutines the Go scheduler
// shares with the blocks'. Large single products, and LAPACK, stay with
// OpenBLAS.
var forTiles = Available && os.Getenv(Env) != "gonum"

// Skinny reports whether a product whose C is m×n is better run on this
// package's kernel than on a BLAS that packs both operands: C has at most
// skinnyRows rows or columns, so the kernel's skinny path reads the large
// operand once, where it is stored, and the kernel is available (see
// forTiles). The openblas build sends such products here: measured on an
// 8 000×8 000 matrix against 4-12 vectors, 19-31 ms against OpenBLAS's
// 27-65 ms (docs/backend.md).
func Skinny(m, n int) bool { return forTiles && (m <= skinnyRows || n <= skinnyRows) }

// DgemmTile computes C = α·op(A)·op(B) + β·C with blas.Float64's Dgemm
// arguments, for callers that run it inside a parallel loop over tiles:
// on this package's kernel where it is available (the pure-Go build's
// product, so bit for bit what blas64's Dgemm gives there), else on the
// program's BLAS (see forTiles).
func DgemmTile(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if forTiles {
		Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	blas64.Implementation().Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// MulTile sets dst = a·b as dst.Mul does, for callers that run it inside
// a parallel loop over tiles; dst is empty or of the product's shape, and
// must not share storage with a or b other than being one of them (dst.Mul
// then works on a copy, as here; a partial overlap is not detected, where
// dst.Mul panics). a and b are *mat.Dense or their transposes
// (mat.Transpose of a *mat.Dense); anything else goes to dst.Mul. The
// product runs on this package's kernel where it is available (see
// forTiles), which in the pure-Go build is what dst.Mul does.
func MulTile(dst *mat.Dense, a, b mat.Matrix) {
	ga, ta, okA := general(a)
	gb, tb, okB := general(b)
	if !forTiles || !okA || !okB || isOrTransposes(a, dst) || isOrTransposes(b, dst) {
		dst.Mul(a, b)
		return
	}
	r, k := a.Dims()
	k2, c := b.Dims()
	if k != k2 {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	} else if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(mat.ErrShape)
	}
	if r == 0 || c == 0 {
		return
	}
	raw := dst.RawMatrix()
	Dgemm(ta, tb, r, c, k, 1, ga.Data, ga.Stride, gb.Data, gb.Stride, 0, raw.Data, raw.Stride)
}

// isOrTransposes reports whether m is d or its transpose.
func isOrTransposes(m mat.Matrix, d *mat.Dense) bool {
	if t, ok := m.(mat.Transpose); ok {
		m = t.Matrix
	}
	v, ok := m.(*mat.Dense)
	return ok && v == d
}

// general returns the storage of a *mat.Dense or of the transpose of
// one, with the transpose flag BLAS takes.
func general(m mat.Matrix) (blas64.General, blas.Transpose, bool) {
	switch v := m.(type) {
	case *mat.Dense:
		return v.RawMatrix(), blas.NoTrans, true
	case mat.Transpose:
		if d, ok := v.Matrix.(*mat.Dense); ok {
			return d.RawMatrix(), blas.Trans, true
		}
	}
	return blas64.General{}, blas.NoTrans, false
}
