package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// Tests of the engine (problem.go, regression.go, space.go, model.go)
// against independent computations: textbook scatter sums solved through a
// Cholesky reduction written here, symmetric eigen-decompositions of the
// scatter (gonum's EigenSym called directly), and sequential application of
// models. Subspaces are compared by principal angles, never by signs.

func engIris(t *testing.T) (*mat.Dense, []int) {
	t.Helper()
	ds, err := data.Load(testdata.Path(t, "data/uci/iris.arff"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, d := ds.X.Dims(); n != 150 || d != 4 {
		t.Fatalf("iris is %d×%d, want 150×4", n, d)
	}
	return ds.X, ds.Y
}

func engRand(rng *rand.Rand, n, d int) *mat.Dense { return testdata.Normal(rng, n, d) }

// engMaxAngle is the largest principal angle (radians) between the column
// spaces of a and b.
func engMaxAngle(t *testing.T, a, b mat.Matrix) float64 {
	t.Helper()
	ang, err := linalg.PrincipalAngles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return ang[len(ang)-1]
}

func engCoef(t *testing.T, m Model) *mat.Dense {
	t.Helper()
	switch m := m.(type) {
	case *LinearModel:
		return m.W
	case *KernelModel:
		return m.A
	}
	t.Fatalf("unexpected model %T", m)
	return nil
}

// engTrainZ returns Φ·V, the projections of the training rows (for kernel
// models this identifies the feature-space directions: two coefficient
// vectors with the same K̃·a are the same direction Σ aᵢ·φ̃(xᵢ)).
func engTrainZ(t *testing.T, sp Space, x *mat.Dense, m Model) *mat.Dense {
	t.Helper()
	rep, err := sp.Prepare(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	var z mat.Dense
	z.Mul(rep.Phi, engCoef(t, m))
	return &z
}

func engBitEqual(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := 0; i < ra; i++ {
		for j := 0; j < ca; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

func engMaxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}

func engMaxAbs(a mat.Matrix) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)))
		}
	}
	return d
}

// (a) LDA as a Problem (Linear space, Objective BetweenClass, Constraint
// WithinClass, Dense solver) equals the generalized eigen-solution of the
// textbook scatter matrices S_b·v = λ·S_w·v: eigenvalues to 1e-9
// (relative), residuals ‖S_b·w − λ·S_w·w‖ ≤ 1e-10·‖S_b‖·‖w‖, the
// constraint WᵀS_wW = I to 1e-9, and principal angles ≤ 1e-7 rad. Run on
// iris and on random data with unlabeled (−1) rows, which the class graphs
// must ignore (S_b and S_w over the labelled rows only).
func TestFitLDAEqualsDirectScatterSolution(t *testing.T) {
	xi, yi := engIris(t)
	rng := rand.New(rand.NewPCG(11, 12))
	xr := engRand(rng, 70, 5)
	yr := make([]int, 70)
	for i := range yr {
		yr[i] = i % 3
		if i%7 == 0 {
			yr[i] = -1
		}
		for j := 0; j < 5; j++ { // class-dependent shifts
			if yr[i] >= 0 {
				xr.Set(i, j, xr.At(i, j)+float64((yr[i]+1)*(j%3)))
			}
		}
	}
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		y    []int
	}{{"iris", xi, yi}, {"random with unlabeled rows", xr, yr}} {
		t.Run(tc.name, func(t *testing.T) {
			sb, sw := testdata.ClassScatters(tc.x, tc.y)
			wantVals, wantV := testdata.CholGenEig(t, sb, sw)
			p := &Problem{Space: Linear{}, Objective: graph.BetweenClass(tc.y), Constraint: graph.WithinClass(tc.y),
				Solver: Dense, MaxDims: 2}
			res, err := p.Fit(tc.x)
			if err != nil {
				t.Fatal(err)
			}
			if res.Solver != Dense {
				t.Errorf("solver %q, want dense", res.Solver)
			}
			w := res.Model.(*LinearModel).W
			d, k := w.Dims()
			if k != 2 || len(res.Values) != 2 {
				t.Fatalf("%d directions, %d values; want C−1 = 2", k, len(res.Values))
			}
			for j := 0; j < k; j++ {
				if math.Abs(res.Values[j]-wantVals[j]) > 1e-9*wantVals[0] {
					t.Errorf("λ%d = %.15g, direct %.15g", j+1, res.Values[j], wantVals[j])
				}
				wj := mat.NewVecDense(d, mat.Col(nil, j, w))
				var sbw, sww mat.VecDense
				sbw.MulVec(sb, wj)
				sww.MulVec(sw, wj)
				sww.ScaleVec(res.Values[j], &sww)
				sbw.SubVec(&sbw, &sww)
				if r := mat.Norm(&sbw, 2) / (mat.Norm(sb, 2) * mat.Norm(wj, 2)); r > 1e-10 {
					t.Errorf("direction %d: relative residual ‖S_b w − λ S_w w‖ = %.3g", j+1, r)
				}
			}
			var wt, wsw mat.Dense
			wt.Mul(w.T(), sw)
			wsw.Mul(&wt, w)
			if e := engMaxAbsDiff(&wsw, graph.Identity(k).Dense()); e > 1e-9 {
				t.Errorf("WᵀS_wW differs from I by %.3g", e)
			}
			if a := engMaxAngle(t, w, wantV.Slice(0, d, 0, 2)); a > 1e-7 {
				t.Errorf("principal angle %.3g rad between engine and direct subspaces", a)
			}
			// The remaining d−2 generalized eigenvalues are zero (rank S_b = C−1),
			// so MaxDims = C−1 keeps exactly the non-degenerate ones.
			for j := 2; j < len(wantVals); j++ {
				if math.Abs(wantVals[j]) > 1e-10*wantVals[0] {
					t.Errorf("direct λ%d = %g, want 0 (rank S_b = 2)", j+1, wantVals[j])
				}
			}
		})
	}
}

// engMinmax scales every column to [−1, 1] (the seed 000 protocol).
func engMinmax(x *mat.Dense) *mat.Dense { return testdata.MinMax(x) }

