package method

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/stats"
)

// MultiNystromStatsFitter is implemented by methods with several base
// kernels that fit, with space=nystrom, from the statistics of the
// concatenated Nyström features f(x) = [f₁(x) … f_M(x)] of all kernels on
// shared landmarks (fₘ(x) = Tₘᵀ·kₘ(L, x), embed.NystromMap): a pipeline
// picks the landmark rows from the row count, builds every Tₘ,
// accumulates the statistics of f over the rows, fits the linear model on
// them with FitMultiFeatureStats and folds it into the model of the input
// rows (embed.NewMultiNystromModel): the in-memory fit up to rounding.
type MultiNystromStatsFitter interface {
	Method
	// MultiNystromSpace returns the base kernels and the landmark
	// settings, or an error when the method is not set to fit that way.
	MultiNystromSpace() ([]kernel.Kernel, embed.Nystrom, error)
	// FitMultiFeatureStats fits the linear model z = Wᵀ(f − μ) on the
	// concatenated features whose statistics are ms; blocks[m] is the
	// number of features of kernel m.
	FitMultiFeatureStats(ms *stats.Moments, blocks []int, dims int) (*Fitted, error)
}

// MultiNystromSpace implements MultiNystromStatsFitter: MKL-SR with the
// supervised class graph (every row labelled), space=nystrom with uniform
// landmarks and explicit kernel widths.
func (m MKLSR) MultiNystromSpace() ([]kernel.Kernel, embed.Nystrom, error) {
	if err := resolve("mklsr", &m); err != nil {
		return nil, embed.Nystrom{}, err
	}
	if err := m.checkStatsParams("mklsr", m.Engine); err != nil {
		return nil, embed.Nystrom{}, err
	}
	if m.Space.Kind != SpaceNystrom {
		return nil, embed.Nystrom{}, errors.New("mklsr: space=exact needs the Gram matrices of every pair of rows; fitting from statistics needs space=nystrom")
	}
	for i, k := range m.Kernels {
		if k.IsAuto() {
			return nil, embed.Nystrom{}, fmt.Errorf("mklsr: base kernel %d (%s): sigma=auto takes the width from the median distance between training rows, which a fit from statistics does not see; give the width in -p kernels", i+1, k)
		}
	}
	s := embed.Nystrom{Landmarks: m.Space.Landmarks, Sampling: m.Space.Sampling, Seed: m.Space.Seed}
	if err := s.Validate(); err != nil {
		return nil, embed.Nystrom{}, fmt.Errorf("mklsr: %w", err)
	}
	return m.Kernels, s, nil
}

