package method

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

// denseQMIGraph builds M' = (M + Mᵀ)/2 from eq. 19 entry by entry:
// Mᵢⱼ = C_ALL + C_IN·[yᵢ = yⱼ] − 2·C_BTW,yⱼ (independent of package graph).
func denseQMIGraph(y []int) *mat.Dense {
	n := len(y)
	counts := map[int]float64{}
	for _, v := range y {
		counts[v]++
	}
	fn := float64(n)
	cAll := 0.0
	for _, k := range counts {
		cAll += k * k
	}
	cAll /= fn * fn * fn * fn
	mm := func(i, j int) float64 {
		v := cAll - 2*counts[y[j]]/(fn*fn*fn)
		if y[i] == y[j] {
			v += 1 / (fn * fn)
		}
		return v
	}
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m.Set(i, j, (mm(i, j)+mm(j, i))/2)
		}
	}
	return m
}

// algorithm1 is seed 000's Algorithm 1 with a spectral filter, written out
// densely: K̃ = P·L·Pᵀ over the eigenvalues above 1e-12·λ_max (or above
// cut·λ_max when cut > 0), S = F·Pᵀ·M'·P·F with F = diag(√(λᵢ/(λᵢ+ε))),
// S·B = B·H, A = P·(L² + ε·L)^{-1/2}·B. With ε = 0 this is Algorithm 1
// verbatim (F = I, A = P·L⁻¹·B); with ε > 0 it solves
// K̃M'K̃a = λ(K̃K̃ + εK̃)a. Returns the first k columns of A and the
// eigenvalues H.
func algorithm1(kc, mp *mat.Dense, eps, cut float64, k int) (*mat.Dense, []float64) {
	n, _ := kc.Dims()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, kc.RawMatrix().Data), true) {
		panic("eigen")
	}
	lam := es.Values(nil)
	var vec mat.Dense
	es.VectorsTo(&vec)
	top := lam[n-1]
	thr := 1e-12 * top
	if cut > 0 {
		thr = cut * top
	}
	var keep []int
	for i := n - 1; i >= 0; i-- {
		if lam[i] > thr {
			keep = append(keep, i)
		}
	}
	r := len(keep)
	p := mat.NewDense(n, r, nil)
	f := make([]float64, r)
	for c, i := range keep {
		p.SetCol(c, mat.Col(nil, i, &vec))
		f[c] = math.Sqrt(lam[i] / (lam[i] + eps))
	}
	var pm, s mat.Dense
	pm.Mul(p.T(), mp)
	s.Mul(&pm, p)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			s.Set(i, j, s.At(i, j)*f[i]*f[j])
		}
	}
	var es2 mat.EigenSym
	ss := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			ss.SetSym(i, j, (s.At(i, j)+s.At(j, i))/2)
		}
	}
	if !es2.Factorize(ss, true) {
		panic("eigen")
	}
	h := es2.Values(nil)
	var z mat.Dense
	es2.VectorsTo(&z)
	b := mat.NewDense(r, k, nil)
	vals := make([]float64, k)
	for c := 0; c < k; c++ {
		b.SetCol(c, mat.Col(nil, r-1-c, &z))
		vals[c] = h[r-1-c]
	}
	for c, i := range keep {
		s := 1 / math.Sqrt(lam[i]*lam[i]+eps*lam[i])
		for j := 0; j < k; j++ {
			b.Set(c, j, b.At(c, j)*s)
		}
	}
	var a mat.Dense
	a.Mul(p, b)
	return &a, vals
}

func maxAngle(t *testing.T, a, b mat.Matrix) float64 {
	t.Helper()
	ang, err := linalg.PrincipalAngles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return ang[len(ang)-1]
}

// directions returns the matrix W of a linear map z = Wᵀ(x − μ) (− b).
func directions(t *testing.T, m embed.Model) *mat.Dense {
	t.Helper()
	switch v := m.(type) {
	case *embed.LinearModel:
		return v.W
	case *embed.AffineModel:
		return v.W
	}
	t.Fatalf("a %T is not a linear map", m)
	return nil
}

