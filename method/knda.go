package method

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
	"github.com/dimred/dimred/progress"
)

// Defaults of KNDA/DNDA.
const (
	// DefaultNDAJitter is the default ridge added to K(D_max − W_max)K,
	// relative to s², s the mean diagonal of K̃ (DNDA: relative to s, the
	// mean squared norm of the centred rows): the scale-invariant form of
	// seed 004's "diagonal matrix with small entry value, such as 0.01".
	// On ORL with unit-length rows and (xᵀy)², s² = 0.0084, so 1·s² is the
	// paper's 0.01 at that scale; the absolute 0.01 (JitterAbs) vanishes
	// on raw pixels, where s² ≈ 3e27, and the method then interpolates
	// (docs/reproduction-neighbourhood.md).
	DefaultNDAJitter = 1.0
	// PaperNDAJitter is seed 004's literal absolute ridge.
	PaperNDAJitter = 0.01
	// DefaultNDAEpsK is the k of the default ε rule: ε is the median over
	// the rows of the distance to their DefaultNDAEpsK-th nearest row of
	// another class (graph.DefaultBetweenEps).
	DefaultNDAEpsK = 5
)

// NDA holds the hyperparameters shared by KNDA and DNDA.
type NDA struct {
	// K is the number of same-class neighbours of the within-class graph
	// (0: DefaultNeighbours; capped at n_c − 1, so with k ≥ n_c − 1 the
	// within-class graph is complete).
	K int
	// Eps is the radius of the between-class ε-graph, in the space the
	// graphs are built in; 0 selects it by the rule of DefaultNDAEpsK
	// (EpsK overrides that k).
	Eps  float64
	EpsK int
	// Jitter·s² (KNDA; s the mean diagonal of K̃) or Jitter·s (DNDA; s
	// the mean squared norm of the centred rows) is added to the
	// constraint in coefficient space (0: DefaultNDAJitter; see
	// embed.Problem.Jitter).
	// JitterAbs, if > 0, is added instead, unscaled (PaperNDAJitter is the
	// paper's literal value).
	Jitter    float64
	JitterAbs float64
	// Alpha, if > 0, adds α·M to both sides (M the feature metric: I for
	// DNDA, K̃ for KNDA), relative to the mean diagonal of K̃ (of X̄X̄ᵀ for
	// DNDA): a regulariser of the minimisation that the paper does not
	// have (default 0; see docs/neighbourhood.md).
	Alpha float64
	// PCA is the optional pre-step (0 none, (0,1) variance, ≥ 1 count).
	PCA    float64
	Search graph.Search
	Engine
}

// Params declares the parameters shared by KNDA and DNDA (DNDA's own).
func (m *NDA) Params(s *param.Schema) {
	param.Num(s, &m.K, "k", DefaultNeighbours, "same-class neighbours per row of the within-class graph (capped at n_c − 1)", param.Min(1))
	param.Num(s, &m.Eps, "eps", 0, "between-class radius ε", param.Above(0),
		param.Auto("the median over rows of the distance to their epsk-th nearest other-class row"))
	param.Num(s, &m.EpsK, "epsk", DefaultNDAEpsK, "k of the automatic ε rule", param.Min(1))
	param.Num(s, &m.Jitter, "jitter", DefaultNDAJitter, "ridge jitter·s²·I added to K(D_max − W_max)K on range(K̃), s = mean diagonal of K̃ (DNDA: jitter·s·I, s = mean squared centred norm); scale-invariant form of seed 004's 0.01", param.Above(0))
	param.Num(s, &m.JitterAbs, "jitterabs", 0, "if > 0, the absolute ridge instead of jitter (seed 004 literally: 0.01)", param.Min(0))
	param.Num(s, &m.Alpha, "alpha", 0, "optional regulariser α·K̃ (DNDA: α·I) on both sides, relative to the mean diagonal of K̃ (X̄X̄ᵀ); not in the paper", param.Min(0))
	searchParam(s, &m.Search)
	pcaParam(s, &m.PCA)
	m.Engine.denseParams(s, "the jitter of KNDA and DNDA (seed 004 §3) is added to the dense problem's constraint, which the regression route does not form")
}

