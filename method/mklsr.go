package method

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

// MKLSR is multiple-kernel spectral regression (seed 002 §3, Algorithm 1):
// kernel SR in the space of k = Σₘ βₘ·kₘ (β ≥ 0) with the weights learned
// by alternation, for the SR graph W, D and its responses Y (fixed):
//
//	A-step (eq. 21): (K̃_β + γ·I)·A = Y, K̃_β = Σₘ βₘ·K̃ₘ (kernel SR);
//	β-step (eq. 22–23): min βᵀ·P·β subject to βᵀ·Q·β = 1, β ≥ 0, with
//	  P = Σ_d K'_dᵀ·L·K'_d, Q = Σ_d K'_dᵀ·D·K'_d, K'_d = [K̃₁a_d … K̃_M a_d],
//	  L = D − W: the graph-embedding ratio of eq. 16–17 as a function of β.
//
// The paper relaxes the β-step, a non-convex QCQP, to an SDP. For the
// handful of kernels users combine it is solved exactly here: the minimum
// of the ratio over the non-negative orthant lies in the relative interior
// of some face {β_S > 0, β_rest = 0}, where it is a stationary point of the
// ratio restricted to S — a generalized eigenvector of (P_S, Q_S) with
// positive entries — so enumerating the 2^M − 1 faces and their
// eigenvectors finds it (tested against a brute-force grid). β is scaled to
// sum to 1 (the ratio does not depend on its scale; the A-step's ridge then
// keeps its meaning).
//
// The two steps optimise different criteria (the A-step is SR's
// regression, which minimises the ratio only in the limit γ → 0, by
// Theorem 1), so the ratio R(A, β) = tr(Aᵀ·K̃_β·L·K̃_β·A) /
// tr(Aᵀ·K̃_β·D·K̃_β·A) after each β-step is made monotone by accepting an
// iteration's pair (A, β) only when it does not increase R; the iteration
// stops when R decreases by less than Tol (relative), when a pair would
// increase it (the previous pair is kept), or after MaxIter. The result
// reports R per accepted iteration, the learned β and why it stopped.
type MKLSR struct {
	SRParams
	// Kernels are the base kernels (nil: DefaultMKLKernels).
	Kernels []kernel.Kernel
	// MaxIter (0: 20) and Tol (0: 1e-6) of the alternation.
	MaxIter int
	Tol     float64
	// Space: exact (the M centred n×n Gram matrices, default) or nystrom
	// (every kernel's Nyström features on shared landmarks,
	// embed.NystromBases: memory O(n·M·m) for m landmarks, for rows far
	// past an n×n matrix); precomputed is refused (one Gram matrix cannot
	// give M kernels).
	Space KernelSpace
	Engine
	// Progress, if set, receives one line when the base kernels are ready,
	// one per alternation and one with the stop reason (the CLI writes
	// them to stderr).
	Progress func(string)
}

// report sends one progress line (Progress), if set.
func (m MKLSR) report(format string, a ...any) {
	if m.Progress != nil {
		m.Progress("mklsr: " + fmt.Sprintf(format, a...))
	}
}

// WithProgress implements Progresser.
func (m MKLSR) WithProgress(f func(string)) Method { m.Progress = f; return m }

// DefaultMKLKernels are the base kernels of seed 002 §4.1: "a linear
// kernel function, a polynomial kernel function, and a Gaussian kernel
// function" (degree 2 with offset 1, and the RBF width from the training
// rows, sigma=auto, are our choices; the paper does not give them).
func DefaultMKLKernels() []kernel.Kernel {
	return []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBFAuto()}
}

// MKLResult is the trace of an MKL-SR fit (Fitted.Trace).
type MKLResult struct {
	Beta       []float64 // learned weights (sum 1)
	Objective  []float64 // R after each iteration's β-step
	Iterations int
	Stop       string
}