// sameColumnsUpToSign checks that the columns of got and want agree up to
// sign, relative to each column's norm.
func sameColumnsUpToSign(t *testing.T, what string, got, want *mat.Dense, tol float64) {
	t.Helper()
	r, c := want.Dims()
	for j := 0; j < c; j++ {
		g, w := mat.Col(nil, j, got), mat.Col(nil, j, want)
		dot, nw := 0.0, 0.0
		for i := range w {
			dot += g[i] * w[i]
			nw += w[i] * w[i]
		}
		s := 1.0
		if dot < 0 {
			s = -1
		}
		for i := 0; i < r; i++ {
			if math.Abs(s*g[i]-w[i]) > tol*math.Sqrt(nw) {
				t.Errorf("%s: column %d row %d: %.12g vs %.12g", what, j, i, s*g[i], w[i])
				break
			}
		}
	}
}

// KQMI from the class-block graph through the engine equals a dense
// implementation of Algorithm 1 with the same regulariser (ridge and
// spectral cut-off), on the unbalanced wine classes: principal angles
// below 1e-6 between the coefficient subspaces, eigenvalues to 1e-8, the
// training projections K̃·A column by column, and out-of-sample rows.
func TestKQMIMatchesDenseAlgorithm1(t *testing.T) {
	x, y := loadSklearn(t, "wine")
	x = minmax(x)
	y = compact(y)
	n, _ := x.Dims()
	// hold out every 6th row for the out-of-sample check
	var tr, te []int
	for i := 0; i < n; i++ {
		if i%6 == 5 {
			te = append(te, i)
		} else {
			tr = append(tr, i)
		}
	}
	xtr, xte := rowsOf(x, tr), rowsOf(x, te)
	ytr := make([]int, len(tr))
	for i, r := range tr {
		ytr[i] = y[r]
	}
	kc, kraw := testdata.CentredRBF(xtr, 1)
	mp := denseQMIGraph(ytr)
	meanDiag := 0.0
	for i := range tr {
		meanDiag += kc.At(i, i) / float64(len(tr))
	}
	for _, tc := range []struct {
		m        KQMI
		eps, cut float64
	}{
		{KQMI{Alpha: param.Set(1e-3), Kernel: kernel.RBF(1)}, 1e-3 * meanDiag, 0},
		{KQMI{Alpha: param.Set(1e-1), Kernel: kernel.RBF(1)}, 1e-1 * meanDiag, 0},
		{KQMI{Alpha: param.Set(1e-3), Kernel: kernel.RBF(1), Engine: Engine{Solver: embed.Dense}}, 1e-3 * meanDiag, 0},
		{KQMI{Reg: "cutoff", Cutoff: 1e-3, Kernel: kernel.RBF(1)}, 0, 1e-3},
		{KQMI{Reg: "cutoff", Cutoff: 1e-6, Kernel: kernel.RBF(1)}, 0, 1e-6},
	} {
		name := tc.m.Reg + "/" + string(tc.m.Solver)
		f, err := tc.m.Fit(xtr, ytr, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Dims() != 2 {
			t.Fatalf("%s: %d dims, want C−1 = 2", name, f.Dims())
		}
		a, vals := algorithm1(kc, mp, tc.eps, tc.cut, 2)
		if km, ok := f.(*Fitted).Model.(*embed.KernelModel); ok {
			if ang := maxAngle(t, km.A, a); ang > 1e-6 {
				t.Errorf("%s α=%v: angle %g between engine and dense Algorithm 1", name, tc.m.Alpha, ang)
			}
			relClose(t, name+" eigenvalues", f.(*Fitted).Values, vals, 1e-8)
		}
		// Training projections K̃·A stacked on held-out projections
		// Aᵀ·k̃(x), column by column (distinct eigenvalues: each column is
		// unique up to scale and sign).
		ztr, err := f.Transform(xtr)
		if err != nil {
			t.Fatal(err)
		}
		zte, err := f.Transform(xte)
		if err != nil {
			t.Fatal(err)
		}
		var wtr, wte mat.Dense
		wtr.Mul(kc, a)
		wte.Mul(testKernelRows(xte, xtr, kraw, 1), a)
		got, want := stack(ztr, zte), stack(&wtr, &wte)
		normalizeCols(got)
		normalizeCols(want)
		sameColumnsUpToSign(t, name+" training and held-out projections", got, want, 1e-6)
	}
}

// testKernelRows returns the centred kernel rows k̃(x) of new rows against
// the training rows, from the definition of feature-space centring:
// k̃(x)ⱼ = k(x,xⱼ) − mean_i k(x,xᵢ) − mean_i k(xᵢ,xⱼ) + mean_ij k(xᵢ,xⱼ).
func testKernelRows(xte, xtr, kraw *mat.Dense, sigma float64) *mat.Dense {
	m, d := xte.Dims()
	n, _ := xtr.Dims()
	colMean := make([]float64, n)
	grand := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			colMean[j] += kraw.At(i, j) / float64(n)
			grand += kraw.At(i, j) / float64(n*n)
		}
	}
	out := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		row := make([]float64, n)
		rm := 0.0
		for j := 0; j < n; j++ {
			r2 := 0.0
			for l := 0; l < d; l++ {
				r := xte.At(i, l) - xtr.At(j, l)
				r2 += r * r
			}
			row[j] = math.Exp(-r2 / (2 * sigma * sigma))
			rm += row[j] / float64(n)
		}
		for j := 0; j < n; j++ {
			out.Set(i, j, row[j]-rm-colMean[j]+grand)
		}
	}
	return out
}

