//go:build !openblas

package linalg

import (
	"os"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dimred/dimred/internal/gemm"
)

// GemmEnv is the environment variable that, set to "gonum", keeps
// gonum's own Dgemm in the pure-Go build (for comparisons; the numbers
// then differ from the default build's in the last bits).
const GemmEnv = "DIMRED_GEMM"

// In the pure-Go build every matrix product of the library and of
// gonum's mat and LAPACK goes through internal/gemm's AVX2/FMA kernel
// where the CPU has one (3-6× gonum's Dgemm on our machine;
// docs/backend.md); the rest of the BLAS stays gonum's.
func init() {
	if !gemm.Available || os.Getenv(GemmEnv) == "gonum" {
		return
	}
	blas64.Use(kernelBLAS{})
	backendName = "gonum+avx2"
}

// kernelBLAS is gonum's BLAS with internal/gemm's Dgemm.
type kernelBLAS struct{ gonum.Implementation }

// Dgemm implements blas.Float64 with internal/gemm.
func (kernelBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gemm.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