// Params declares the parameters of MKL-SR.
func (m *MKLSR) Params(s *param.Schema) {
	m.SRParams.Params(s)
	param.Num(s, &m.MaxIter, "maxiter", 20, "largest number of alternations", param.Min(1))
	param.Num(s, &m.Tol, "tol", 1e-6, "stop when the objective decreases by less than this (relative)", param.Above(0))
	s.Var(param.Spec{Name: "kernels", Type: "list", Default: "linear;poly:degree=2,offset=1;rbf",
		Doc: "base kernels separated by ';' (each a kernel spec)"},
		func(text string) error {
			ks, err := parseKernelList(text)
			m.Kernels = ks
			return err
		},
		func() {
			if m.Kernels == nil {
				m.Kernels = DefaultMKLKernels()
			}
		},
		func() error {
			if len(m.Kernels) == 0 || len(m.Kernels) > 12 {
				return fmt.Errorf("%d base kernels; give 1 to 12", len(m.Kernels))
			}
			for _, k := range m.Kernels {
				if err := k.Validate(); err != nil {
					return err
				}
			}
			return nil
		})
	// No precomputed space: one Gram matrix cannot give M base kernels.
	m.Space.params(s, "kernel space: exact (the base kernels' n×n Gram matrices) or nystrom (their features on shared landmarks, for large n)",
		SpaceExact, SpaceNystrom)
	m.Engine.Params(s)
}

func parseKernelList(text string) ([]kernel.Kernel, error) {
	var out []kernel.Kernel
	for _, spec := range splitSemicolon(text) {
		k, err := kernel.Parse(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errors.New("no kernel given")
	}
	return out, nil
}

func splitSemicolon(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ';' {
			if t := s[start:i]; t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	return out
}

// DimensionDependent implements DimensionDependent: the kernel weights β
// are learned from all the responses fitted, so a fit for fewer dimensions
// can weight the kernels differently.
func (MKLSR) DimensionDependent() bool { return true }

// Fit implements Method.
func (m MKLSR) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("mklsr", &m); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errNoRows("mklsr")
	}
	if m.Ritz && m.Space.Kind == SpaceNystrom {
		// dualCoefficients' A = (Y − Φ·V)/γ is the ridge equation of the
		// raw directions; rotated ones have no such identity.
		return nil, errors.New("mklsr: -p ritz=true with -p space=nystrom: the Nyström A-step recovers the dual coefficients from the ridge equation of SR's raw directions, which rotated directions do not satisfy; use ritz=false (Algorithm 1's A-step) or space=exact")
	}
	prob, _, err := m.problem("mklsr", graph.Euclidean{X: x}, y, dims)
	if err != nil {
		return nil, err
	}
	ctx := embed.WithTrain(m.ctx()) // the A-step reads r.Train
	bases, err := m.bases(ctx, x)
	if err != nil {
		return nil, fmt.Errorf("mklsr: %w", err)
	}
	report := m.report
	report("%d base kernels on %d rows ready (%s)", len(m.Kernels), x.RawMatrix().Rows, m.Space.Kind)
	lap := laplacianOf(prob)
	// The graph and its responses Y stay fixed through the alternation
	// (Algorithm 1): solve the graph eigenproblem once, not per A-step.
	base := *prob
	m.Engine.apply(&base)
	base.Norm = "" // the iterations work on the regression solutions; Norm scales the final one
	if base.Given == nil {
		n, _ := x.Dims()
		y, err := base.GraphResponses(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("mklsr: %w", err)
		}
		if y != nil {
			base.Given, base.Responses = y, 0
		}
	}
	step := func(beta []float64, dims int) (*mklPair, error) {
		prep, err := bases.Combine(beta)
		if err != nil {
			return nil, err
		}
		p := base
		p.Dims = dims
		r, err := p.SolveContext(ctx, prep)
		if err != nil {
			return nil, err
		}
		a, err := dualCoefficients(r, prep, base.Given, base.Ridge)
		if err != nil {
			return nil, err
		}
		pq, qq := betaMatrices(bases.Products(a), lap, prob.Constraint) // K̃ₘ·A, n×r each
		return &mklPair{vals: r.Values, a: a, p: pq, q: qq}, nil
	}
	best, res, err := m.alternate(step, base.Dims, report)
	if err != nil {
		return nil, err
	}
	bestA, bestVals := best.a, best.vals
	// The best pair: the last accepted regression A with the weights its
	// β-step chose for it.
	prep, err := bases.Combine(res.Beta)
	if err != nil {
		return nil, fmt.Errorf("mklsr: %w", err)
	}
	coef := bestA
	if !prep.Dual {
		// Features: the primal coefficients Φᵀ·A of the dual solution A.
		coef = new(mat.Dense)
		coef.Mul(prep.Phi.T(), bestA)
	}
	m.Norm.Apply(prep, coef)
	var train mat.Dense
	train.Mul(prep.Phi, coef)
	return &Fitted{Model: prep.Build(coef), Name: "mklsr", Values: bestVals, Train: &train, Trace: res}, nil
}

