package method

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

// Variational graph embedding (seed 003, Yang, Zha, Zhou & Hu, ECML PKDD
// 2009): MIE₀, MIE, BERE₀, BERE and their kernel forms. With class
// coefficients cᵢⱼ — the γ-graph of mutual information (Theorem 1,
// graph.Gamma) or the r-graph of the Bayes error rate (§4, graph.BER) —
// the embedding Z = Φ·T of the training rows maximises
//
//	J(Z) = (1/N²)·Σᵢⱼ cᵢⱼ·exp(−‖zᵢ − zⱼ‖²/δᵢⱼ²)         (eq. 5)
//
// over projections with TᵀT = I (linear, eq. 9: z = Tᵀx) or AᵀK̃A = I
// (kernel, eq. 10-12: z = Aᵀk̃(x)). δᵢⱼ² = σᵢσⱼ by local scaling (§5,
// Zelnik-Manor & Perona: σᵢ the distance to the scalek-th neighbour) or
// one δ for every pair (delta > 0).
//
// Each kernel term is replaced by its tangent in dᵢⱼ² = ‖zᵢ − zⱼ‖² at the
// current embedding (eq. 6; E-step λᵢⱼ = −exp(−‖zᵢ − zⱼ‖²/δᵢⱼ²)), which
// leaves the graph embedding (eq. 7-8, M-step)
//
//	min tr(Tᵀ·Φᵀ·L·Φ·T),  TᵀT = I,   L = D − W,   wᵢⱼ = cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²)/δᵢⱼ²,
//
// solved by the engine for the bottom eigenvectors (top-k only). MIE₀ and
// BERE₀ embed the graph at the input rows once (§3.3, "initial graph");
// MIE and BERE start there and iterate. The 1/δᵢⱼ² factor is the
// derivative of the kernel term; the paper's w = −c·λ drops it, which is
// a constant factor under one δ but not under local scaling (weights=paper
// restores the paper's graph).
//
// Monotone EM (the default, step=safeguarded). The tangent is a lower
// bound of a kernel term only where cᵢⱼ > 0 (exp is convex); on the
// negative-c pairs it is an upper bound, so the paper's EM is not an MM
// algorithm and J can fall (docs/variational-embedding.md measures how
// often). dimred accepts an M-step only if J does not decrease. When the
// plain step would decrease J, the M-step is repeated with a level shift,
// min tr(Tᵀ(ΦᵀLΦ − μ·T₀T₀ᵀ)T), for μ growing by factors of 4 from a
// quarter of the last shift that worked (μ₀/64 at first, μ₀ the largest
// |eigenvalue| of the plain step) until J does not decrease: as μ grows
// its solution tends to T₀ − (1/μ)(I − T₀T₀ᵀ)·ΦᵀLΦ·T₀, a short step along
// the projected gradient of J (with the tangent weights,
// ∇_T J = −(4/N²)·ΦᵀLΦ·T₀), so a non-decreasing step exists unless T₀ is
// stationary. Hence J never decreases (tested); the iteration stops at
// once at the full dimension (an embedding that keeps every column of Φ
// is an isometry of the training representation: every E-step graph is
// the initial one and J cannot change), when the relative change of J is
// below Tol (a fall that small is rounding), when no shift up to μ₀·4¹² keeps J
// (with weights=paper under local scaling the step is not along the
// gradient and this can come early), or after MaxIter. step=plain takes
// every M-step; weights=paper step=plain is the paper's EM as written.
//
// Fitted.Trace is a VariationalResult: J per iteration, the shifts, the
// number of decreases and the stop reason. Fitted.Values are the bottom
// eigenvalues of the last accepted M-step (of the shifted matrix when that
// step needed a shift).

// Defaults of the EM.
const (
	DefaultVEMaxIter = 20
	DefaultVETol     = 1e-6
	// veMaxShifts is the number of level shifts μ₀·4ʲ tried before the
	// safeguarded step gives up (4¹² ≈ 1.7·10⁷: a step of that relative
	// size changes J by less than rounding).
	veMaxShifts = 12
)

// Choices of VariationalParams.Weights, VariationalParams.MStep and
// EMParams.Step.
const (
	VETangent     = "tangent"
	VEPaper       = "paper"
	VEOrthonormal = "orthonormal"
	VERatio       = "ratio"
	VESafeguarded = "safeguarded"
	VEPlain       = "plain"
)

