package method

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

func errNoRows(name string) error { return fmt.Errorf("%s: no training rows", name) }

// LDA is Fisher's linear discriminant analysis:
//
//	max tr(Wᵀ·S_b·W)  subject to  Wᵀ·S_w·W = I,
//
// with S_b = X̄ᵀ·(W_c − 11ᵀ/n)·X̄ and S_w = X̄ᵀ·(I − W_c)·X̄ for the class
// graph W_c (graph.ClassMeans). At most C−1 dimensions. Values are the
// generalized eigenvalues λ = wᵀS_bw / wᵀS_ww. Unlabeled rows (−1) are
// ignored.
//
// When S_w is singular (d ≥ n − C, the faces case) the rows are first
// projected on their principal components (PCA+LDA, the LDA baseline of
// seeds 000-004) and S_w is regularised there by a ridge of 1e-7 times its
// largest eigenvalue (nullRidge), which keeps the null space of S_w — where the classes
// collapse to points — as the leading discriminant directions. By default
// PCA keeps every component of non-zero variance (rank S_t); Fisherfaces
// keeps only n − C, which makes S_w invertible but discards that null
// space: on ORL with 5 training images per person, 1-NN on the 39 LDA
// dimensions errs 42 % with the n − C truncation and 6.5 % with rank S_t
// (measured; docs/reproduction.md). Ridge > 0 instead solves with
// S_w + Ridge·I in the input space.
type LDA struct {
	// Ridge, if > 0, regularises S_w instead of the PCA step.
	Ridge float64
	// Fisherfaces keeps only n − C principal components in the PCA step.
	Fisherfaces bool
	Engine
}

// Params declares the parameters of LDA.
func (m *LDA) Params(s *param.Schema) {
	param.Num(s, &m.Ridge, "ridge", 0, "if > 0, solve with S_w + ridge·I instead of the PCA step", param.Min(0))
	param.Bool(s, &m.Fisherfaces, "fisherfaces", "the PCA step keeps n − C components (Fisherfaces) instead of rank S_t")
	m.Engine.denseParams(s, "LDA's constraint is the within-class scatter, which the regression route does not take; -m sr is LDA by spectral regression (the class graph; seed 002 §2.1)")
}

// Fit implements Method.
func (m LDA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("lda", &m); err != nil {
		return nil, err
	}
	x, y, err := labelled("lda", x, y, 1)
	if err != nil {
		return nil, err
	}
	c := classesPresent(y)
	if dims > c-1 {
		return nil, dimsError("lda", dims, c-1, "LDA gives at most C−1 = %d for %d classes", c-1, c)
	}
	if n, _ := x.Dims(); n == c && m.Ridge == 0 {
		return nil, fmt.Errorf("lda: every class has a single row (%d rows, %d classes), so the within-class scatter S_w is zero and the Fisher ratio is undefined; give classes of at least 2 rows, or a ridge (-p ridge=…), or use sr", n, c)
	}
	if n, d := x.Dims(); d <= n {
		// The fit from statistics (fromstats.go), with one chunk.
		s, err := embed.ScatterOf(x, y, true)
		if err != nil {
			return nil, fmt.Errorf("lda: %w", err)
		}
		return m.fitScatter(s, c, dims)
	}
	prob := &embed.Problem{Space: embed.Linear{}, Objective: graph.BetweenClass(y),
		Constraint: graph.WithinClass(y), Ridge: m.Ridge, Dims: dims, MaxDims: c - 1, Solver: embed.Dense}
	m.Engine.apply(prob)
	if m.Ridge > 0 {
		return fit("lda", prob, x)
	}
	// Here d > n ≥ n − C: S_w is singular without forming its d×d matrix.
	n, _ := x.Dims()
	pca, err := PCA{}.Fit(x, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("lda: PCA step: %w", err)
	}
	keep := pca.Dims()
	if m.Fisherfaces {
		keep = min(n-c, keep)
	}
	if keep < 1 {
		return nil, fmt.Errorf("lda: within-class scatter is singular and only %d rows for %d classes; PCA+LDA needs n > C", n, c)
	}
	pcaK, err := embed.Truncate(pca.(*Fitted).Model, keep)
	if err != nil {
		return nil, err
	}
	z, err := pcaK.Transform(x)
	if err != nil {
		return nil, err
	}
	// In the PCA space S_t is non-singular, but S_w still can be (always
	// when the PCA step keeps rank S_t = n − 1 > n − C): its null space —
	// the most discriminative directions — is kept by nullRidge.
	prob.MaxDims = min(c-1, keep)
	if dims > prob.MaxDims {
		return nil, dimsError("lda", dims, prob.MaxDims, "the data span only %d after the PCA step", prob.MaxDims)
	}
	if sw := withinScatter(z, y); symSingular(sw, n-c) {
		prob.Ridge = nullRidge(sw)
	}
	lda, err := fit("lda", prob, z)
	if err != nil {
		return nil, err
	}
	lda.Model = embed.Compose(pcaK, lda.Model)
	return lda, nil
}

