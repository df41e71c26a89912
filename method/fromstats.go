package method

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/stats"
)

// StatsFitter is implemented by methods whose fit needs only sums over
// rows (counts, class sums, scatter matrices): they fit from statistics
// accumulated over chunks of rows and merged (stats.Moments) — a file
// larger than memory streamed with data.Scan, or the shards of a
// distributed pipeline — and give the in-memory fit (PCA, LDA, LQMI, SR
// with the supervised class graph; the kernel methods on Nyström features
// through their feature map).
type StatsFitter interface {
	Method
	FitStats(m *stats.Moments, dims int) (Model, error)
}

// StatsMethods returns the names of the registered methods that fit from
// statistics of the input rows (StatsFitter).
func StatsMethods() []string {
	return namesWhere(func(m Method) bool { _, ok := m.(StatsFitter); return ok })
}

// StatsChecker is implemented by StatsFitters whose parameters may rule
// out a fit from statistics (SR's neighbour graphs): CheckStats says so
// before any row is read, so that a pipeline is refused when it is built.
type StatsChecker interface {
	CheckStats() error
}

// FitStats implements StatsFitter: the leading eigenvectors of the
// accumulated scatter S.
func (m PCA) FitStats(ms *stats.Moments, dims int) (Model, error) {
	if err := resolve("pca", &m); err != nil {
		return nil, err
	}
	s, err := embed.ScatterFromMoments(ms, false)
	if err != nil {
		return nil, fmt.Errorf("pca: %w", err)
	}
	return solveScatter("pca", m.Engine, &embed.ScatterProblem{Dims: dims, DropZero: true}, s)
}

func solveScatter(name string, e Engine, p *embed.ScatterProblem, s *embed.Scatter) (*Fitted, error) {
	if e.Solver != "" {
		p.Solver = e.Solver
	}
	p.Eigen, p.Linear = e.Eigen, e.Linear
	if e.Norm != "" {
		p.Norm = e.Norm
	}
	r, err := p.Solve(e.ctx(), s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Fitted{Model: r.Model, Name: name, Values: r.Values}, nil
}

// checkStatsLabels checks the class structure of accumulated statistics
// as labelled() does for rows.
func checkStatsLabels(name string, ms *stats.Moments, minPerClass int) (int, error) {
	if ms == nil || ms.N() == 0 {
		return 0, fmt.Errorf("%s: no training rows", name)
	}
	present := 0
	for c, k := range ms.ClassCounts() {
		if k > 0 {
			present++
		}
		if k > 0 && k < minPerClass {
			return 0, fmt.Errorf("%s: %w", name, &graph.ClassSizeError{Class: c, Rows: k, Need: minPerClass})
		}
	}
	if present < 2 {
		return 0, fmt.Errorf("%s: labels: %d class(es) present; a supervised method needs at least 2", name, present)
	}
	return present, nil
}

// FitStats implements StatsFitter (see LDA for the algorithm; the
// in-memory fit with at least as many rows as columns is this path with
// one chunk).
func (m LDA) FitStats(ms *stats.Moments, dims int) (Model, error) {
	if err := resolve("lda", &m); err != nil {
		return nil, err
	}
	c, err := checkStatsLabels("lda", ms, 1)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError("lda", dims, c-1, "LDA gives at most C−1 = %d for %d classes", c-1, c)
	}
	s, err := embed.ScatterFromMoments(ms, true)
	if err != nil {
		return nil, fmt.Errorf("lda: %w", err)
	}
	return m.fitScatter(s, c, dims)
}