// engKernelDirect solves the kernel problem
//
//	K̃·A·K̃·a = λ·(K̃·B·K̃ + ε·K̃)·a
//
// independently of the engine: K̃ = U·Λ·Uᵀ is formed and diagonalised here,
// a = U_r·c is restricted to range(K̃) with the rank cut applied to K̃
// itself (μ > 1e-10·μ_max; directions below map every point to ≈ 0), and
// the r×r problem (Λ_rU_rᵀAU_rΛ_r)·c = λ·(Λ_rU_rᵀBU_rΛ_r + ε·Λ_r)·c is
// solved by the Cholesky reduction of testdata.CholGenEig. It returns the top k
// values and the transform of xn.
func engKernelDirect(t *testing.T, k kernel.Kernel, x, xn *mat.Dense, a, b *mat.SymDense, eps float64, kk int) ([]float64, *mat.Dense) {
	t.Helper()
	n, _ := x.Dims()
	g, err := k.Gram(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Centre by H·K·H with H = I − 11ᵀ/n, formed explicitly.
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			h.Set(i, j, -1/float64(n))
		}
		h.Set(i, i, 1-1/float64(n))
	}
	var hk, kc mat.Dense
	hk.Mul(h, g)
	kc.Mul(&hk, h)
	var es mat.EigenSym
	if !es.Factorize(linalg.Symmetrize(&kc), true) {
		t.Fatal("EigenSym failed")
	}
	mu := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	var keep []int
	for j := range mu {
		if mu[j] > 1e-10*mu[n-1] {
			keep = append(keep, j)
		}
	}
	r := len(keep)
	psi := mat.NewDense(n, r, nil) // K̃·U_r = U_r·Λ_r
	for c, j := range keep {
		for i := 0; i < n; i++ {
			psi.Set(i, c, u.At(i, j)*mu[j])
		}
	}
	var ta, ar, tb, br mat.Dense
	ta.Mul(a, psi)
	ar.Mul(psi.T(), &ta)
	tb.Mul(b, psi)
	br.Mul(psi.T(), &tb)
	for c, j := range keep {
		br.Set(c, c, br.At(c, c)+eps*mu[j])
	}
	vals, cz := testdata.CholGenEig(t, linalg.Symmetrize(&ar), linalg.Symmetrize(&br))
	ur := mat.NewDense(n, r, nil)
	for c, j := range keep {
		ur.SetCol(c, mat.Col(nil, j, &u))
	}
	var coef mat.Dense
	coef.Mul(ur, cz.Slice(0, r, 0, kk))
	// Test rows: k̃(x) = (k(x) − 1ᵀK/n)·H, i.e. centred like the training Gram.
	kt, err := k.Gram(xn, x)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := xn.Dims()
	colMean := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			colMean[j] += g.At(i, j) / float64(n)
		}
	}
	ktc := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			ktc.Set(i, j, kt.At(i, j)-colMean[j])
		}
	}
	var ktcH, z mat.Dense
	ktcH.Mul(ktc, h)
	z.Mul(&ktcH, &coef)
	return vals[:kk], &z
}

