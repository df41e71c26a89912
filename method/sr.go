package method

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// Spectral regression (seed 002: Liu, Xia & Zhou 2013, "Multiple Kernel
// Spectral Regression for Dimensionality Reduction", §2.1): the graph
// eigenproblem W·y = λ·D·y (eq. 2) on the SR graph (graph.SRGraph) gives
// the responses y₁..y_{c−1} (the constant y₀ dropped), and a regularised
// regression maps rows to them: linear SR a = argmin Σ(aᵀxᵢ − yᵢ)² + γ‖a‖²
// (eq. 3, with an intercept: rows and responses centred), kernel SR
// (K̃ + γ·I)·α = y (eq. 5–6, on the centred Gram matrix, the kernel form
// of the intercept). New rows map by eq. 4 and 7. Theorem 1: when the
// regression is exact, the directions solve the graph-embedding problem
// of the same graph with the same eigenvalues (tested). With every row
// labelled (the supervised class graph) the responses are the canonical
// basis of the class graph's degenerate eigenspace (graph.ClassResponses:
// SRDA's Gram–Schmidt of the ones vector and the class indicators), which
// depends on the class counts only, so SR and KSR on Nyström features also
// fit from accumulated statistics (FitStats, FitFeatureStats) to the same
// model.

// SR graph kinds of SRParams.Graph.
const (
	SRAuto         = "auto"
	SRSupervised   = "supervised"
	SRUnsupervised = "unsupervised"
)

// DefaultSRRidge is γ of eq. 3/5 (seed 002 §4: "we simply set the value of
// the parameter γ as 1", on pixel values in [0, 1]).
const DefaultSRRidge = 1.0

// SRParams are the graph and regression parameters shared by SR, KSR and
// MKL-SR.
type SRParams struct {
	// Graph: auto (default: the labels decide — all labelled:
	// supervised; some −1: semi-supervised; none: unsupervised),
	// supervised (labels required) or unsupervised (labels ignored).
	Graph string
	// P, Delta, Heat, Sigma: the SR graph (graph.SRGraph).
	P     int
	Delta float64
	Heat  bool
	Sigma float64
	// KeepDisconnected builds exactly P neighbours even when the graph
	// falls apart (by default P is raised until it is connected).
	KeepDisconnected bool
	// Ridge is γ (absolute; default DefaultSRRidge).
	Ridge float64
	// Ritz rotates the regression directions to the optimum of the graph
	// problem in their span (the engine's Rayleigh–Ritz step) instead of
	// returning them as SR defines them, one per response.
	Ritz   bool
	Search graph.Search
}

// Params declares the parameters.
func (p *SRParams) Params(s *param.Schema) {
	param.Enum(s, &p.Graph, "graph", "graph: auto (by the labels: supervised, semi-supervised with unlabelled rows (label −1; in a data file an empty or ? label), unsupervised without labels), supervised or unsupervised (labels ignored)",
		param.C(SRAuto, SRAuto), param.C(SRSupervised, SRSupervised), param.C(SRUnsupervised, SRUnsupervised))
	param.Num(s, &p.P, "p", graph.DefaultSRNeighbours, "nearest neighbours of the graph's neighbour edges", param.Min(1))
	param.Num(s, &p.Delta, "delta", 1.0, "weight δ of neighbour edges against class edges (1/l_k)", param.Above(0), param.Max(1))
	param.Bool(s, &p.Heat, "heat", "neighbour edges weighted by exp(−d²/(2σ²)) instead of 1")
	param.Num(s, &p.Sigma, "hsigma", 0, "heat width σ of the neighbour edges", param.Above(0), param.Auto("√(mean squared edge length / 2)"))
	param.Bool(s, &p.KeepDisconnected, "keepdisconnected", "keep exactly p neighbours even if the graph is disconnected (default: raise p until connected)")
	param.Num(s, &p.Ridge, "ridge", DefaultSRRidge, "γ of the regularised regression (absolute)", param.Above(0))
	param.Bool(s, &p.Ritz, "ritz", "rotate the directions by the graph problem's Rayleigh–Ritz step (default: SR's one direction per response)")
	searchParam(s, &p.Search)
}