// VariationalParams are the graph parameters of the MIE/BERE family.
type VariationalParams struct {
	// Delta is one bandwidth δ for every pair; 0 means local scaling.
	Delta float64
	// ScaleK is the local-scaling neighbour (0: graph.DefaultScaleK = 7,
	// capped at n − 1).
	ScaleK int
	// Weights: VETangent (default: wᵢⱼ = cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²)/δᵢⱼ²) or
	// VEPaper (wᵢⱼ = cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²), seed 003 eq. 7 and §3.3).
	Weights string
	// MStep: VEOrthonormal (default; eq. 9-10 as printed: min tr(TᵀΦᵀLΦT)
	// with TᵀT = I, or AᵀK̃A = I) or VERatio (the graph-embedding
	// framework the paper cites for the M-step, Yan et al. 2007: the
	// graph's positive, same-class edges W⁺ are the intrinsic graph and
	// its negative edges −W⁻ the penalty graph, min tr(TᵀΦᵀL⁺ΦT) with
	// TᵀΦᵀL⁻ΦT = I). The ratio form is invariant to scaling either graph,
	// so with classes of equal size MIE₀ and BERE₀ coincide under it. Only
	// the initial-graph members declare it (mstepParam).
	MStep  string
	Search graph.Search
	// Context, when not nil, cancels the fit between EM iterations and
	// inside the Gram matrix and the eigen-solves (method.FitContext sets
	// it).
	Context context.Context
	// Progress, if set, receives a line as each step of the fit starts
	// (the initial graph's bandwidths, weights and M-step) and, for the EM
	// members, one per iteration and per level shift tried (the CLI writes
	// them to stderr). At 10 000 rows each step takes tens of seconds.
	Progress func(string)
}

// ctx returns the fit's context (Background when none is set).
func (p VariationalParams) ctx() context.Context {
	if p.Context == nil {
		return context.Background()
	}
	return p.Context
}

// Params declares the graph parameters.
func (p *VariationalParams) Params(s *param.Schema) {
	param.Num(s, &p.Delta, "delta", 0, "one bandwidth δ in exp(−d²/δ²) for every pair", param.Min(0), param.Auto("local scaling δᵢⱼ² = σᵢσⱼ"))
	param.Num(s, &p.ScaleK, "scalek", graph.DefaultScaleK, "local scaling: σᵢ is the distance to this neighbour (capped at n − 1)", param.Min(1))
	param.Enum(s, &p.Weights, "weights", "graph weights: tangent c·exp(−d²/δ²)/δ² (the derivative of J) or paper c·exp(−d²/δ²) (eq. 7; differs under local scaling)",
		param.Names(VETangent, VEPaper)...)
	searchParam(s, &p.Search)
}

// EMParams are the iteration parameters of MIE, BERE, kMIE and kBERE.
type EMParams struct {
	MaxIter int     // 0: DefaultVEMaxIter
	Tol     float64 // 0: DefaultVETol (relative change of J)
	// Step: VESafeguarded (default; J never decreases) or VEPlain (the
	// paper's EM: every M-step taken).
	Step string
}

// mstepParam declares the M-step form of the initial-graph members (MIE₀,
// BERE₀ and their kernel forms). The EM members keep the printed form:
// under the ratio form the penalty edges vanish once the classes separate
// (their heat weights underflow), leaving no constraint.
func mstepParam(s *param.Schema, m *string) {
	param.Enum(s, m, "mstep", "M-step: orthonormal (eq. 9-10 as printed: min tr(TᵀΦᵀLΦT), TᵀT = I) or ratio (the graph-embedding framework's form the paper cites: same-class edges the intrinsic graph, other-class edges the penalty graph, min tr(TᵀΦᵀL⁺ΦT) with TᵀΦᵀL⁻ΦT = I)",
		param.Names(VEOrthonormal, VERatio)...)
}

// Params declares the iteration parameters.
func (p *EMParams) Params(s *param.Schema) {
	param.Num(s, &p.MaxIter, "maxiter", DefaultVEMaxIter, "largest number of EM iterations", param.Min(1))
	param.Num(s, &p.Tol, "tol", DefaultVETol, "stop when J changes by less than this (relative)", param.Above(0))
	param.Enum(s, &p.Step, "step", "M-step: safeguarded (accepted only if J does not decrease; level-shifted otherwise) or plain (the paper's EM as written)",
		param.Names(VESafeguarded, VEPlain)...)
}

// VariationalResult is the trace of an MIE/BERE fit (Fitted.Trace).
type VariationalResult struct {
	// Objective[0] is J at the embedding of the initial graph; Objective[t]
	// after iteration t.
	Objective []float64
	// Shifts[t−1] is the level shift μ of iteration t (0: the plain step).
	Shifts     []float64
	Iterations int
	// Decreases counts the iterations in which J decreased (always 0 with
	// the safeguarded step).
	Decreases int
	Stop      string
}