// (b) Dense vs Regression solvers for Objective BetweenClass(y) +
// Constraint Identity(n) + Ridge ε: the doc comment of Problem.Ridge (and
// of GDA) claims their subspaces coincide exactly because the between-class
// graph is a projection.
//
// Linear space (raw iris): same eigenvalues (1e-12 relative) and subspace
// (angles of the training projections and of new rows ≤ 1e-7 rad).
//
// Kernel space (iris scaled to [−1, 1], RBF σ = 1 as in seed 000, ε = α·mean
// diag K̃ for α = 0.1, GDA's default, and 0.01): both solvers are compared
// with an independent dense solution restricted to range(K̃)
// (engKernelDirect): eigenvalues to 1e-7 relative, transforms of new rows to
// 2e-5 rad. The Regression route meets this; see the report for the Dense
// route.
//
// Sensitivity (the test can fail): with a non-identity constraint (a random
// dense positive-definite graph B) the two solvers disagree by > 0.1 rad,
// asserted. Finding: with B = I they also agree for a random low-rank
// *non-projection* objective (asserted): the Regression route keeps every
// nonzero response and ends with a Rayleigh–Ritz step on the original
// objective, and every dense solution with λ ≠ 0 lies in the span
// (ΦᵀΦ + εI)⁻¹Φᵀ·range(A) of the regressed responses, so the
// "projection" condition is sufficient, not necessary. What a projection
// buys is that each raw regressed response is already in the solution
// space; for the non-projection graph the raw regression of its top
// eigenvector is not the dense top direction (asserted).
func TestRegressionMatchesDense(t *testing.T) {
	xRaw, y := engIris(t)
	n, _ := xRaw.Dims()
	rng := rand.New(rand.NewPCG(3, 4))
	// A random rank-3 PSD graph with eigenvalues 1, 4, 9: not a projection.
	var qr mat.QR
	qr.Factorize(engRand(rng, n, 3))
	var qq mat.Dense
	qr.QTo(&qq)
	f := mat.DenseCopyOf(qq.Slice(0, n, 0, 3))
	for j := 0; j < 3; j++ {
		for i := 0; i < n; i++ {
			f.Set(i, j, f.At(i, j)*float64(j+1))
		}
	}
	var ff mat.Dense
	ff.Mul(f, f.T())
	randA := graph.Dense{M: linalg.Symmetrize(&ff)}
	randB := graph.Dense{M: randPSD(rng, n, n)}
	between := graph.BetweenClass(y)
	id := graph.Operator(graph.Identity(n))

	// Premise: the between-class graph is a projection, randA is not.
	projErr := func(g graph.Operator) float64 {
		gd := g.Dense()
		var g2 mat.Dense
		g2.Mul(gd, gd)
		return engMaxAbsDiff(&g2, gd) / engMaxAbs(gd)
	}
	if e := projErr(between); e > 1e-12 {
		t.Fatalf("BetweenClass is not a projection: ‖G²−G‖/‖G‖ = %g", e)
	}
	if e := projErr(randA); e < 0.1 {
		t.Fatalf("random graph is (nearly) a projection: %g", e)
	}

	type pair struct {
		d, r *Result
	}
	fitBoth := func(t *testing.T, sp Space, x *mat.Dense, obj, con graph.Operator, ridge float64) pair {
		t.Helper()
		var out [2]*Result
		for i, s := range []Solver{Dense, Regression} {
			// Every response of nonzero eigenvalue (the random graph has
			// rank 3): Theorem 1's exactness condition.
			p := &Problem{Space: sp, Objective: obj, Constraint: con, Ridge: ridge, Solver: s, MaxDims: 2, Responses: 3}
			r, err := p.Fit(x)
			if err != nil {
				t.Fatalf("%s %s: %v", sp.Name(), s, err)
			}
			if r.Solver != s || len(r.Values) != 2 {
				t.Fatalf("solver %q with %d values, want %q with 2", r.Solver, len(r.Values), s)
			}
			out[i] = r
		}
		return pair{out[0], out[1]}
	}
	transform := func(t *testing.T, m Model, x *mat.Dense) *mat.Dense {
		t.Helper()
		z, err := m.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	relDiff := func(a, b []float64) float64 {
		e := 0.0
		for j := range b {
			e = math.Max(e, math.Abs(a[j]-b[j])/math.Abs(b[0]))
		}
		return e
	}
	perturbed := func(x *mat.Dense, s float64) *mat.Dense {
		out := mat.DenseCopyOf(x.Slice(0, 40, 0, 4))
		for i := 0; i < 40; i++ {
			for j := 0; j < 4; j++ {
				out.Set(i, j, out.At(i, j)+s*rng.NormFloat64())
			}
		}
		return out
	}

	t.Run("linear", func(t *testing.T) {
		x := xRaw
		xn := perturbed(x, 0.3)
		for _, tc := range []struct {
			name string
			obj  graph.Operator
		}{{"between-class", between}, {"random rank-3", randA}} {
			p := fitBoth(t, Linear{}, x, tc.obj, id, 0.5)
			aTrain := engMaxAngle(t, engTrainZ(t, Linear{}, x, p.d.Model), engTrainZ(t, Linear{}, x, p.r.Model))
			aNew := engMaxAngle(t, transform(t, p.d.Model, xn), transform(t, p.r.Model, xn))
			rel := relDiff(p.d.Values, p.r.Values)
			t.Logf("%s, B=I: angles train %.3g new %.3g rad, values rel diff %.2g", tc.name, aTrain, aNew, rel)
			if aTrain > 1e-7 || aNew > 1e-7 || rel > 1e-12 {
				t.Errorf("%s, B=I: dense and regression differ: angles %.3g / %.3g rad, values %.3g", tc.name, aTrain, aNew, rel)
			}
		}
		p := fitBoth(t, Linear{}, x, between, randB, 0.5)
		if a := engMaxAngle(t, transform(t, p.d.Model, xn), transform(t, p.r.Model, xn)); a < 0.1 {
			t.Errorf("random constraint: solvers agree (%.3g rad); the comparison cannot discriminate", a)
		} else {
			t.Logf("random constraint B: solvers differ by %.3g rad (expected)", a)
		}

		// Raw regression (no Rayleigh–Ritz) of graph eigenvectors.
		rep, _ := Linear{}.Prepare(context.Background(), x)
		rawRegress := func(resp *mat.Dense) *mat.Dense {
			var s mat.Dense
			s.Mul(rep.Phi.T(), rep.Phi)
			for i := 0; i < 4; i++ {
				s.Set(i, i, s.At(i, i)+0.5)
			}
			var rhs, v mat.Dense
			rhs.Mul(rep.Phi.T(), resp)
			if err := v.Solve(&s, &rhs); err != nil {
				t.Fatal(err)
			}
			return &v
		}
		var es mat.EigenSym
		var ev mat.Dense
		es.Factorize(randA.M, true)
		es.VectorsTo(&ev)
		pa := fitBoth(t, Linear{}, x, randA, id, 0.5)
		top := ev.Slice(0, n, n-1, n) // eigenvalue 9
		if a := engMaxAngle(t, rawRegress(mat.DenseCopyOf(top)), pa.d.Model.(*LinearModel).W.Slice(0, 4, 0, 1)); a < 1e-3 {
			t.Errorf("raw regression of the random graph's top eigenvector equals the dense top direction (%.3g rad)", a)
		} else {
			t.Logf("raw regression of the random graph's top eigenvector vs dense top direction: %.3g rad", a)
		}
		es.Factorize(between.Dense(), true)
		es.VectorsTo(&ev)
		pb := fitBoth(t, Linear{}, x, between, id, 0.5)
		resp := mat.DenseCopyOf(ev.Slice(0, n, n-2, n)) // the C−1 eigenvalue-1 vectors
		if a := engMaxAngle(t, rawRegress(resp), pb.d.Model.(*LinearModel).W); a > 1e-7 {
			t.Errorf("between-class: raw regressed responses vs dense: %.3g rad", a)
		}
	})

	t.Run("kernel", func(t *testing.T) {
		x := engMinmax(xRaw)
		xn := perturbed(x, 0.1)
		k := kernel.RBF(1)
		sp := Kernel{K: k}
		rep, err := sp.Prepare(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		meanDiag := 0.0
		for i := 0; i < n; i++ {
			meanDiag += rep.Phi.At(i, i) / float64(n)
		}
		idDense := graph.Identity(n).Dense()
		for _, tc := range []struct {
			name  string
			obj   graph.Operator
			alpha float64
		}{{"between-class", between, 0.1}, {"between-class", between, 0.01}, {"random rank-3", randA, 0.1}} {
			eps := tc.alpha * meanDiag
			p := fitBoth(t, sp, x, tc.obj, id, eps)
			wantVals, wantZ := engKernelDirect(t, k, x, xn, tc.obj.Dense(), idDense, eps, 2)
			zd, zr := transform(t, p.d.Model, xn), transform(t, p.r.Model, xn)
			name := fmt.Sprintf("%s, B=I, α=%g", tc.name, tc.alpha)
			aR, relR := engMaxAngle(t, zr, wantZ), relDiff(p.r.Values, wantVals)
			aD, relD := engMaxAngle(t, zd, wantZ), relDiff(p.d.Values, wantVals)
			aTrain := engMaxAngle(t, engTrainZ(t, sp, x, p.d.Model), engTrainZ(t, sp, x, p.r.Model))
			t.Logf("%s: regression vs direct %.3g rad, values %.2g; dense vs direct %.3g rad, values %.2g (dense %v, direct %v); dense vs regression on training rows %.3g rad",
				name, aR, relR, aD, relD, p.d.Values, wantVals, aTrain)
			if aR > 2e-5 || relR > 1e-7 {
				t.Errorf("%s: regression differs from the direct solution: %.3g rad, values %.3g", name, aR, relR)
			}
			if aD > 2e-5 || relD > 1e-7 {
				t.Errorf("%s: dense solver differs from the direct solution: %.3g rad on new rows, eigenvalues %.3g relative (dense %v, direct %v)",
					name, aD, relD, p.d.Values, wantVals)
			}
		}
		p := fitBoth(t, sp, x, between, randB, 0.1*meanDiag)
		if a := engMaxAngle(t, transform(t, p.d.Model, xn), transform(t, p.r.Model, xn)); a < 0.1 {
			t.Errorf("random constraint: solvers agree (%.3g rad); the comparison cannot discriminate", a)
		}
	})
}

// (c) The PCA route (Objective Identity, nil Constraint, no ridge) against
// gonum's EigenSym of X̄ᵀX̄ formed here: same eigenvalues (1e-10 relative to
// the largest) and the same leading subspaces (angles ≤ 1e-7 rad), W
// orthonormal. Tall (d ≤ n: eigen-decomposition of X̄ᵀX̄) and wide (d > n:
// the engine goes through X̄X̄ᵀ) cases; in the wide case exactly n−1
// non-degenerate directions exist. The kernel route: values are the
// eigenvalues of H·K·H (formed here) and the training projections are
// uᵢ·√λᵢ.
func TestPCARouteMatchesScatterEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range []struct{ n, d int }{{40, 6}, {12, 30}} {
		x := engRand(rng, sz.n, sz.d)
		for i := 0; i < sz.n; i++ { // anisotropic, so eigenvalues are distinct
			for j := 0; j < sz.d; j++ {
				x.Set(i, j, x.At(i, j)*(1+float64(j)/3)+2)
			}
		}
		xc := CenterRows(x, ColMeans(x))
		var s mat.Dense
		s.Mul(xc.T(), xc)
		var es mat.EigenSym
		if !es.Factorize(linalg.Symmetrize(&s), true) {
			t.Fatal("EigenSym failed")
		}
		asc := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		rank := min(sz.n-1, sz.d)
		p := &Problem{Space: Linear{}, Objective: graph.Identity(sz.n), DropZero: true}
		res, err := p.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		w := res.Model.(*LinearModel).W
		if _, k := w.Dims(); k != rank || len(res.Values) != rank {
			t.Fatalf("%d×%d: %d directions, want min(n−1, d) = %d", sz.n, sz.d, k, rank)
		}
		for j := 0; j < rank; j++ {
			want := asc[sz.d-1-j]
			if math.Abs(res.Values[j]-want) > 1e-10*asc[sz.d-1] {
				t.Errorf("%d×%d: λ%d = %.15g, EigenSym %.15g", sz.n, sz.d, j+1, res.Values[j], want)
			}
		}
		var wtw mat.Dense
		wtw.Mul(w.T(), w)
		if e := engMaxAbsDiff(&wtw, graph.Identity(rank).Dense()); e > 1e-10 {
			t.Errorf("%d×%d: WᵀW differs from I by %.3g", sz.n, sz.d, e)
		}
		for _, k := range []int{1, 3, rank} {
			if a := engMaxAngle(t, w.Slice(0, sz.d, 0, k), vecs.Slice(0, sz.d, sz.d-k, sz.d)); a > 1e-7 {
				t.Errorf("%d×%d: leading %d-subspace angle %.3g rad", sz.n, sz.d, k, a)
			}
		}
	}

	// Kernel PCA route.
	x := engRand(rng, 30, 3)
	k := kernel.RBF(1.5)
	g, err := k.Gram(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := mat.NewDense(30, 30, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 30; j++ {
			h.Set(i, j, -1.0/30)
		}
		h.Set(i, i, 1-1.0/30)
	}
	var hk, hkh mat.Dense
	hk.Mul(h, g)
	hkh.Mul(&hk, h)
	var es mat.EigenSym
	es.Factorize(linalg.Symmetrize(&hkh), true)
	asc := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	p := &Problem{Space: Kernel{K: k}, Objective: graph.Identity(30), Dims: 5}
	res, err := p.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	z, err := res.Model.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 5; j++ {
		want := asc[29-j]
		if math.Abs(res.Values[j]-want) > 1e-10*asc[29] {
			t.Errorf("kernel λ%d = %.15g, eig(HKH) %.15g", j+1, res.Values[j], want)
		}
		// z_j = ±u_j·√λ_j (signs are the engine's choice).
		zj := mat.Col(nil, j, z)
		uj := mat.Col(nil, 29-j, &u)
		dot := 0.0
		for i := range zj {
			dot += zj[i] * uj[i]
		}
		sgn := math.Copysign(1, dot)
		for i := range zj {
			if e := math.Abs(zj[i] - sgn*uj[i]*math.Sqrt(want)); e > 1e-8*math.Sqrt(asc[29]) {
				t.Fatalf("kernel PCA projection %d of row %d: %.12g, want ±%.12g", j+1, i+1, zj[i], uj[i]*math.Sqrt(want))
			}
		}
	}
}

// Wide PCA without DropZero: the zero eigenvalue of X̄X̄ᵀ (the centring
// direction) must not turn into a unit-norm noise direction. scaleByRoot
// promises a zero column for λ ≤ 0; with this seed the computed λ is a tiny
// positive rounding error (≈1e-16), so the column is Φᵀu/√λ with Φᵀu ≈ 0:
// its norm must stay negligible (≤ 1e-5, against 1 for real directions).
func TestPCARouteWideZeroDirection(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 10))
	n, d := 12, 30
	x := engRand(rng, n, d)
	p := &Problem{Space: Linear{}, Objective: graph.Identity(n)}
	res, err := p.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Model.(*LinearModel).W
	_, k := w.Dims()
	if k != n {
		t.Fatalf("%d directions without DropZero, want n = %d", k, n)
	}
	last := res.Values[k-1]
	if math.Abs(last) > 1e-10*res.Values[0] {
		t.Fatalf("last eigenvalue %g, want ≈ 0", last)
	}
	norm := mat.Norm(w.Slice(0, d, k-1, k), 2)
	t.Logf("zero direction: λ = %.3g, column norm %.3g", last, norm)
	if norm > 1e-5 {
		t.Errorf("the null direction (λ = %.3g) has a column of norm %.3g, not (nearly) the zero column promised by scaleByRoot", last, norm)
	}
	for j := 0; j < k-1; j++ {
		if nj := mat.Norm(w.Slice(0, d, j, j+1), 2); math.Abs(nj-1) > 1e-10 {
			t.Errorf("direction %d has norm %.15g, want 1", j+1, nj)
		}
	}
}

