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