func (m LDA) fitScatter(s *embed.Scatter, c, dims int) (*Fitted, error) {
	between := graph.BetweenClassBlock(s.Counts)
	within := func(s *embed.Scatter) *mat.SymDense {
		sw := mat.NewSymDense(s.Dim(), nil)
		sw.AddSym(s.Total, scaledSymMat(-1, s.Graph(between))) // S_w = S_t − S_b
		return sw
	}
	sw := within(s)
	prob := &embed.ScatterProblem{Block: between, Constraint: sw, Ridge: m.Ridge, Dims: dims, MaxDims: c - 1, Solver: embed.Dense}
	if m.Ridge > 0 || !symSingular(sw, s.N-c) {
		return solveScatter("lda", m.Engine, prob, s)
	}
	// PCA step: the principal axes of S_t with nonzero variance (Fisherfaces:
	// the leading n − C).
	pca, err := solveScatter("PCA step", Engine{}, &embed.ScatterProblem{DropZero: true}, s)
	if err != nil {
		return nil, fmt.Errorf("lda: %w", err)
	}
	keep := pca.Dims()
	if m.Fisherfaces {
		keep = min(s.N-c, keep)
	}
	if keep < 1 {
		return nil, fmt.Errorf("lda: within-class scatter is singular and only %d rows for %d classes; PCA+LDA needs n > C", s.N, c)
	}
	pw := pca.Model.(*embed.LinearModel).W
	p := mat.DenseCopyOf(pw.Slice(0, s.Dim(), 0, keep))
	sp := s.Project(p)
	prob.MaxDims = min(c-1, keep)
	if dims > prob.MaxDims {
		return nil, dimsError("lda", dims, prob.MaxDims, "the data span only %d after the PCA step", prob.MaxDims)
	}
	prob.Constraint = within(sp)
	// In the PCA space S_t is non-singular, but S_w still can be: its null
	// space — the most discriminative directions — is kept by nullRidge.
	if symSingular(prob.Constraint, sp.N-c) {
		prob.Ridge = nullRidge(prob.Constraint)
	}
	f, err := solveScatter("lda", m.Engine, prob, sp)
	if err != nil {
		return nil, err
	}
	lm := f.Model.(*embed.LinearModel)
	var w mat.Dense
	w.Mul(p, lm.W)
	f.Model = &embed.LinearModel{Mean: append([]float64(nil), s.Mean...), W: &w}
	return f, nil
}

// symSingular reports whether the scatter s of rows with dof degrees of
// freedom is numerically singular (more dimensions than dof, or its
// smallest eigenvalue at most 1e-10 times its largest).
func symSingular(s *mat.SymDense, dof int) bool {
	if s.SymmetricDim() > dof {
		return true
	}
	vals, _, err := linalg.SymEig(s, 0, linalg.Largest)
	if err != nil {
		return true
	}
	return vals[len(vals)-1] <= 1e-10*vals[0]
}

// NullSpaceRidge is the ridge PCA+LDA adds to a singular within-class
// scatter S_w, relative to its largest eigenvalue (see nullRidge).
const NullSpaceRidge = 1e-7

// nullRidge returns the ridge that makes PCA+LDA keep the null space of a
// singular within-class scatter s: NullSpaceRidge times its largest
// eigenvalue. In that null space (C − 1 dimensions when the PCA step keeps
// rank S_t) every class collapses to a point, and the pencil
// (S_b, S_w + ε·I) ranks its directions first, by between-class scatter
// (null-space LDA, Chen et al. 2000). The ridge must stay well above the
// eigensolvers' rank tolerance (1e-10 of the largest eigenvalue of the
// constraint), or they treat the null space as no constraint and drop it:
// the earlier ridge, 1e-9 times the mean eigenvalue, fell below it whenever
// the mean was under a tenth of the largest — on Yale faces with 2 per
// person, 3 of 10 random splits — and 1-NN error there jumped from 42 % to
// 79 % (TestLDANullSpaceKept).
func nullRidge(s *mat.SymDense) float64 {
	vals, _, err := linalg.SymEig(s, 1, linalg.Largest)
	if err != nil || vals[0] <= 0 {
		return 0
	}
	return NullSpaceRidge * vals[0]
}

// FitStats implements StatsFitter (the in-memory LQMI is this path with
// one chunk).
func (m LQMI) FitStats(ms *stats.Moments, dims int) (Model, error) {
	if err := resolve("lqmi", &m); err != nil {
		return nil, err
	}
	c, err := checkStatsLabels("lqmi", ms, m.MinClassRows)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError("lqmi", dims, c-1, "the QMI graph has rank C−1 = %d for %d classes", c-1, c)
	}
	s, err := embed.ScatterFromMoments(ms, true)
	if err != nil {
		return nil, fmt.Errorf("lqmi: %w", err)
	}
	return m.fitScatter(s, c, dims)
}

