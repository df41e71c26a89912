package embed

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
)

// Solver names how a Problem is solved.
type Solver string

const (
	// Auto picks Regression when the objective graph is a class-block graph
	// and the constraint is the identity graph (the spectral-regression
	// route is then exact up to its ridge and far cheaper), Dense otherwise.
	Auto Solver = ""
	// Dense forms the p×p matrices Φᵀ·A·Φ and Φᵀ·B·Φ (+ε·I) and solves the
	// generalized symmetric eigenproblem (linalg.GenSymEig).
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
	// subspaces coincide exactly (tested).
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
	// Dims is the number of directions wanted (0: all available, capped by
	// MaxDims).
	Dims int
	// MaxDims caps the number of directions (for example C−1 for class
	// graphs); 0 means no cap beyond the rank of the problem.
	MaxDims int
	// RankTol: directions whose eigenvalue is at most RankTol times the
	// largest in magnitude are dropped when DropZero is set (default 1e-10).
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
}

// Result is a fitted problem: the model and the eigenvalues of its
// directions (objective values under the constraint).
type Result struct {
	Model  Model
	Values []float64
	Solver Solver
}

// Fit solves the problem on the training rows x.
func (p *Problem) Fit(x *mat.Dense) (*Result, error) {
	if p.Space == nil || p.Objective == nil {
		return nil, errors.New("embed: problem needs a Space and an Objective graph")
	}
	if x == nil {
		return nil, errors.New("embed: no training rows")
	}
	if err := data.CheckFinite("training data", x); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	if n < 2 {
		return nil, fmt.Errorf("embed: %d training row(s); need at least 2", n)
	}
	if err := graph.CheckSize("objective", p.Objective, n); err != nil {
		return nil, err
	}
	if p.Constraint != nil {
		if err := graph.CheckSize("constraint", p.Constraint, n); err != nil {
			return nil, err
		}
	}
	if p.Dims < 0 {
		return nil, fmt.Errorf("dims: %d requested; must be ≥ 0 (0 = all)", p.Dims)
	}
	rep, err := p.Space.Prepare(x)
	if err != nil {
		return nil, err
	}
	solver := p.Solver
	if solver == Auto {
		solver = Dense
		if _, ok := p.Objective.(*graph.ClassBlock); ok {
			if _, ok := p.Constraint.(graph.Identity); ok && !p.Minimize {
				solver = Regression
			}
		}
	}
	if p.ObjectiveRidge < 0 || math.IsNaN(p.ObjectiveRidge) || math.IsInf(p.ObjectiveRidge, 0) {
		return nil, fmt.Errorf("embed: objective ridge %v; must be finite and ≥ 0", p.ObjectiveRidge)
	}
	if p.Jitter < 0 || math.IsNaN(p.Jitter) || math.IsInf(p.Jitter, 0) {
		return nil, fmt.Errorf("embed: jitter %v; must be finite and ≥ 0", p.Jitter)
	}
	if p.Jitter > 0 && solver != Dense {
		return nil, fmt.Errorf("embed: jitter needs the dense solver (solver %q requested)", solver)
	}
	var vals []float64
	var coef *mat.Dense
	switch solver {
	case Dense:
		if p.Jitter > 0 {
			vals, coef, err = p.solveJitter(rep)
		} else {
			vals, coef, err = p.solveDense(rep)
		}
	case Regression:
		vals, coef, err = p.solveRegression(rep)
	default:
		return nil, fmt.Errorf("embed: unknown solver %q (want dense or regression)", solver)
	}
	if err != nil {
		return nil, err
	}
	if p.TieBreak != nil {
		if err := graph.CheckSize("tie-break", p.TieBreak, n); err != nil {
			return nil, err
		}
		p.breakTies(rep, vals, coef, solver == Dense && p.Jitter > 0 && p.Minimize)
	}
	vals, coef, err = p.selectDims(vals, coef)
	if err != nil {
		return nil, err
	}
	return &Result{Model: rep.Build(coef), Values: vals, Solver: solver}, nil
}

func (p *Problem) order() linalg.Order {
	if p.Minimize {
		return linalg.Smallest
	}
	return linalg.Largest
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
		return nil, nil, fmt.Errorf("dims: %d requested, but at most %d exist for this method on this data", p.Dims, k)
	}
	if p.Dims > 0 {
		k = p.Dims
	}
	r, _ := coef.Dims()
	return vals[:k], mat.DenseCopyOf(coef.Slice(0, r, 0, k)), nil
}

// scatter returns Φᵀ·G·Φ.
func scatter(phi *mat.Dense, g graph.Operator) *mat.SymDense {
	var s mat.Dense
	s.Mul(phi.T(), g.Apply(phi))
	return linalg.Symmetrize(&s)
}

// metric is the feature-space metric of coefficients: I (linear) or K̃.
func metric(rep *Rep) *mat.SymDense {
	_, p := rep.Phi.Dims()
	if rep.Dual {
		return linalg.Symmetrize(rep.Phi)
	}
	return graph.Identity(p).Dense()
}