// KNDA is kernel neighbourhood discriminant analysis (seed 004, Zhao
// 2014, §3 and Algorithm 1). Both graphs live in the feature space of a
// kernel (distances by eq. 13, ‖φ(xᵢ)−φ(xⱼ)‖² = K_ii + K_jj − 2K_ij): the
// within-class graph W_min joins each row to its k nearest rows of the
// same class (constant weights, eq. 7/22), the between-class graph W_max
// joins rows of different classes at distance ≤ ε (constant weights, eq.
// 12/23). With D the degree matrices,
//
//	min μᵀK(D_min − W_min)Kμ / μᵀK(D_max − W_max)Kμ                      (eq. 16-17)
//	⇒ K(D_min − W_min)Kμ = λ·(K(D_max − W_max)K + 0.01·I)μ, smallest λ   (eq. 18-19, 24)
//
// and new rows map to y = μᵀk(x) (eq. 21). Implementation: K is the centred
// Gram matrix K̃ (Laplacians annihilate constants, so K̃LK̃ = H·KLK·H and
// only a constant shift of the embedding changes), and μ is restricted to
// range(K̃) before the ridge is added (embed.Problem.Jitter): otherwise
// every null vector of K̃ — the constant vector at least — would get
// eigenvalue 0 and map all training rows to one point. Eigenvalue-0
// directions that remain (rows of a class collapsed: one per extra
// connected component of W_min) are ordered by their between-class spread
// μᵀK̃L_maxK̃μ, largest first. Values are the generalized eigenvalues,
// increasing.
//
// Defaults: polynomial kernel of degree 2 (seed 004 §4: "we employ
// polynomial kernel by choosing d equal to 2"), k = 10, ε by the median
// rule (DefaultNDAEpsK), and the ridge 0.01·I made scale-invariant:
// Jitter·s²·I with s the mean diagonal of K̃ (DefaultNDAJitter; JitterAbs =
// 0.01 is the literal form). See docs/neighbourhood.md.
type KNDA struct {
	NDA
	Kernel kernel.Kernel // zero: poly degree 2
	Space  KernelSpace
}

// DefaultKNDAKernel is KNDA's default kernel, (xᵀy)².
func DefaultKNDAKernel() kernel.Kernel { return kernel.Poly(2, 0) }

// Params declares the parameters of KNDA.
func (m *KNDA) Params(s *param.Schema) {
	m.NDA.Params(s)
	kernelParams(s, &m.Kernel, DefaultKNDAKernel())
	m.Space.Params(s)
	noPCAWithPrecomputed(s, &m.Space, &m.PCA)
}

// Fit implements Method.
func (m KNDA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("knda", &m); err != nil {
		return nil, err
	}
	x, y, err := m.Space.labelled("knda", x, y, 1)
	if err != nil {
		return nil, err
	}
	pre, _, prep, err := m.Space.preparePCA(m.ctx(), "knda", m.Kernel, x, m.PCA)
	if err != nil {
		return nil, err
	}
	// K̃·L·K̃ scales like s² in the dual; with Nyström features the problem
	// is primal and ΦᵀLΦ scales like s.
	sc := prep.Scale()
	unit := sc * sc
	if !prep.Dual {
		unit = sc
	}
	return m.NDA.fit("knda", prep, prep.Metric(), pre, y, dims, unit)
}

// DNDA is direct neighbourhood discriminant analysis (seed 004 §4.2.1:
// KNDA with both graphs built "in the original data space and the other
// steps the same"): with X̄ the centred rows,
//
//	X̄ᵀ(D_min − W_min)X̄·w = λ·(X̄ᵀ(D_max − W_max)X̄ + Jitter·s·I)·w, smallest λ,
//
// w restricted to the span of the centred rows (with more columns than
// rows, the rows are first projected losslessly on their principal
// components), s = tr(X̄X̄ᵀ)/n the mean squared norm of the centred rows
// (X̄ᵀLX̄ scales like s, so the method is invariant to the scale of X;
// JitterAbs = 0.01 is the paper's literal ridge). Same defaults as KNDA,
// distances Euclidean.
type DNDA struct{ NDA }

// Fit implements Method.
func (m DNDA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("dnda", &m); err != nil {
		return nil, err
	}
	x, y, err := labelled("dnda", x, y, 1)
	if err != nil {
		return nil, err
	}
	pre, z, err := preStep("dnda", x, m.PCA, true)
	if err != nil {
		return nil, err
	}
	prep, err := embed.Linear{}.Prepare(m.ctx(), z)
	if err != nil {
		return nil, fmt.Errorf("dnda: %w", err)
	}
	return m.NDA.fit("dnda", prep, graph.Euclidean{X: z}, pre, y, dims, prep.Scale()) // s = tr(X̄X̄ᵀ)/n
}

