package method

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// Neighbourhood methods (this file: LPP, SLPP, KLPP, SKLPP; mfa.go: MFA,
// KMFA; knda.go: KNDA, DNDA) build their graphs with package graph and
// solve min tr(Vᵀ·Φᵀ·L·Φ·V) under a constraint with the engine. The shared
// conventions are documented in docs/neighbourhood.md.

// DefaultNeighbours is the default number of nearest neighbours of the
// LPP family and of KNDA/DNDA's within-class graph (seed 004 §4: "the
// parameter k used to find the nearest neighborhoods in LPP and KLPP is set
// to 10").
const DefaultNeighbours = 10

// DefaultKernelAlpha is the default regulariser of KLPP, SKLPP and KMFA,
// relative to the mean diagonal of K̃ (as GDA's alpha). It is added to both
// sides of the minimisation, (K̃AK̃ + α·K̃)·a = λ·(K̃BK̃ + α·K̃)·a: in the
// objective it penalises directions of large norm in feature space for
// their spread (those that interpolate the graph), which the constraint
// alone would favour; for LPP this is the regularised form of Cai et al.,
// max aᵀK̃WK̃a / aᵀ(K̃DK̃ + αK̃)a. Chosen from the seed 000 UCI runs
// (docs/reproduction-neighbourhood.md).
const DefaultKernelAlpha = 1e-2

// NeighbourParams are the neighbourhood-graph hyperparameters shared by
// the LPP family. The zero value means: k = 10, heat weights with t the
// mean squared edge length, automatic search.
type NeighbourParams struct {
	K      int              // neighbours per row (0: DefaultNeighbours)
	Weight graph.WeightKind // "" → heat
	T      float64          // heat width t (0: automatic)
	ScaleK int              // local scaling neighbour (0: graph.DefaultScaleK)
	Search graph.Search
	Mutual bool // keep only mutual neighbours
}

// Params declares the neighbourhood-graph parameters.
func (p *NeighbourParams) Params(s *param.Schema) {
	param.Num(s, &p.K, "k", DefaultNeighbours, "nearest neighbours per row (capped at the candidates available, e.g. n_c − 1 within a class)", param.Min(1))
	param.Enum(s, &p.Weight, "weight", "edge weights: heat exp(−d²/t), constant, or local (exp(−d²/(σᵢσⱼ)), σᵢ = distance to the scalek-th neighbour)",
		param.Names(graph.Heat, graph.Constant, graph.LocalScaling)...)
	param.Num(s, &p.T, "t", 0, "heat width t", param.Above(0), param.Auto("the mean squared edge length"))
	param.Num(s, &p.ScaleK, "scalek", graph.DefaultScaleK, "local scaling: σᵢ is the distance to this neighbour", param.Min(1))
	param.Bool(s, &p.Mutual, "mutual", "keep an edge only if each row is among the other's k nearest (default: either)")
	searchParam(s, &p.Search)
}

// searchParam declares the neighbour search of a graph.
func searchParam(s *param.Schema, p *graph.Search) {
	param.Enum(s, p, "search", "neighbour search: auto, brute (blocked products) or kdtree",
		param.C("auto", graph.SearchAuto), param.C("brute", graph.SearchBrute), param.C("kdtree", graph.SearchTree))
}

// pcaParam declares the optional PCA pre-step of a method (see preStep).
func pcaParam(s *param.Schema, p *float64) {
	param.Num(s, p, "pca", 0, "PCA pre-step: 0 none, (0,1) variance fraction kept, ≥ 1 number of components (the graphs are built after it)",
		param.Min(0), wholeFromOne)
}

// wholeFromOne is the rule of a count that may also be a fraction below 1.
var wholeFromOne = param.Check("a whole number when ≥ 1", func(v float64) bool { return v < 1 || v == math.Trunc(v) })

func (p NeighbourParams) build(ctx context.Context, m graph.Metric, sup graph.Supervision, y []int) (*graph.Graph, error) {
	w := graph.Weights{Kind: p.Weight, T: p.T, ScaleK: p.ScaleK}
	return graph.Neighbourhood{K: p.K, Mutual: p.Mutual, Supervision: sup, Labels: y, Weights: w, Search: p.Search, Context: ctx}.Build(m)
}