// fitScatter fits LQMI from a scatter; m is resolved.
func (m LQMI) fitScatter(s *embed.Scatter, c, dims int) (*Fitted, error) {
	block, err := graph.QMIBlock(s.Counts)
	if err != nil {
		return nil, fmt.Errorf("lqmi: %w", err)
	}
	scale := meanDiag(s.Total) // tr(X̄ᵀX̄)/d
	if scale == 0 {
		return nil, errors.New("lqmi: every training row is the same")
	}
	ridge, set := m.Ridge.Get()
	if !set && symSingular(s.Total, s.N-1) {
		ridge = DefaultLQMIRidge
	}
	prob := &embed.ScatterProblem{Block: block, Ridge: ridge * scale, Dims: dims, MaxDims: c - 1, DropZero: true}
	if m.Solver == embed.Auto && ridge == 0 {
		// Without a ridge the regression route would add its tiny
		// safeguard ridge, which is not negligible against the small
		// eigenvalues of an ill-conditioned X̄ᵀX̄; the d×d dense problem is
		// exact and cheap here (X̄ᵀX̄ is nonsingular, so d < n).
		prob.Solver = embed.Dense
	}
	if m.Norm == "" {
		prob.Norm = embed.NormUnit // Algorithm 2 normalises its directions
	}
	return solveScatter("lqmi", m.Engine, prob, s)
}

func scaledSymMat(f float64, m *mat.SymDense) *mat.SymDense {
	var out mat.SymDense
	out.ScaleSym(f, m)
	return &out
}

// NystromStatsFitter is implemented by kernel methods that fit, with
// space=nystrom, from the statistics of their Nyström features: the
// in-memory fit solves a linear problem on the centred features
// f(x) = Tᵀ·k(L, x) whose matrices are sums over rows, so the features of
// chunks or shards can be reduced to statistics (stats.Moments) and merged
// like the input rows of a linear method. A pipeline picks the landmark
// rows from the row count (NystromSpace, embed.Nystrom.LandmarkRows),
// builds T (embed.NystromMap), accumulates the statistics of the features
// (embed.NystromFeatures), fits the linear model on them with
// FitFeatureStats and folds it into the model of the input rows
// (embed.NewNystromModel): the in-memory fit up to rounding.
type NystromStatsFitter interface {
	Method
	// NystromSpace returns the method's Nyström space, or an error when the
	// method is not set to fit that way (space other than nystrom, a
	// regulariser that needs the whole Gram matrix).
	NystromSpace() (embed.Nystrom, error)
	// FitFeatureStats fits the linear model z = Wᵀ(f − μ) on the features
	// whose statistics are ms.
	FitFeatureStats(ms *stats.Moments, dims int) (*Fitted, error)
}

// nystromSpace returns the Nyström space of a kernel method named name.
func nystromSpace(name string, sp KernelSpace, k kernel.Kernel) (embed.Nystrom, error) {
	if sp.Kind != SpaceNystrom {
		kind := sp.Kind
		if kind == "" {
			kind = SpaceExact
		}
		return embed.Nystrom{}, fmt.Errorf("%s: space=%s needs the Gram matrix of every pair of rows; fitting from statistics needs space=nystrom", name, kind)
	}
	if k.IsAuto() {
		return embed.Nystrom{}, fmt.Errorf("%s: sigma=auto takes the width from the median distance between training rows, which a fit from statistics does not see; set -p sigma (or gamma) to fit from statistics", name)
	}
	s, err := sp.Space(k)
	if err != nil {
		return embed.Nystrom{}, fmt.Errorf("%s: %w", name, err)
	}
	return s.(embed.Nystrom), nil
}

// featureScatter returns the statistics of the features (of the labelled
// rows when labelled) and their scale, the mean squared norm of the
// centred features (embed.Prepared.Scale).
func featureScatter(name string, ms *stats.Moments, labelled bool) (*embed.Scatter, float64, error) {
	s, err := embed.ScatterFromMoments(ms, labelled)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return s, meanDiag(s.Total) * float64(s.Dim()) / float64(s.N), nil
}

