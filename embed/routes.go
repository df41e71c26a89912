package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// solve carries one Problem's solve on one Prepared representation.
type solve struct {
	p         *Problem
	prep      *Prepared
	ctx       context.Context
	eigenUsed string
	// k is the number of pairs to compute (0: all).
	k int
	// kept are the indices of the responses whose raw regression
	// directions were kept (Problem.Raw; see dropDependent).
	kept []int
}

// eigs solves A·v = λ·B·v (b nil: B = I) for k pairs (k ≤ 0: all) with the
// problem's eigen-solver, or the one linalg.ChooseEigen picks. Operators
// that hold their matrix (or can form it cheaply) implement
// linalg.Densifier, so a dense solver never applies them to the identity.
func (s *solve) eigs(a, b linalg.SymOperator, k int, order linalg.Order) ([]float64, *mat.Dense, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, nil, err
	}
	all := func() ([]float64, *mat.Dense, error) {
		// Every pair that exists (on range(B) when B is singular): the full
		// dense decompositions.
		s.eigenUsed = "dense"
		progress.Step(s.ctx, a.Dim(), "dense eigen-decomposition of order %d", a.Dim())
		if b == nil {
			return linalg.SymEigContext(s.ctx, linalg.DenseOf(a), 0, order)
		}
		return linalg.GenSymEigContext(s.ctx, linalg.DenseOf(a), linalg.DenseOf(b), 0, linalg.GenOptions{RankTol: s.p.RankTol, Order: order})
	}
	if k <= 0 || k >= a.Dim() {
		return all() // more than exist: selectDims reports how many do
	}
	e := s.p.Eigen
	auto := e == nil
	if auto {
		e = linalg.ChooseEigenFor(a, b, k, s.p.RankTol)
	}
	progress.Step(s.ctx, a.Dim(), "%s eigen-solver: %d pairs of order %d", e.Name(), k, a.Dim())
	if b != nil && !auto && (e.Name() == "lanczos" || e.Name() == "randomized") {
		return nil, nil, fmt.Errorf("eigen=%s solves standard eigenproblems A·v = λ·v only, and this problem is generalized (A·v = λ·B·v: a constraint other than the identity, or a ridge on it); give eigen=lobpcg (iterative, generalized), dense or auto", e.Name())
	}
	r, err := e.Eigs(s.ctx, a, b, k, order)
	if err != nil && auto && s.ctx.Err() == nil {
		// An automatic choice must not turn a solvable problem into an
		// error (an iterative solver refusing a semi-definite B, fewer than
		// k pairs on range(B)): fall back to every pair that exists.
		return all()
	}
	if err != nil {
		return nil, nil, err
	}
	s.eigenUsed = e.Name()
	return r.Values, r.Vectors, nil
}

// graphOp adapts a graph to the operator interface of the solvers.
type graphOp struct{ g graph.Operator }

func (o graphOp) Dim() int { return o.g.Size() }

func (o graphOp) MulBlockTo(dst, src *mat.Dense) { dst.Copy(o.g.Apply(src)) }

func (o graphOp) SymDense() *mat.SymDense { return o.g.Dense() }

// principal solves max tr(VᵀΦᵀΦV) with orthonormal projections directly
// from one symmetric eigenproblem for the wanted number of directions: of
// K̃ (kernel: λ(K̃K̃, K̃) = λ(K̃), v = u/√λ), of ΦᵀΦ (linear, p ≤ n) or of
// ΦΦᵀ (linear, p > n: v = Φᵀu/√λ). The operators are implicit (a product
// with a block costs two passes over Φ), so an iterative solver never
// forms ΦᵀΦ; a dense one forms it with one rank-k update.
func (s *solve) principal() ([]float64, *mat.Dense, error) {
	phi := s.prep.Phi
	n, p := phi.Dims()
	k := s.k
	switch {
	case s.prep.Dual:
		vals, u, err := s.eigs(linalg.FullSymOp{M: phi}, nil, k, s.p.order())
		if err != nil {
			return nil, nil, err
		}
		return scaleByRoot(vals, u, nil)
	case p <= n:
		return s.eigs(linalg.GramOp{X: phi}, nil, k, s.p.order())
	default:
		vals, u, err := s.eigs(linalg.OuterOp{X: phi}, nil, k, s.p.order())
		if err != nil {
			return nil, nil, err
		}
		return scaleByRoot(vals, u, phi)
	}
}

// scaleByRoot returns v = (Φᵀ)u/√λ for positive λ (zero directions get a
// zero column, later dropped by DropZero).
func scaleByRoot(vals []float64, u, phi *mat.Dense) ([]float64, *mat.Dense, error) {
	v := u
	if phi != nil {
		v = new(mat.Dense)
		v.Mul(phi.T(), u)
	} else {
		v = mat.DenseCopyOf(u)
	}
	r, c := v.Dims()
	for j := 0; j < c; j++ {
		s := 0.0
		if vals[j] > 0 {
			s = 1 / math.Sqrt(vals[j])
		}
		for i := 0; i < r; i++ {
			v.Set(i, j, v.At(i, j)*s)
		}
	}
	linalg.FixSigns(v)
	return vals, v, nil
}

