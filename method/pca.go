package method

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// PCA is principal component analysis: with X̄ the centred training rows,
//
//	max tr(Wᵀ·X̄ᵀ·X̄·W)  subject to  Wᵀ·W = I,
//
// the graph-embedding form with the identity graph (a baseline of every
// paper; seed 000 §V). Directions with zero variance are dropped, so at
// most min(n−1, d) dimensions exist. Values are eigenvalues of X̄ᵀX̄; the
// explained variances (n−1 denominator, as scikit-learn) are
// ExplainedVariance.
//
// Its parameters are the engine's (Engine.Params).
type PCA struct{ Engine }

// Params declares the parameters of PCA.
func (m *PCA) Params(s *param.Schema) {
	m.Engine.denseParams(s, principalNoRegression)
}

// principalNoRegression is why PCA-type problems have no regression
// route.
const principalNoRegression = "the objective of PCA and KPCA is the identity, whose eigenvectors are every vector, so there are no graph responses to regress on"

// Fit implements Method (labels are ignored).
func (m PCA) Fit(x *mat.Dense, _ []int, dims int) (Model, error) {
	if err := resolve("pca", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("pca")
	}
	prep, err := embed.Linear{}.Prepare(m.ctx(), x)
	if err != nil {
		return nil, fmt.Errorf("pca: %w", err)
	}
	return solve("pca", m.Engine, &embed.Problem{Objective: graph.Identity(prep.N()), Dims: dims, DropZero: true}, prep)
}

// ExplainedVariance returns the variance along each direction of a PCA fit
// on n rows: Values/(n−1) (scikit-learn's explained_variance_). n must be
// the number of training rows, at least 2 (the variance of one row is
// undefined). Another method's fit is an error: a KPCA fit's Values are the
// eigenvalues of the centred Gram matrix (scikit-learn's eigenvalues_),
// to use as they are, and other methods' are their criterion's values.
func ExplainedVariance(f *Fitted, n int) ([]float64, error) {
	if f.Name != "pca" {
		return nil, fmt.Errorf("explained variance: a %s fit; it is PCA's (for kpca use Values, the eigenvalues of the centred Gram matrix)", f.Name)
	}
	if n < 2 {
		return nil, fmt.Errorf("explained variance: n = %d rows; needs the fit's number of training rows, at least 2", n)
	}
	out := make([]float64, len(f.Values))
	for i, v := range f.Values {
		out[i] = v / float64(n-1)
	}
	return out, nil
}

// KPCA is kernel PCA (Schölkopf et al.; a baseline of seeds 000 and 004):
// with K̃ the centred Gram matrix, the directions are the leading
// eigenvectors uᵢ of K̃ scaled to unit norm in feature space
// (αᵢ = uᵢ/√λᵢ), so the training rows map to uᵢ·√λᵢ and new rows to
// αᵀ·k̃(x). At most the number of positive eigenvalues (≤ n−1).
type KPCA struct {
	Kernel kernel.Kernel // zero: RBF, σ from the training rows (sigma=auto)
	Space  KernelSpace
	Engine
}

// Params declares the parameters of KPCA.
func (m *KPCA) Params(s *param.Schema) {
	kernelParams(s, &m.Kernel, kernel.RBFAuto())
	m.Space.Params(s)
	m.Engine.denseParams(s, principalNoRegression)
}

// Fit implements Method (labels are ignored).
func (m KPCA) Fit(x *mat.Dense, _ []int, dims int) (Model, error) {
	if err := resolve("kpca", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("kpca")
	}
	prep, err := m.Space.prepare(m.ctx(), "kpca", m.Kernel, x)
	if err != nil {
		return nil, err
	}
	return solve("kpca", m.Engine, &embed.Problem{Objective: graph.Identity(prep.N()), Dims: dims, DropZero: true}, prep)
}

func init() {
	Register[PCA](Info{
		Name: "pca", Title: "Principal component analysis", Family: "variance",
		Supervision: "unsupervised", Space: "linear", Paper: "baseline in seeds 000-004",
		MaxDims: "min(n−1, d)",
		Values:  "eigenvalues of X̄ᵀX̄: the variance along each direction times n − 1, largest first",
	})
	Register[KPCA](Info{
		Name: "kpca", Title: "Kernel principal component analysis", Family: "variance",
		Supervision: "unsupervised", Space: "kernel", Paper: "baseline in seeds 000, 002, 004",
		MaxDims: "n−1 (positive eigenvalues of K̃)",
		Values:  "eigenvalues of the centred Gram matrix K̃ (scikit-learn's eigenvalues_), largest first",
	})
}