// normalizeCols scales every column to unit norm.
func normalizeCols(z *mat.Dense) {
	r, c := z.Dims()
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += z.At(i, j) * z.At(i, j)
		}
		s = 1 / math.Sqrt(s)
		for i := 0; i < r; i++ {
			z.Set(i, j, z.At(i, j)*s)
		}
	}
}

func stack(a, b *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Stack(a, b)
	return &out
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

func rowsOf(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for k, i := range idx {
		out.SetRow(k, x.RawRowView(i))
	}
	return out
}

// With the same ridge, KQMI and GDA (both by spectral regression) span the
// same subspace at C−1 dimensions: the nonzero-eigenvalue eigenvectors of
// M' and of GDA's between-class graph both span the centred class
// indicators. On unbalanced classes (wine) the order of directions
// differs; on balanced classes (iris) M' = (W_c − 11ᵀ/n)/(nC) and the two
// methods give the same directions in the same order, with eigenvalues in
// the ratio 1/(nC) (the same constraint, a graph scaled by 1/(nC)).
func TestKQMISpansGDASubspace(t *testing.T) {
	for _, name := range []string{"wine", "iris"} {
		x, y := loadSklearn(t, name)
		x = minmax(x)
		y = compact(y)
		n, _ := x.Dims()
		for _, alpha := range []float64{1e-3, 1e-1} {
			q, err := KQMI{Alpha: param.Set(alpha)}.Fit(x, y, 0)
			if err != nil {
				t.Fatal(err)
			}
			g, err := GDA{Alpha: param.Set(alpha)}.Fit(x, y, 0)
			if err != nil {
				t.Fatal(err)
			}
			qa := q.(*Fitted).Model.(*embed.KernelModel).A
			ga := g.(*Fitted).Model.(*embed.KernelModel).A
			if ang := maxAngle(t, qa, ga); ang > 1e-6 {
				t.Errorf("%s α=%g: KQMI and GDA subspaces differ by %g rad", name, alpha, ang)
			}
			// Both bases are orthonormal for the same constraint
			// K̃K̃ + εK̃, so the (C−1)-dimensional embeddings differ by an
			// orthogonal matrix R (Z_kqmi = Z_gda·R, RᵀR = I): distances,
			// and so NCC and k-NN results, are identical at C−1 dims.
			zq, _ := q.Transform(x)
			zg, _ := g.Transform(x)
			var qr mat.QR
			qr.Factorize(zg)
			var r mat.Dense
			if err := qr.SolveTo(&r, false, zq); err != nil {
				t.Fatal(err)
			}
			var rtr mat.Dense
			rtr.Mul(r.T(), &r)
			if !mat.EqualApprox(&rtr, eye(2), 1e-6) {
				t.Errorf("%s α=%g: KQMI = GDA·R with RᵀR =\n%v\nwant I", name, alpha, mat.Formatted(&rtr))
			}
			var zr mat.Dense
			zr.Mul(zg, &r)
			if !mat.EqualApprox(&zr, zq, 1e-6*mat.Norm(zq, math.Inf(1))) {
				t.Errorf("%s α=%g: KQMI embedding is not GDA's times R", name, alpha)
			}
			// One direction alone: the same only when the classes are
			// balanced.
			a1 := maxAngle(t, qa.Slice(0, n, 0, 1), ga.Slice(0, n, 0, 1))
			if name == "iris" && a1 > 1e-6 {
				t.Errorf("iris (balanced) α=%g: first directions differ by %g rad", alpha, a1)
			}
			if name == "wine" && a1 < 1e-3 {
				t.Errorf("wine (unbalanced) α=%g: first directions coincide (%g rad); the test no longer separates the methods", alpha, a1)
			}
			if name == "iris" {
				qv, gv := q.(*Fitted).Values, g.(*Fitted).Values
				for i := range qv {
					if math.Abs(qv[i]*float64(n*3)-gv[i]) > 1e-8*gv[i] {
						t.Errorf("iris: KQMI eigenvalue %g ≠ GDA eigenvalue %g / (nC)", qv[i], gv[i])
					}
				}
			}
		}
	}
}

// LQMI through the engine equals the dense generalized eigenproblem of
// Algorithm 2, X̄ᵀM'X̄·v = γ·X̄ᵀX̄·v, with unit-norm columns (wine,
// unbalanced); with d > n the default ridge applies and the dense
// problem with the same ridge agrees; on balanced iris LQMI spans LDA's
// subspace.
func TestLQMIMatchesDenseAlgorithm2(t *testing.T) {
	x, y := loadSklearn(t, "wine")
	y = compact(y)
	check := func(name string, x *mat.Dense, y []int, m LQMI, eps float64) {
		t.Helper()
		f, err := m.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := classesPresent(y)
		if f.Dims() != c-1 {
			t.Fatalf("%s: %d dims, want C−1 = %d", name, f.Dims(), c-1)
		}
		xc := embed.CenterRows(x, embed.ColMeans(x))
		_, d := x.Dims()
		var sm, st, tmp mat.Dense
		tmp.Mul(xc.T(), denseQMIGraph(y))
		sm.Mul(&tmp, xc)
		st.Mul(xc.T(), xc)
		tr := 0.0
		for i := 0; i < d; i++ {
			tr += st.At(i, i)
		}
		for i := 0; i < d; i++ {
			st.Set(i, i, st.At(i, i)+eps*tr/float64(d))
		}
		vals, v, err := linalg.GenSymEig(linalg.Symmetrize(&sm), linalg.Symmetrize(&st), c-1, linalg.GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w := directions(t, f.(*Fitted).Model)
		normalizeCols(v)
		for j := 0; j < c-1; j++ {
			if nj := mat.Norm(w.ColView(j), 2); math.Abs(nj-1) > 1e-12 {
				t.Errorf("%s: column %d has norm %g, want 1 (Algorithm 2)", name, j, nj)
			}
		}
		sameColumnsUpToSign(t, name+" LQMI directions", w, v, 1e-7)
		relClose(t, name+" LQMI eigenvalues", f.(*Fitted).Values, vals, 1e-7)
	}
	check("wine", x, y, LQMI{}, 0)
	check("wine ridge", x, y, LQMI{Ridge: param.Set(0.05)}, 0.05)

	rng := rand.New(rand.NewPCG(11, 12))
	xs := mat.NewDense(24, 40, nil)
	ys := make([]int, 24)
	for i := 0; i < 24; i++ {
		ys[i] = i % 3
		if i > 20 {
			ys[i] = 0
		}
		for j := 0; j < 40; j++ {
			xs.Set(i, j, rng.NormFloat64()+float64(ys[i]*(j%3)))
		}
	}
	check("d>n default ridge", xs, ys, LQMI{}, DefaultLQMIRidge)
	// More columns than rows go through the rows' span (fitWide), never
	// forming the d×d scatter: the same directions as the dense formulas
	// with either solver, and as the scatter route itself.
	check("d>n ridge 0.05, dense", xs, ys, LQMI{Ridge: param.Set(0.05), Engine: Engine{Solver: embed.Dense}}, 0.05)
	check("d>n ridge 0.05, regression", xs, ys, LQMI{Ridge: param.Set(0.05), Engine: Engine{Solver: embed.Regression}}, 0.05)
	wide, err := LQMI{}.Fit(xs, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := embed.ScatterOf(xs, ys, true)
	if err != nil {
		t.Fatal(err)
	}
	viaScatter, err := LQMI{}.fitScatter(sc, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lm, ok := wide.(*Fitted).Model.(*embed.LinearModel); !ok || lm.W.RawMatrix().Rows != 40 {
		t.Errorf("d>n: the model is a %T, want one linear map of the 40 input columns", wide.(*Fitted).Model)
	}
	sameColumnsUpToSign(t, "d>n: rows' span against the scatter route", directions(t, wide.(*Fitted).Model),
		viaScatter.Model.(*embed.LinearModel).W, 1e-7)
	// The same embedding of new rows (up to each column's sign).
	xnew := mat.NewDense(5, 40, nil)
	for i := 0; i < 5; i++ {
		for j := 0; j < 40; j++ {
			xnew.Set(i, j, rng.NormFloat64())
		}
	}
	zw, err := wide.Transform(xnew)
	if err != nil {
		t.Fatal(err)
	}
	zs, err := viaScatter.Transform(xnew)
	if err != nil {
		t.Fatal(err)
	}
	sameColumnsUpToSign(t, "d>n: new rows, rows' span against the scatter route", zw, zs, 1e-7)

	// Unbalanced wine: LQMI and LDA still span the same subspace at C−1
	// dimensions (S_t⁻¹·range(S_b) = S_w⁻¹·range(S_b)), though not the
	// same directions.
	lqw, err := LQMI{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	ldw, err := LDA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	wq, wl := lqw.(*Fitted).Model.(*embed.LinearModel).W, ldw.(*Fitted).Model.(*embed.LinearModel).W
	if ang := maxAngle(t, wq, wl); ang > 1e-6 {
		t.Errorf("wine: LQMI and LDA subspaces differ by %g rad", ang)
	}
	if ang := maxAngle(t, wq.Slice(0, 13, 0, 1), wl.Slice(0, 13, 0, 1)); ang < 1e-3 {
		t.Errorf("wine: LQMI and LDA first directions coincide (%g rad) on unbalanced classes", ang)
	}

	xi, yi := loadSklearn(t, "iris")
	yi = compact(yi)
	lq, err := LQMI{}.Fit(xi, yi, 0)
	if err != nil {
		t.Fatal(err)
	}
	ld, err := LDA{}.Fit(xi, yi, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ang := maxAngle(t, lq.(*Fitted).Model.(*embed.LinearModel).W, ld.(*Fitted).Model.(*embed.LinearModel).W); ang > 1e-6 {
		t.Errorf("iris (balanced): LQMI and LDA subspaces differ by %g rad", ang)
	}
}

// The clear errors the issue asks for.
func TestQMIMethodsBadInput(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1, 1, 3, 4, 4})
	for _, tc := range []struct {
		name string
		m    Method
		y    []int
		dims int
		want string
	}{
		{"kqmi one class", KQMI{}, []int{0, 0, 0, 0, 0, 0}, 0, "1 class(es) present"},
		{"lqmi one class", LQMI{}, []int{1, 1, 1, 1, 1, 1}, 0, "1 class(es) present"},
		{"aqmida one class", AQMIDA{}, []int{0, 0, 0, 0, 0, 0}, 0, "1 class(es) present"},
		{"kqmi class of one row", KQMI{}, []int{0, 0, 0, 1, 1, 2}, 0, "class 2 has 1 rows"},
		{"lqmi class of one row", LQMI{}, []int{0, 0, 0, 1, 1, 2}, 0, "min_class=1"},
		{"aqmida class of one row", AQMIDA{}, []int{0, 0, 0, 1, 1, 2}, 0, "class 2 has 1 rows"},
		{"kqmi labels per row", KQMI{}, []int{0, 0, 1, 1, 1}, 0, "5 labels for 6 rows"},
		{"kqmi dims > C−1", KQMI{}, []int{0, 0, 0, 1, 1, 1}, 2, "C−1 = 1"},
		{"kqmi dims > C−1", KQMI{}, []int{0, 0, 1, 1, 2, 2}, 3, "C−1 = 2"},
		{"lqmi dims > C−1", LQMI{}, []int{0, 0, 1, 1, 2, 2}, 3, "C−1 = 2"},
		{"aqmida dims > whitened", AQMIDA{}, []int{0, 0, 1, 1, 2, 2}, 3, "whitened"},
		{"kqmi σ ≤ 0", KQMI{Kernel: kernel.RBF(-1)}, []int{0, 0, 0, 1, 1, 1}, 0, "sigma must be > 0"},
		{"kqmi σ NaN", KQMI{Kernel: kernel.RBF(math.NaN())}, []int{0, 0, 0, 1, 1, 1}, 0, "sigma must be > 0"},
		{"aqmida σ < 0", AQMIDA{Sigma: -0.5}, []int{0, 0, 0, 1, 1, 1}, 0, "sigma=-0.5: must be > 0"},
		{"kqmi bad alpha", KQMI{Alpha: param.Set(-1.0)}, []int{0, 0, 0, 1, 1, 1}, 0, "alpha"},
		{"kqmi bad cutoff", KQMI{Reg: "cutoff", Cutoff: 2}, []int{0, 0, 0, 1, 1, 1}, 0, "cutoff"},
		{"kqmi bad reg", KQMI{Reg: "lasso"}, []int{0, 0, 0, 1, 1, 1}, 0, "ridge, cutoff"},
		{"lqmi bad ridge", LQMI{Ridge: param.Set(-1.0)}, []int{0, 0, 0, 1, 1, 1}, 0, "ridge"},
	} {
		_, err := tc.m.Fit(x, tc.y, tc.dims)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// The min_class hint is given for small classes only.
	if _, err := (KQMI{}).Fit(x, []int{0, 0, 0, 0, 0, 0}, 0); err == nil || strings.Contains(err.Error(), "min_class") {
		t.Errorf("one class: error %v should not mention min_class", err)
	}
	// More columns than rows (the rows' principal components): identical
	// rows get the same message as through the scatter, and a cancelled
	// context stops the fit.
	wide := mat.NewDense(6, 10, nil)
	for i := 0; i < 6; i++ {
		for j := 0; j < 10; j++ {
			wide.Set(i, j, float64(j))
		}
	}
	if _, err := (LQMI{}).Fit(wide, []int{0, 0, 0, 1, 1, 1}, 0); err == nil || !strings.Contains(err.Error(), "every training row is the same") {
		t.Errorf("lqmi, identical rows, d > n: error %v", err)
	}
	for i := 0; i < 6; i++ {
		wide.Set(i, i, float64(i+1)*7)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (LQMI{Engine: Engine{Context: ctx}}).Fit(wide, []int{0, 0, 0, 1, 1, 1}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("lqmi, d > n, cancelled context: error %v, want context.Canceled", err)
	}
	if _, err := (LQMI{}).Fit(wide, []int{0, 0, 0, 1, 1, 1}, 0); err != nil {
		t.Errorf("lqmi, d > n: %v", err)
	}
	// min_class=1 accepts a class of one row (cross-validation folds of
	// Ecoli).
	for _, m := range []Method{KQMI{MinClassRows: 1}, LQMI{MinClassRows: 1}, AQMIDA{MinClassRows: 1}} {
		if _, err := m.Fit(x, []int{0, 0, 0, 1, 1, 2}, 0); err != nil {
			t.Errorf("%T with min_class=1: %v", m, err)
		}
	}
}

// The registry exposes the three methods with their parameters; σ = 0 is
// refused from the command line.
func TestQMIRegistry(t *testing.T) {
	for _, name := range []string{"kqmi", "lqmi", "aqmida"} {
		info, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Params) == 0 || info.Family != "mutual information" {
			t.Errorf("%s: registry entry %+v", name, info)
		}
	}
	m, err := New("kqmi", map[string]string{"reg": "cutoff", "cutoff": "1e-4", "sigma": "2", "min_class": "1"})
	if err != nil {
		t.Fatal(err)
	}
	k := m.(KQMI)
	if k.Reg != "cutoff" || k.Cutoff != 1e-4 || k.Kernel.Sigma != 2 || k.MinClassRows != 1 || k.Alpha != param.Set(DefaultKQMIAlpha) {
		t.Errorf("kqmi from params: %+v", k)
	}
	if m, err := New("aqmida", nil); err != nil || m.(AQMIDA).Sigma != 0 || m.(AQMIDA).MinClassRows != 2 {
		t.Errorf("aqmida defaults: %+v, %v", m, err)
	}
	for _, bad := range []struct {
		name string
		p    map[string]string
	}{
		{"aqmida", map[string]string{"sigma": "0"}},
		{"aqmida", map[string]string{"sigma": "-1"}},
		{"kqmi", map[string]string{"sigma": "0"}},
		{"kqmi", map[string]string{"alpha": "-1"}},
		{"kqmi", map[string]string{"cutoff": "1"}},
		{"kqmi", map[string]string{"reg": "lasso"}},
		{"lqmi", map[string]string{"ridge": "-1"}},
		{"lqmi", map[string]string{"min_class": "0"}},
		{"lqmi", map[string]string{"alpha": "1"}},
	} {
		if _, err := New(bad.name, bad.p); err == nil {
			t.Errorf("%s %v: want an error", bad.name, bad.p)
		}
	}
}