func withinScatter(x *mat.Dense, y []int) *mat.SymDense {
	xc := embed.CenterRows(x, embed.ColMeans(x))
	var s mat.Dense
	s.Mul(xc.T(), graph.WithinClass(y).Apply(xc))
	return linalg.Symmetrize(&s)
}

func classesPresent(y []int) int {
	seen := map[int]bool{}
	for _, v := range y {
		if v >= 0 {
			seen[v] = true
		}
	}
	return len(seen)
}

// GDA is generalized discriminant analysis (Baudat and Anouar 2000; kernel
// Fisher discriminant; a baseline of seeds 000 and 004): in the kernel
// space with centred Gram matrix K̃,
//
//	max tr(Aᵀ·K̃·(W_c − 11ᵀ/n)·K̃·A)  subject to  Aᵀ·K̃·K̃·A = I,
//
// i.e. between-class over total scatter in feature space. The objective
// graph is constant on class blocks, so the solution lies in the span of
// K̃⁺·(centred class indicators) (seed 002 Theorem 1; DESIGN.md): the
// default solver is spectral regression — the C−1 centred indicator
// responses, A = (K̃ + α·I)⁻¹·Y, then a Rayleigh–Ritz step that orders the
// directions by the objective — O(n³/3) for one Cholesky instead of two
// n×n eigen-decompositions. Solver "dense" solves the n×n generalized
// problem with the regularised constraint K̃K̃ + α·K̃ (a penalty α‖w‖² in
// feature space); because the between-class graph is a projection the two
// routes give exactly the same subspace for every α (tested).
//
// Alpha is the regulariser, relative to the mean diagonal of K̃ (so that
// it does not depend on the kernel's scale). With α → 0 every training row of a class maps
// to the same point (all eigenvalues 1) and the method interpolates the
// labels; a positive α trades that for generalisation. Default (Alpha
// unset): DefaultGDAAlpha; param.Set(0.0) solves without a regulariser.
type GDA struct {
	Kernel kernel.Kernel      // zero: RBF, σ from the training rows (sigma=auto)
	Alpha  param.Opt[float64] // unset: DefaultGDAAlpha
	Space  KernelSpace
	Engine
}

// DefaultGDAAlpha is the default regulariser of GDA (relative to the mean
// diagonal of K̃; chosen from the UCI measurements in docs/reproduction.md).
const DefaultGDAAlpha = 0.1

// Params declares the parameters of GDA.
func (m *GDA) Params(s *param.Schema) {
	param.OptNum(s, &m.Alpha, "alpha", param.Set(DefaultGDAAlpha), "regulariser relative to the mean diagonal of K̃ (kernel ridge of the regression route)", param.Min(0))
	kernelParams(s, &m.Kernel, kernel.RBFAuto())
	m.Space.Params(s)
	m.Engine.Params(s)
}

// Fit implements Method.
func (m GDA) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("gda", &m); err != nil {
		return nil, err
	}
	x, y, err := m.Space.labelled("gda", x, y, 1)
	if err != nil {
		return nil, err
	}
	c := classesPresent(y)
	if dims > c-1 {
		return nil, dimsError("gda", dims, c-1, "GDA gives at most C−1 = %d for %d classes", c-1, c)
	}
	prep, err := m.Space.prepare(m.ctx(), "gda", m.Kernel, x)
	if err != nil {
		return nil, err
	}
	alpha, _ := m.Alpha.Get()
	prob := &embed.Problem{Objective: graph.BetweenClass(y), Constraint: graph.Identity(prep.N()),
		Dims: dims, MaxDims: c - 1, Ridge: alpha * prep.Scale(), DropZero: true}
	return solve("gda", m.Engine, prob, prep)
}

func init() {
	Register[LDA](Info{
		Name: "lda", Title: "Linear discriminant analysis (PCA+LDA when S_w is singular)", Family: "discriminant",
		Supervision: "supervised", Space: "linear", Paper: "baseline in seeds 000-004 (Fisherfaces PCA step)",
		MaxDims: "C−1",
		Values:  "generalized eigenvalues λ = wᵀS_bw / wᵀS_ww (between- over within-class scatter; huge where the PCA step keeps the null space of S_w), largest first",
	})
	Register[GDA](Info{
		Name: "gda", Title: "Generalized discriminant analysis (kernel Fisher discriminant)", Family: "discriminant",
		Supervision: "supervised", Space: "kernel", Paper: "baseline in seeds 000, 004 (Baudat & Anouar 2000)",
		MaxDims: "C−1",
		Values:  "generalized eigenvalues λ = aᵀK̃(W_c − 11ᵀ/n)K̃a / aᵀ(K̃K̃ + αK̃)a (between-class over regularised total scatter in feature space, in [0, 1]), largest first",
	})
}
