package method

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// Defaults of MFA/KMFA: k₁ same-class neighbours (intrinsic graph) and k₂
// other-class neighbours (penalty graph).
const (
	DefaultMFAK1 = 5
	DefaultMFAK2 = 20
)

// MFA is marginal Fisher analysis (Yan et al. 2007, the graph-embedding
// paper; a baseline of seed 003 §4, Table 1): the intrinsic graph W joins
// each row to its k₁ nearest neighbours of the same class, the penalty
// graph Wᵖ joins each row to its k₂ nearest neighbours of other classes
// (both symmetrised "either is among the other's neighbours", constant
// weights), and with L = D − W, Lᵖ = Dᵖ − Wᵖ,
//
//	min tr(Wᵀ·X̄ᵀ·L·X̄·W) / tr(Wᵀ·X̄ᵀ·Lᵖ·X̄·W)   ⇒   X̄ᵀLX̄·w = λ·X̄ᵀLᵖX̄·w, smallest λ.
//
// Simplification (documented in docs/neighbourhood.md): Yan et al.'s
// penalty graph takes, for each class c, the k₂ shortest pairs between c
// and the other classes; here each row takes its own k₂ nearest
// other-class rows, the common implementation. K1 ≥ n_c is capped (all
// same-class pairs). Directions with zero within-class spread (eigenvalue
// 0, e.g. one per extra connected component of W) are ordered by their
// penalty-graph spread. Optional PCA pre-step as in LPP; with more columns
// than rows the lossless PCA projection is applied first. Ridge adds
// Ridge·I to both X̄ᵀLX̄ and X̄ᵀLᵖX̄.
type MFA struct {
	K1, K2 int // 0: DefaultMFAK1, DefaultMFAK2
	PCA    float64
	Ridge  float64
	Search graph.Search
	Engine
}

// Params declares the parameters of MFA.
func (m *MFA) Params(s *param.Schema) {
	mfaParams(s, &m.K1, &m.K2, &m.Search)
	pcaParam(s, &m.PCA)
	param.Num(s, &m.Ridge, "ridge", 0, "ridge added to X̄ᵀLX̄ and X̄ᵀLᵖX̄ (0: none; the constraint is solved on its range)", param.Min(0))
	m.Engine.Params(s)
}

// mfaParams declares the graph parameters of MFA and KMFA.
func mfaParams(s *param.Schema, k1, k2 *int, search *graph.Search) {
	param.Num(s, k1, "k1", DefaultMFAK1, "same-class neighbours per row (intrinsic graph; capped at n_c − 1)", param.Min(1))
	param.Num(s, k2, "k2", DefaultMFAK2, "other-class neighbours per row (penalty graph)", param.Min(1))
	searchParam(s, search)
}

// Fit implements Method.
func (m MFA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("mfa", &m); err != nil {
		return nil, err
	}
	x, y, err := labelled("mfa", x, y, 1)
	if err != nil {
		return nil, err
	}
	pre, z, err := preStep("mfa", x, m.PCA, true)
	if err != nil {
		return nil, err
	}
	lw, lb, err := mfaGraphs(m.ctx(), graph.Euclidean{X: z}, y, m.K1, m.K2, m.Search)
	if err != nil {
		return nil, fmt.Errorf("mfa: %w", err)
	}
	prob := &embed.Problem{Space: embed.Linear{}, Objective: lw, Constraint: lb,
		Minimize: true, Ridge: m.Ridge, ObjectiveRidge: m.Ridge, Solver: embed.Dense, Dims: dims, TieBreak: varianceTieBreak(lw)}
	m.Engine.apply(prob)
	return finish("mfa", pre, prob, z)
}