// mklPair is an A-step's outcome: the values and dual coefficients A of
// its directions (in-memory: n×k; from statistics: the features' Fᵀ·A)
// and the matrices P, Q of the β-step on A.
type mklPair struct {
	vals []float64
	a    *mat.Dense
	p, q *mat.SymDense
}

// alternate runs Algorithm 1's alternation from equal weights: step(β,
// dims) is the A-step with the weights β (KSR on K̃_β, or its form on
// statistics); the β-step minimises βᵀPβ/βᵀQβ over β ≥ 0, Σβ = 1
// (minRatioNonneg). A pair is accepted only when its ratio does not
// exceed the previous one; the loop stops when it would, when the
// relative decrease falls below Tol, after MaxIter, or when a β-step
// leaves fewer independent directions than the first A-step embedded (the
// last A is then kept with the weights it was solved with). It returns
// the last accepted A-step and the trace, whose Beta are the weights that
// go with it.
func (m MKLSR) alternate(step func(beta []float64, dims int) (*mklPair, error), dims int, report func(string, ...any)) (*mklPair, MKLResult, error) {
	mm := len(m.Kernels)
	beta := make([]float64, mm)
	for i := range beta {
		beta[i] = 1 / float64(mm)
	}
	var res MKLResult
	var best *mklPair
	var solvedWith []float64
	prev := math.Inf(1)
	for it := 1; ; it++ {
		pair, err := step(beta, dims)
		var de *embed.DimsError
		if best != nil && errors.As(err, &de) {
			// A β-step can move all weight off the kernels that gave the
			// combination its rank (features of a few landmarks, a linear
			// kernel on few columns), so that its pair embeds in fewer
			// dimensions: the answer is the last A with the weights it was
			// solved with, and the objective is that pair's.
			res.Beta = solvedWith
			b := mat.NewVecDense(len(solvedWith), solvedWith)
			res.Objective[len(res.Objective)-1] = mat.Inner(b, best.p, b) / mat.Inner(b, best.q, b)
			res.Stop = fmt.Sprintf("the weights of iteration %d's β-step leave %d independent directions, fewer than the %d requested; its A is kept with the weights it was solved with", it-1, de.Available, de.Requested)
			break
		}
		if err != nil {
			return nil, res, fmt.Errorf("mklsr: %w", err)
		}
		if dims == 0 {
			dims = len(pair.vals) // every iteration embeds as many dimensions as the first
		}
		nb, nr, err := minRatioNonneg(pair.p, pair.q)
		if err != nil {
			return nil, res, fmt.Errorf("mklsr: β-step: %w", err)
		}
		if best != nil && nr > prev*(1+1e-12) {
			res.Stop = fmt.Sprintf("the pair of iteration %d would increase the objective (%.6g > %.6g)", it, nr, prev)
			break
		}
		best, res.Beta, solvedWith = pair, nb, beta
		res.Objective = append(res.Objective, nr)
		res.Iterations = it
		report("iteration %d: objective %.6g, β = %.4g", it, nr, nb)
		improved := prev-nr > m.Tol*math.Abs(prev)
		prev, beta = nr, nb
		if !improved && it > 1 {
			res.Stop = "converged (relative decrease below tol)"
			break
		}
		if it >= m.MaxIter {
			res.Stop = "maximum number of iterations"
			break
		}
	}
	report("stopped after %d iterations: %s", res.Iterations, res.Stop)
	return best, res, nil
}