func (p *Problem) solveDense(rep *Rep) ([]float64, *mat.Dense, error) {
	_, isID := p.Objective.(graph.Identity)
	if isID && p.Constraint == nil && p.Ridge == 0 && p.ObjectiveRidge == 0 {
		return pcaRoute(rep, p.order())
	}
	if rep.Dual {
		return p.solveDual(rep)
	}
	a := scatter(rep.Phi, p.Objective)
	m := metric(rep)
	if p.ObjectiveRidge != 0 {
		a.AddSym(a, scaledSym(p.ObjectiveRidge, m))
	}
	var b *mat.SymDense
	if p.Constraint == nil {
		b = m
	} else {
		b = scatter(rep.Phi, p.Constraint)
		if p.Ridge != 0 {
			b.AddSym(b, scaledSym(p.Ridge, m))
		}
	}
	return linalg.GenSymEig(a, b, 0, linalg.GenOptions{RankTol: p.RankTol, Order: p.order()})
}

// solveDual solves a kernel-space problem densely in the explicit feature
// coordinates Ψ = Q·Λ^{1/2} of K̃ = Q·Λ·Qᵀ (eigenvalues above the rank
// tolerance): K̃ = Ψ·Ψᵀ, so the dual problem over coefficients a = P·w with
// P = Q·Λ^{-1/2} is the linear problem over w with Φ = Ψ, where the
// feature metric is I. Solving in these coordinates keeps the conditioning
// of the linear problem; forming K̃·B·K̃ directly squares the spectrum of K̃
// and a rank cut on it would drop genuine directions.
func (p *Problem) solveDual(rep *Rep) ([]float64, *mat.Dense, error) {
	psi, back, err := DualFeatures(rep.Phi, p.RankTol)
	if err != nil {
		return nil, nil, err
	}
	vals, w, err := p.solveDense(&Rep{Phi: psi})
	if err != nil {
		return nil, nil, err
	}
	var coef mat.Dense
	coef.Mul(back, w)
	linalg.FixSigns(&coef)
	return vals, &coef, nil
}

// DualFeatures returns, for a centred Gram matrix K̃ = Q·Λ·Qᵀ, the explicit
// feature coordinates Ψ = Q_r·Λ_r^{1/2} (n×r, K̃ = ΨΨᵀ on its range) and the
// map P = Q_r·Λ_r^{-1/2} from feature-coordinate directions w to dual
// coefficients a = P·w, over the r eigenvalues above tol·λ_max (tol 0:
// 1e-10).
func DualFeatures(k *mat.Dense, tol float64) (psi, back *mat.Dense, err error) {
	if tol == 0 {
		tol = 1e-10
	}
	vals, q, err := linalg.SymEig(linalg.Symmetrize(k), 0, linalg.Largest)
	if err != nil {
		return nil, nil, err
	}
	r := 0
	for r < len(vals) && vals[r] > tol*vals[0] {
		r++
	}
	if r == 0 {
		return nil, nil, errors.New("embed: the centred Gram matrix is zero (all rows coincide in feature space)")
	}
	n, _ := k.Dims()
	psi = mat.NewDense(n, r, nil)
	back = mat.NewDense(n, r, nil)
	for j := 0; j < r; j++ {
		s := math.Sqrt(vals[j])
		for i := 0; i < n; i++ {
			psi.Set(i, j, q.At(i, j)*s)
			back.Set(i, j, q.At(i, j)/s)
		}
	}
	return psi, back, nil
}

func scaledSym(f float64, m *mat.SymDense) *mat.SymDense {
	var out mat.SymDense
	out.ScaleSym(f, m)
	return &out
}

// pcaRoute solves max tr(VᵀΦᵀΦV) with orthonormal projections directly from
// one symmetric eigen-decomposition: of ΦᵀΦ (linear, p ≤ n), of ΦΦᵀ
// (linear, p > n: v = Φᵀu/√λ), or of K̃ (kernel: λ(K̃K̃, K̃) = λ(K̃), v = u/√λ).
func pcaRoute(rep *Rep, order linalg.Order) ([]float64, *mat.Dense, error) {
	n, p := rep.Phi.Dims()
	switch {
	case rep.Dual:
		vals, u, err := linalg.SymEig(linalg.Symmetrize(rep.Phi), 0, order)
		if err != nil {
			return nil, nil, err
		}
		return scaleByRoot(vals, u, nil)
	case p <= n:
		return linalg.SymEig(scatter(rep.Phi, graph.Identity(n)), 0, order)
	default:
		var g mat.Dense
		g.Mul(rep.Phi, rep.Phi.T())
		vals, u, err := linalg.SymEig(linalg.Symmetrize(&g), 0, order)
		if err != nil {
			return nil, nil, err
		}
		return scaleByRoot(vals, u, rep.Phi)
	}
}

// scaleByRoot returns v = (Φᵀ)u/√λ for positive λ (zero directions get a
// zero column, later dropped by DropZero).
func scaleByRoot(vals []float64, u, phi *mat.Dense) ([]float64, *mat.Dense, error) {
	v := u
	if phi != nil {
		v = new(mat.Dense)
		v.Mul(phi.T(), u)
	} else {
		v = mat.DenseCopyOf(u)
	}
	r, c := v.Dims()
	for j := 0; j < c; j++ {
		s := 0.0
		if vals[j] > 0 {
			s = 1 / math.Sqrt(vals[j])
		}
		for i := 0; i < r; i++ {
			v.Set(i, j, v.At(i, j)*s)
		}
	}
	linalg.FixSigns(v)
	return vals, v, nil
}