// (d) MarshalModel/UnmarshalModel round trip for every model kind: the
// decoded model transforms new rows to bit-identical output (Go's JSON
// float encoding round-trips float64 exactly), and has the same Dims and
// InDims.
func TestModelJSONRoundTrip(t *testing.T) {
	x, y := engIris(t)
	lin, err := (&Problem{Space: Linear{}, Objective: graph.BetweenClass(y), Constraint: graph.WithinClass(y), Solver: Dense, MaxDims: 2}).Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	ker, err := (&Problem{Space: Kernel{K: kernel.RBF(0.8)}, Objective: graph.BetweenClass(y), Constraint: graph.Identity(150), Ridge: 0.1, MaxDims: 2}).Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	pca, err := (&Problem{Space: Linear{}, Objective: graph.Identity(150), Dims: 3}).Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	zp, _ := pca.Model.Transform(x)
	lda2, err := (&Problem{Space: Linear{}, Objective: graph.BetweenClass(y), Constraint: graph.WithinClass(y), MaxDims: 2}).Fit(zp)
	if err != nil {
		t.Fatal(err)
	}
	affine := Compose(pca.Model, lda2.Model)
	if _, ok := affine.(*AffineModel); !ok {
		t.Fatalf("Compose of two linear models is %T, want *AffineModel", affine)
	}
	chain := Chain{ker.Model, &LinearModel{Mean: []float64{0.1, -0.2}, W: mat.NewDense(2, 1, []float64{1, 2})}}
	rng := rand.New(rand.NewPCG(1, 1))
	xn := engRand(rng, 7, 4)
	for _, tc := range []struct {
		name string
		m    Model
	}{{"linear", lin.Model}, {"kernel", ker.Model}, {"affine", affine}, {"chain", chain}} {
		b, err := MarshalModel(tc.m)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var probe struct{ Kind string }
		if err := json.Unmarshal(b, &probe); err != nil || probe.Kind != tc.name {
			t.Errorf("%s: encoded kind %q (%v)", tc.name, probe.Kind, err)
		}
		m2, err := UnmarshalModel(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m2.Dims() != tc.m.Dims() || m2.InDims() != tc.m.InDims() {
			t.Errorf("%s: dims %d→%d, in %d→%d", tc.name, tc.m.Dims(), m2.Dims(), tc.m.InDims(), m2.InDims())
		}
		engSameTransform(t, tc.name, tc.m, m2, xn)
	}
}

// (d) Corrupted model JSON: every inconsistency is an error naming what is
// wrong; a model holding NaN cannot be saved.
func TestUnmarshalModelRejectsCorrupt(t *testing.T) {
	lin := &LinearModel{Mean: []float64{1, 2, 3}, W: mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})}
	ker := &KernelModel{Kernel: kernel.RBF(1), Train: mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}),
		Center: kernel.Centering{ColMeans: []float64{0.5, 0.5}, GrandMean: 0.5}, A: mat.NewDense(2, 1, []float64{1, -1})}
	enc := func(m Model) map[string]any {
		b, err := MarshalModel(m)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	mutate := func(m Model, f func(e map[string]any)) string {
		e := enc(m)
		f(e)
		return js(e)
	}
	wOf := func(e map[string]any) map[string]any { return e["w"].(map[string]any) }
	linJS := js(enc(lin))
	kerJS := js(enc(ker))
	cases := []struct {
		name, in, want string
	}{
		{"not JSON", "{", "model:"},
		{"unknown kind", `{"kind":"quadratic"}`, `unknown kind "quadratic"`},
		{"missing kind", `{}`, `unknown kind ""`},
		{"w data too short", mutate(lin, func(e map[string]any) { wOf(e)["data"] = []float64{1, 2, 3} }), "matrix w is 3×2, so it needs 6 values; it has 3"},
		{"w rows zero", mutate(lin, func(e map[string]any) { wOf(e)["rows"] = 0 }), "matrix w is missing or has no rows or columns"},
		{"w negative cols", mutate(lin, func(e map[string]any) { wOf(e)["cols"] = -2 }), "no rows or columns"},
		{"w float64le short", mutate(lin, func(e map[string]any) { delete(wOf(e), "data"); wOf(e)["float64le"] = make([]byte, 40) }),
			"matrix w is 3×2, so its float64le needs 8·6 = 48 bytes; it has 40"},
		{"w data and float64le", mutate(lin, func(e map[string]any) { wOf(e)["float64le"] = make([]byte, 48) }), "matrix w has both data and float64le"},
		{"w float64le NaN", mutate(lin, func(e map[string]any) {
			b := make([]byte, 48)
			binary.LittleEndian.PutUint64(b[16:], math.Float64bits(math.NaN()))
			delete(wOf(e), "data")
			wOf(e)["float64le"] = b
		}), "model matrix w"},
		{"w float64le not base64", strings.Replace(linJS, `"data":[1,2,3,4,5,6]`, `"float64le":"not base64!"`, 1), "model:"},
		{"w missing", mutate(lin, func(e map[string]any) { delete(e, "w") }), "matrix w is missing"},
		{"mean too long", mutate(lin, func(e map[string]any) { e["mean"] = []float64{1, 2, 3, 4} }), "w has 3 rows but mean has 4 entries"},
		{"NaN literal", strings.Replace(linJS, `"data":[1`, `"data":[NaN`, 1), "model:"},
		{"overflowing number", strings.Replace(linJS, `"data":[1`, `"data":[1e999`, 1), "model:"},
		{"affine bias size", mutate(Compose(lin, &LinearModel{Mean: []float64{0, 0}, W: mat.NewDense(2, 1, []float64{1, 1})}),
			func(e map[string]any) { e["bias"] = []float64{1, 2} }), "bias has 2 entries for 1 outputs"},
		{"kernel without kernel", mutate(ker, func(e map[string]any) { delete(e, "kernel") }), "without kernel"},
		{"kernel bad sigma", mutate(ker, func(e map[string]any) { e["kernel"] = map[string]any{"type": "rbf", "sigma": -1} }), "sigma must be > 0"},
		{"kernel unknown type", mutate(ker, func(e map[string]any) { e["kernel"] = map[string]any{"type": "wavelet"} }), `unknown type "wavelet"`},
		{"kernel centring size", mutate(ker, func(e map[string]any) {
			e["center"] = map[string]any{"col_means": []float64{1, 2, 3}, "grand_mean": 0}
		}), "centring for 3"},
		{"kernel coefficient rows", mutate(ker, func(e map[string]any) {
			e["w"] = map[string]any{"rows": 3, "cols": 1, "data": []float64{1, 2, 3}}
		}), "coefficients for 3"},
		{"kernel train size", mutate(ker, func(e map[string]any) {
			e["train"] = map[string]any{"rows": 2, "cols": 3, "data": []float64{1}}
		}), "matrix train"},
		{"empty chain", `{"kind":"chain"}`, "empty chain"},
		{"chain bad step", `{"kind":"chain","steps":[` + linJS + `,{"kind":"nope"}]}`, "chain step 2"},
		{"chain dims mismatch", `{"kind":"chain","steps":[` + linJS + `,` + kerJS + `]}`, "chain step 2 expects 3 inputs, step 1 gives 2"},
	}
	for _, c := range cases {
		m, err := UnmarshalModel([]byte(c.in))
		if err == nil {
			t.Errorf("%s: no error (model %T)", c.name, m)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	// A model with a NaN coefficient cannot be saved.
	bad := &LinearModel{Mean: []float64{0}, W: mat.NewDense(1, 1, []float64{math.NaN()})}
	if _, err := MarshalModel(bad); err == nil {
		t.Error("MarshalModel accepted a NaN coefficient")
	}
	if _, err := MarshalModel(engOtherModel{}); err == nil || !strings.Contains(err.Error(), "cannot save") {
		t.Errorf("MarshalModel of a foreign model: %v", err)
	}
}

// Matrices of BinaryMatrixMin values or more are written as little-endian
// doubles (float64le), smaller ones as decimal data; both decode to the
// same bits, a strided view included, and a model with a binary train and
// coefficient matrix transforms new rows bit-identically after the round
// trip, from fewer bytes than decimal JSON takes.
func TestModelJSONBinaryMatrices(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 300, 250 // 75 000 training values, binary
	big := engRand(rng, n+3, d+7)
	train := big.Slice(2, n+2, 3, d+3).(*mat.Dense) // a strided view
	a := engRand(rng, n, 3)                         // 900 values, decimal
	means := make([]float64, n)
	for i := range means {
		means[i] = rng.Float64()
	}
	m := &KernelModel{Kernel: kernel.RBF(4), Train: train, Center: kernel.Centering{ColMeans: means, GrandMean: 0.3}, A: a}
	b, err := MarshalModel(m)
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Train, W MatrixJSON
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		t.Fatal(err)
	}
	if len(probe.Train.Float64LE) != 8*n*d || probe.Train.Data != nil {
		t.Errorf("train (%d values): %d float64le bytes and %d data values, want %d bytes and none", n*d, len(probe.Train.Float64LE), len(probe.Train.Data), 8*n*d)
	}
	if probe.W.Float64LE != nil || len(probe.W.Data) != n*3 {
		t.Errorf("w (%d values): %d float64le bytes and %d data values, want decimal", n*3, len(probe.W.Float64LE), len(probe.W.Data))
	}
	bin, err := probe.Train.Dense("train")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := (&MatrixJSON{Rows: n, Cols: d, Data: mat.DenseCopyOf(train).RawMatrix().Data}).Dense("train")
	if err != nil {
		t.Fatal(err)
	}
	if !engBitEqual(bin, dec) || !engBitEqual(bin, train) {
		t.Error("the float64le matrix does not decode to the bits of the matrix")
	}
	decimal, err := json.Marshal(struct{ Data []float64 }{mat.DenseCopyOf(train).RawMatrix().Data})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= len(decimal) {
		t.Errorf("model with binary train: %d bytes, not fewer than the %d of the train's decimal values alone", len(b), len(decimal))
	}
	m2, err := UnmarshalModel(b)
	if err != nil {
		t.Fatal(err)
	}
	engSameTransform(t, "binary kernel model", m, m2, engRand(rng, 5, d))
}

// engSameTransform checks that a model and its decoded copy map x to the
// same bits.
func engSameTransform(t *testing.T, name string, m, decoded Model, x *mat.Dense) {
	t.Helper()
	z1, err := m.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	z2, err := decoded.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if !engBitEqual(z1, z2) {
		t.Errorf("%s: transform after the round trip differs (max %.3g)", name, engMaxAbsDiff(z1, z2))
	}
}

// engOtherModel is a Model the engine does not know.
type engOtherModel struct{}

func (engOtherModel) Transform(x *mat.Dense) (*mat.Dense, error) { return x, nil }
func (engOtherModel) Dims() int                                  { return 1 }
func (engOtherModel) InDims() int                                { return 1 }

// (e) Compose of two linear models is one affine map equal (to 1e-12
// relative) to applying them in sequence; Compose with a kernel model is a
// Chain equal to sequential application bit for bit. Truncate keeps the
// first k output columns for every model kind and rejects k outside
// [1, Dims].
func TestComposeAndTruncate(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := engRand(rng, 25, 5)
	l1 := &LinearModel{Mean: []float64{0.5, -1, 2, 0, 3}, W: engRand(rng, 5, 4)}
	l2 := &LinearModel{Mean: []float64{1, 2, -3, 0.25}, W: engRand(rng, 4, 3)}
	z1, _ := l1.Transform(x)
	want, err := l2.Transform(z1)
	if err != nil {
		t.Fatal(err)
	}
	c := Compose(l1, l2)
	am, ok := c.(*AffineModel)
	if !ok {
		t.Fatalf("Compose(linear, linear) is %T, want *AffineModel", c)
	}
	if am.Dims() != 3 || am.InDims() != 5 {
		t.Errorf("composed dims %d in %d, want 3 and 5", am.Dims(), am.InDims())
	}
	got, err := c.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if e := engMaxAbsDiff(got, want); e > 1e-12*engMaxAbs(want) {
		t.Errorf("Compose(linear, linear) differs from sequential application by %.3g", e)
	}

	km := &KernelModel{Kernel: kernel.RBF(1), Train: engRand(rng, 10, 5), A: engRand(rng, 10, 4)}
	g, _ := km.Kernel.Gram(km.Train, nil)
	km.Center, _ = kernel.CenterGram(g)
	ck := Compose(km, l2)
	if _, ok := ck.(Chain); !ok {
		t.Fatalf("Compose(kernel, linear) is %T, want Chain", ck)
	}
	zk, _ := km.Transform(x)
	wantK, _ := l2.Transform(zk)
	gotK, err := ck.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if !engBitEqual(gotK, wantK) {
		t.Error("Chain differs from sequential application")
	}

	for _, tc := range []struct {
		name string
		m    Model
	}{{"linear", l1}, {"affine", c}, {"kernel", km}, {"chain", ck}} {
		full, err := tc.m.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		r, dims := full.Dims()
		for k := 1; k <= dims; k++ {
			tm, err := Truncate(tc.m, k)
			if err != nil {
				t.Fatalf("%s: Truncate(%d): %v", tc.name, k, err)
			}
			if tm.Dims() != k || tm.InDims() != tc.m.InDims() {
				t.Errorf("%s: truncated dims %d in %d", tc.name, tm.Dims(), tm.InDims())
			}
			zt, err := tm.Transform(x)
			if err != nil {
				t.Fatal(err)
			}
			if e := engMaxAbsDiff(zt, full.Slice(0, r, 0, k)); e > 1e-12*(1+engMaxAbs(full)) {
				t.Errorf("%s: Truncate(%d) output differs from the first %d columns by %.3g", tc.name, k, k, e)
			}
		}
		if tc.m.Dims() != dims {
			t.Errorf("%s: Truncate changed the original model's dims", tc.name)
		}
		for _, k := range []int{0, -1, dims + 1} {
			if _, err := Truncate(tc.m, k); err == nil {
				t.Errorf("%s: Truncate(%d) accepted", tc.name, k)
			} else if !strings.Contains(err.Error(), "requested") {
				t.Errorf("%s: Truncate(%d) error %q does not say what was requested", tc.name, k, err)
			}
		}
	}
	if _, err := Truncate(engOtherModel{}, 1); err == nil {
		t.Error("Truncate of a foreign model type accepted")
	}
}

// ScaleOutputs gives, for every model kind (the four it folds the scale
// into and a Chain it follows by a diagonal step), the first len(scale)
// output columns times scale (to 1e-12 relative), and refuses a scale of
// the wrong length or a non-finite one, naming it.
func TestScaleOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x := engRand(rng, 20, 5)
	lin := &LinearModel{Mean: []float64{0.5, -1, 2, 0, 3}, W: engRand(rng, 5, 4)}
	km := &KernelModel{Kernel: kernel.RBF(1), Train: engRand(rng, 10, 5), A: engRand(rng, 10, 4)}
	g, _ := km.Kernel.Gram(km.Train, nil)
	km.Center, _ = kernel.CenterGram(g)
	ny := &NystromModel{Kernel: kernel.RBF(2), Landmarks: engRand(rng, 6, 5), A: engRand(rng, 6, 4), Offset: []float64{0.1, -0.2, 0.3, 0.4}}
	chain := Compose(km, &LinearModel{Mean: []float64{1, 2, -3, 0.25}, W: engRand(rng, 4, 4)})
	scale := []float64{2, -0.5, 3}
	for _, tc := range []struct {
		name string
		m    Model
	}{{"linear", lin}, {"kernel", km}, {"nystrom", ny}, {"chain", chain}} {
		full, err := tc.m.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := ScaleOutputs(tc.m, scale)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := sm.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		r, k := got.Dims()
		if k != len(scale) {
			t.Fatalf("%s: %d outputs, want %d", tc.name, k, len(scale))
		}
		want := mat.NewDense(r, k, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < k; j++ {
				want.Set(i, j, full.At(i, j)*scale[j])
			}
		}
		if e := engMaxAbsDiff(got, want); e > 1e-12*(1+engMaxAbs(want)) {
			t.Errorf("%s: scaled outputs differ from scaled columns by %.3g", tc.name, e)
		}
		for _, bad := range []struct {
			s    []float64
			want string
		}{
			{nil, "0 scales for a model with 4 outputs"},
			{[]float64{1, 1, 1, 1, 1}, "5 scales"},
			{[]float64{1, math.NaN()}, "scale of output 1 is NaN"},
			{[]float64{math.Inf(-1)}, "scale of output 0 is -Inf"},
		} {
			if _, err := ScaleOutputs(tc.m, bad.s); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s: ScaleOutputs(%v): error %v, want one mentioning %q", tc.name, bad.s, err, bad.want)
			}
		}
	}
}