// Progresser is implemented by iterative methods that can report each
// iteration (one line per call) while they fit.
type Progresser interface {
	Method
	WithProgress(func(string)) Method
}

// ve is one variational-embedding fit on prepared feature coordinates.
type ve struct {
	ctx     context.Context
	name    string
	coef    *graph.ClassBlock // γ or r
	prep    *embed.Prepared   // not dual: Φ n×r of full column rank
	start   graph.Metric      // where the initial graph is built
	bw      graph.Bandwidth
	tangent bool
	ratio   bool // MStep == VERatio
	dims    int
	eigen   linalg.EigenSolver
	// isometric: Φ's rows have the start metric's distances (the linear
	// members; the kernel members with the graph in feature space, up to
	// the directions below the cutoff), so an embedding that keeps every
	// column of Φ has the initial graph's distances.
	isometric bool
	progress  func(string)
	startJ    float64 // J at the start metric (initial sets it)
}

// report sends a progress line, prefixed with the method's name.
func (v *ve) report(format string, a ...any) {
	if v.progress != nil {
		v.progress(v.name + ": " + fmt.Sprintf(format, a...))
	}
}

// criterion returns the class coefficients of MI (γ) or BER (r).
func criterion(ber bool, y []int) (*graph.ClassBlock, error) {
	if ber {
		return graph.BER(y)
	}
	return graph.Gamma(y)
}

func (v *ve) solve(w *mat.SymDense) (*embed.Result, error) {
	if v.ratio {
		return v.solveRatio(w)
	}
	l, err := graph.LaplacianOf(w)
	if err != nil {
		return nil, err
	}
	return v.solveGraph(l)
}

// solveGraph is the printed M-step on the graph g: the bottom directions
// of Φᵀ·g·Φ under TᵀT = I.
func (v *ve) solveGraph(g graph.Operator) (*embed.Result, error) {
	prob := &embed.Problem{Objective: g, Minimize: true, Dims: v.dims, Solver: embed.Dense, Eigen: v.eigen}
	r, err := prob.SolveContext(v.ctx, v.prep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.name, err)
	}
	return r, nil
}

// shiftedLaplacian is L − μ·S·Sᵀ, the level-shifted graph of a
// safeguarded EM step, as an operator whose product with Φ reuses L·Φ:
// the engine's dense route forms Φᵀ·(G·Φ), and within one E-step L and
// Φ stay the same while μ changes, so L·Φ (n²·p flops) is formed once and
// each shift tried adds −μ·S·(SᵀΦ) (n·p·k) instead of re-forming the n×n
// graph and its product (cache holds L·Φ).
type shiftedLaplacian struct {
	l     graph.Dense
	s     *mat.Dense
	mu    float64
	cache *productCache
}

// productCache holds L·M for one M, shared by the shifts of an E-step.
type productCache struct {
	of, prod *mat.Dense
}

func (g shiftedLaplacian) Size() int { return g.l.Size() }

// Apply implements graph.Operator: L·M − μ·S·(SᵀM).
func (g shiftedLaplacian) Apply(m *mat.Dense) *mat.Dense {
	out, _ := g.ApplyContext(nil, m) // a nil context never stops it
	return out
}

// ApplyContext implements graph.ContextOperator: L·M reports its
// progress and stops when ctx is cancelled (graph.Dense).
func (g shiftedLaplacian) ApplyContext(ctx context.Context, m *mat.Dense) (*mat.Dense, error) {
	if g.cache.of != m {
		prod, err := graph.ApplyContext(ctx, g.l, m)
		if err != nil {
			return nil, err
		}
		g.cache.of, g.cache.prod = m, prod
	}
	out := mat.DenseCopyOf(g.cache.prod)
	if g.mu != 0 {
		var st, sst mat.Dense
		st.Mul(g.s.T(), m)
		sst.Mul(g.s, &st)
		sst.Scale(g.mu, &sst)
		out.Sub(out, &sst)
	}
	return out, nil
}

// Dense implements graph.Operator.
func (g shiftedLaplacian) Dense() *mat.SymDense {
	out := mat.NewSymDense(g.Size(), nil)
	out.CopySym(g.l.M)
	if g.mu != 0 {
		out.SymRankK(out, -g.mu, g.s)
	}
	return out
}