// preStep applies the optional PCA pre-step of a method: keep = 0 means
// none, 0 < keep < 1 the fewest leading components explaining that
// fraction of the variance, keep ≥ 1 that many components (capped at the
// number with nonzero variance). When lossless is set and there are more
// columns than rows, rows are projected on all their principal components
// with nonzero variance even if keep = 0 (this changes no distance and no
// linear-method solution, and avoids d×d matrices). It returns the
// pre-step model (nil if none) and the transformed rows.
func preStep(name string, x *mat.Dense, keep float64, lossless bool) (embed.Model, *mat.Dense, error) {
	n, d := x.Dims()
	if keep == 0 && !(lossless && d >= n) {
		return nil, x, nil
	}
	pm, err := PCA{}.Fit(x, nil, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: PCA pre-step: %w", name, err)
	}
	f := pm.(*Fitted)
	k, err := componentsFor(name+": pca", f.Values, keep)
	if err != nil {
		return nil, nil, err
	}
	model, err := embed.Truncate(f.Model, k)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: PCA pre-step: %w", name, err)
	}
	z, err := model.Transform(x)
	if err != nil {
		return nil, nil, err
	}
	return model, z, nil
}

// finish fits the problem on z and composes the pre-step in front.
func finish(name string, pre embed.Model, prob *embed.Problem, z *mat.Dense) (*Fitted, error) {
	f, err := fit(name, prob, z)
	if err != nil {
		return nil, err
	}
	if pre != nil {
		f.Model = embed.Compose(pre, f.Model)
	}
	return f, nil
}

// finishPrepared solves the problem on a prepared kernel space and
// composes the pre-step in front.
func finishPrepared(name string, e Engine, pre embed.Model, prob *embed.Problem, prep *embed.Prepared) (*Fitted, error) {
	f, err := solve(name, e, prob, prep)
	if err != nil {
		return nil, err
	}
	if pre != nil {
		f.Model = embed.Compose(pre, f.Model)
	}
	return f, nil
}

// graphMetric returns the metric a graph is built in: the input rows z, or
// the feature space of the prepared kernel (seed 004 eq. 13) when inKernel
// is set — taken from the prepared Gram matrix, never a second one. With a
// precomputed kernel there are no input rows: the feature space is used.
func graphMetric(z *mat.Dense, prep *embed.Prepared, inKernel bool) graph.Metric {
	if inKernel || prep.NoRows {
		return prep.Metric()
	}
	return graph.Euclidean{X: z}
}

// LPP is locality preserving projections (He and Niyogi 2003; reviewed in
// seed 004 §2, eq. 1-5; a baseline of seeds 000, 003, 004): with W the
// symmetrised kNN graph ("i among the k nearest neighbours of j or j among
// those of i") with heat weights exp(−‖xᵢ−xⱼ‖²/t) (seed 004 eq. 2) or
// constant weights (eq. 3), D its degree matrix and L = D − W,
//
//	min tr(Wᵀ·X̄ᵀ·L·X̄·W)  subject to  Wᵀ·X̄ᵀ·D·X̄·W = I        (seed 004 eq. 4-5)
//
// on the centred rows X̄ (centring removes the trivial constant solution;
// L·1 = 0 so the objective is unchanged). The smallest generalized
// eigenvalues are kept (Values, increasing). With more columns than rows
// the rows are first projected losslessly on their principal components;
// PCA > 0 adds the PCA pre-step of seed 004 §4.2.1 ("we run PCA prior to
// LPP", 90% of the variance there), and the graph is built on the
// pre-processed rows. Labels are ignored.
type LPP struct {
	NeighbourParams
	// PCA is the optional pre-step: 0 none, (0,1) variance fraction, ≥ 1
	// number of components.
	PCA float64
	// Ridge adds Ridge·I to both X̄ᵀLX̄ and X̄ᵀDX̄ (0: none; the constraint
	// is then solved on its range).
	Ridge float64
	Engine
}

// Params declares the parameters of LPP.
func (m *LPP) Params(s *param.Schema) {
	m.NeighbourParams.Params(s)
	pcaParam(s, &m.PCA)
	param.Num(s, &m.Ridge, "ridge", 0, "ridge added to X̄ᵀLX̄ and X̄ᵀDX̄ (0: none; the constraint is solved on its range)", param.Min(0))
	m.Engine.Params(s)
}

// Fit implements Method.
func (m LPP) Fit(x *mat.Dense, _ []int, dims int) (Model, error) {
	if err := resolve("lpp", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("lpp")
	}
	return linearLPP("lpp", m, x, nil, graph.Unsupervised, dims)
}

// SLPP is supervised LPP, as seed 000 §V describes its protocol for the
// supervised LPP baseline: the kNN graph of LPP keeps only the edges
// joining rows of the same class ("connecting with edges the points that
// belong to the same class and they are among the KNNs of each other";
// graph.SameClassEdges, an edge when either row is among the other's k
// nearest). Within = true searches the k nearest neighbours among the rows
// of the same class instead (graph.InClass; every row then has
// min(k, n_c − 1) neighbours). The objective is LPP's. Rows labelled −1
// are dropped.
type SLPP struct {
	LPP
	Within bool
}