// mfaGraphs returns the Laplacians of MFA's intrinsic and penalty graphs.
func mfaGraphs(ctx context.Context, metric graph.Metric, y []int, k1, k2 int, s graph.Search) (*graph.CSR, *graph.CSR, error) {
	w, err := graph.Neighbourhood{K: k1, Supervision: graph.InClass, Labels: y, Search: s, Context: ctx}.Build(metric)
	if err != nil {
		return nil, nil, fmt.Errorf("intrinsic graph: %w", err)
	}
	wp, err := graph.Neighbourhood{K: k2, Supervision: graph.CrossClass, Labels: y, Search: s, Context: ctx}.Build(metric)
	if err != nil {
		return nil, nil, fmt.Errorf("penalty graph: %w", err)
	}
	return w.Laplacian(), wp.Laplacian(), nil
}

// KMFA is kernel MFA (Yan et al. 2007; a baseline of seed 003): MFA in the
// feature space of a kernel with centred Gram matrix K̃,
//
//	min tr(Aᵀ·(K̃·L·K̃ + α·K̃)·A)  subject to  Aᵀ·(K̃·Lᵖ·K̃ + α·K̃)·A = I,
//
// with the graphs of MFA built in the input space (GraphInKernel: in the
// feature space, seed 004 eq. 13) and α relative to the mean diagonal of
// K̃ on both sides (default DefaultKernelAlpha, see there).
type KMFA struct {
	K1, K2        int
	Kernel        kernel.Kernel      // zero: RBF, σ from the training rows (sigma=auto)
	Alpha         param.Opt[float64] // unset: DefaultKernelAlpha
	GraphInKernel bool
	PCA           float64
	Search        graph.Search
	Space         KernelSpace
	Engine
}

// Params declares the parameters of KMFA.
func (m *KMFA) Params(s *param.Schema) {
	mfaParams(s, &m.K1, &m.K2, &m.Search)
	kernelGraphParams(s, &m.PCA, &m.Alpha, &m.GraphInKernel, &m.Kernel, &m.Space, &m.Engine)
}

// Fit implements Method.
func (m KMFA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kmfa", &m); err != nil {
		return nil, err
	}
	x, y, err := m.Space.labelled("kmfa", x, y, 1)
	if err != nil {
		return nil, err
	}
	pre, z, prep, err := m.Space.preparePCA(m.ctx(), "kmfa", m.Kernel, x, m.PCA)
	if err != nil {
		return nil, err
	}
	a, _ := m.Alpha.Get()
	alpha := a * prep.Scale()
	lw, lb, err := mfaGraphs(m.ctx(), graphMetric(z, prep, m.GraphInKernel), y, m.K1, m.K2, m.Search)
	if err != nil {
		return nil, fmt.Errorf("kmfa: %w", err)
	}
	prob := &embed.Problem{Objective: lw, Constraint: lb,
		Minimize: true, Ridge: alpha, ObjectiveRidge: alpha, Solver: embed.Dense, Dims: dims, TieBreak: varianceTieBreak(lw)}
	return finishPrepared("kmfa", m.Engine, pre, prob, prep)
}

func init() {
	Register[MFA](Info{
		Name: "mfa", Title: "Marginal Fisher analysis", Family: "neighbourhood",
		Supervision: "supervised", Space: "linear", Paper: "Yan et al. 2007; baseline in seed 003 (Table 1)",
		MaxDims: "rank of X̄ᵀLᵖX̄ (≤ min(n−1, d))",
		Values:  "ratios λ = wᵀX̄ᵀLX̄w / wᵀX̄ᵀLᵖX̄w (intrinsic-graph over penalty-graph scatter), smallest first",
	})
	Register[KMFA](Info{
		Name: "kmfa", Title: "Kernel marginal Fisher analysis", Family: "neighbourhood",
		Supervision: "supervised", Space: "kernel", Paper: "Yan et al. 2007; baseline in seed 003 (Table 1)",
		MaxDims: "rank of K̃ (≤ n−1)",
		Values:  "ratios λ = aᵀ(K̃LK̃ + αK̃)a / aᵀ(K̃LᵖK̃ + αK̃)a (intrinsic-graph over penalty-graph scatter), smallest first",
	})
}