// solveRatio is the M-step in the graph-embedding framework's ratio form
// (MStep = VERatio): the positive edges of w are the intrinsic graph, the
// magnitudes of its negative edges the penalty graph, and the directions
// minimise tr(TᵀΦᵀL⁺ΦT) under TᵀΦᵀL⁻ΦT = I.
func (v *ve) solveRatio(w *mat.SymDense) (*embed.Result, error) {
	lp, ln, npos, nneg, err := graph.SignedLaplacians(w)
	if err != nil {
		return nil, err
	}
	if npos == 0 || nneg == 0 {
		return nil, fmt.Errorf("%s: ratio M-step: the graph has %d positive (same-class) and %d negative (other-class) edges; it needs both (every heat weight of one kind underflows: raise delta or scalek)", v.name, npos, nneg)
	}
	prob := &embed.Problem{Objective: lp, Constraint: ln, Minimize: true, Dims: v.dims, Solver: embed.Dense, Eigen: v.eigen}
	r, err := prob.SolveContext(v.ctx, v.prep)
	if err != nil {
		return nil, fmt.Errorf("%s: ratio M-step: %w", v.name, err)
	}
	return r, nil
}

func (v *ve) objective(z *mat.Dense) (float64, error) {
	return graph.KernelSumContext(v.ctx, v.coef, graph.Euclidean{X: z}, v.bw)
}

// initial embeds the initial graph (MIE₀, BERE₀).
func (v *ve) initial() (*embed.Result, error) {
	n := v.start.Len()
	v.report("initial graph: weights of the %d×%d pairs", n, n)
	w, j, err := graph.VariationalGraphContext(v.ctx, v.coef, v.start, v.bw, v.tangent)
	if err != nil {
		return nil, fmt.Errorf("%s: initial graph: %w", v.name, err)
	}
	v.startJ = j
	// The start metric is not needed again: for the exact kernel forms it
	// holds K̃ (n² floats), which the collector can now take back before
	// the M-step.
	v.start = nil
	_, p := v.prep.Phi.Dims()
	v.report("initial graph: M-step (%d-dimensional problem)", p)
	return v.solve(w)
}

// em runs the EM from the initial graph's embedding.
func (v *ve) em(p EMParams) (*embed.Result, VariationalResult, error) {
	var res VariationalResult
	cur, err := v.initial()
	if err != nil {
		return nil, res, err
	}
	report := v.report
	if _, k := cur.Train.Dims(); v.isometric && k >= v.prep.Phi.RawMatrix().Cols {
		// Z = Φ·T with T square and orthogonal: Z has Φ's distances, so
		// every E-step graph is the initial one and J never changes; J at
		// Z is J at the start metric, summed with the initial weights.
		res.Objective = append(res.Objective, v.startJ)
		report("initial graph: J = %.10g", v.startJ)
		res.Stop = fmt.Sprintf("full dimension: the embedding keeps all %d directions of the training representation, so its distances, the E-step's graph and J are the initial graph's; the EM cannot move (ask for fewer dimensions)", k)
		report("stopped after 0 iteration(s): %s", res.Stop)
		return cur, res, nil
	}
	j, err := v.objective(cur.Train)
	if err != nil {
		return nil, res, err
	}
	res.Objective = append(res.Objective, j)
	report("initial graph: J = %.10g", j)
	var gram *mat.Cholesky // of ΦᵀΦ, for the level shifts
	lastShift := 0.0
	for it := 1; ; it++ {
		if err := v.ctx.Err(); err != nil {
			return nil, res, err
		}
		if it > p.MaxIter {
			res.Stop = "maximum number of iterations"
			break
		}
		w, _, err := graph.VariationalGraphContext(v.ctx, v.coef, graph.Euclidean{X: cur.Train}, v.bw, v.tangent)
		if err != nil {
			return nil, res, fmt.Errorf("%s: E-step: %w", v.name, err)
		}
		l, err := graph.LaplacianOf(w)
		if err != nil {
			return nil, res, err
		}
		w = nil // the Laplacian holds what the M-steps need
		shifted := shiftedLaplacian{l: l, cache: &productCache{}}
		next, err := v.solveGraph(shifted)
		if err != nil {
			return nil, res, err
		}
		nj, err := v.objective(next.Train)
		if err != nil {
			return nil, res, err
		}
		if p.Step == VESafeguarded && nj < j && j-nj <= p.Tol*math.Abs(j) {
			// A fall within the tolerance is rounding at a stationary point:
			// no level shift is needed to call it converged, and keeping
			// the last embedding keeps J from falling.
			res.Stop = "converged (relative change of J below tol; the step lowered J within it, the last embedding kept)"
			break
		}
		mu := 0.0
		if p.Step == VESafeguarded && nj < j {
			s, err := v.shiftVectors(&gram, cur.Train) // Φᵀ·S·Sᵀ·Φ = T₀T₀ᵀ
			if err != nil {
				return nil, res, err
			}
			mu0 := 0.0
			for _, l := range next.Values {
				mu0 = math.Max(mu0, math.Abs(l))
			}
			if mu0 == 0 {
				mu0 = 1
			}
			// Start below the last shift that worked (or at μ₀/64): the
			// smallest shift that increases J is the longest safe step.
			first := mu0 / 64
			if lastShift > 0 {
				first = lastShift / 4
			}
			report("iteration %d: the plain M-step lowers J to %.10g; searching level shifts from %.3g", it, nj, first)
			found := false
			for mu = first; mu <= mu0*math.Pow(4, veMaxShifts) && !found; mu *= 4 {
				shifted.s, shifted.mu = s, mu
				r, err := v.solveGraph(shifted)
				if err != nil {
					return nil, res, err
				}
				rj, err := v.objective(r.Train)
				if err != nil {
					return nil, res, err
				}
				report("iteration %d: shift %.3g gives J = %.10g", it, mu, rj)
				if rj >= j {
					next, nj, found, lastShift = r, rj, true, mu
					break
				}
			}
			if !found {
				res.Stop = fmt.Sprintf("no step increases J (level shifts up to %.3g tried): a stationary point to rounding", mu)
				break
			}
		}
		if nj < j {
			res.Decreases++
		}
		change := nj - j
		cur, j = next, nj
		res.Objective = append(res.Objective, j)
		res.Shifts = append(res.Shifts, mu)
		res.Iterations = it
		report("iteration %d: J = %.10g (change %+.3g, shift %.3g)", it, j, change, mu)
		if math.Abs(change) <= p.Tol*math.Abs(j) {
			res.Stop = "converged (relative change of J below tol)"
			break
		}
	}
	report("stopped after %d iteration(s): %s", res.Iterations, res.Stop)
	return cur, res, nil
}