// (f) Transform rejects nil input, a wrong number of columns and
// non-finite values, for every model kind, with errors naming the column
// counts or the offending row and column.
func TestTransformRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	l1 := &LinearModel{Mean: make([]float64, 4), W: engRand(rng, 4, 2)}
	km := &KernelModel{Kernel: kernel.RBF(1), Train: engRand(rng, 6, 4), A: engRand(rng, 6, 2)}
	g, _ := km.Kernel.Gram(km.Train, nil)
	km.Center, _ = kernel.CenterGram(g)
	am := Compose(l1, &LinearModel{Mean: []float64{1, 1}, W: engRand(rng, 2, 2)})
	ch := Chain{km, &LinearModel{Mean: []float64{0, 0}, W: mat.NewDense(2, 1, []float64{1, -1})}}
	for _, tc := range []struct {
		name string
		m    Model
	}{{"linear", l1}, {"kernel", km}, {"affine", am}, {"chain", ch}} {
		if _, err := tc.m.Transform(engRand(rng, 3, 4)); err != nil {
			t.Fatalf("%s: valid input rejected: %v", tc.name, err)
		}
		_, err := tc.m.Transform(engRand(rng, 3, 5))
		if err == nil || !strings.Contains(err.Error(), "5 columns") || !strings.Contains(err.Error(), "fitted on 4") {
			t.Errorf("%s: wrong column count: %v", tc.name, err)
		}
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			xb := engRand(rng, 3, 4)
			xb.Set(1, 2, bad)
			_, err := tc.m.Transform(xb)
			if err == nil || !strings.Contains(err.Error(), "row 2, column 3") || !strings.Contains(err.Error(), "finite") {
				t.Errorf("%s: %v in input: %v", tc.name, bad, err)
			}
		}
		if _, err := tc.m.Transform(nil); err == nil {
			t.Errorf("%s: nil input accepted", tc.name)
		}
	}
}