// srGraph builds the graph on the rows z and returns the problem with its
// responses set, and the largest number of directions.
func (p SRParams) problem(name string, metric graph.Metric, y []int, dims int) (*embed.Problem, int, error) {
	n := metric.Len()
	labels := y
	switch p.Graph {
	case SRUnsupervised:
		labels = nil
	case SRSupervised:
		if y == nil {
			return nil, 0, fmt.Errorf("%s: graph=supervised needs labels", name)
		}
		for i, v := range y {
			if v < -1 {
				return nil, 0, fmt.Errorf("%s: labels: row %d has label %d; labels must be ≥ 0 (or −1 for unlabeled)", name, i+1, v)
			}
			if v < 0 {
				return nil, 0, fmt.Errorf("%s: graph=supervised, but row %d is unlabeled (−1); use graph=auto for the semi-supervised graph", name, i+1)
			}
		}
	}
	c := 0
	if labels != nil {
		if len(labels) != n {
			return nil, 0, fmt.Errorf("%s: %d labels for %d rows", name, len(labels), n)
		}
		for i, v := range labels {
			if v < -1 { // −2 was taken for unlabeled here and refused elsewhere
				return nil, 0, fmt.Errorf("%s: labels: row %d has label %d; labels must be ≥ 0 (or −1 for unlabeled)", name, i+1, v)
			}
		}
		c = classesPresent(labels)
		if c == 1 {
			return nil, 0, fmt.Errorf("%s: labels: 1 class present; spectral regression with labels needs at least 2 (or graph=unsupervised)", name)
		}
		if c == 0 {
			labels = nil
		}
	}
	maxDims := c - 1
	if labels == nil {
		if dims == 0 {
			return nil, 0, fmt.Errorf("%s: unsupervised spectral regression needs the number of dimensions (-k, or dims > 0 in Fit)", name)
		}
		maxDims = dims
	}
	if dims > maxDims {
		return nil, 0, dimsError(name, dims, maxDims, "the SR graph gives at most %d (C−1 for %d classes)", maxDims, c)
	}
	if labels != nil {
		labels = compact(labels)
	}
	g, err := graph.SRGraph{P: p.P, Delta: p.Delta, Heat: p.Heat, Sigma: p.Sigma, KeepDisconnected: p.KeepDisconnected, Search: p.Search}.Build(metric, labels)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	prob := &embed.Problem{Objective: g.W, Constraint: g.Degree, Solver: embed.Regression,
		Responses: maxDims + 1, DropConstant: true, Raw: !p.Ritz, Ridge: p.Ridge, Dims: dims, MaxDims: maxDims, DropZero: true}
	if g.Class != nil {
		// D = I: the responses in the canonical basis of the class graph's
		// eigenspace (graph.ClassResponses), which a fit from statistics
		// reproduces (SR.FitStats).
		prob.Objective, prob.Constraint = g.Class, nil
		prob.Responses, prob.Given = 0, g.Responses
	}
	return prob, maxDims, nil
}

// SR is linear spectral regression (seed 002 §2.1, eq. 2–4).
type SR struct {
	SRParams
	Engine
}

// Params declares the parameters of SR.
func (m *SR) Params(s *param.Schema) {
	m.SRParams.Params(s)
	m.Engine.Params(s)
}

// Fit implements Method.
func (m SR) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("sr", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("sr")
	}
	prob, _, err := m.problem("sr", graph.Euclidean{X: x}, y, dims)
	if err != nil {
		return nil, err
	}
	prep, err := embed.Linear{}.Prepare(m.ctx(), x)
	if err != nil {
		return nil, fmt.Errorf("sr: %w", err)
	}
	return solve("sr", m.Engine, prob, prep)
}

// KSR is kernel spectral regression (seed 002 §2.1, eq. 5–7): the
// responses of SR regressed in the feature space of a kernel,
// (K̃ + γ·I)·α = y, z = Θᵀ·k̃(x). The graph is built in the input space,
// as the paper does (in the feature space with a precomputed kernel).
type KSR struct {
	SRParams
	Kernel kernel.Kernel
	Space  KernelSpace
	Engine
}

// Params declares the parameters of KSR.
func (m *KSR) Params(s *param.Schema) {
	m.SRParams.Params(s)
	kernelParams(s, &m.Kernel, kernel.RBFAuto())
	m.Space.Params(s)
	m.Engine.Params(s)
}

// Fit implements Method.
func (m KSR) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("ksr", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("ksr")
	}
	prep, err := m.Space.prepare(m.ctx(), "ksr", m.Kernel, x)
	if err != nil {
		return nil, err
	}
	prob, _, err := m.problem("ksr", graphMetric(x, prep, false), y, dims)
	if err != nil {
		return nil, err
	}
	return solve("ksr", m.Engine, prob, prep)
}

func init() {
	Register[SR](Info{
		Name: "sr", Title: "Spectral regression", Family: "spectral regression",
		Supervision: "supervised, semi-supervised or unsupervised", Space: "linear",
		Paper: "seed 002 (Liu, Xia & Zhou 2013) §2.1, eq. 1-4", MaxDims: "C−1 (unsupervised: the dimensions asked for)",
		Values: "by the default regression route, the eigenvalues λ ≤ 1 of the SR graph problem W·y = λ·D·y (eq. 2) for the responses the directions fit, largest first (1 for every class response of a supervised graph); with solver=dense or ritz=true, the values of the regularised graph-embedding problem the directions solve (eq. 19), largest first, not bounded by 1",
	})
	Register[KSR](Info{
		Name: "ksr", Title: "Kernel spectral regression", Family: "spectral regression",
		Supervision: "supervised, semi-supervised or unsupervised", Space: "kernel",
		Paper: "seed 002 (Liu, Xia & Zhou 2013) §2.1, eq. 5-7", MaxDims: "C−1 (unsupervised: the dimensions asked for)",
		Values: "by the default regression route, the eigenvalues λ ≤ 1 of the SR graph problem W·y = λ·D·y (eq. 2) for the responses the directions fit, largest first (1 for every class response of a supervised graph); with solver=dense or ritz=true, the values of the regularised graph-embedding problem the directions solve (eq. 19), largest first, not bounded by 1",
	})
}
