package linalg

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// EigenSolver computes k eigenpairs at one end of the spectrum of the
// symmetric-definite pencil
//
//	A·v = λ·B·v,   Vᵀ·B·V = I,
//
// with B = I when b is nil. Solvers are plain values whose zero value is
// usable (zero fields mean documented defaults), so the engine can hold one
// in a field and a user can pick one by name (EigenSolverByName).
type EigenSolver interface {
	// Name is the solver's name as EigenSolverByName accepts it.
	Name() string
	// Eigs returns the k eigenpairs at the end of the spectrum given by
	// order, values in that order, vectors B-orthonormal and sign-fixed
	// (FixSigns). Iterative solvers need b positive definite (add a ridge
	// with ShiftOp); they stop early with ctx.Err() when ctx is cancelled,
	// and return a *NotConvergedError when the wanted pairs do not reach
	// the tolerance in the allowed iterations.
	Eigs(ctx context.Context, a, b SymOperator, k int, order Order) (*EigenResult, error)
}

// EigenResult is the output of an EigenSolver.
type EigenResult struct {
	Values  []float64
	Vectors *mat.Dense // n×k
	// Iterations is the number of outer iterations (restarts, LOBPCG steps,
	// power iterations); 0 for direct solvers.
	Iterations int
	// MatVecs counts operator applications to single vectors (a block of
	// m columns counts m).
	MatVecs int
	// Residual is the largest relative residual of the returned pairs,
	// ‖A·v − λ·B·v‖ / (‖A·v‖ + |λ|·‖B·v‖) (0 when not computed).
	Residual float64
}

// NotConvergedError reports an iterative solver that stopped before every
// wanted pair (or right-hand side) reached its tolerance.
type NotConvergedError struct {
	Solver     string
	Converged  int // pairs (or columns) that converged
	Wanted     int
	Iterations int
	Residual   float64 // largest residual reached
	Tol        float64
}

func (e *NotConvergedError) Error() string {
	return fmt.Sprintf("linalg: %s did not converge: %d of %d reached tolerance %.1e in %d iterations (largest residual %.2e); raise the iteration limit or use another solver",
		e.Solver, e.Converged, e.Wanted, e.Tol, e.Iterations, e.Residual)
}

// LinearSolver solves A·X = R for a symmetric positive definite A and a
// block of right-hand sides R.
type LinearSolver interface {
	// Name is the solver's name as LinearSolverByName accepts it.
	Name() string
	Solve(ctx context.Context, a SymOperator, rhs *mat.Dense) (*mat.Dense, *SolveInfo, error)
}

// SolveInfo describes a linear solve.
type SolveInfo struct {
	Iterations int
	// Residual is the largest relative residual ‖A·x − r‖/‖r‖ over the
	// columns (0 when not computed).
	Residual float64
	// FellBack is set when an iterative solver gave up and the system was
	// solved by a factorisation instead (NystromCG).
	FellBack bool
}

// partialSymEig, when non-nil, computes eigenpairs il..iu (0-based,
// ascending order) of a dense symmetric matrix; the optional OpenBLAS/LAPACK
// backend (build tag openblas) sets it to LAPACK's dsyevr. ok is false when
// the backend could not solve the problem (the caller falls back to pure Go).
var partialSymEig func(a *mat.SymDense, il, iu int) (vals []float64, vecs *mat.Dense, ok bool)

// fullSymEig computes every eigenpair (values ascending) of a dense
// symmetric matrix for symEigK above dcMinSize: divide and conquer
// (fullEig) in the pure-Go build. The openblas build sets it to nil, so
// that gonum's EigenSym, which that backend routes to LAPACK's dsyevr,
// is used. ok is false when the solver failed its checks (the caller
// falls back to EigenSym).
var fullSymEig = fullEig

// backendName is the name of the dense backend ("gonum" in the pure-Go
// build, "gonum+avx2" where internal/gemm's kernel runs its products; the
// openblas build tag changes it).
var backendName = "gonum"

// Backend names the dense linear-algebra backend in use: "gonum" (pure
// Go), "gonum+avx2" (pure Go with the AVX2/FMA matrix product, the
// default on such CPUs) or "openblas" (build tag openblas).
func Backend() string { return backendName }
