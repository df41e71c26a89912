package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/stats"
)

// Fits from statistics. A linear problem whose objective is the identity
// (PCA) or a class-block graph without diagonal (between-class, QMI), and
// whose constraint is the total scatter (plus a ridge) or a d×d matrix
// computed from the same statistics (the within-class scatter of LDA),
// needs only sums over rows:
//
//	Φᵀ·Φ = S = Σ (xᵢ − μ)(xᵢ − μ)ᵀ,
//	Φᵀ·G·Φ = Σ_cd Block[c][d]·s_c·s_dᵀ,   s_c = Σ_{yᵢ=c} (xᵢ − μ),
//
// so it can be fitted from statistics accumulated over chunks of rows and
// merged (stats.Moments): on a stream larger than memory, or on shards of a
// distributed pipeline. The in-memory fits of LDA and LQMI are this path
// with one chunk.

// Scatter is the sufficient statistics of such a problem.
type Scatter struct {
	N      int           // rows
	Mean   []float64     // μ (d)
	Total  *mat.SymDense // S (d×d)
	Sums   *mat.Dense    // d×C: column c is s_c
	Counts []int         // n_c
}

// ScatterFromMoments returns the statistics of all rows (labelled = false)
// or of the labelled rows only (labelled = true: μ, S and the sums about
// the labelled mean, as a method that drops unlabeled rows sees them).
func ScatterFromMoments(m *stats.Moments, labelled bool) (*Scatter, error) {
	if m == nil || m.N() < 2 {
		return nil, errors.New("embed: statistics of fewer than 2 rows")
	}
	s := &Scatter{N: m.N(), Mean: m.Mean(), Total: m.Scatter(), Counts: m.ClassCounts()}
	if labelled {
		s.N, s.Mean, s.Total = m.LabeledN(), m.LabeledMean(), m.LabeledScatter()
	}
	d := m.Dim()
	c := len(s.Counts)
	s.Sums = mat.NewDense(d, max(c, 1), nil)
	if c > 0 {
		means := m.ClassMeans() // C×d
		for k, nk := range s.Counts {
			for j := 0; j < d; j++ {
				s.Sums.Set(j, k, float64(nk)*(means.At(k, j)-s.Mean[j]))
			}
		}
	}
	return s, nil
}

// ScatterOf returns the statistics of the rows x with labels y (nil:
// unsupervised) in one chunk.
func ScatterOf(x *mat.Dense, y []int, labelled bool) (*Scatter, error) {
	var m stats.Moments
	if err := m.Add(x, y); err != nil {
		return nil, err
	}
	return ScatterFromMoments(&m, labelled)
}

// Dim is d.
func (s *Scatter) Dim() int { return len(s.Mean) }

// Graph returns Φᵀ·G·Φ for the class-block graph G with C×C block b.
func (s *Scatter) Graph(b *mat.SymDense) *mat.SymDense {
	var t, out mat.Dense
	c := b.SymmetricDim()
	sums := s.Sums.Slice(0, s.Dim(), 0, c)
	t.Mul(sums, b)
	out.Mul(&t, sums.T())
	return linalg.Symmetrize(&out)
}

// Project returns the statistics of the rows projected on the columns of
// p (d×r): zᵢ = pᵀ(xᵢ − μ), so the new mean is zero.
func (s *Scatter) Project(p *mat.Dense) *Scatter {
	_, r := p.Dims()
	var st, sums mat.Dense
	st.Mul(p.T(), s.Total)
	var tot mat.Dense
	tot.Mul(&st, p)
	sums.Mul(p.T(), s.Sums)
	return &Scatter{N: s.N, Mean: make([]float64, r), Total: linalg.Symmetrize(&tot), Sums: &sums, Counts: s.Counts}
}

// ScatterProblem is a linear problem posed on Scatter statistics:
//
//	optimise tr(Wᵀ·A·W)  subject to  Wᵀ·(B + Ridge·I)·W = I,
//
// with A = S (Block nil: PCA) or Φᵀ·G·Φ for the class-block graph with
// C×C block Block, and B = S (Constraint nil) or the given d×d matrix.
type ScatterProblem struct {
	Block      *mat.SymDense
	Constraint *mat.SymDense
	Ridge      float64
	// Solver: Auto takes the regression route when Block is set and the
	// constraint is the total scatter (exact, seed 002 Theorem 1), the
	// dense d×d generalized eigenproblem otherwise.
	Solver Solver
	// Responses, if set, are the responses of the regression route as
	// combinations of the class indicators (C×r: Y = E·Responses, E the
	// n×C 0/1 indicator matrix), used instead of the eigenvectors of
	// Block — the statistics form of Problem.Given: Φᵀ·Y = Sums·Responses.
	// They must be eigenvectors of the class-block graph, orthonormal and
	// orthogonal to the constant vector (graph.ClassResponses).
	Responses *mat.Dense
	// Raw returns the regression solutions as spectral regression defines
	// them, one per response with its Rayleigh quotient as value, without
	// the Rayleigh–Ritz step (Problem.Raw).
	Raw      bool
	Eigen    linalg.EigenSolver
	Linear   linalg.LinearSolver
	Dims     int
	MaxDims  int
	DropZero bool
	RankTol  float64
	// Norm scales the directions (Problem.Norm; the linear space here).
	Norm Norm
}

