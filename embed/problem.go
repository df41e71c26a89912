package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// Solver names the route by which a Problem is solved. The eigen-solver
// and linear solver used inside a route are separate values
// (Problem.Eigen, Problem.Linear).
type Solver string

const (
	// Auto picks the route from the capabilities of the graphs: the
	// principal route for an identity objective without constraint
	// (PCA, KPCA); Regression when the objective graph has a closed-form
	// spectrum (graph.ClosedForm: class-block graphs) and the constraint
	// is the identity — spectral regression is then exact up to its ridge
	// and far cheaper; Dense otherwise.
	Auto Solver = ""
	// Dense forms the p×p matrices Φᵀ·A·Φ and Φᵀ·B·Φ (+ε·M) and solves the
	// generalized symmetric eigenproblem (in the explicit feature
	// coordinates of K̃ in a kernel space, see solveDual).
	Dense Solver = "dense"
	// Regression is spectral regression (seed 002, Theorem 1): the graph
	// eigenproblem A·y = λ·B·y is solved in ℝⁿ for responses y, then the
	// coefficients come from the ridge regression Φ·v ≈ y
	// (linear: v = (ΦᵀΦ + α·I)⁻¹Φᵀy; kernel: v = (K̃ + α·I)⁻¹y), and the
	// directions are ordered by a Rayleigh–Ritz step on the original
	// objective restricted to their span.
	Regression Solver = "regression"
)

