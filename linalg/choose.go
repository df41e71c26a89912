package linalg

import (
	"fmt"
	"strings"
)

// ChooseEigen returns the eigen-solver the engine uses when none is
// given, for an n×n problem (generalized when generalized is set) of
// which k pairs are wanted (k ≤ 0: all).
//
// The rule, from the benchmarks in docs/performance.md: a dense solver
// when every pair is wanted (k ≤ 0) or when k is more than a twentieth of
// n (an iterative method then needs about as many products as a dense
// reduction costs); otherwise Lanczos for a standard problem above n =
// 1500 (the partial dense solver and Lanczos cost about the same at
// n = 2000, k = 50; Lanczos wins by a growing factor beyond) and LOBPCG
// for a generalized one above n = 4000 (without a preconditioner it needs
// many more products than Lanczos, and the Cholesky-reduced dense solver
// is fast up to there). The engine falls back to the dense solver when an
// automatically chosen iterative one fails (for example on a semi-definite
// B, which LOBPCG refuses).
func ChooseEigen(n, k int, generalized bool, rankTol float64) EigenSolver {
	dense := DenseEigen{RankTol: rankTol}
	switch {
	case k <= 0 || 20*k > n:
		return dense
	case generalized && n > 4000:
		return LOBPCG{}
	case !generalized && n > 1500:
		return Lanczos{}
	}
	return dense
}

// ChooseEigenFor is ChooseEigen for the operators themselves: a
// generalized problem whose two matrices are already formed (SymDenseOp,
// FullSymOp) goes to the dense solver at any size. Its cost is bounded —
// Cholesky of B, the reduction to standard form and a partial
// decomposition, about 3n³ flops — while LOBPCG without a preconditioner
// pays two n×n products per iteration and on the bottom of a Laplacian
// pencil (the feature-coordinate problems of KLPP, SKLPP and KMFA) can
// need hundreds of them: an exact SKLPP on 5 000 MNIST rows (17 pairs of
// order 4 999) spent 12 min 57 s in LOBPCG, unfinished, when we stopped it,
// where the dense solver took 1 min 16 s and the whole fit 4 min 23 s
// (2026-11-23). Implicit operators (graphs, Gram products that are never
// formed) keep ChooseEigen's rule, where the products are cheap.
func ChooseEigenFor(a, b SymOperator, k int, rankTol float64) EigenSolver {
	if b != nil && formed(a) && formed(b) {
		return DenseEigen{RankTol: rankTol}
	}
	return ChooseEigen(a.Dim(), k, b != nil, rankTol)
}

// formed reports whether op holds its n×n matrix.
func formed(op SymOperator) bool {
	switch op.(type) {
	case SymDenseOp, FullSymOp:
		return true
	}
	return false
}

// ChooseLinear returns the linear solver the engine uses when none is
// given, for an n×n system.
//
// Cholesky up to n = 6000 (n³/3 flops and a second n×n matrix, a few
// seconds); beyond, CG with a Nyström preconditioner (NystromCG), whose
// cost grows as n² per iteration and which needs no second n×n matrix —
// and which itself turns to Cholesky (up to NystromCGFallbackMax) when a
// tiny ridge would make CG cost more than the factorisation.
func ChooseLinear(n int) LinearSolver {
	if n <= 6000 {
		return CholeskySolver{}
	}
	return NystromCG{}
}

// EigenSolverByName returns the eigen-solver with the given name.
func EigenSolverByName(name string) (EigenSolver, error) {
	switch name {
	case "dense":
		return DenseEigen{}, nil
	case "lanczos":
		return Lanczos{}, nil
	case "lobpcg":
		return LOBPCG{}, nil
	case "randomized":
		return Randomized{}, nil
	}
	return nil, fmt.Errorf("unknown eigen-solver %q (known: %s)", name, strings.Join(EigenSolverNames(), ", "))
}

// EigenSolverNames lists the names EigenSolverByName accepts.
func EigenSolverNames() []string { return []string{"dense", "lanczos", "lobpcg", "randomized"} }

// LinearSolverByName returns the linear solver with the given name.
func LinearSolverByName(name string) (LinearSolver, error) {
	switch name {
	case "cholesky":
		return CholeskySolver{}, nil
	case "cg":
		return CG{}, nil
	case "nystrom-cg":
		return NystromCG{}, nil
	}
	return nil, fmt.Errorf("unknown linear solver %q (known: %s)", name, strings.Join(LinearSolverNames(), ", "))
}

// LinearSolverNames lists the names LinearSolverByName accepts.
func LinearSolverNames() []string { return []string{"cholesky", "cg", "nystrom-cg"} }
