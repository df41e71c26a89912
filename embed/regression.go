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

// GraphResponses returns the graph eigenvectors y of A·y = λ·B·y in ℝⁿ used by
// spectral regression (seed 002 §2, eq. 2): the objective graph A of p
// with the constraint B (nil: I), at the end of the spectrum p asks for:
// of a maximisation without the (numerically) zero eigenvalues (A's null
// space, useless), of a minimisation (p.Minimize, LPP-type) with them but
// without the constant vector (one more pair is computed for it), since
// there eigenvalue 0 is the best value (one per connected component).
// Graphs with a closed-form
// spectrum (graph.ClosedForm: class-block graphs, with an identity
// constraint) reduce to a C×C problem on the class indicators; other
// graphs go to the problem's eigen-solver on the implicit graph operators
// (a sparse graph is never densified by an iterative solver). It is a
// public step so that spectral clustering and multiple-kernel learning can
// reuse the responses.
func (p *Problem) GraphResponses(ctx context.Context, n int) (*mat.Dense, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.checkSizes(n); err != nil {
		return nil, err
	}
	s := &solve{p: p, ctx: ctx}
	return s.responses(n)
}

func (s *solve) responses(n int) (*mat.Dense, error) {
	_, y, err := s.responsePairs(n)
	return y, err
}

// responsePairs returns the responses and their eigenvalues.
func (s *solve) responsePairs(n int) ([]float64, *mat.Dense, error) {
	p := s.p
	if p.Given != nil {
		return p.givenPairs(), p.Given, nil
	}
	var vals []float64
	var y *mat.Dense
	err := errors.New("no closed form")
	if cf, ok := p.Objective.(graph.ClosedForm); ok && (p.Constraint == nil || graph.IsIdentity(p.Constraint)) {
		vals, y, err = cf.ClosedFormEig(p.Responses, p.order())
	}
	if err != nil {
		k := p.Responses
		if k == 0 {
			k = s.k
		}
		if p.Minimize && k > 0 {
			k++ // the constant vector, dropped below
		}
		if vals, y, err = s.graphEigs(k); err != nil {
			return nil, nil, err
		}
	}
	var keep []int
	if p.Minimize {
		// The wanted responses of a minimisation (L·y = λ·D·y, LPP-type)
		// are its smallest eigenvectors, and eigenvalue 0 is the best
		// value there: every connected component of the graph gives one
		// (the class indicators of a supervised graph). Only the constant
		// vector is trivial (a centred representation maps it to zero);
		// it is projected out, and the zero-eigenvalue responses kept.
		keep = make([]int, len(vals))
		for j := range keep {
			keep[j] = j
		}
		vals, y, keep = dropConstant(vals, y, keep, p.Constraint)
	} else {
		keep = nonzero(vals)
		if p.DropConstant {
			vals, y, keep = dropConstant(vals, y, keep, p.Constraint)
		}
	}
	if len(keep) == 0 {
		return nil, nil, nil
	}
	r, _ := y.Dims()
	out := mat.NewDense(r, len(keep), nil)
	kv := make([]float64, len(keep))
	for c, j := range keep {
		out.SetCol(c, mat.Col(nil, j, y))
		kv[c] = vals[j]
	}
	return kv, out, nil
}

// givenPairs returns the Rayleigh quotients yᵀAy/yᵀBy of the given
// responses (B = I when the constraint is nil).
func (p *Problem) givenPairs() []float64 {
	ay := p.Objective.Apply(p.Given)
	by := p.Given
	if p.Constraint != nil {
		by = p.Constraint.Apply(p.Given)
	}
	_, r := p.Given.Dims()
	vals := make([]float64, r)
	for j := range vals {
		y := p.Given.ColView(j)
		vals[j] = mat.Dot(y, ay.ColView(j)) / mat.Dot(y, by.ColView(j))
	}
	return vals
}

