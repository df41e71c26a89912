package linalg

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The automatic choice: dense for every pair or many of them, Lanczos for
// a few pairs of a large standard problem, LOBPCG for a large generalized
// one on implicit operators, and the dense solver for a generalized
// problem whose matrices are formed, at any size.
func TestChooseEigen(t *testing.T) {
	for _, c := range []struct {
		n, k int
		gen  bool
		want string
	}{
		{5000, 0, true, "dense"}, {5000, 300, false, "dense"}, {1000, 5, false, "dense"},
		{2000, 5, false, "lanczos"}, {4000, 5, true, "dense"}, {4001, 5, true, "lobpcg"},
	} {
		if got := ChooseEigen(c.n, c.k, c.gen, 0).Name(); got != c.want {
			t.Errorf("ChooseEigen(%d, %d, %v) = %s, want %s", c.n, c.k, c.gen, got, c.want)
		}
	}
	n := 4001
	m := mat.NewSymDense(n, nil)
	implicit := FuncOp{N: n, Mul: func(dst, src *mat.Dense) { dst.Copy(src) }}
	for _, c := range []struct {
		a, b SymOperator
		want string
	}{
		{SymDenseOp{m}, SymDenseOp{m}, "dense"},
		{SymDenseOp{m}, implicit, "lobpcg"},
		{implicit, implicit, "lobpcg"},
		{SymDenseOp{m}, nil, "lanczos"},
	} {
		if got := ChooseEigenFor(c.a, c.b, 5, 0).Name(); got != c.want {
			t.Errorf("ChooseEigenFor(%T, %T) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}