// (g) Fit rejects malformed problems with errors that name the rule.
func TestFitErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	x := engRand(rng, 10, 3)
	y := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}
	nanX := mat.DenseCopyOf(x)
	nanX.Set(4, 1, math.NaN())
	infX := mat.DenseCopyOf(x)
	infX.Set(0, 2, math.Inf(-1))
	one := engRand(rng, 1, 3)
	cases := []struct {
		name string
		p    Problem
		x    *mat.Dense
		want string
	}{
		{"nil space", Problem{Objective: graph.Identity(10)}, x, "needs a Space"},
		{"nil objective", Problem{Space: Linear{}}, x, "Objective"},
		{"nil rows", Problem{Space: Linear{}, Objective: graph.Identity(10)}, nil, "no training rows"},
		{"objective size", Problem{Space: Linear{}, Objective: graph.Identity(9)}, x, "graph objective is 9×9 but there are 10 training rows"},
		{"constraint size", Problem{Space: Linear{}, Objective: graph.BetweenClass(y), Constraint: graph.Identity(11)}, x, "graph constraint is 11×11"},
		{"class graph size", Problem{Space: Linear{}, Objective: graph.BetweenClass(y[:9])}, x, "9×9"},
		{"tie-break size", Problem{Space: Linear{}, Objective: graph.Identity(10), TieBreak: graph.Identity(3)}, x, "graph tie-break is 3×3"},
		{"one row", Problem{Space: Linear{}, Objective: graph.Identity(1)}, one, "1 training row(s); need at least 2"},
		{"one row kernel", Problem{Space: Kernel{K: kernel.RBF(1)}, Objective: graph.Identity(1)}, one, "need at least 2"},
		{"NaN input", Problem{Space: Linear{}, Objective: graph.Identity(10)}, nanX, "row 5, column 2 is NaN"},
		{"Inf input kernel", Problem{Space: Kernel{K: kernel.RBF(1)}, Objective: graph.Identity(10)}, infX, "row 1, column 3 is -Inf"},
		{"negative dims", Problem{Space: Linear{}, Objective: graph.Identity(10), Dims: -1}, x, "dims: -1 requested; must be ≥ 0"},
		{"dims above MaxDims", Problem{Space: Linear{}, Objective: graph.BetweenClass(y), Constraint: graph.WithinClass(y), MaxDims: 2, Dims: 3}, x,
			"dims: 3 requested, but at most 2 exist"},
		{"dims above rank (PCA)", Problem{Space: Linear{}, Objective: graph.Identity(10), DropZero: true, Dims: 4}, x,
			"dims: 4 requested, but at most 3 exist"},
		{"dims above n−1 (kernel PCA)", Problem{Space: Kernel{K: kernel.RBF(1)}, Objective: graph.Identity(10), DropZero: true, Dims: 10}, x,
			"at most 9 exist"},
		{"unknown solver", Problem{Space: Linear{}, Objective: graph.Identity(10), Solver: "magic"}, x, `unknown solver "magic"`},
		{"invalid kernel", Problem{Space: Kernel{K: kernel.Kernel{Type: "rbf", Sigma: -1}}, Objective: graph.Identity(10)}, x, "sigma must be > 0"},
		{"negative jitter", Problem{Space: Linear{}, Objective: graph.Identity(10), Jitter: -1}, x, "jitter"},
		{"negative rank tolerance", Problem{Space: Linear{}, Objective: graph.Identity(10), RankTol: -1}, x, "RankTol: linalg: rank tolerance -1"},
		{"rank tolerance 1", Problem{Space: Linear{}, Objective: graph.Identity(10), RankTol: 1}, x, "must be in [0, 1)"},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			p := c.p
			res, err := p.Fit(c.x)
			if err == nil {
				t.Errorf("%s: no error (%d dims)", c.name, res.Model.Dims())
				return
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
			}
		}()
	}
}