// graphEigs returns k pairs of A·y = λ·B·y for the problem's graphs. A
// sparse objective (CSR, class blocks, sums of them) with a positive
// diagonal constraint D — the SR graph, a kNN graph and its degrees — is
// solved as the standard problem D^{-1/2}·A·D^{-1/2}·u = λ·u, y = D^{-1/2}·u,
// by Lanczos on the implicit operator (a product costs O(nnz + n·C), never
// an n×n matrix) unless the problem is small or the user chose a solver;
// anything else goes to the engine's eigen-solver on the graph operators.
func (s *solve) graphEigs(k int) ([]float64, *mat.Dense, error) {
	p := s.p
	n := p.Objective.Size()
	d, diag := p.Constraint.(graph.Diagonal)
	if p.Constraint == nil || graph.IsIdentity(p.Constraint) {
		diag, d = true, nil
	}
	if diag && cheap(p.Objective) && p.Eigen == nil && k > 0 && n >= 200 && 10*k <= n {
		isq := make([]float64, n)
		for i := range isq {
			isq[i] = 1
			if d != nil {
				if !(d[i] > 0) {
					return nil, nil, fmt.Errorf("embed: the constraint's diagonal entry %d is %v; it must be positive", i+1, d[i])
				}
				isq[i] = 1 / math.Sqrt(d[i])
			}
		}
		scale := func(m *mat.Dense) {
			r, c := m.Dims()
			for i := 0; i < r; i++ {
				row := m.RawRowView(i)
				for j := 0; j < c; j++ {
					row[j] *= isq[i]
				}
			}
		}
		op := linalg.FuncOp{N: n, Mul: func(dst, src *mat.Dense) {
			t := mat.DenseCopyOf(src)
			scale(t)
			dst.Copy(p.Objective.Apply(t))
			scale(dst)
		}}
		r, err := linalg.Lanczos{}.Eigs(s.ctx, op, nil, k, p.order())
		if err == nil {
			s.eigenUsed = "lanczos"
			scale(r.Vectors)
			return r.Values, r.Vectors, nil
		}
		if s.ctx.Err() != nil {
			return nil, nil, err
		}
	}
	var b linalg.SymOperator
	if p.Constraint != nil && !graph.IsIdentity(p.Constraint) {
		b = graphOp{p.Constraint}
	}
	return s.eigs(graphOp{p.Objective}, b, k, p.order())
}

// cheap reports whether products with the graph cost O(nnz + n·C):
// identity, diagonal, class-block and sparse graphs, and sums of them.
func cheap(g graph.Operator) bool {
	switch t := g.(type) {
	case graph.Identity, graph.Diagonal, *graph.ClassBlock, graph.Sparse:
		return true
	case graph.Sum:
		for _, o := range t.Ops {
			if !cheap(o) {
				return false
			}
		}
		return true
	}
	return false
}