// FitMultiFeatureStats implements MultiNystromStatsFitter: Algorithm 1 on
// the statistics of the features (every row labelled, the supervised class
// graph W = E·diag(1/n_c)·Eᵀ with D = I and the canonical responses
// Y = E·Z of SR). With S = FᵀF (centred), the class sums Σ = FᵀE and
// D_β = diag(√βₘ) per block, the A-step is SR's ridge on the features
// F·D_β, (D_β·S·D_β + γI)·V = D_β·Σ·Z, solved on the scaled statistics;
// the dual A of that ridge is (Y − F·D_β·V)/γ, so G = FᵀA =
// (Σ·Z − S·D_β·V)/γ and the β-step's matrices are
// P_ml = Σ_d G_{m,d}ᵀ·(S − FᵀWF)_ml·G_{l,d} and Q_ml = Σ_d G_{m,d}ᵀ·S_ml·G_{l,d}
// (FᵀWF = Σ·diag(1/n_c)·Σᵀ). The model is z = (D_β²·G)ᵀ·(f − μ), the
// in-memory model's coefficients D_β·(D_β·G) written on the unscaled
// features.
func (m MKLSR) FitMultiFeatureStats(ms *stats.Moments, blocks []int, dims int) (*Fitted, error) {
	if _, _, err := m.MultiNystromSpace(); err != nil {
		return nil, err
	}
	if err := resolve("mklsr", &m); err != nil {
		return nil, err
	}
	if ms != nil && ms.LabeledN() < ms.N() {
		return nil, fmt.Errorf("mklsr: %d of %d rows are unlabeled: fitting from statistics needs every row labelled (the supervised class graph)", ms.N()-ms.LabeledN(), ms.N())
	}
	c, err := checkStatsLabels("mklsr", ms, 1)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError("mklsr", dims, c-1, "the SR graph gives at most %d (C−1 for %d classes)", c-1, c)
	}
	if len(blocks) != len(m.Kernels) {
		return nil, fmt.Errorf("mklsr: %d feature blocks for %d base kernels", len(blocks), len(m.Kernels))
	}
	s, err := embed.ScatterFromMoments(ms, true)
	if err != nil {
		return nil, fmt.Errorf("mklsr: %w", err)
	}
	p := s.Dim()
	off := make([]int, len(blocks)+1) // block m is columns off[m]:off[m+1]
	for i, r := range blocks {
		if r < 1 {
			return nil, fmt.Errorf("mklsr: feature block %d has %d columns", i+1, r)
		}
		off[i+1] = off[i] + r
	}
	if off[len(blocks)] != p {
		return nil, fmt.Errorf("mklsr: feature blocks of %d columns in all, statistics of %d features", off[len(blocks)], p)
	}
	block := graph.ClassMeansBlock(s.Counts)
	z := graph.ClassResponses(s.Counts)
	var sz mat.Dense // Σ·Z = FᵀY
	sz.Mul(s.Sums.Slice(0, p, 0, block.SymmetricDim()), z)
	fwf := s.Graph(block) // FᵀWF
	ctx := m.ctx()
	ridge := m.Ridge
	scales := func(beta []float64) []float64 { return embed.BlockScales(blocks, beta) }
	step := func(beta []float64, dims int) (*mklPair, error) {
		d := scales(beta)
		sb := &embed.Scatter{N: s.N, Mean: make([]float64, p), Total: embed.ScaleSym(s.Total, d), Sums: mat.NewDense(p, s.Sums.RawMatrix().Cols, nil), Counts: s.Counts}
		sb.Sums.Apply(func(i, j int, v float64) float64 { return d[i] * v }, s.Sums)
		prob := &embed.ScatterProblem{Block: block, Responses: z, Raw: true, Ridge: ridge, Dims: dims, MaxDims: c - 1, DropZero: true}
		prob.Eigen, prob.Linear = m.Engine.Eigen, m.Engine.Linear
		r, err := prob.Solve(ctx, sb)
		if err != nil {
			return nil, err
		}
		v := r.Model.(*embed.LinearModel).W // p×k on the scaled features
		if _, k := v.Dims(); len(r.Responses) != k {
			return nil, fmt.Errorf("%d directions from %d responses", k, len(r.Responses))
		}
		// G = (Σ·Z[:, kept] − S·D_β·V)/γ.
		dv := mat.DenseCopyOf(v)
		dv.Apply(func(i, j int, x float64) float64 { return d[i] * x }, dv)
		var g mat.Dense
		g.Mul(s.Total, dv)
		for col, resp := range r.Responses {
			for i := 0; i < p; i++ {
				g.Set(i, col, (sz.At(i, resp)-g.At(i, col))/ridge)
			}
		}
		pq, qq := betaFromStats(&g, s.Total, fwf, off)
		return &mklPair{vals: r.Values, a: &g, p: pq, q: qq}, nil
	}
	best, res, err := m.alternate(step, dims, m.report)
	if err != nil {
		return nil, err
	}
	// Primal coefficients on the scaled features: D_β·G (the in-memory
	// Φ_βᵀ·A), normalised as the in-memory fit's; then on the unscaled ones.
	d := scales(res.Beta)
	coef := mat.DenseCopyOf(best.a)
	coef.Apply(func(i, j int, x float64) float64 { return d[i] * x }, coef)
	if m.Norm == embed.NormUnit {
		embed.UnitColumns(coef, nil)
	}
	coef.Apply(func(i, j int, x float64) float64 { return d[i] * x }, coef)
	return &Fitted{Model: &embed.LinearModel{Mean: s.Mean, W: coef}, Name: "mklsr", Values: best.vals, Trace: res}, nil
}

// betaFromStats returns the β-step's P and Q for G = FᵀA (see
// FitMultiFeatureStats): P_ab = tr(G_aᵀ·L_ab·G_b) with L = S − FᵀWF and
// Q_ab = tr(G_aᵀ·S_ab·G_b), the blocks at the offsets off.
func betaFromStats(g *mat.Dense, s, fwf *mat.SymDense, off []int) (*mat.SymDense, *mat.SymDense) {
	nb := len(off) - 1
	_, k := g.Dims()
	sd := mat.DenseCopyOf(s)
	var ld mat.Dense
	ld.Sub(sd, fwf)
	pq, qq := mat.NewSymDense(nb, nil), mat.NewSymDense(nb, nil)
	form := func(m *mat.Dense, a, b int) float64 {
		ga := g.Slice(off[a], off[a+1], 0, k)
		gb := g.Slice(off[b], off[b+1], 0, k)
		var mg mat.Dense
		mg.Mul(m.Slice(off[a], off[a+1], off[b], off[b+1]), gb)
		t := 0.0
		r, _ := mg.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < k; j++ {
				t += ga.At(i, j) * mg.At(i, j)
			}
		}
		return t
	}
	for a := 0; a < nb; a++ {
		for b := a; b < nb; b++ {
			pq.SetSym(a, b, form(&ld, a, b))
			qq.SetSym(a, b, form(sd, a, b))
		}
	}
	return pq, qq
}