// shiftVectors returns S = Φ·(ΦᵀΦ)⁻²·Φᵀ·Z₀ = Φ·(ΦᵀΦ)⁻¹·T₀ for the
// current embedding Z₀ = Φ·T₀: Φᵀ·S·Sᵀ·Φ = T₀·T₀ᵀ, so the level shift
// −μ·T₀T₀ᵀ of the coefficient problem is the graph −μ·S·Sᵀ for the
// engine (Φ has full column rank: principal components or K̃'s features).
// It is computed right to left (n·p·k flops) with the Cholesky factor of
// ΦᵀΦ, made once and kept in *gram; the n×n map Φ(ΦᵀΦ)⁻²Φᵀ is never
// formed (before 2026-11-23 it was: n² floats and n²·p flops).
func (v *ve) shiftVectors(gram **mat.Cholesky, z0 *mat.Dense) (*mat.Dense, error) {
	phi := v.prep.Phi
	if *gram == nil {
		var g mat.SymDense
		g.SymOuterK(1, phi.T())
		ch := new(mat.Cholesky)
		if !ch.Factorize(&g) {
			return nil, fmt.Errorf("%s: the training representation is rank deficient (ΦᵀΦ not positive definite); use a PCA pre-step", v.name)
		}
		*gram = ch
	}
	var pz, t0, u mat.Dense // Φᵀ·Z₀, then T₀ = (ΦᵀΦ)⁻¹·ΦᵀZ₀, then (ΦᵀΦ)⁻¹·T₀
	pz.Mul(phi.T(), z0)
	if err := (*gram).SolveTo(&t0, &pz); err != nil {
		return nil, err
	}
	if err := (*gram).SolveTo(&u, &t0); err != nil {
		return nil, err
	}
	var s mat.Dense
	s.Mul(phi, &u)
	return &s, nil
}

// run fits the initial graph only (iterate false) or the EM.
func (v *ve) run(iterate bool, p EMParams, pre embed.Model) (*Fitted, error) {
	var r *embed.Result
	var trace any
	var err error
	if iterate {
		var res VariationalResult
		r, res, err = v.em(p)
		trace = res
	} else {
		r, err = v.initial()
	}
	if err != nil {
		return nil, err
	}
	f := &Fitted{Model: r.Model, Name: v.name, Values: r.Values, Train: r.Train, Trace: trace}
	if pre != nil {
		f.Model = embed.Compose(pre, f.Model)
	}
	return f, nil
}

func (p VariationalParams) bandwidth(m graph.Metric) (graph.Bandwidth, error) {
	if p.Delta > 0 {
		return graph.Bandwidth{Delta: p.Delta}, nil
	}
	return graph.LocalBandwidthContext(p.ctx(), m, p.ScaleK, p.Search)
}

