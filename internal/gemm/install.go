//go:build !openblas

package gemm

import (
	"os"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// installed reports whether init routed gonum's BLAS to the kernel.
var installed bool

// Installed reports whether every matrix product of the program runs on
// this package's kernel (the pure-Go build on a CPU with AVX2 and FMA,
// unless DIMRED_GEMM=gonum).
func Installed() bool { return installed }

// In the pure-Go build, every program that imports this package (dimred's
// data, kernel and linalg do) computes the matrix products of gonum's mat
// and LAPACK, and of dimred, with the kernel where the CPU has one; the
// rest of the BLAS stays gonum's. (The openblas build tag installs
// OpenBLAS instead, and this file is not compiled.)
func init() {
	if !Available || os.Getenv(Env) == "gonum" {
		return
	}
	blas64.Use(kernelBLAS{})
	installed = true
}

// kernelBLAS is gonum's BLAS with this package's Dgemm.
type kernelBLAS struct{ gonum.Implementation }

// Dgemm implements blas.Float64.
func (kernelBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