// scatter returns Φᵀ·G·Φ, its upper triangle computed from G·Φ
// (linalg.SymTransMul: half a full product's flops). ctx (nil: none)
// reports the product's progress under the name what ("objective
// matrix") and stops it when cancelled; G·Φ reports and stops too when G
// is dense (graph.ApplyContext).
func scatter(ctx context.Context, phi *mat.Dense, g graph.Operator, what string) (*mat.SymDense, error) {
	if graph.IsIdentity(g) {
		return linalg.GramOp{X: phi}.SymDense(), nil
	}
	_, r := phi.Dims()
	gphi, err := graph.ApplyContext(ctx, g, phi)
	if err != nil {
		return nil, err
	}
	return linalg.SymTransMul(ctx, phi, gphi, fmt.Sprintf("%s Φᵀ·G·Φ of order %d", what, r))
}

// metric is the feature-space metric of coefficients: I (linear) or K̃.
func metric(prep *Prepared) *mat.SymDense {
	_, p := prep.Phi.Dims()
	if prep.Dual {
		return linalg.Symmetrize(prep.Phi)
	}
	return graph.Identity(p).Dense()
}

// dense forms the p×p problem (Φᵀ·A·Φ + ε_A·M)·v = λ·(Φᵀ·B·Φ + ε_B·M)·v and
// solves it; in a kernel space it works in explicit feature coordinates
// (dual).
func (s *solve) dense(prep *Prepared) ([]float64, *mat.Dense, error) {
	if prep.Dual {
		return s.dual()
	}
	if n, r := prep.Phi.Dims(); r > n {
		return s.wide(prep)
	}
	p := s.p
	n, r := prep.Phi.Dims()
	progress.Step(s.ctx, r, "objective and constraint matrices Φᵀ·G·Φ of order %d from %d rows", r, n)
	a, err := scatter(s.ctx, prep.Phi, p.Objective, "objective matrix")
	if err != nil {
		return nil, nil, err
	}
	addMetric(a, p.ObjectiveRidge, prep)
	var b *mat.SymDense
	if p.Constraint == nil {
		b = metric(prep)
	} else {
		if b, err = scatter(s.ctx, prep.Phi, p.Constraint, "constraint matrix"); err != nil {
			return nil, nil, err
		}
		addMetric(b, p.Ridge, prep)
	}
	return s.eigs(linalg.SymDenseOp{M: a}, linalg.SymDenseOp{M: b}, s.k, p.order())
}

// dual solves a kernel-space problem densely in the explicit feature
// coordinates Ψ = Q·Λ^{1/2} of K̃ = Q·Λ·Qᵀ (eigenvalues above the rank
// tolerance): K̃ = Ψ·Ψᵀ, so the dual problem over coefficients a = P·w with
// P = Q·Λ^{-1/2} is the linear problem over w with Φ = Ψ, where the
// feature metric is I. Solving in these coordinates keeps the conditioning
// of the linear problem; forming K̃·B·K̃ directly squares the spectrum of K̃
// and a rank cut on it would drop genuine directions.
func (s *solve) dual() ([]float64, *mat.Dense, error) {
	psi, back, err := DualFeatures(s.ctx, s.prep.Phi, s.p.RankTol)
	if err != nil {
		return nil, nil, err
	}
	feat := &Prepared{Phi: psi, scale: s.prep.scale}
	vals, w, err := s.dense(feat)
	if err != nil {
		return nil, nil, err
	}
	var coef mat.Dense
	coef.Mul(back, w)
	linalg.FixSigns(&coef)
	return vals, &coef, nil
}

// wide solves a linear problem with more columns than rows (p > n)
// densely on the span of the rows, as dual does for a kernel: with
// ΦΦᵀ = Q·Λ·Qᵀ, the coordinates Ψ = Q_r·Λ_r^{1/2} (n×r) and directions
// v = Φᵀ·Q_r·Λ_r^{-1/2}·w, which are orthonormal in w's metric, so the
// ridge ε·I and unit lengths carry over. A direction outside the span maps
// every row to zero and adds only ε·I to both sides, so it is never a
// solution with a nonzero objective. The p×p matrices are never formed
// (20 000 columns: 3.2 GB each, and LDA with a ridge on 300 such rows ran
// 14 minutes at 16 GB).
func (s *solve) wide(prep *Prepared) ([]float64, *mat.Dense, error) {
	psi, back, err := DualFeatures(s.ctx, mat.DenseCopyOf(linalg.OuterOp{X: prep.Phi}.SymDense()), s.p.RankTol)
	if err != nil {
		return nil, nil, err
	}
	vals, w, err := s.dense(&Prepared{Phi: psi, scale: prep.scale})
	if err != nil {
		return nil, nil, err
	}
	var coef, v mat.Dense
	coef.Mul(back, w)
	v.Mul(prep.Phi.T(), &coef)
	linalg.FixSigns(&v)
	return vals, &v, nil
}

