package method

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/param"
)

// AQMIDA is approximate quadratic mutual information discriminant analysis
// (seed 001, Liu and Gillies): a linear projection whose unit directions w
// maximise the approximation wᵀ·E·w of the QMI between the projected rows
// wᵀx and the class (eq. 1-5), where every pairwise Gaussian
// Gₙₘ = exp(−(wᵀ(xₙ−xₘ))²/(2σ²))/(σ√(2π)) is replaced by wᵀ·Eₙₘ·w with the
// matrix exponential Eₙₘ = exp(−(xₙ−xₘ)(xₙ−xₘ)ᵀ/(2σ²))/(σ√(2π)) (eq. 3), a
// tight upper bound equal to Gₙₘ when w is parallel or orthogonal to
// xₙ − xₘ (§3.1). The steps:
//
//  1. PCA whitening: the training rows are centred and projected on their
//     principal axes with nonzero variance (at most PCADims of them), each
//     scaled to unit sample variance (denominator n − 1).
//  2. Bandwidth: Sigma, or Silverman's rule σ = (4σ̂⁵/(3N))^{1/5} with
//     σ̂ = 1 (the whitened standard deviation), i.e. σ = (4/(3N))^{1/5}.
//  3. E = Xᵀ·L·X from the ρ/τ form of eq. 9 (graph.ApproxQMI) in
//     O(N²·D') time for N rows of whitened dimension D'.
//  4. The eigenvectors of E with the largest eigenvalues (Values) are the
//     features; Transform composes whitening and projection into one affine
//     map.
//
// Dimensions. Unlike LDA and KQMI, E is not limited to rank C−1: up to D'
// features exist, D' the whitened dimension. When N > D and the columns are
// not collinear, D' = D and E is D×D (cost O(N²·D + N·D²)). When the
// whitened dimension is less than D — N ≤ D (faces: D' ≤ N − 1), collinear
// columns, or PCADims set — the features lie in the D'-dimensional
// principal subspace of the training rows: at most D' exist, and the part
// of a new row outside that subspace is ignored by Transform. Whitening all
// N − 1 directions of high-dimensional data also amplifies noise directions
// to unit variance; PCADims limits it (the paper whitens them all).
//
// Unlabeled rows (−1) are ignored.
type AQMIDA struct {
	// Sigma is the bandwidth σ (seed 001 convention: Parzen window variance
	// σ²/2, pairwise term N(·; 0, σ²)); zero: Silverman's rule.
	Sigma float64
	// PCADims caps the number of whitened principal directions (zero: all
	// with nonzero variance).
	PCADims      int
	MinClassRows int // zero: 2
	// Context, when not nil, cancels the fit: the whitening, the pairwise
	// weights (graph.ApproxQMIContext) and the eigen-solve stop with its
	// error soon after it is done (method.FitContext sets it).
	Context context.Context
}

// Params declares the parameters of AQMIDA.
func (m *AQMIDA) Params(s *param.Schema) {
	param.Num(s, &m.Sigma, "sigma", 0, "bandwidth σ in whitened units (pairwise term exp(−Δ²/(2σ²)))", param.Above(0),
		param.Auto("Silverman's rule (4/(3n))^{1/5}"))
	param.Num(s, &m.PCADims, "pca", 0, "whiten at most this many principal directions (0: all with nonzero variance)", param.Min(0))
	minClassParam(s, &m.MinClassRows)
}

// Fit implements Method.
func (m AQMIDA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("aqmida", &m); err != nil {
		return nil, err
	}
	x, y, _, err := qmiLabels("aqmida", nil, x, y, m.MinClassRows, dims, false)
	if err != nil {
		return nil, err
	}
	ctx := m.Context
	if ctx == nil {
		ctx = context.Background()
	}
	white, err := whitening(ctx, x, m.PCADims)
	if err != nil {
		return nil, fmt.Errorf("aqmida: %w", err)
	}
	if dims > white.Dims() {
		return nil, dimsError("aqmida", dims, white.Dims(), "the whitened data have %d (AQMIDA gives at most the whitened dimension)", white.Dims())
	}
	xw, err := white.Transform(x)
	if err != nil {
		return nil, fmt.Errorf("aqmida: %w", err)
	}
	n, _ := x.Dims()
	sigma := m.Sigma
	if sigma == 0 {
		sigma = graph.SilvermanSigma(1, n)
	}
	l, err := graph.ApproxQMIContext(ctx, xw, y, sigma)
	if err != nil {
		return nil, fmt.Errorf("aqmida: %w", err)
	}
	prob := &embed.Problem{Space: embed.Linear{}, Objective: graph.Dense{M: l}, Solver: embed.Dense, Dims: dims}
	f, err := fitContext(ctx, "aqmida", prob, xw)
	if err != nil {
		return nil, err
	}
	f.Model = embed.Compose(white, f.Model)
	return f, nil
}

// whitening returns the PCA whitening of the rows of x: the linear model
// z = Λ^{-1/2}·Vᵀ·(x − μ) over the principal axes V with nonzero variance
// (at most k of them, the leading ones, when k > 0), Λ their sample
// variances (denominator n − 1), so that the training rows map to
// coordinates with zero mean, unit variance and no correlation.
func whitening(ctx context.Context, x *mat.Dense, k int) (*embed.LinearModel, error) {
	n, _ := x.Dims()
	p, err := FitContext(ctx, PCA{}, x, nil, 0)
	if err != nil {
		return nil, err
	}
	f := p.(*Fitted)
	lm, ok := f.Model.(*embed.LinearModel)
	if !ok || len(f.Values) == 0 {
		return nil, errors.New("PCA whitening: no direction with nonzero variance")
	}
	r := len(f.Values)
	if k > 0 && k < r {
		r = k
	}
	d, _ := lm.W.Dims()
	w := mat.NewDense(d, r, nil)
	for j := 0; j < r; j++ {
		s := 1 / math.Sqrt(f.Values[j]/float64(n-1))
		for i := 0; i < d; i++ {
			w.Set(i, j, lm.W.At(i, j)*s)
		}
	}
	return &embed.LinearModel{Mean: lm.Mean, W: w}, nil
}

func init() {
	Register[AQMIDA](Info{
		Name: "aqmida", Title: "Approximate quadratic mutual information discriminant analysis", Family: "mutual information",
		Supervision: "supervised", Space: "linear", Paper: "seed 001 (Liu & Gillies 2016), eq. 4 and 9",
		MaxDims: "whitened dimension (≤ min(n−1, d))",
		Values:  "eigenvalues of E (eq. 9): the QMI approximation wᵀ·E·w of each unit direction in whitened units, largest first",
	})
}