// Problem is one graph-embedding problem (see the package comment).
type Problem struct {
	// Space prepares the training rows (used by Fit; Solve takes a
	// Prepared instead).
	Space Space
	// Objective is the graph A; graph.Identity(n) gives Φᵀ·Φ (the scatter
	// of PCA/KPCA). Required.
	Objective graph.Operator
	// Constraint is the graph B; nil means orthonormal projections in
	// feature space (I in the linear space, K̃ in the kernel space).
	Constraint graph.Operator
	// Minimize selects the smallest eigenvalues (LPP-type problems);
	// otherwise the largest are returned.
	Minimize bool
	// Ridge ε adds ε times the feature-space metric to the constraint:
	// Φᵀ·B·Φ + ε·I (linear) or K̃·B·K̃ + ε·K̃ (kernel), i.e. a Tikhonov
	// penalty ε·‖w‖² on the projection w in feature space. With B = I this
	// is exactly ridge regression in the Regression route
	// ((ΦᵀΦ + ε·I)⁻¹Φᵀy, (K̃ + ε·I)⁻¹y), so both solvers solve the same
	// regularised problem; when the objective graph is a projection (all
	// its nonzero eigenvalues equal, as for the between-class graph) their
	// subspaces coincide exactly (tested). Ridges are absolute; methods
	// give them relative to Prepared.Scale.
	Ridge float64
	// ObjectiveRidge ε adds ε times the feature-space metric to the
	// objective: Φᵀ·A·Φ + ε·I (linear) or K̃·A·K̃ + ε·K̃ (kernel). In a
	// minimisation this is the regulariser: directions with a large norm in
	// feature space for their spread (the interpolating ones) are
	// penalised, whereas Ridge on the constraint of a minimisation favours
	// them. With ObjectiveRidge = Ridge = ε, min (vᵀLv + ε‖v‖²)/(vᵀDv + ε‖v‖²)
	// is the regularised LPP of Cai et al., max vᵀWv/(vᵀDv + ε‖v‖²).
	ObjectiveRidge float64
	// Solver chooses the route; Auto by default.
	Solver Solver
	// Eigen is the eigen-solver of the route (nil: chosen by size and by
	// the number of directions wanted, linalg.ChooseEigen).
	Eigen linalg.EigenSolver
	// Linear is the linear solver of the regression route (nil: chosen by
	// size, linalg.ChooseLinear).
	Linear linalg.LinearSolver
	// Dims is the number of directions wanted (0: all available, capped by
	// MaxDims).
	Dims int
	// MaxDims caps the number of directions (for example C−1 for class
	// graphs); 0 means no cap beyond the rank of the problem. The engine
	// computes only max(Dims, MaxDims) directions when either is set and
	// no tie-breaking is asked for.
	MaxDims int
	// Responses is the number of graph eigenvectors the Regression route
	// regresses on. Zero means: every eigenvector of nonzero eigenvalue
	// for graphs with a closed-form spectrum (class-block graphs: at most
	// C), otherwise max(Dims, MaxDims) when either is set (the d responses
	// of spectral regression, seed 002 §2) and every one when neither is.
	// The route is exact (seed 002 Theorem 1) when the responses span every
	// eigenvector of nonzero eigenvalue. A minimisation keeps its
	// eigenvalue-0 responses (the best ones there) less the constant
	// vector, for which one more pair is computed (GraphResponses).
	Responses int
	// DropConstant removes the constant vector from the responses before
	// the regression (the trivial eigenvector y₀ = 1 of W·y = λ·D·y, seed
	// 002 §2.1 Step 3): they are projected on the complement of 1 in the
	// B-inner product and re-orthonormalised (Gram–Schmidt), and a
	// response that vanishes is dropped — for the class graph, whose
	// eigenvalue-1 eigenspace is the span of the class indicators, this
	// leaves the C−1 centred indicators.
	DropConstant bool
	// Given, if set, are the responses of the Regression route (n×r),
	// used instead of eigenvectors of the graph: they must be
	// eigenvectors of A·y = λ·B·y, orthonormal in the B-inner product (and
	// B-orthogonal to the constant vector; DropConstant does not apply to
	// them); their values are their Rayleigh quotients yᵀAy/yᵀBy. When
	// the eigenvalues are degenerate (the class graph of supervised SR:
	// eigenvalue 1 on every centred class indicator) an eigen-solver's
	// basis of the eigenspace is arbitrary, and the raw directions of
	// spectral regression with it; a canonical basis
	// (graph.ClassResponses) fixes them, and lets a fit from statistics
	// (ScatterProblem.Responses) give the same directions.
	Given *mat.Dense
	// Raw returns the regression solutions as spectral regression defines
	// them (seed 002 eq. 3–7: one direction per response, in the order of
	// the responses, values their graph eigenvalues), without the
	// Rayleigh–Ritz step that otherwise rotates them to the original
	// problem's optimum in their span.
	Raw bool
	// RankTol: directions whose eigenvalue is at most RankTol times the
	// largest in magnitude among those computed are dropped when DropZero
	// is set (default 1e-10).
	RankTol  float64
	DropZero bool
	// Jitter, if > 0, adds Jitter·I to the constraint in coefficient space,
	// Vᵀ·(Φᵀ·B·Φ + Ridge·M + Jitter·I)·V = I, after restricting the
	// coefficients to the row space of Φ (range(ΦᵀΦ) in the linear space,
	// range(K̃) in the kernel space): directions outside it map every
	// training row to zero, would get objective value 0 and would win any
	// minimisation. This is the literal "+0.01·I on K(D_max − W_max)K" of
	// seed 004 (eq. 19 and Algorithm 1, Step 4), as opposed to Ridge, which
	// adds the feature-space metric. Dense solver only; see jitter.go.
	Jitter float64
	// TieBreak, if set, orders directions inside (numerically) degenerate
	// eigenspaces — neighbouring eigenvalues within TieTol times the larger
	// of their magnitudes plus the solver's rounding level, for
	// example the zero eigenvalues of a minimisation whose objective graph
	// has several connected components — by the secondary objective
	// Vᵀ·Φᵀ·TieBreak·Φ·V, largest first (the basis of a degenerate
	// eigenspace is otherwise arbitrary). TieTol zero means 1e-10.
	TieBreak graph.Operator
	TieTol   float64
	// Norm scales the directions of the solution (NormConstraint, the
	// default: Vᵀ·B·V = I; NormUnit: unit length in feature space). It
	// changes neither the subspace nor the values.
	Norm Norm
}

// Result is a fitted problem: the model and the eigenvalues of its
// directions (objective values under the constraint).
type Result struct {
	Model  Model
	Values []float64
	// Solver is the route taken; Eigen the eigen-solver used in it ("" when
	// the route needed none of size > C).
	Solver Solver
	Eigen  string
	// Train is the embedding of the training rows, Φ·V (n×k): what
	// Model.Transform gives on them (to rounding), without a second Gram
	// matrix. Nil when the problem was solved from statistics, or under a
	// context from WithoutTrain.
	Train *mat.Dense
	// Responses, for the raw regression route (Problem.Raw,
	// ScatterProblem.Raw), are the
	// indices of the responses (columns of Given, or of the graph's
	// eigenvectors in order) the directions come from: the first Dims of
	// those whose directions are independent on the training rows.
	Responses []int
}

// trainKey marks a context under which SolveContext does not compute
// Result.Train (WithoutTrain, WithTrain).
type trainKey struct{}

// WithoutTrain returns a context under which SolveContext leaves
// Result.Train nil: for a fit whose model is only saved (dimred fit), the
// training rows' embedding Φ·V is work for nothing — n³ flops and n×k
// floats when KPCA keeps its n − 1 directions (34 s and 800 MB at
// n = 10 000). The model is the same either way.
func WithoutTrain(ctx context.Context) context.Context {
	return context.WithValue(ctx, trainKey{}, false)
}