// NystromSpace implements NystromStatsFitter.
func (m KPCA) NystromSpace() (embed.Nystrom, error) {
	if err := resolve("kpca", &m); err != nil {
		return embed.Nystrom{}, err
	}
	return nystromSpace("kpca", m.Space, m.Kernel)
}

// FitFeatureStats implements NystromStatsFitter: PCA of the features.
func (m KPCA) FitFeatureStats(ms *stats.Moments, dims int) (*Fitted, error) {
	if err := resolve("kpca", &m); err != nil {
		return nil, err
	}
	s, _, err := featureScatter("kpca", ms, false)
	if err != nil {
		return nil, err
	}
	return solveScatter("kpca", m.Engine, &embed.ScatterProblem{Dims: dims, DropZero: true}, s)
}

// NystromSpace implements NystromStatsFitter.
func (m GDA) NystromSpace() (embed.Nystrom, error) {
	if err := resolve("gda", &m); err != nil {
		return embed.Nystrom{}, err
	}
	return nystromSpace("gda", m.Space, m.Kernel)
}

// FitFeatureStats implements NystromStatsFitter: the between-class graph
// of the labelled rows' features with the ridge α·scale (see GDA).
func (m GDA) FitFeatureStats(ms *stats.Moments, dims int) (*Fitted, error) {
	if err := resolve("gda", &m); err != nil {
		return nil, err
	}
	c, err := checkStatsLabels("gda", ms, 1)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError("gda", dims, c-1, "GDA gives at most C−1 = %d for %d classes", c-1, c)
	}
	s, scale, err := featureScatter("gda", ms, true)
	if err != nil {
		return nil, err
	}
	alpha, _ := m.Alpha.Get()
	prob := &embed.ScatterProblem{Block: graph.BetweenClassBlock(s.Counts), Ridge: alpha * scale, Dims: dims, MaxDims: c - 1, DropZero: true}
	return solveScatter("gda", m.Engine, prob, s)
}

// NystromSpace implements NystromStatsFitter (reg=ridge only: reg=cutoff
// whitens by the eigenvectors of the whole Gram matrix).
func (m KQMI) NystromSpace() (embed.Nystrom, error) {
	if err := resolve("kqmi", &m); err != nil {
		return embed.Nystrom{}, err
	}
	if m.Reg == "cutoff" {
		return embed.Nystrom{}, errors.New("kqmi: reg=cutoff whitens by the eigenvectors of the whole Gram matrix; fitting from statistics needs reg=ridge")
	}
	return nystromSpace("kqmi", m.Space, m.Kernel)
}

// FitFeatureStats implements NystromStatsFitter: the QMI graph of the
// labelled rows' features with the ridge α·scale (see KQMI).
func (m KQMI) FitFeatureStats(ms *stats.Moments, dims int) (*Fitted, error) {
	if _, err := m.NystromSpace(); err != nil {
		return nil, err
	}
	if err := resolve("kqmi", &m); err != nil {
		return nil, err
	}
	c, err := checkStatsLabels("kqmi", ms, m.MinClassRows)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError("kqmi", dims, c-1, "the QMI graph has rank C−1 = %d for %d classes", c-1, c)
	}
	s, scale, err := featureScatter("kqmi", ms, true)
	if err != nil {
		return nil, err
	}
	block, err := graph.QMIBlock(s.Counts)
	if err != nil {
		return nil, fmt.Errorf("kqmi: %w", err)
	}
	alpha, _ := m.Alpha.Get()
	prob := &embed.ScatterProblem{Block: block, Ridge: alpha * scale, Dims: dims, MaxDims: c - 1, DropZero: true}
	return solveScatter("kqmi", m.Engine, prob, s)
}