// DualFeatures returns, for a centred Gram matrix K̃ = Q·Λ·Qᵀ, the explicit
// feature coordinates Ψ = Q_r·Λ_r^{1/2} (n×r, K̃ = ΨΨᵀ on its range) and the
// map P = Q_r·Λ_r^{-1/2} from feature-coordinate directions w to dual
// coefficients a = P·w, over the r eigenvalues above tol·λ_max (tol 0:
// 1e-10). ctx announces the step (progress.Step), reports the
// decomposition's progress and cancels it (linalg.SymEigContext).
func DualFeatures(ctx context.Context, k *mat.Dense, tol float64) (psi, back *mat.Dense, err error) {
	if tol == 0 {
		tol = 1e-10
	}
	n, _ := k.Dims()
	progress.Step(ctx, n, "feature coordinates: eigen-decomposition of the %d×%d centred kernel matrix", n, n)
	vals, q, err := linalg.SymEigContext(ctx, linalg.SymView(k), 0, linalg.Largest)
	if err != nil {
		return nil, nil, err
	}
	r := 0
	for r < len(vals) && vals[r] > tol*vals[0] {
		r++
	}
	if r == 0 {
		return nil, nil, errors.New("embed: the centred Gram matrix is zero (all rows coincide in feature space)")
	}
	psi = mat.NewDense(n, r, nil)
	back = mat.NewDense(n, r, nil)
	for j := 0; j < r; j++ {
		s := math.Sqrt(vals[j])
		for i := 0; i < n; i++ {
			psi.Set(i, j, q.At(i, j)*s)
			back.Set(i, j, q.At(i, j)/s)
		}
	}
	return psi, back, nil
}

// addMetric adds eps times the feature-space metric (K̃ in the dual, I in
// the primal) to s in place, without forming the metric.
func addMetric(s *mat.SymDense, eps float64, prep *Prepared) {
	if eps == 0 {
		return
	}
	n := s.SymmetricDim()
	raw := s.RawSymmetric()
	if !prep.Dual {
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] += eps
		}
		return
	}
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		k := prep.Phi.RawRowView(i)
		for j := i; j < n; j++ {
			row[j] += eps * k[j]
		}
	}
}

// Features returns the representation in explicit coordinates of full
// column rank, in which the feature metric is I. For a kernel
// representation (Dual): Φ = Ψ = Q_r·Λ_r^{1/2} of K̃ (DualFeatures,
// eigenvalues above tol·λ_max; tol 0: 1e-10), and Build maps directions w
// to the dual coefficients a = Q_r·Λ_r^{-1/2}·w of the kernel model
// (Φ·w = K̃·a: the training embedding is unchanged). For a feature
// representation (linear, Nyström): Φ·V_r with V_r the eigenvectors of ΦᵀΦ
// above tol·λ_max (the range of Φ; directions outside it map every row to
// zero), and Build maps w to V_r·w. A problem solved on the result has the
// solution the dense route gives on p restricted to the range (the dual
// route makes the same change of coordinates internally), but the
// decomposition is done once here rather than on every solve: iterative
// methods that solve many problems on one representation (seed 003's EM)
// use it. ctx reports the decomposition's progress and cancels it
// (linalg.SymEigContext).
func (p *Prepared) Features(ctx context.Context, tol float64) (*Prepared, error) {
	build := p.Build
	if !p.Dual {
		if tol == 0 {
			tol = 1e-10
		}
		vals, v, err := linalg.SymEigContext(ctx, linalg.GramOp{X: p.Phi}.SymDense(), 0, linalg.Largest)
		if err != nil {
			return nil, err
		}
		r := 0
		for r < len(vals) && vals[r] > tol*vals[0] {
			r++
		}
		if r == 0 {
			return nil, errors.New("embed: the training representation is zero")
		}
		_, pdim := p.Phi.Dims()
		vr := mat.DenseCopyOf(v.Slice(0, pdim, 0, r))
		var phi mat.Dense
		phi.Mul(p.Phi, vr)
		return &Prepared{Phi: &phi, Build: func(w *mat.Dense) Model {
			var a mat.Dense
			a.Mul(vr, w)
			return build(&a)
		}, Space: p.Space + " (range coordinates)", NoRows: p.NoRows, scale: p.scale}, nil
	}
	psi, back, err := DualFeatures(ctx, p.Phi, tol)
	if err != nil {
		return nil, err
	}
	return &Prepared{Phi: psi, Build: func(w *mat.Dense) Model {
		var a mat.Dense
		a.Mul(back, w)
		return build(&a)
	}, Space: p.Space + " (feature coordinates)", NoRows: p.NoRows, scale: p.scale}, nil
}
