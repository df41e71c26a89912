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
// then solves by Cholesky (SolveInfo.FellBack) — at once when the
// preconditioner's smallest eigenvalue predicts it (a rough kernel,
// σ = 1e-9: the estimate is checked here), after the capped CG otherwise
// (a tolerance CG cannot reach) — and returns Cholesky's solution. With a
// comfortable ridge it stays iterative.
func TestNystromCGFallsBackOnTinyRidge(t *testing.T) {
	n := 600
	rng := rand.New(rand.NewPCG(2, 2))
	rhs := mat.NewDense(n, 4, nil)
	for i := range rhs.RawMatrix().Data {
		rhs.RawMatrix().Data[i] = rng.NormFloat64()
	}
	const rank, maxIter = 60, 50 // NystromCG's defaults at n = 600, m = 4
	for _, tc := range []struct {
		width, sigma, tol float64
		predicted         bool // the estimate alone sends it to Cholesky
		fallBack          bool
	}{
		{0.05, 1e-9, 0, true, true},
		{1.5, 1e-1, 0, false, false},
		{1.5, 1e-1, 1e-17, false, true},
	} {
		k := rbfGram(n, tc.width, 3)
		p, err := NystromPreconditioner(context.Background(), SymDenseOp{k}, tc.sigma, rank, 0)
		if err != nil {
			t.Fatal(err)
		}
		lam := p.(*nystromPrecond).lambda
		tol := tc.tol
		if tol == 0 {
			tol = 1e-10
		}
		est := 0.5 * math.Sqrt((lam[rank-1]+tc.sigma)/tc.sigma) * math.Log(2/tol)
		if (est > maxIter) != tc.predicted {
			t.Fatalf("width %g, σ = %g: estimated %.0f CG iterations; the case needs predicted = %v", tc.width, tc.sigma, est, tc.predicted)
		}
		op := ShiftOp{A: SymDenseOp{k}, Sigma: tc.sigma}
		want, _, err := CholeskySolver{}.Solve(context.Background(), op, rhs)
		if err != nil {
			t.Fatal(err)
		}
		got, info, err := NystromCG{Tol: tc.tol}.Solve(context.Background(), op, rhs)
		if err != nil {
			t.Fatalf("σ = %g: %v", tc.sigma, err)
		}
		if info.FellBack != tc.fallBack {
			t.Errorf("width %g, σ = %g, tol %g: fell back %v after %d iterations, want %v", tc.width, tc.sigma, tc.tol, info.FellBack, info.Iterations, tc.fallBack)
		}
		var d mat.Dense
		d.Sub(got, want)
		if e := mat.Norm(&d, math.Inf(1)) / mat.Norm(want, math.Inf(1)); e > 1e-6 {
			t.Errorf("width %g, σ = %g: differs from Cholesky by %.3g", tc.width, tc.sigma, e)
		}
	}
}