// mklBases are the base kernels of MKL-SR on the training rows: exact
// Gram matrices (embed.KernelBases) or Nyström features
// (embed.NystromBases).
type mklBases interface {
	Combine(w []float64) (*embed.Prepared, error)
	Products(a *mat.Dense) []*mat.Dense
}

func (m MKLSR) bases(ctx context.Context, x *mat.Dense) (mklBases, error) {
	if m.Space.Kind == SpaceNystrom {
		return embed.NewNystromBases(ctx, m.Kernels, x, embed.Nystrom{Landmarks: m.Space.Landmarks, Sampling: m.Space.Sampling, Seed: m.Space.Seed})
	}
	return embed.NewKernelBases(ctx, m.Kernels, x)
}

// dualCoefficients returns the dual coefficients A of the ridge regression
// (K̃_β + γ·I)·A = Y that r solved: the kernel model's own in the exact
// space; on features Φ (K̃_β ≈ Φ·Φᵀ, r.Train = Φ·V) A = (Y − Φ·V)/γ, which
// follows from the same equation with Φ·V = K̃_β·A.
func dualCoefficients(r *embed.Result, prep *embed.Prepared, y *mat.Dense, ridge float64) (*mat.Dense, error) {
	if prep.Dual {
		if km, ok := r.Model.(*embed.KernelModel); ok {
			return km.A, nil
		}
		return nil, fmt.Errorf("unexpected model %T", r.Model)
	}
	if y == nil || r.Train == nil || !(ridge > 0) {
		return nil, errors.New("the feature space's dual coefficients need the responses, the training embedding and the ridge")
	}
	yr, yc := y.Dims()
	zr, zc := r.Train.Dims()
	if yr != zr || len(r.Responses) != zc {
		return nil, fmt.Errorf("%d×%d responses for a %d×%d training embedding from %d of them", yr, yc, zr, zc, len(r.Responses))
	}
	// The directions kept (the first Dims, independent ones) come from
	// these responses.
	a := mat.NewDense(yr, zc, nil)
	for c, j := range r.Responses {
		if j >= yc {
			return nil, fmt.Errorf("direction %d from response %d of %d", c, j, yc)
		}
		a.SetCol(c, mat.Col(nil, j, y))
	}
	a.Sub(a, r.Train)
	a.Scale(1/ridge, a)
	return a, nil
}

// laplacianOf returns L = D − W of the problem's graph (D = I when the
// constraint is nil).
func laplacianOf(p *embed.Problem) graph.Operator {
	n := p.Objective.Size()
	var d graph.Operator = graph.Identity(n)
	if p.Constraint != nil {
		d = p.Constraint
	}
	return graph.Sum{Coef: []float64{1, -1}, Ops: []graph.Operator{d, p.Objective}}
}

// betaMatrices returns P = Σ_d K'_dᵀ·L·K'_d and Q = Σ_d K'_dᵀ·D·K'_d with
// K'_d[:, m] = (K̃ₘ·A)[:, d].
func betaMatrices(cols []*mat.Dense, lap, dgraph graph.Operator) (*mat.SymDense, *mat.SymDense) {
	mm := len(cols)
	p := mat.NewSymDense(mm, nil)
	q := mat.NewSymDense(mm, nil)
	lc := make([]*mat.Dense, mm)
	dc := make([]*mat.Dense, mm)
	for j := range cols {
		lc[j] = lap.Apply(cols[j])
		if dgraph != nil {
			dc[j] = dgraph.Apply(cols[j])
		} else {
			dc[j] = cols[j]
		}
	}
	for i := 0; i < mm; i++ {
		for j := i; j < mm; j++ {
			p.SetSym(i, j, frobDot(cols[i], lc[j]))
			q.SetSym(i, j, frobDot(cols[i], dc[j]))
		}
	}
	return p, q
}