// LinearVariational holds what the linear members of the family share.
// The rows are first projected on their principal components (all of
// those with nonzero variance, or PCA's choice): this changes no distance
// and no solution when lossless, and gives the full-column-rank Φ the
// level shift needs.
type LinearVariational struct {
	VariationalParams
	// PCA is the optional pre-step: 0 lossless (every component with
	// nonzero variance), (0,1) variance fraction, ≥ 1 number of components.
	PCA float64
	// Eigen is the eigen-solver of every M-step (nil: the engine chooses).
	// The route is always the dense one (see eigenParam).
	Eigen linalg.EigenSolver
}

// Params declares the parameters of the linear members.
func (m *LinearVariational) Params(s *param.Schema) {
	m.VariationalParams.Params(s)
	pcaParam(s, &m.PCA)
	eigenParam(s, &m.Eigen)
}

// eigenParam declares the one engine choice of the family, the
// eigen-solver: every M-step is the eigenproblem of a dense graph on the
// dense route (spectral regression, the other route, solves a different,
// regularised problem, and its linear solver is then unused).
func eigenParam(s *param.Schema, e *linalg.EigenSolver) {
	solverParam(s, e, "eigen", "eigen-solver of every M-step (auto: by size and the dimensions wanted)", linalg.EigenSolverByName, linalg.EigenSolverNames())
}

func (m LinearVariational) fit(name string, ber, iterate bool, p EMParams, x *mat.Dense, y []int, dims int) (Model, error) {
	x, y, err := labelled(name, x, y, 1)
	if err != nil {
		return nil, err
	}
	n, d := x.Dims()
	keep := m.PCA
	if keep == 0 {
		keep = float64(min(n, d))
	}
	pre, z, err := preStep(name, x, keep, true)
	if err != nil {
		return nil, err
	}
	prep, err := embed.Linear{}.Prepare(context.Background(), z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	start := graph.Euclidean{X: z}
	return m.VariationalParams.fit(name, ber, iterate, true, p, prep, start, pre, y, dims, m.Eigen)
}

func (p VariationalParams) fit(name string, ber, iterate, isometric bool, e EMParams, prep *embed.Prepared, start graph.Metric, pre embed.Model, y []int, dims int, eigen linalg.EigenSolver) (Model, error) {
	coef, err := criterion(ber, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if p.Delta == 0 && p.Progress != nil {
		p.Progress(fmt.Sprintf("%s: initial graph: local-scaling bandwidths of %d rows", name, start.Len()))
	}
	bw, err := p.bandwidth(start)
	if err != nil {
		return nil, fmt.Errorf("%s: bandwidth: %w", name, err)
	}
	ratio := p.MStep == VERatio
	if ratio && iterate {
		return nil, fmt.Errorf("%s: the ratio M-step is defined for the initial graph only (MIE₀, BERE₀ and their kernel forms): in the EM the penalty edges vanish once the classes separate", name)
	}
	v := &ve{ctx: embed.WithTrain(p.ctx()), name: name, // the EM reads the embeddings of the training rows
		coef: coef, prep: prep, start: start, bw: bw, tangent: p.Weights != VEPaper, ratio: ratio, dims: dims, eigen: eigen,
		isometric: isometric, progress: p.Progress}
	return v.run(iterate, e, pre)
}

// KernelVariational holds what the kernel members share: the kernel
// (default RBF σ = 1), its space, where the initial graph and the
// bandwidths are computed (default: the kernel's feature space, where the
// embedding lives; graphspace=input: the input rows), and the spectral
// cut-off of K̃ (eigen-directions of K̃ below Cutoff·λ_max are dropped;
// 0: 1e-10). K̃ is built and decomposed once per fit; every M-step is a
// problem in its feature coordinates (embed.Prepared.Features).
type KernelVariational struct {
	VariationalParams
	Kernel       kernel.Kernel
	GraphInInput bool
	Cutoff       float64
	PCA          float64
	Space        KernelSpace
	Eigen        linalg.EigenSolver // as LinearVariational.Eigen
}

// Params declares the parameters of the kernel members.
func (m *KernelVariational) Params(s *param.Schema) {
	m.VariationalParams.Params(s)
	param.Enum(s, &m.GraphInInput, "graphspace", "build the initial graph and the bandwidths in the kernel's feature space (where Z lives) or in the input space",
		param.C("kernel", false), param.C("input", true))
	param.Num(s, &m.Cutoff, "cutoff", 1e-10, "drop the eigen-directions of K̃ below cutoff·λ_max (a spectral regulariser)", param.Above(0), param.Below(1))
	pcaParam(s, &m.PCA)
	kernelParams(s, &m.Kernel, kernel.RBFAuto())
	m.Space.Params(s)
	eigenParam(s, &m.Eigen)
	noPCAWithPrecomputed(s, &m.Space, &m.PCA)
}

func (m KernelVariational) fit(name string, ber, iterate bool, p EMParams, x *mat.Dense, y []int, dims int) (Model, error) {
	x, y, err := m.Space.labelled(name, x, y, 1)
	if err != nil {
		return nil, err
	}
	pre, z, kprep, err := m.Space.preparePCA(m.ctx(), name, m.Kernel, x, m.PCA)
	if err != nil {
		return nil, err
	}
	start := graphMetric(z, kprep, !m.GraphInInput)
	prep, err := kprep.Features(m.ctx(), m.Cutoff)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m.VariationalParams.fit(name, ber, iterate, !m.GraphInInput, p, prep, start, pre, y, dims, m.Eigen)
}

// MIE0 is initial mutual-information embedding (seed 003 §3.3, "MIE₀"):
// the bottom eigenvectors of XᵀLX (TᵀT = I) for the initial graph
// wᵢⱼ = γᵢⱼ·exp(−‖xᵢ − xⱼ‖²/δᵢⱼ²)/δᵢⱼ² (see the family comment above).
type MIE0 struct{ LinearVariational }

// Params declares the parameters of MIE0: the linear members' and the M-step form.
func (m *MIE0) Params(s *param.Schema) { m.LinearVariational.Params(s); mstepParam(s, &m.MStep) }

// Fit implements Method.
func (m MIE0) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("mie0", &m); err != nil {
		return nil, err
	}
	return m.fit("mie0", false, false, EMParams{}, x, y, dims)
}

// WithProgress implements Progresser.
func (m MIE0) WithProgress(f func(string)) Method { m.Progress = f; return m }

// MIE is mutual-information embedding (seed 003 §3.2, eq. 5-9): the EM of
// the family comment, started from MIE₀.
type MIE struct {
	LinearVariational
	EMParams
}

// Params declares the parameters of MIE.
func (m *MIE) Params(s *param.Schema) { m.LinearVariational.Params(s); m.EMParams.Params(s) }

// Fit implements Method.
func (m MIE) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("mie", &m); err != nil {
		return nil, err
	}
	return m.fit("mie", false, true, m.EMParams, x, y, dims)
}