// WithTrain undoes WithoutTrain, for fits that use the embedding of the
// training rows themselves (MIE's EM, MKL-SR's residual weights).
func WithTrain(ctx context.Context) context.Context {
	return context.WithValue(ctx, trainKey{}, true)
}

func trainWanted(ctx context.Context) bool {
	want, set := ctx.Value(trainKey{}).(bool)
	return want || !set
}

// trainProductNoted is the size r·c·k of the training embedding's product
// Φ·V from which SolveContext announces it (≈ 3 s on two cores).
var trainProductNoted = 1e11

// Fit prepares the training rows x with p.Space and solves the problem.
func (p *Problem) Fit(x *mat.Dense) (*Result, error) {
	return p.FitContext(context.Background(), x)
}

// FitContext is Fit with a context: a cancelled ctx stops the fit with
// ctx.Err().
func (p *Problem) FitContext(ctx context.Context, x *mat.Dense) (*Result, error) {
	if p.Space == nil {
		return nil, errors.New("embed: problem needs a Space (or use Solve with a Prepared representation)")
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if x != nil {
		if err := p.checkSizes(x.RawMatrix().Rows); err != nil {
			return nil, err
		}
	}
	prep, err := p.Space.Prepare(ctx, x)
	if err != nil {
		return nil, err
	}
	return p.SolveContext(ctx, prep)
}

// Solve solves the problem on a prepared representation (which may be
// shared with other problems on the same rows).
func (p *Problem) Solve(prep *Prepared) (*Result, error) {
	return p.SolveContext(context.Background(), prep)
}

// SolveContext is Solve with a context.
func (p *Problem) SolveContext(ctx context.Context, prep *Prepared) (*Result, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if prep == nil || prep.Phi == nil {
		return nil, errors.New("embed: no prepared representation")
	}
	n := prep.N()
	if err := p.checkSizes(n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	route := p.route()
	if route == Regression && graph.IsIdentity(p.Objective) && (p.Constraint == nil || graph.IsIdentity(p.Constraint)) {
		return nil, errors.New("embed: solver=regression needs a graph objective: with the identity's (PCA, KPCA) every vector is an eigenvector, so the responses, and the directions regressed on them, would be arbitrary; use solver=dense (the default)")
	}
	if p.Jitter > 0 && route != Dense {
		return nil, fmt.Errorf("embed: jitter needs the dense solver (solver %q requested)", route)
	}
	s := &solve{p: p, prep: prep, ctx: ctx, k: p.wanted()}
	run := func() ([]float64, *mat.Dense, error) {
		switch route {
		case Dense:
			switch {
			case p.Jitter > 0:
				return s.jitter()
			case p.isPrincipal():
				return s.principal()
			default:
				return s.dense(prep)
			}
		case Regression:
			return s.regression()
		}
		return nil, nil, fmt.Errorf("embed: unknown solver %q (want auto, dense or regression)", route)
	}
	vals, coef, err := run()
	if err == nil && p.TieBreak != nil && s.k > 0 && len(vals) >= s.k {
		// Was the cluster at the requested boundary cut by the margin?
		tied := p.tied(vals, route == Dense && p.Jitter > 0 && p.Minimize)
		last := p.requested() - 1
		for last+1 < len(vals) && tied(vals[last], vals[last+1]) {
			last++
		}
		if last == len(vals)-1 {
			s.k = 0
			vals, coef, err = run()
		}
	}
	if err != nil {
		return nil, err
	}
	if p.TieBreak != nil {
		p.breakTies(prep, vals, coef, route == Dense && p.Jitter > 0 && p.Minimize)
	}
	vals, coef, err = p.selectDims(vals, coef)
	if err != nil {
		return nil, err
	}
	p.Norm.Apply(prep, coef)
	res := &Result{Model: prep.Build(coef), Values: vals, Solver: route, Eigen: s.eigenUsed}
	if trainWanted(ctx) {
		if r, c := prep.Phi.Dims(); float64(r)*float64(c)*float64(len(vals)) >= trainProductNoted {
			// KPCA's default keeps n − 1 directions: Φ·V is then n³ flops,
			// half a minute at n = 10 000, which would pass without a word.
			progress.Step(ctx, r, "embedding of the training rows: %d×%d by %d×%d", r, c, c, len(vals))
		}
		res.Train = new(mat.Dense)
		res.Train.Mul(prep.Phi, coef)
	}
	if s.kept != nil {
		res.Responses = s.kept[:len(vals)]
	}
	return res, nil
}

func (p *Problem) check() error {
	if p.Objective == nil {
		return errors.New("embed: problem needs an Objective graph")
	}
	if p.Dims < 0 {
		return fmt.Errorf("dims: %d requested; must be ≥ 0 (0 = all)", p.Dims)
	}
	if err := p.Norm.check(); err != nil {
		return err
	}
	if _, err := linalg.RankTolerance(p.RankTol); err != nil {
		return fmt.Errorf("embed: RankTol: %w", err)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"ridge", p.Ridge}, {"objective ridge", p.ObjectiveRidge}, {"jitter", p.Jitter}} {
		if r.v < 0 || math.IsNaN(r.v) || math.IsInf(r.v, 0) {
			return fmt.Errorf("embed: %s %v; must be finite and ≥ 0", r.name, r.v)
		}
	}
	return nil
}

func (p *Problem) checkSizes(n int) error {
	if err := graph.CheckSize("objective", p.Objective, n); err != nil {
		return err
	}
	if p.Constraint != nil {
		if err := graph.CheckSize("constraint", p.Constraint, n); err != nil {
			return err
		}
	}
	if p.TieBreak != nil {
		if err := graph.CheckSize("tie-break", p.TieBreak, n); err != nil {
			return err
		}
	}
	if p.Given != nil {
		if r, _ := p.Given.Dims(); r != n {
			return fmt.Errorf("embed: %d given responses rows for %d training rows", r, n)
		}
	}
	return nil
}

// route resolves Auto from the capabilities of the graphs.
func (p *Problem) route() Solver {
	if p.Solver != Auto {
		return p.Solver
	}
	if p.Jitter > 0 || p.isPrincipal() {
		return Dense
	}
	if _, ok := p.Objective.(graph.ClosedForm); ok && !p.Minimize && (p.Constraint == nil || graph.IsIdentity(p.Constraint)) {
		return Regression
	}
	return Dense
}

// isPrincipal: max tr(VᵀΦᵀΦV) with orthonormal projections (PCA, KPCA).
func (p *Problem) isPrincipal() bool {
	return graph.IsIdentity(p.Objective) && p.Constraint == nil && p.Ridge == 0 && p.ObjectiveRidge == 0
}

// wanted is the number of directions to compute: 0 means all. With a
// tie-break the cluster of equal eigenvalues at the boundary must be whole
// to be rotated, so a margin is asked for; SolveContext checks that the
// cluster ended inside it and solves for every pair when it did not.
func (p *Problem) wanted() int {
	k := p.requested()
	if k > 0 && p.TieBreak != nil {
		k += max(8, k/8)
	}
	return k
}

// requested is the number of directions the caller asked for (0: all).
func (p *Problem) requested() int {
	if p.Dims > 0 {
		return p.Dims
	}
	return p.MaxDims
}

func (p *Problem) order() linalg.Order {
	if p.Minimize {
		return linalg.Smallest
	}
	return linalg.Largest
}

// DimsError is the error of a problem asked for more directions than
// it has on the data.
type DimsError struct {
	Requested, Available int
	// Rule, when set, says where the bound comes from, e.g. "LDA gives
	// at most C−1 = 2 for 3 classes".
	Rule string
}

func (e *DimsError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("%d dimensions requested, but %s", e.Requested, e.Rule)
	}
	return fmt.Sprintf("dims: %d requested, but at most %d exist for this method on this data", e.Requested, e.Available)
}

// selectDims drops null directions (DropZero), applies MaxDims and Dims.
func (p *Problem) selectDims(vals []float64, coef *mat.Dense) ([]float64, *mat.Dense, error) {
	k := len(vals)
	if p.DropZero && k > 0 {
		tol := p.RankTol
		if tol == 0 {
			tol = 1e-10
		}
		big := 0.0
		for _, v := range vals {
			big = math.Max(big, math.Abs(v))
		}
		k = 0
		for k < len(vals) && math.Abs(vals[k]) > tol*big {
			k++
		}
	}
	if p.MaxDims > 0 && k > p.MaxDims {
		k = p.MaxDims
	}
	if k == 0 {
		return nil, nil, errors.New("embed: the problem has no non-degenerate direction on this data")
	}
	if p.Dims > k {
		return nil, nil, &DimsError{Requested: p.Dims, Available: k}
	}
	if p.Dims > 0 {
		k = p.Dims
	}
	r, _ := coef.Dims()
	return vals[:k], mat.DenseCopyOf(coef.Slice(0, r, 0, k)), nil
}