// dropConstant projects the columns keep of y on the B-orthogonal
// complement of the constant vector: the columns with a constant
// component are projected, orthonormalised among themselves in the
// B-inner product in order (modified Gram–Schmidt; the others are
// B-orthogonal to them already) and dropped when they vanish (norm below
// 1e-8 of their norm before projection); the others are kept as they are.
// (With B·1 = 0 the constant is removed in the Euclidean sense, and every
// column is orthonormalised against all kept before it.)
func dropConstant(vals []float64, y *mat.Dense, keep []int, b graph.Operator) ([]float64, *mat.Dense, []int) {
	n, _ := y.Dims()
	ones := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		ones.Set(i, 0, 1)
	}
	bw := ones
	if b != nil && !graph.IsIdentity(b) {
		bw = b.Apply(ones)
	}
	weights := mat.Col(nil, 0, bw) // B·1 (B is symmetric)
	bdot := func(u, v []float64) float64 {
		s := 0.0
		for i := range u {
			s += u[i] * v[i] * weights[i]
		}
		return s
	}
	bv := func(v []float64) []float64 { // B·v for a diagonal-or-identity B
		if b == nil || graph.IsIdentity(b) {
			return v
		}
		out := b.Apply(mat.NewDense(n, 1, append([]float64(nil), v...)))
		return mat.Col(nil, 0, out)
	}
	one := mat.Col(nil, 0, ones)
	oneB := bdot(one, one)
	euclid := false // the constant removed in the Euclidean sense (below)
	if !(oneB > 1e-12*float64(n)) {
		// B·1 = 0 (a Laplacian constraint, MFA's penalty graph): every
		// vector is B-orthogonal to 1; the constant is removed in the
		// Euclidean sense instead (the mean of each response).
		for i := range weights {
			weights[i] = 1
		}
		oneB, euclid = float64(n), true
	}
	var cols, moved [][]float64 // kept columns; those the projection changed
	var out []int
	for _, j := range keep {
		v := mat.Col(nil, j, y)
		norm0 := dotB(v, bv(v))
		c := 0.0
		for i := range v {
			c += v[i] * weights[i]
		}
		c /= oneB
		if !euclid && c*c*oneB <= 1e-16*norm0 {
			// B-orthogonal to 1 already: an eigenvector of another
			// eigenvalue than the constant's, B-orthonormal to the other
			// columns, and the projection of those below keeps it so; no
			// Gram–Schmidt over every column (O(n³) with all of them).
			cols = append(cols, v)
			out = append(out, j)
			continue
		}
		for i := range v {
			v[i] -= c
		}
		against := moved // the projected columns span the constant's eigenspace
		if euclid {
			against = cols
		}
		for _, u := range against {
			d := dotB(u, bv(v))
			for i := range v {
				v[i] -= d * u[i]
			}
		}
		nv := dotB(v, bv(v))
		if !(nv > 1e-16*norm0) {
			continue
		}
		s := 1 / sqrt(nv)
		for i := range v {
			v[i] *= s
		}
		cols = append(cols, v)
		moved = append(moved, v)
		out = append(out, j)
	}
	if len(cols) == 0 {
		return vals, y, nil
	}
	// The kept columns replace those of y at their positions.
	ny := mat.DenseCopyOf(y)
	for c, j := range out {
		ny.SetCol(j, cols[c])
	}
	return vals, ny, out
}

func dotB(u, bv []float64) float64 {
	s := 0.0
	for i := range u {
		s += u[i] * bv[i]
	}
	return s
}