// DimensionDependent implements DimensionDependent for the EM members
// (MIE, BERE, kMIE, kBERE): the E-step's weights are the distances in the
// k-dimensional embedding, so each k has its own EM.
func (EMParams) DimensionDependent() bool { return true }

// WithProgress implements Progresser.
func (m MIE) WithProgress(f func(string)) Method { m.Progress = f; return m }

// BERE0 is initial Bayes-error-rate embedding (seed 003 §4): MIE₀ with the
// r-graph (graph.BER) in place of γ.
type BERE0 struct{ LinearVariational }

// Params declares the parameters of BERE0: the linear members' and the M-step form.
func (m *BERE0) Params(s *param.Schema) { m.LinearVariational.Params(s); mstepParam(s, &m.MStep) }

// Fit implements Method.
func (m BERE0) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("bere0", &m); err != nil {
		return nil, err
	}
	return m.fit("bere0", true, false, EMParams{}, x, y, dims)
}

// WithProgress implements Progresser.
func (m BERE0) WithProgress(f func(string)) Method { m.Progress = f; return m }

// BERE is Bayes-error-rate embedding (seed 003 §4): MIE's EM with the
// r-graph.
type BERE struct {
	LinearVariational
	EMParams
}

// Params declares the parameters of BERE.
func (m *BERE) Params(s *param.Schema) { m.LinearVariational.Params(s); m.EMParams.Params(s) }

// Fit implements Method.
func (m BERE) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("bere", &m); err != nil {
		return nil, err
	}
	return m.fit("bere", true, true, m.EMParams, x, y, dims)
}

// WithProgress implements Progresser.
func (m BERE) WithProgress(f func(string)) Method { m.Progress = f; return m }

// KMIE0 is kernel MIE₀ (seed 003 eq. 10-12 on the initial graph): the
// bottom eigenvectors of K̃LK̃ under AᵀK̃A = I, z = Aᵀk̃(x).
type KMIE0 struct{ KernelVariational }

// Params declares the parameters of KMIE0: the kernel members' and the M-step form.
func (m *KMIE0) Params(s *param.Schema) { m.KernelVariational.Params(s); mstepParam(s, &m.MStep) }