// (h) A kernel problem on 300 rows gives bit-identical values,
// coefficients and transforms under GOMAXPROCS 1 and 4 (blockwise parallel
// Gram matrices and gonum's parallel products must not change the
// arithmetic), for both solvers.
func TestFitBitIdenticalAcrossGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	n := 300
	x := engRand(rng, n, 6)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 3
		x.Set(i, y[i], x.At(i, y[i])+1.5)
	}
	xn := engRand(rng, 50, 6)
	run := func(s Solver) ([]float64, *mat.Dense, *mat.Dense) {
		p := &Problem{Space: Kernel{K: kernel.RBF(2)}, Objective: graph.BetweenClass(y), Constraint: graph.Identity(n),
			Ridge: 0.05, Solver: s, MaxDims: 2}
		r, err := p.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		z, err := r.Model.Transform(xn)
		if err != nil {
			t.Fatal(err)
		}
		return r.Values, r.Model.(*KernelModel).A, z
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range []Solver{Regression, Dense} {
		runtime.GOMAXPROCS(1)
		v1, a1, z1 := run(s)
		runtime.GOMAXPROCS(4)
		v4, a4, z4 := run(s)
		for j := range v1 {
			if math.Float64bits(v1[j]) != math.Float64bits(v4[j]) {
				t.Errorf("%s: value %d differs: %.17g vs %.17g", s, j, v1[j], v4[j])
			}
		}
		if !engBitEqual(a1, a4) {
			t.Errorf("%s: coefficients differ between GOMAXPROCS 1 and 4 (max %.3g)", s, engMaxAbsDiff(a1, a4))
		}
		if !engBitEqual(z1, z4) {
			t.Errorf("%s: transforms differ between GOMAXPROCS 1 and 4 (max %.3g)", s, engMaxAbsDiff(z1, z4))
		}
	}
}