// Solve fits the problem; the model is z = Wᵀ(x − μ).
func (p *ScatterProblem) Solve(ctx context.Context, s *Scatter) (*Result, error) {
	if s == nil || s.Total == nil {
		return nil, errors.New("embed: no statistics")
	}
	if p.Ridge < 0 || math.IsNaN(p.Ridge) || math.IsInf(p.Ridge, 0) {
		return nil, fmt.Errorf("embed: ridge %v; must be finite and ≥ 0", p.Ridge)
	}
	if p.Dims < 0 {
		return nil, fmt.Errorf("dims: %d requested; must be ≥ 0 (0 = all)", p.Dims)
	}
	if err := p.Norm.check(); err != nil {
		return nil, err
	}
	if _, err := linalg.RankTolerance(p.RankTol); err != nil {
		return nil, fmt.Errorf("embed: RankTol: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := s.Dim()
	tr := 0.0
	for i := 0; i < d; i++ {
		tr += s.Total.At(i, i)
	}
	if !(tr > 0) {
		return nil, errors.New("embed: the centred training representation is zero (all rows coincide in feature space)")
	}
	sel := &Problem{Dims: p.Dims, MaxDims: p.MaxDims, DropZero: p.DropZero, RankTol: p.RankTol, Eigen: p.Eigen, Linear: p.Linear}
	sv := &solve{p: sel, ctx: ctx}
	route := p.Solver
	if route == Auto {
		route = Dense
		if p.Block != nil && p.Constraint == nil {
			route = Regression
		}
	}
	var vals []float64
	var w *mat.Dense
	var err error
	switch {
	case route == Regression && p.Block != nil && p.Constraint == nil:
		vals, w, err = p.regression(sv, s, tr)
	case route == Regression:
		return nil, errors.New("embed: the regression route needs a class-block objective and the total-scatter constraint")
	case route == Dense:
		a := s.Total
		if p.Block != nil {
			a = s.Graph(p.Block)
		}
		b := p.Constraint
		if b == nil && (p.Block != nil || p.Ridge != 0) {
			b = s.Total
		}
		if b != nil && p.Ridge != 0 {
			bb := mat.NewSymDense(d, nil)
			bb.CopySym(b)
			for i := 0; i < d; i++ {
				bb.SetSym(i, i, bb.At(i, i)+p.Ridge)
			}
			b = bb
		}
		var bop linalg.SymOperator
		if b != nil {
			bop = linalg.SymDenseOp{M: b}
		}
		vals, w, err = sv.eigs(linalg.SymDenseOp{M: a}, bop, sel.wanted(), linalg.Largest)
	default:
		return nil, fmt.Errorf("embed: unknown solver %q (want auto, dense or regression)", route)
	}
	if err != nil {
		return nil, err
	}
	vals, w, err = sel.selectDims(vals, w)
	if err != nil {
		return nil, err
	}
	if p.Norm == NormUnit {
		UnitColumns(w, nil)
	}
	mean := append([]float64(nil), s.Mean...)
	res := &Result{Model: &LinearModel{Mean: mean, W: w}, Values: vals, Solver: route, Eigen: sv.eigenUsed}
	if sv.kept != nil {
		res.Responses = sv.kept[:len(vals)]
	}
	return res, nil
}

// regression is the spectral-regression route on statistics: the
// responses are the given E·Responses, or E·D^{-1/2}·z for the
// eigenvectors z of the C×C matrix D^{1/2}·Block·D^{1/2} (E the class
// indicators, D the counts), so that Φᵀ·Y = Sums·D^{-1/2}·z; then
// (S + α·I)·V = Φᵀ·Y and, unless Raw, the Rayleigh–Ritz step on
// (Vᵀ·A·V, Vᵀ·(S + Ridge·I)·V) — the engine's route with rows
// (regression.go) written on sums.
func (p *ScatterProblem) regression(sv *solve, s *Scatter, tr float64) ([]float64, *mat.Dense, error) {
	vals, rhs, err := p.responses(s)
	if err != nil {
		return nil, nil, err
	}
	d := s.Dim()
	_, r := rhs.Dims()
	alpha := p.Ridge
	if alpha == 0 {
		alpha = 1e-10 * tr / float64(d)
	}
	lhs := linalg.ShiftOp{A: linalg.SymDenseOp{M: s.Total}, Sigma: alpha}
	ls := p.Linear
	if ls == nil {
		ls = linalg.ChooseLinear(d)
	}
	v, _, err := ls.Solve(sv.ctx, lhs, rhs)
	if err != nil {
		return nil, nil, fmt.Errorf("embed: regression matrix is not positive definite (alpha=%g): %v; increase the ridge", alpha, err)
	}
	if p.Raw {
		vals, v, sv.kept, err = dropDependent(vals, v, linalg.Congruence(s.Total, v), p.RankTol)
		return vals, v, err
	}
	a := s.Graph(p.Block)
	sa := linalg.Congruence(a, v)
	sb := linalg.Congruence(s.Total, v)
	if p.Ridge != 0 {
		var vv mat.Dense
		vv.Mul(v.T(), v)
		for i := 0; i < r; i++ {
			for j := i; j < r; j++ {
				sb.SetSym(i, j, sb.At(i, j)+p.Ridge*vv.At(i, j))
			}
		}
	}
	rv, rz, err := linalg.GenSymEig(sa, sb, 0, linalg.GenOptions{Order: linalg.Largest})
	if err != nil {
		return nil, nil, err
	}
	var out mat.Dense
	out.Mul(v, rz)
	linalg.FixSigns(&out)
	return rv, &out, nil
}

// responses returns the graph eigenvalues of the responses and Φᵀ·Y
// (d×r): the given Responses Z with their Rayleigh quotients
// zᵀ·N·Block·N·z / zᵀ·N·z (N = diag(n_c)) and Φᵀ·Y = Sums·Z, or else the
// eigenvectors of the block.
func (p *ScatterProblem) responses(s *Scatter) ([]float64, *mat.Dense, error) {
	c := p.Block.SymmetricDim()
	if z := p.Responses; z != nil {
		if zr, _ := z.Dims(); zr != c || len(s.Counts) > c {
			return nil, nil, fmt.Errorf("embed: responses for %d classes, a %d×%d block and %d class counts", zr, c, c, len(s.Counts))
		}
		_, r := z.Dims()
		nz := mat.NewDense(c, r, nil) // N·Z
		for k, nk := range s.Counts {
			for j := 0; j < r; j++ {
				nz.Set(k, j, float64(nk)*z.At(k, j))
			}
		}
		var bnz mat.Dense
		bnz.Mul(p.Block, nz)
		vals := make([]float64, r)
		for j := range vals {
			vals[j] = mat.Dot(nz.ColView(j), bnz.ColView(j)) / mat.Dot(nz.ColView(j), z.ColView(j))
		}
		var rhs mat.Dense
		rhs.Mul(s.Sums.Slice(0, s.Dim(), 0, c), z)
		return vals, &rhs, nil
	}
	d := s.Dim()
	var keep []int
	for c, n := range s.Counts {
		if n > 0 && c < p.Block.SymmetricDim() {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return nil, nil, errors.New("embed: no labelled rows")
	}
	small := mat.NewSymDense(len(keep), nil)
	for i, a := range keep {
		for j := i; j < len(keep); j++ {
			b := keep[j]
			small.SetSym(i, j, math.Sqrt(float64(s.Counts[a]*s.Counts[b]))*p.Block.At(a, b))
		}
	}
	vals, z, err := linalg.SymEig(small, 0, linalg.Largest)
	if err != nil {
		return nil, nil, err
	}
	if keep := nonzero(vals); len(keep) < len(vals) {
		r, _ := z.Dims()
		zk := mat.NewDense(r, max(len(keep), 1), nil)
		for c, j := range keep {
			zk.SetCol(c, mat.Col(nil, j, z))
		}
		z = zk
		if len(keep) == 0 {
			z = nil
		}
	}
	if z == nil {
		return nil, nil, errors.New("embed: the graph has no non-degenerate eigenvector")
	}
	_, r := z.Dims()
	rhs := mat.NewDense(d, r, nil)
	for i, c := range keep {
		f := 1 / math.Sqrt(float64(s.Counts[c]))
		for j := 0; j < d; j++ {
			sc := s.Sums.At(j, c) * f
			row := rhs.RawRowView(j)
			for k := 0; k < r; k++ {
				row[k] += sc * z.At(i, k)
			}
		}
	}
	return vals, rhs, nil
}