// Fit implements Method.
func (m KMIE0) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kmie0", &m); err != nil {
		return nil, err
	}
	return m.fit("kmie0", false, false, EMParams{}, x, y, dims)
}

// WithProgress implements Progresser.
func (m KMIE0) WithProgress(f func(string)) Method { m.Progress = f; return m }

// KMIE is kernel MIE (seed 003 eq. 10-12): the EM in the kernel space.
type KMIE struct {
	KernelVariational
	EMParams
}

// Params declares the parameters of kMIE.
func (m *KMIE) Params(s *param.Schema) { m.KernelVariational.Params(s); m.EMParams.Params(s) }

// Fit implements Method.
func (m KMIE) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kmie", &m); err != nil {
		return nil, err
	}
	return m.fit("kmie", false, true, m.EMParams, x, y, dims)
}

// WithProgress implements Progresser.
func (m KMIE) WithProgress(f func(string)) Method { m.Progress = f; return m }

// KBERE0 is kernel BERE₀ (seed 003 §4 with eq. 10-12).
type KBERE0 struct{ KernelVariational }

// Params declares the parameters of KBERE0: the kernel members' and the M-step form.
func (m *KBERE0) Params(s *param.Schema) { m.KernelVariational.Params(s); mstepParam(s, &m.MStep) }

// Fit implements Method.
func (m KBERE0) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kbere0", &m); err != nil {
		return nil, err
	}
	return m.fit("kbere0", true, false, EMParams{}, x, y, dims)
}

// WithProgress implements Progresser.
func (m KBERE0) WithProgress(f func(string)) Method { m.Progress = f; return m }

// KBERE is kernel BERE (seed 003 §4 with eq. 10-12).
type KBERE struct {
	KernelVariational
	EMParams
}

// Params declares the parameters of kBERE.
func (m *KBERE) Params(s *param.Schema) { m.KernelVariational.Params(s); m.EMParams.Params(s) }

// Fit implements Method.
func (m KBERE) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kbere", &m); err != nil {
		return nil, err
	}
	return m.fit("kbere", true, true, m.EMParams, x, y, dims)
}

// WithProgress implements Progresser.
func (m KBERE) WithProgress(f func(string)) Method { m.Progress = f; return m }

func init() {
	const paper = "seed 003 (Yang, Zha, Zhou & Hu 2009)"
	lin, ker := "rank of X̄ (≤ min(n−1, d))", "rank of K̃ (≤ n−1)"
	const values = "eigenvalues of the last M-step's ΦᵀLΦ under TᵀT = I (eq. 9-10; of the shifted matrix when the step needed a shift), smallest first"
	const values0 = "eigenvalues of ΦᵀLΦ under TᵀT = I for the initial graph (eq. 9-10), smallest first; with mstep=ratio the ratios of same-class to other-class graph scatter, smallest first"
	Register[MIE0](Info{Name: "mie0", Title: "Initial mutual-information embedding (MIE₀)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "linear", Paper: paper + " §3.3, eq. 5, 9", MaxDims: lin, Values: values0})
	Register[MIE](Info{Name: "mie", Title: "Mutual-information embedding (variational EM)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "linear", Paper: paper + " §3.2, eq. 5-9", MaxDims: lin, Values: values})
	Register[BERE0](Info{Name: "bere0", Title: "Initial Bayes-error-rate embedding (BERE₀)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "linear", Paper: paper + " §4", MaxDims: lin, Values: values0})
	Register[BERE](Info{Name: "bere", Title: "Bayes-error-rate embedding (variational EM)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "linear", Paper: paper + " §4", MaxDims: lin, Values: values})
	Register[KMIE0](Info{Name: "kmie0", Title: "Kernel initial mutual-information embedding (kMIE₀)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "kernel", Paper: paper + " §3.3, eq. 10-12", MaxDims: ker, Values: values0})
	Register[KMIE](Info{Name: "kmie", Title: "Kernel mutual-information embedding (variational EM)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "kernel", Paper: paper + " §3.2, eq. 10-12", MaxDims: ker, Values: values})
	Register[KBERE0](Info{Name: "kbere0", Title: "Kernel initial Bayes-error-rate embedding (kBERE₀)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "kernel", Paper: paper + " §4, eq. 10-12", MaxDims: ker, Values: values0})
	Register[KBERE](Info{Name: "kbere", Title: "Kernel Bayes-error-rate embedding (variational EM)", Family: "variational graph embedding",
		Supervision: "supervised", Space: "kernel", Paper: paper + " §4, eq. 10-12", MaxDims: ker, Values: values})
}
