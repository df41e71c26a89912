package linalg

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// NystromCG solves a kernel ridge system to the Cholesky solution (1e-8
// relative), on a ShiftOp and, without a preconditioner, on any operator.
func TestNystromCGMatchesCholesky(t *testing.T) {
	n := 600
	k := rbfGram(n, 1.5, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	rhs := mat.NewDense(n, 4, nil)
	for i := range rhs.RawMatrix().Data {
		rhs.RawMatrix().Data[i] = rng.NormFloat64()
	}
	op := ShiftOp{A: SymDenseOp{k}, Sigma: 1e-2}
	want, _, err := CholeskySolver{}.Solve(context.Background(), op, rhs)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []SymOperator{op, FuncOp{N: n, Mul: op.MulBlockTo}} {
		got, info, err := NystromCG{}.Solve(context.Background(), a, rhs)
		if err != nil {
			t.Fatal(err)
		}
		var d mat.Dense
		d.Sub(got, want)
		if e := mat.Norm(&d, math.Inf(1)) / mat.Norm(want, math.Inf(1)); e > 1e-8 {
			t.Errorf("%T: differs from Cholesky by %.3g (%d iterations)", a, e, info.Iterations)
		}
	}
}

// With a ridge far below the spectrum the preconditioner leaves out, CG
// would need many more iterations than a factorisation costs; NystromCG
// then falls back to Cholesky (SolveInfo.FellBack) and returns its
// solution. With a comfortable ridge it stays iterative. Without the
// fallback the capped CG would return a NotConvergedError.
func TestNystromCGFallsBackOnTinyRidge(t *testing.T) {
	n := 600
	k := rbfGram(n, 1.5, 3)
	rng := rand.New(rand.NewPCG(2, 2))
	rhs := mat.NewDense(n, 4, nil)
	for i := range rhs.RawMatrix().Data {
		rhs.RawMatrix().Data[i] = rng.NormFloat64()
	}
	for _, tc := range []struct {
		sigma    float64
		fallBack bool
	}{{1e-9, true}, {1e-1, false}} {
		op := ShiftOp{A: SymDenseOp{k}, Sigma: tc.sigma}
		want, _, err := CholeskySolver{}.Solve(context.Background(), op, rhs)
		if err != nil {
			t.Fatal(err)
		}
		got, info, err := NystromCG{}.Solve(context.Background(), op, rhs)
		if err != nil {
			t.Fatalf("σ = %g: %v", tc.sigma, err)
		}
		if info.FellBack != tc.fallBack {
			t.Errorf("σ = %g: fell back %v after %d iterations, want %v", tc.sigma, info.FellBack, info.Iterations, tc.fallBack)
		}
		var d mat.Dense
		d.Sub(got, want)
		if e := mat.Norm(&d, math.Inf(1)) / mat.Norm(want, math.Inf(1)); e > 1e-6 {
			t.Errorf("σ = %g: differs from Cholesky by %.3g", tc.sigma, e)
		}
	}
}