func frobDot(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		ra, rb := a.RawRowView(i), b.RawRowView(i)
		for j := 0; j < c; j++ {
			s += ra[j] * rb[j]
		}
	}
	return s
}

// kernelRatio returns R(A, β) = tr(Aᵀ·K̃_β·L·K̃_β·A)/tr(Aᵀ·K̃_β·D·K̃_β·A).
func kernelRatio(cols []*mat.Dense, beta []float64, lap, dgraph graph.Operator) float64 {
	r, c := cols[0].Dims()
	kb := mat.NewDense(r, c, nil)
	for j, b := range beta {
		if b != 0 {
			var t mat.Dense
			t.Scale(b, cols[j])
			kb.Add(kb, &t)
		}
	}
	num := frobDot(kb, lap.Apply(kb))
	den := frobDot(kb, kb)
	if dgraph != nil {
		den = frobDot(kb, dgraph.Apply(kb))
	}
	return num / den
}

// minRatioNonneg returns β ≥ 0 with Σβ = 1 minimising βᵀPβ / βᵀQβ, and
// the minimum, by enumerating the faces of the orthant (see MKLSR).
func minRatioNonneg(p, q *mat.SymDense) ([]float64, float64, error) {
	mm := p.SymmetricDim()
	if mm > 16 {
		return nil, 0, fmt.Errorf("%d kernels: the exact β-step enumerates 2^M faces; use at most 16", mm)
	}
	best := math.Inf(1)
	var beta []float64
	for mask := 1; mask < 1<<mm; mask++ {
		var s []int
		for j := 0; j < mm; j++ {
			if mask&(1<<j) != 0 {
				s = append(s, j)
			}
		}
		ps := mat.NewSymDense(len(s), nil)
		qs := mat.NewSymDense(len(s), nil)
		for a, i := range s {
			for b := a; b < len(s); b++ {
				ps.SetSym(a, b, p.At(i, s[b]))
				qs.SetSym(a, b, q.At(i, s[b]))
			}
		}
		vals, vecs, err := linalg.GenSymEig(ps, qs, 0, linalg.GenOptions{Order: linalg.Smallest, RankTol: 1e-12})
		if err != nil {
			continue // Q_S not positive definite on this face
		}
		_, k := vecs.Dims()
		for c := 0; c < k; c++ {
			z := mat.Col(nil, c, vecs)
			sum := 0.0
			for _, v := range z {
				sum += v
			}
			if sum < 0 {
				for i := range z {
					z[i] = -z[i]
				}
				sum = -sum
			}
			ok := sum > 0
			for _, v := range z {
				if !(v > 0) {
					ok = false
				}
			}
			if !ok || !(vals[c] < best) {
				continue
			}
			best = vals[c]
			beta = make([]float64, mm)
			for a, i := range s {
				beta[i] = z[a] / sum
			}
		}
	}
	if beta == nil {
		return nil, 0, errors.New("no feasible kernel weights: βᵀQβ vanishes on every face")
	}
	return beta, best, nil
}

func init() {
	Register[MKLSR](Info{
		Name: "mklsr", Title: "Multiple kernel spectral regression", Family: "spectral regression",
		Supervision: "supervised, semi-supervised or unsupervised", Space: "multiple kernels",
		Paper: "seed 002 (Liu, Xia & Zhou 2013) §3, Algorithm 1, eq. 16-23", MaxDims: "C−1 (unsupervised: the dimensions asked for)",
		Values: "by the default regression route, the eigenvalues λ ≤ 1 of the SR graph problem W·y = λ·D·y (eq. 2) for the responses of the final kernel weights, largest first (1 for every class response of a supervised graph); with solver=dense or ritz=true, the values of the regularised graph-embedding problem the directions solve (eq. 19), largest first, not bounded by 1",
	})
}