// Graphs returns the within-class kNN graph and the between-class ε-graph
// of KNDA/DNDA on a metric, and the ε used.
func (m NDA) Graphs(metric graph.Metric, y []int) (within, between *graph.Graph, eps float64, err error) {
	if err := resolve("nda", &m); err != nil {
		return nil, nil, 0, err
	}
	eps = m.Eps
	n := len(y)
	if eps == 0 {
		progress.Step(m.ctx(), n, "between-class ε: the default from each row's %d nearest rows of other classes (%d rows)", m.EpsK, n)
		if eps, err = graph.DefaultBetweenEpsContext(m.ctx(), metric, y, m.EpsK, m.Search); err != nil {
			return nil, nil, 0, err
		}
	}
	progress.Step(m.ctx(), n, "within-class %d-NN and between-class ε-graphs of %d rows", m.K, n)
	within, err = graph.Neighbourhood{K: m.K, Supervision: graph.InClass, Labels: y,
		Weights: graph.Weights{Kind: graph.Constant}, Search: m.Search, Context: m.ctx()}.Build(metric)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("within-class graph: %w", err)
	}
	between, err = graph.Neighbourhood{Eps: eps, Supervision: graph.CrossClass, Labels: y,
		Weights: graph.Weights{Kind: graph.Constant}, Search: m.Search, Context: m.ctx()}.Build(metric)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("between-class ε-graph: %w", err)
	}
	return within, between, eps, nil
}

// fit solves the problem on the prepared rows; prep.Scale() is the mean
// diagonal s of K̃ (of X̄X̄ᵀ for DNDA), the unit of alpha, and jitterUnit the
// unit of the jitter: s² in the dual, where K̃·L·K̃ scales like s², and s in
// the primal, where X̄ᵀ·L·X̄ scales like s.
func (m NDA) fit(name string, prep *embed.Prepared, metric graph.Metric, pre embed.Model, y []int, dims int, jitterUnit float64) (Model, error) {
	scale := prep.Scale()
	if !(scale > 0) {
		return nil, fmt.Errorf("%s: the rows coincide in feature space (mean centred diagonal %v)", name, scale)
	}
	jitter := m.Jitter * jitterUnit
	if m.JitterAbs > 0 {
		jitter = m.JitterAbs
	}
	alpha := m.Alpha * scale
	within, between, _, err := m.Graphs(metric, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lb := between.Laplacian()
	prob := &embed.Problem{Objective: within.Laplacian(), Constraint: lb,
		Minimize: true, Jitter: jitter, Ridge: alpha, ObjectiveRidge: alpha, Solver: embed.Dense, Dims: dims, TieBreak: lb}
	return finishPrepared(name, m.Engine, pre, prob, prep)
}

func init() {
	Register[KNDA](Info{
		Name: "knda", Title: "Kernel neighbourhood discriminant analysis", Family: "neighbourhood",
		Supervision: "supervised", Space: "kernel", Paper: "seed 004 (Zhao 2014) §3, eq. 7-25, Algorithm 1",
		MaxDims: "rank of K̃ (≤ n−1)",
		Values:  "generalized eigenvalues λ of K·(D_min − W_min)·K·μ = λ·(K·(D_max − W_max)·K + jitter·s²·I)·μ (eq. 24 with a scale-invariant ridge, s the mean diagonal of K̃; jitterabs gives the paper's absolute 0.01·I): within-neighbourhood over between-class spread, smallest first",
	})
	Register[DNDA](Info{
		Name: "dnda", Title: "Direct neighbourhood discriminant analysis (KNDA in input space)", Family: "neighbourhood",
		Supervision: "supervised", Space: "linear", Paper: "seed 004 (Zhao 2014) §4.2.1",
		MaxDims: "rank of X̄ (≤ min(n−1, d))",
		Values:  "generalized eigenvalues λ of X̄ᵀ(D_min − W_min)X̄·w = λ·(X̄ᵀ(D_max − W_max)X̄ + jitter·s·I)·w (s the mean squared centred norm; jitterabs an absolute ridge): within-neighbourhood over between-class spread, smallest first",
	})
}