// Compose of models whose sizes do not chain panics at once, naming both
// (it returned a Chain whose first Transform panicked inside gonum).
func TestComposeMismatchPanics(t *testing.T) {
	a := &LinearModel{Mean: make([]float64, 4), W: mat.NewDense(4, 2, nil)}
	b := &LinearModel{Mean: make([]float64, 3), W: mat.NewDense(3, 1, nil)}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Compose of a model with 2 outputs and one with 3 inputs") {
			t.Errorf("recovered %v", r)
		}
	}()
	Compose(a, b)
}

// The training embedding's product Φ·V is announced when it is large (KPCA
// at every dimension: n³ flops), and not otherwise. The threshold is
// lowered here so that 2 000 rows (progress.MinOrder) reach it.
func TestTrainProductAnnounced(t *testing.T) {
	old := trainProductNoted
	trainProductNoted = 1e9
	defer func() { trainProductNoted = old }()
	rng := rand.New(rand.NewPCG(7, 8))
	n := progress.MinOrder
	x := engRand(rng, n, 5)
	for _, c := range []struct {
		dims int
		want bool
	}{{0, true}, {5, false}} {
		var lines []string
		ctx := progress.With(context.Background(), func(l string) { lines = append(lines, l) })
		p := &Problem{Space: Kernel{K: kernel.RBF(2)}, Objective: graph.Identity(n), DropZero: true, Dims: c.dims}
		res, err := p.FitContext(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		k := len(res.Values)
		want := fmt.Sprintf("embedding of the training rows: %d×%d by %d×%d", n, n, n, k)
		if got := slices.Contains(lines, want); got != c.want {
			t.Errorf("dims %d (%d kept): line %q announced %v, want %v; lines %q", c.dims, k, want, got, c.want, lines)
		}
	}
}

// A linear problem with more columns than rows goes to the dense route
// on the span of the rows (solve.wide) without forming p×p matrices: its
// directions and eigenvalues are those of the p×p generalized
// eigenproblem (X̄ᵀ·A·X̄)·v = λ·(X̄ᵀX̄ + ε·I)·v, formed here explicitly on
// a small case, to 1e-8 (directions up to sign, unit-normalised).
func TestDenseWideMatchesFormedProblem(t *testing.T) {
	const n, p, eps = 15, 25, 0.1
	rng := rand.New(rand.NewPCG(8, 3))
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 3
		for j := 0; j < p; j++ {
			x.Set(i, j, rng.NormFloat64()+float64(y[i]*(j%2)))
		}
	}
	obj := graph.BetweenClass(y)
	res, err := (&Problem{Space: Linear{}, Objective: obj, Constraint: graph.Identity(n), Ridge: eps,
		Dims: 2, Solver: Dense, Norm: NormUnit}).Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	xc := CenterRows(x, ColMeans(x))
	var a, b mat.Dense
	a.Mul(xc.T(), obj.Apply(xc))
	b.Mul(xc.T(), xc)
	for i := 0; i < p; i++ {
		b.Set(i, i, b.At(i, i)+eps)
	}
	vals, v, err := linalg.GenSymEig(linalg.Symmetrize(&a), linalg.Symmetrize(&b), 2, linalg.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Model.(*LinearModel).W
	for j := 0; j < 2; j++ {
		if math.Abs(res.Values[j]-vals[j]) > 1e-8*math.Abs(vals[0]) {
			t.Errorf("eigenvalue %d: %v, the formed problem gives %v", j, res.Values[j], vals[j])
		}
		got, want := mat.Col(nil, j, w), mat.Col(nil, j, v)
		nw := math.Sqrt(floats.Dot(want, want))
		dot := floats.Dot(got, want)
		sign := math.Copysign(1/nw, dot)
		for i := range got {
			if math.Abs(got[i]-sign*want[i]) > 1e-8 {
				t.Fatalf("direction %d, entry %d: %v, the formed problem gives %v", j, i, got[i], sign*want[i])
			}
		}
	}
}