// nonzero returns the indices of the (numerically) nonzero eigenvalues.
func nonzero(vals []float64) []int {
	big := 0.0
	for _, v := range vals {
		big = max(big, abs(v))
	}
	var keep []int
	for j, v := range vals {
		if abs(v) > 1e-10*big {
			keep = append(keep, j)
		}
	}
	return keep
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// regressionAlpha is the ridge of the regression step: p.Ridge, or when
// that is zero a numerical safeguard of 1e-10 times the mean diagonal of
// ΦᵀΦ (linear: ‖Φ‖²_F/p) or K̃ (kernel), which leaves the solution the
// minimum-norm interpolant for practical purposes.
func (p *Problem) regressionAlpha(prep *Prepared) float64 {
	if p.Ridge > 0 {
		return p.Ridge
	}
	n, q := prep.Phi.Dims()
	if prep.Dual {
		return 1e-10 * prep.Scale()
	}
	return 1e-10 * prep.Scale() * float64(n) / float64(q)
}

// regression is the spectral-regression route: responses y, then the
// ridge regression (K̃ + αI)·V = Y (kernel) or (ΦᵀΦ + αI)·V = Φᵀ·Y
// (linear) by the problem's linear solver (a Cholesky factorisation by
// default, linalg.ChooseLinear), then a Rayleigh–Ritz step.
func (s *solve) regression() ([]float64, *mat.Dense, error) {
	prep := s.prep
	n, _ := prep.Phi.Dims()
	vals, y, err := s.responsePairs(n)
	if err != nil {
		return nil, nil, err
	}
	if y == nil {
		return nil, nil, errors.New("embed: the graph has no non-degenerate eigenvector")
	}
	alpha := s.p.regressionAlpha(prep)
	var lhs linalg.SymOperator
	rhs := y
	if prep.Dual {
		lhs = linalg.ShiftOp{A: linalg.FullSymOp{M: prep.Phi}, Sigma: alpha}
	} else {
		var g linalg.SymOperator = linalg.GramOp{X: prep.Phi}
		if prep.cross != nil {
			g = linalg.SymDenseOp{M: prep.cross} // ΦᵀΦ the space already had
		}
		lhs = linalg.ShiftOp{A: g, Sigma: alpha}
		rhs = new(mat.Dense)
		rhs.Mul(prep.Phi.T(), y)
	}
	ls := s.p.Linear
	if ls == nil {
		ls = linalg.ChooseLinear(lhs.Dim())
	}
	progress.Step(s.ctx, lhs.Dim(), "regression: %s solve of order %d", ls.Name(), lhs.Dim())
	v, _, err := ls.Solve(s.ctx, lhs, rhs)
	if err != nil {
		var nc *linalg.NotConvergedError
		if errors.As(err, &nc) || errors.Is(err, s.ctx.Err()) && s.ctx.Err() != nil {
			return nil, nil, fmt.Errorf("embed: regression solve: %w", err)
		}
		if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
			return nil, nil, fmt.Errorf("embed: the ridge is %v because the training representation is not finite (a kernel width or data scale out of range?): %v", alpha, err)
		}
		return nil, nil, fmt.Errorf("embed: regression matrix is not positive definite (ridge %g): %v; increase alpha", alpha, err)
	}
	if s.p.Raw {
		// More responses than the representation's rank give dependent
		// directions: keep the independent ones (their images Φ·V).
		var pv mat.Dense
		pv.Mul(prep.Phi, v)
		g := mat.NewSymDense(pv.RawMatrix().Cols, nil)
		g.SymOuterK(1, pv.T())
		vals, v, s.kept, err = dropDependent(vals, v, g, s.p.RankTol)
		return vals, v, err
	}
	return s.ritz(v)
}

// ritz orders (and rotates) the directions spanned by the columns of v by
// the original problem restricted to their span: with Sa = Vᵀ·Φᵀ·A·Φ·V and
// Sb = Vᵀ·(Φᵀ·B·Φ + ε·M)·V (M the feature metric; Sb = VᵀMV when B is nil), solve Sa·z = λ·Sb·z and
// return V·z. This fixes the order of directions inside degenerate
// eigenspaces of the graph, where spectral regression alone leaves it
// arbitrary.
func (s *solve) ritz(v *mat.Dense) ([]float64, *mat.Dense, error) {
	p, prep := s.p, s.prep
	var pv mat.Dense
	pv.Mul(prep.Phi, v) // n×k projections of the training rows
	var sa mat.Dense
	sa.Mul(pv.T(), p.Objective.Apply(&pv))
	// Vᵀ·M·V for the feature metric M (K̃ or I).
	var vmv mat.Dense
	if prep.Dual {
		vmv.Mul(v.T(), &pv)
	} else {
		vmv.Mul(v.T(), v)
	}
	if p.ObjectiveRidge != 0 {
		addScaled(&sa, p.ObjectiveRidge, &vmv)
	}
	var sb mat.Dense
	if p.Constraint != nil {
		sb.Mul(pv.T(), p.Constraint.Apply(&pv))
		if p.Ridge != 0 {
			addScaled(&sb, p.Ridge, &vmv)
		}
	} else {
		sb.CloneFrom(&vmv)
	}
	vals, z, err := linalg.GenSymEig(linalg.Symmetrize(&sa), linalg.Symmetrize(&sb), 0, linalg.GenOptions{Order: p.order()})
	if err != nil {
		return nil, nil, err
	}
	var out mat.Dense
	out.Mul(v, z)
	linalg.FixSigns(&out)
	return vals, &out, nil
}

// addScaled sets a = a + f·b.
func addScaled(a *mat.Dense, f float64, b *mat.Dense) {
	var t mat.Dense
	t.Scale(f, b)
	a.Add(a, &t)
}