// Params declares the parameters of SLPP.
func (m *SLPP) Params(s *param.Schema) {
	m.LPP.Params(s)
	withinParam(s, &m.Within)
}

// withinParam declares the choice of SLPP and SKLPP's supervised graph.
func withinParam(s *param.Schema, p *bool) {
	param.Bool(s, p, "within", "search neighbours within each class instead of keeping the same-class edges of the kNN graph")
}

// Fit implements Method.
func (m SLPP) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("slpp", &m); err != nil {
		return nil, err
	}
	x, y, err := labelled("slpp", x, y, 1)
	if err != nil {
		return nil, err
	}
	return linearLPP("slpp", m.LPP, x, y, supervisedMode(m.Within), dims)
}

func supervisedMode(within bool) graph.Supervision {
	if within {
		return graph.InClass
	}
	return graph.SameClassEdges
}

// varianceTieBreak is the secondary objective that makes the graph
// methods' (LPP, SLPP, KLPP, SKLPP, MFA, KMFA) basis canonical inside a
// degenerate eigenspace: directions sharing an eigenvalue are rotated to
// uncorrelated training projections, largest variance first (the identity
// graph's Φᵀ·Φ; see embed.Problem.TieBreak). Such eigenspaces are not
// rare: a supervised graph has at least one component per class, and the
// directions whose projections are constant on every component all have
// eigenvalue 0 — C − 1 of them when there are fewer rows than features
// plus classes (faces; Soy and Zoo in seed 000's tables). The constraint
// graph cannot break the tie: inside the eigenspace its quadratic form is
// the identity (Vᵀ·B·V = I), so every rotation would diagonalise it and
// rounding alone would pick the first dimensions.
func varianceTieBreak(objective graph.Operator) graph.Operator {
	return graph.Identity(objective.Size())
}

func linearLPP(name string, m LPP, x *mat.Dense, y []int, sup graph.Supervision, dims int) (Model, error) {
	pre, z, err := preStep(name, x, m.PCA, true)
	if err != nil {
		return nil, err
	}
	g, err := m.build(m.ctx(), graph.Euclidean{X: z}, sup, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	prob := &embed.Problem{Space: embed.Linear{}, Objective: g.Laplacian(), Constraint: g.Degree(),
		Minimize: true, Ridge: m.Ridge, ObjectiveRidge: m.Ridge, Solver: embed.Dense, Dims: dims, TieBreak: varianceTieBreak(g.W)}
	m.Engine.apply(prob)
	return finish(name, pre, prob, z)
}

// KLPP is kernel LPP (a baseline of seeds 000, 003 and 004): LPP in the
// feature space of a kernel, with centred Gram matrix K̃ and coefficients A
// (projections z = Aᵀ·k̃(x)):
//
//	min tr(Aᵀ·(K̃·L·K̃ + α·K̃)·A)  subject to  Aᵀ·(K̃·D·K̃ + α·K̃)·A = I,
//
// the kernel form of seed 000 eq. 3 with C = D, regularised by α‖w‖² on
// both sides (see DefaultKernelAlpha; α is relative to the mean diagonal
// of K̃). Without α the supervised graph's components are collapsed to
// points by interpolating directions (eigenvalue 0) that generalise badly.
// The kNN graph is built in the input space (GraphInKernel: in the feature
// space, seed 004 eq. 13). With space=precomputed there are no input rows,
// so the graph, its neighbours and heat weights, are the feature space's
// whatever GraphInKernel says: the fit equals the exact kernel's with
// graphspace=kernel, not with the default. Labels are ignored.
type KLPP struct {
	NeighbourParams
	Kernel        kernel.Kernel      // zero: RBF, σ from the training rows (sigma=auto)
	Alpha         param.Opt[float64] // unset: DefaultKernelAlpha
	GraphInKernel bool
	PCA           float64
	Space         KernelSpace
	Engine
}

// Params declares the parameters of KLPP.
func (m *KLPP) Params(s *param.Schema) {
	m.NeighbourParams.Params(s)
	kernelGraphParams(s, &m.PCA, &m.Alpha, &m.GraphInKernel, &m.Kernel, &m.Space, &m.Engine)
}

// kernelGraphParams declares what KLPP, SKLPP and KMFA add to their graph
// parameters: the PCA pre-step, the regulariser α, where the graphs are
// built, the kernel (RBF σ = 1), its space and the engine.
func kernelGraphParams(s *param.Schema, pca *float64, alpha *param.Opt[float64], inKernel *bool, k *kernel.Kernel, sp *KernelSpace, e *Engine) {
	pcaParam(s, pca)
	param.OptNum(s, alpha, "alpha", param.Set(DefaultKernelAlpha), "regulariser α·K̃ added to both sides, relative to the mean diagonal of K̃", param.Min(0))
	param.Enum(s, inKernel, "graphspace", "build the graphs in the input space or in the kernel's feature space",
		param.C("input", false), param.C("kernel", true))
	kernelParams(s, k, kernel.RBFAuto())
	sp.Params(s)
	e.Params(s)
	noPCAWithPrecomputed(s, sp, pca)
}

// Fit implements Method.
func (m KLPP) Fit(x *mat.Dense, _ []int, dims int) (Model, error) {
	if err := resolve("klpp", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("klpp")
	}
	return kernelLPP("klpp", m, x, nil, graph.Unsupervised, dims)
}

// SKLPP is supervised kernel LPP (seed 000's supervised KLPP baseline and
// seed 004's SKLPP of Fig. 2): KLPP with the supervised graph of SLPP
// (same-class edges of the kNN graph; Within: within-class search).
type SKLPP struct {
	KLPP
	Within bool
}

// Params declares the parameters of SKLPP.
func (m *SKLPP) Params(s *param.Schema) {
	m.KLPP.Params(s)
	withinParam(s, &m.Within)
}

// Fit implements Method.
func (m SKLPP) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("sklpp", &m); err != nil {
		return nil, err
	}
	x, y, err := m.Space.labelled("sklpp", x, y, 1)
	if err != nil {
		return nil, err
	}
	return kernelLPP("sklpp", m.KLPP, x, y, supervisedMode(m.Within), dims)
}