// fitStats fits spectral regression with the supervised class graph from
// statistics (of the rows for SR, of their Nyström features for KSR): the
// responses in the canonical basis of the class graph's eigenspace
// (graph.ClassResponses, which the in-memory fit uses too) need only the
// class counts, and the regression (X̄ᵀX̄ + γ·I)·a = X̄ᵀy only the scatter
// and the centred class sums, X̄ᵀy = Σ_c z_c·Σ_{yᵢ=c} (xᵢ − μ) (seed 002
// eq. 3). The graphs with neighbour edges (semi-supervised, unsupervised)
// need the nearest neighbours among all pairs of rows and are refused, as
// are the Rayleigh–Ritz rotation (ritz=true) and the dense route.
func (p SRParams) fitStats(name string, e Engine, ms *stats.Moments, dims int) (*Fitted, error) {
	if err := p.checkStatsParams(name, e); err != nil {
		return nil, err
	}
	if ms != nil && ms.LabeledN() < ms.N() {
		return nil, fmt.Errorf("%s: %d of %d rows are unlabeled: the semi-supervised SR graph needs the nearest neighbours among all pairs of rows and cannot be fitted from statistics; fitting from statistics needs every row labelled (the supervised class graph)", name, ms.N()-ms.LabeledN(), ms.N())
	}
	c, err := checkStatsLabels(name, ms, 1)
	if err != nil {
		return nil, err
	}
	if dims > c-1 {
		return nil, dimsError(name, dims, c-1, "the SR graph gives at most %d (C−1 for %d classes)", c-1, c)
	}
	s, err := embed.ScatterFromMoments(ms, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	prob := &embed.ScatterProblem{Block: graph.ClassMeansBlock(s.Counts), Responses: graph.ClassResponses(s.Counts), Raw: true,
		Ridge: p.Ridge, Dims: dims, MaxDims: c - 1, DropZero: true}
	return solveScatter(name, e, prob, s)
}

// checkStatsParams refuses the parameters of SR that a fit from
// statistics cannot follow (before any row is read).
func (p SRParams) checkStatsParams(name string, e Engine) error {
	if p.Graph == SRUnsupervised {
		return fmt.Errorf("%s: graph=unsupervised needs the nearest neighbours among all pairs of rows and cannot be fitted from statistics; fitting from statistics needs the supervised class graph (every row labelled)", name)
	}
	if p.Ritz {
		return fmt.Errorf("%s: ritz=true rotates the directions by the graph problem on the training rows, which a fit from statistics does not do; fit with ritz=false (SR's one direction per response)", name)
	}
	if e.Solver == embed.Dense {
		return fmt.Errorf("%s: solver=dense is not fitted from statistics; use solver=auto (spectral regression)", name)
	}
	return nil
}

// CheckStats implements StatsChecker.
func (m SR) CheckStats() error {
	if err := resolve("sr", &m); err != nil {
		return err
	}
	return m.checkStatsParams("sr", m.Engine)
}

// FitStats implements StatsFitter: SR with the supervised class graph
// (every row labelled; see SRParams.fitStats).
func (m SR) FitStats(ms *stats.Moments, dims int) (Model, error) {
	if err := resolve("sr", &m); err != nil {
		return nil, err
	}
	return m.fitStats("sr", m.Engine, ms, dims)
}

// NystromSpace implements NystromStatsFitter.
func (m KSR) NystromSpace() (embed.Nystrom, error) {
	if err := resolve("ksr", &m); err != nil {
		return embed.Nystrom{}, err
	}
	if err := m.checkStatsParams("ksr", m.Engine); err != nil {
		return embed.Nystrom{}, err
	}
	return nystromSpace("ksr", m.Space, m.Kernel)
}

// FitFeatureStats implements NystromStatsFitter: KSR on the Nyström
// features is SR on them with the same (absolute) ridge γ, with the
// supervised class graph (see SRParams.fitStats).
func (m KSR) FitFeatureStats(ms *stats.Moments, dims int) (*Fitted, error) {
	if err := resolve("ksr", &m); err != nil {
		return nil, err
	}
	return m.fitStats("ksr", m.Engine, ms, dims)
}

func meanDiag(s *mat.SymDense) float64 {
	n := s.SymmetricDim()
	t := 0.0
	for i := 0; i < n; i++ {
		t += s.At(i, i)
	}
	return t / float64(n)
}
