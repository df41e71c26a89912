//go:build !openblas

package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Importing the package routes gonum's BLAS to the kernel (unless
// DIMRED_GEMM=gonum), so mat.Dense.Mul computes exactly Dgemm's bits.
func TestInstalledUnderGonumMat(t *testing.T) {
	skipUnlessKernelRuns(t)
	if !Installed() {
		t.Fatal("the kernel is available but not installed")
	}
	r := rand.New(rand.NewPCG(9, 9))
	a := mat.NewDense(37, 300, randSlice(r, 37*300))
	b := mat.NewDense(300, 29, randSlice(r, 300*29))
	var c mat.Dense
	c.Mul(a, b)
	want := make([]float64, 37*29)
	reference(false, false, 37, 29, 300, 1, a.RawMatrix().Data, 300, b.RawMatrix().Data, 29, 0, want, 29)
	for i, v := range c.RawMatrix().Data {
		if math.Float64bits(v) != math.Float64bits(want[i]) {
			t.Fatalf("mat.Dense.Mul element %d = %v, the kernel's arithmetic %v", i, v, want[i])
		}
	}
}