func kernelLPP(name string, m KLPP, x *mat.Dense, y []int, sup graph.Supervision, dims int) (Model, error) {
	pre, z, prep, err := m.Space.preparePCA(m.ctx(), name, m.Kernel, x, m.PCA)
	if err != nil {
		return nil, err
	}
	a, _ := m.Alpha.Get()
	alpha := a * prep.Scale()
	g, err := m.build(m.ctx(), graphMetric(z, prep, m.GraphInKernel), sup, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	prob := &embed.Problem{Objective: g.Laplacian(), Constraint: g.Degree(),
		Minimize: true, Ridge: alpha, ObjectiveRidge: alpha, Solver: embed.Dense, Dims: dims, TieBreak: varianceTieBreak(g.W)}
	return finishPrepared(name, m.Engine, pre, prob, prep)
}

func init() {
	Register[LPP](Info{
		Name: "lpp", Title: "Locality preserving projections", Family: "neighbourhood",
		Supervision: "unsupervised", Space: "linear", Paper: "He & Niyogi 2003; seed 004 §2 eq. 1-5 (baseline in seeds 000, 003, 004)",
		MaxDims: "rank of X̄ᵀDX̄ (≤ min(n−1, d))",
		Values:  "generalized eigenvalues λ of X̄ᵀLX̄·w = λ·X̄ᵀDX̄·w (how much each direction separates neighbours), smallest first",
	})
	Register[SLPP](Info{
		Name: "slpp", Title: "Supervised LPP (same-class edges of the kNN graph)", Family: "neighbourhood",
		Supervision: "supervised", Space: "linear", Paper: "seed 000 §V protocol; seed 004 Fig. 2",
		MaxDims: "rank of X̄ᵀDX̄ (≤ min(n−1, d))",
		Values:  "generalized eigenvalues λ of X̄ᵀLX̄·w = λ·X̄ᵀDX̄·w on the same-class kNN graph (how much each direction separates neighbours), smallest first",
	})
	Register[KLPP](Info{
		Name: "klpp", Title: "Kernel locality preserving projections", Family: "neighbourhood",
		Supervision: "unsupervised", Space: "kernel", Paper: "baseline in seeds 000, 003, 004 (seed 000 eq. 3 with C = D)",
		MaxDims: "rank of K̃ (≤ n−1)",
		Values:  "generalized eigenvalues λ of (K̃LK̃ + αK̃)·a = λ·(K̃DK̃ + αK̃)·a (how much each direction separates neighbours), smallest first",
	})
	Register[SKLPP](Info{
		Name: "sklpp", Title: "Supervised kernel LPP (same-class edges of the kNN graph)", Family: "neighbourhood",
		Supervision: "supervised", Space: "kernel", Paper: "seed 000 §V protocol (supervised KLPP); seed 004 Fig. 2",
		MaxDims: "rank of K̃ (≤ n−1)",
		Values:  "generalized eigenvalues λ of (K̃LK̃ + αK̃)·a = λ·(K̃DK̃ + αK̃)·a on the same-class kNN graph, smallest first",
	})
}
