//go:build openblas && cgo

package openblas

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <cblas.h>

// Row-major wrappers taking the CBLAS enum values as plain ints, which
// keeps the Go side independent of the enum type names of a given cblas.h.
static void dr_dgemm(int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc) {
	cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
static void dr_dsyrk(int ul, int t, int n, int k, double alpha, const double *a, int lda, double beta, double *c, int ldc) {
	cblas_dsyrk(CblasRowMajor, ul, t, n, k, alpha, a, lda, beta, c, ldc);
}
static void dr_dsyr2k(int ul, int t, int n, int k, double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc) {
	cblas_dsyr2k(CblasRowMajor, ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
static void dr_dsymm(int s, int ul, int m, int n, double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc) {
	cblas_dsymm(CblasRowMajor, s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
// dtrmm when mul, else dtrsm.
static void dr_dtrxm(int mul, int s, int ul, int t, int d, int m, int n, double alpha, const double *a, int lda, double *b, int ldb) {
	if (mul) {
		cblas_dtrmm(CblasRowMajor, s, ul, t, d, m, n, alpha, a, lda, b, ldb);
	} else {
		cblas_dtrsm(CblasRowMajor, s, ul, t, d, m, n, alpha, a, lda, b, ldb);
	}
}
static void dr_dgemv(int t, int m, int n, double alpha, const double *a, int lda, const double *x, int incx, double beta, double *y, int incy) {
	cblas_dgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
static void dr_dsymv(int ul, int n, double alpha, const double *a, int lda, const double *x, int incx, double beta, double *y, int incy) {
	cblas_dsymv(CblasRowMajor, ul, n, alpha, a, lda, x, incx, beta, y, incy);
}
static void dr_dger(int m, int n, double alpha, const double *x, int incx, const double *y, int incy, double *a, int lda) {
	cblas_dger(CblasRowMajor, m, n, alpha, x, incx, y, incy, a, lda);
}
*/
import "C"

import (
	"math"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/dimred/dimred/internal/gemm"
)

// BLAS is gonum's blas.Float64 with the level-3 routines and the
// matrix-vector products Dgemv, Dsymv and Dger computed by OpenBLAS's
// cblas (row-major, so no copies). Calls with invalid arguments go to the
// embedded gonum implementation, which panics with gonum's messages, and
// so do quick returns and problems below minFlops.
type BLAS struct {
	gblas.Implementation
}

var _ blas.Float64 = BLAS{}

// minFlops is the size (multiply-adds) below which a product stays in Go:
// a cgo call costs about as much as a few hundred Go multiply-adds, and
// tiny products are where gonum is already fast. The cut-off depends on
// the shape only, so which library computes a product is deterministic.
const minFlops = 4096

// fits reports whether a row-major r×c matrix (r, c > 0) with leading
// dimension ld fits in a slice of length l, ld ≥ c, and every size fits
// the 32-bit integers of cblas and LAPACKE.
func fits(l, r, c, ld int) bool {
	return r > 0 && c > 0 && ld >= c && ld <= math.MaxInt32 && r <= math.MaxInt32 && l >= (r-1)*ld+c
}

// vfits reports whether a vector of n elements with a positive increment
// inc fits in a slice of length l. Negative increments stay in gonum:
// OpenBLAS 0.3.21's row-major cblas_dger does not give the reference
// BLAS result for them (TestLevel2MatchesGonum), and gonum never uses them.
func vfits(l, n, inc int) bool {
	return n > 0 && inc > 0 && inc <= math.MaxInt32 && l >= 1+(n-1)*inc
}

// CBLAS enum values (gonum's blas enums are characters: 'N', 'U', ...).
const (
	cblasNoTrans = 111
	cblasTrans   = 112
	cblasUpper   = 121
	cblasLower   = 122
	cblasNonUnit = 131
	cblasUnit    = 132
	cblasLeft    = 141
	cblasRight   = 142
	cblasInvalid = 0
)

func trans(t blas.Transpose) (C.int, bool) {
	switch t {
	case blas.NoTrans:
		return cblasNoTrans, true
	case blas.Trans, blas.ConjTrans:
		return cblasTrans, true
	}
	return cblasInvalid, false
}

// stored returns the dimensions of the stored matrix whose op(·) under t
// is r×c.
func stored(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

func uplo(u blas.Uplo) bool { return u == blas.Upper || u == blas.Lower }
func side(s blas.Side) bool { return s == blas.Left || s == blas.Right }
func diag(d blas.Diag) bool { return d == blas.Unit || d == blas.NonUnit }

func cUplo(u blas.Uplo) C.int {
	if u == blas.Upper {
		return cblasUpper
	}
	return cblasLower
}

func cSide(s blas.Side) C.int {
	if s == blas.Left {
		return cblasLeft
	}
	return cblasRight
}

func cDiag(d blas.Diag) C.int {
	if d == blas.Unit {
		return cblasUnit
	}
	return cblasNonUnit
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C.
func (b BLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bb []float64, ldb int, beta float64, c []float64, ldc int) {
	ta, okA := trans(tA)
	tb, okB := trans(tB)
	ar, ac := stored(tA, m, k)
	br, bc := stored(tB, k, n)
	if !okA || !okB || alpha == 0 || m*n*k < minFlops ||
		!fits(len(a), ar, ac, lda) || !fits(len(bb), br, bc, ldb) || !fits(len(c), m, n, ldc) {
		b.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	if gemm.Skinny(m, n) {
		// A few vectors against a large matrix (Lanczos and CG steps, the
		// regression's right-hand sides): OpenBLAS packs the large operand
		// at every call, dimred's kernel reads it in place.
		gemm.Dgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	C.dr_dgemm(ta, tb, C.int(m), C.int(n), C.int(k), C.double(alpha), (*C.double)(&a[0]), C.int(lda),
		(*C.double)(&bb[0]), C.int(ldb), C.double(beta), (*C.double)(&c[0]), C.int(ldc))
}

// Dsyrk computes the ul triangle of C = alpha·op(A)·op(A)ᵀ + beta·C.
func (b BLAS) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	t, ok := trans(tA)
	ar, ac := stored(tA, n, k)
	if !ok || !uplo(ul) || alpha == 0 || n*n*k < minFlops ||
		!fits(len(a), ar, ac, lda) || !fits(len(c), n, n, ldc) {
		b.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	C.dr_dsyrk(cUplo(ul), t, C.int(n), C.int(k), C.double(alpha), (*C.double)(&a[0]), C.int(lda),
		C.double(beta), (*C.double)(&c[0]), C.int(ldc))
}

// Dsyr2k computes the ul triangle of C = alpha·(op(A)·op(B)ᵀ + op(B)·op(A)ᵀ) + beta·C.
func (b BLAS) Dsyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, bb []float64, ldb int, beta float64, c []float64, ldc int) {
	t, ok := trans(tA)
	ar, ac := stored(tA, n, k)
	if !ok || !uplo(ul) || alpha == 0 || n*n*k < minFlops ||
		!fits(len(a), ar, ac, lda) || !fits(len(bb), ar, ac, ldb) || !fits(len(c), n, n, ldc) {
		b.Implementation.Dsyr2k(ul, tA, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	C.dr_dsyr2k(cUplo(ul), t, C.int(n), C.int(k), C.double(alpha), (*C.double)(&a[0]), C.int(lda),
		(*C.double)(&bb[0]), C.int(ldb), C.double(beta), (*C.double)(&c[0]), C.int(ldc))
}

// Dsymm computes C = alpha·A·B + beta·C (s = Left) or alpha·B·A + beta·C
// (s = Right) for a symmetric A stored in its ul triangle.
func (b BLAS) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, bb []float64, ldb int, beta float64, c []float64, ldc int) {
	k := m
	if s == blas.Right {
		k = n
	}
	if !side(s) || !uplo(ul) || alpha == 0 || m*n*k < minFlops ||
		!fits(len(a), k, k, lda) || !fits(len(bb), m, n, ldb) || !fits(len(c), m, n, ldc) {
		b.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	C.dr_dsymm(cSide(s), cUplo(ul), C.int(m), C.int(n), C.double(alpha), (*C.double)(&a[0]), C.int(lda),
		(*C.double)(&bb[0]), C.int(ldb), C.double(beta), (*C.double)(&c[0]), C.int(ldc))
}

// Dtrsm solves op(A)·X = alpha·B (s = Left) or X·op(A) = alpha·B
// (s = Right) for a triangular A, overwriting B with X.
func (b BLAS) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, bb []float64, ldb int) {
	if !triangular(false, s, ul, tA, d, m, n, alpha, a, lda, bb, ldb) {
		b.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, bb, ldb)
	}
}

// Dtrmm computes B = alpha·op(A)·B (s = Left) or alpha·B·op(A) (s = Right)
// for a triangular A.
func (b BLAS) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, bb []float64, ldb int) {
	if !triangular(true, s, ul, tA, d, m, n, alpha, a, lda, bb, ldb) {
		b.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, bb, ldb)
	}
}

// triangular computes Dtrmm (mul) or Dtrsm in cblas and reports true, or
// reports false when the call belongs to gonum (invalid arguments, a quick
// return, a tiny problem or a short slice).
func triangular(mul bool, s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, bb []float64, ldb int) bool {
	t, ok := trans(tA)
	k := m
	if s == blas.Right {
		k = n
	}
	if !ok || !side(s) || !uplo(ul) || !diag(d) || alpha == 0 || m*n*k < minFlops ||
		!fits(len(a), k, k, lda) || !fits(len(bb), m, n, ldb) {
		return false
	}
	var cm C.int
	if mul {
		cm = 1
	}
	C.dr_dtrxm(cm, cSide(s), cUplo(ul), t, cDiag(d), C.int(m), C.int(n), C.double(alpha),
		(*C.double)(&a[0]), C.int(lda), (*C.double)(&bb[0]), C.int(ldb))
	return true
}
