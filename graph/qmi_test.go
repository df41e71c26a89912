package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/linalg"
)

// unbalanced labels with C = 4 classes of sizes 5, 3, 8, 1 (and two
// unlabeled rows that must take no part).
var qmiLabels = []int{0, 2, 1, 0, 2, 2, 3, 0, 1, 2, 0, 2, -1, 1, 2, 0, 2, -1, 2}

func randRows(rng *rand.Rand, n, d int) *mat.Dense { return testdata.Normal(rng, n, d) }

func TestQMIConstants(t *testing.T) {
	q, err := NewQMIConstants(qmiLabels)
	if err != nil {
		t.Fatal(err)
	}
	n := 17.0
	want := []int{5, 3, 8, 1}
	for c, k := range want {
		if q.Counts[c] != k {
			t.Fatalf("J_%d = %d, want %d", c, q.Counts[c], k)
		}
		if math.Abs(q.Btw[c]-float64(k)/(n*n*n)) > 1e-18 {
			t.Errorf("C_BTW,%d = %g", c, q.Btw[c])
		}
	}
	if q.N != 17 || math.Abs(q.In-1/(n*n)) > 1e-18 || math.Abs(q.All-(25+9+64+1)/(n*n*n*n)) > 1e-18 {
		t.Errorf("constants %+v", q)
	}
	if _, err := NewQMIConstants([]int{-1, -1}); err == nil {
		t.Error("no labelled rows: want an error")
	}
}

// denseM builds M of eq. 19 from its definition with explicit indicator
// vectors: C_ALL·11ᵀ + C_IN·Σ 1_c1_cᵀ − 2·1·(Σ C_BTW,c·1_c)ᵀ over the
// labelled rows.
func denseM(y []int, q QMIConstants) *mat.Dense {
	n := len(y)
	one := mat.NewDense(n, 1, nil)
	for i, v := range y {
		if v >= 0 {
			one.Set(i, 0, 1)
		}
	}
	m := mat.NewDense(n, n, nil)
	var t mat.Dense
	t.Mul(one, one.T())
	t.Scale(q.All, &t)
	m.Add(m, &t)
	btw := mat.NewDense(n, 1, nil)
	for c := range q.Counts {
		ic := mat.NewDense(n, 1, nil)
		for i, v := range y {
			if v == c {
				ic.Set(i, 0, 1)
			}
		}
		t.Mul(ic, ic.T())
		t.Scale(q.In, &t)
		m.Add(m, &t)
		ic.Scale(q.Btw[c], ic)
		btw.Add(btw, ic)
	}
	t.Mul(one, btw.T())
	t.Scale(-2, &t)
	m.Add(m, &t)
	return m
}

// The class-block M' equals (M + Mᵀ)/2 of the dense eq. 19, M(yi, yj)
// gives its entries, M' = D − W with W of eq. 31, Wᵢᵢ = 0, and the rows of
// W sum to Dᵢᵢ (Appendix B), i.e. M'·1 = 0.
func TestQMIGraphForms(t *testing.T) {
	y := qmiLabels
	n := len(y)
	q, _ := NewQMIConstants(y)
	md := denseM(y, q)
	g, err := QMI(y)
	if err != nil {
		t.Fatal(err)
	}
	mp := g.Dense()
	w, d, err := QMIWeights(y)
	if err != nil {
		t.Fatal(err)
	}
	wd := w.Dense()
	scale := q.In // entries are O(1/n²)
	for i := 0; i < n; i++ {
		rowW := 0.0
		for j := 0; j < n; j++ {
			sym := (md.At(i, j) + md.At(j, i)) / 2
			if math.Abs(mp.At(i, j)-sym) > 1e-14*scale {
				t.Fatalf("M'[%d][%d] = %g, (M+Mᵀ)/2 = %g", i, j, mp.At(i, j), sym)
			}
			if y[i] >= 0 && y[j] >= 0 && math.Abs(q.M(y[i], y[j])-md.At(i, j)) > 1e-14*scale {
				t.Fatalf("M(%d,%d) = %g, eq. 19 gives %g", y[i], y[j], q.M(y[i], y[j]), md.At(i, j))
			}
			dij := 0.0
			if i == j {
				dij = d[i]
			}
			if math.Abs(mp.At(i, j)-(dij-wd.At(i, j))) > 1e-14*scale {
				t.Fatalf("M' ≠ D − W at (%d,%d)", i, j)
			}
			rowW += wd.At(i, j)
		}
		if wd.At(i, i) != 0 {
			t.Errorf("W[%d][%d] = %g, want 0", i, i, wd.At(i, i))
		}
		if y[i] >= 0 && d[i] != q.Alpha(y[i]) {
			t.Errorf("D[%d] = %g, want α = %g", i, d[i], q.Alpha(y[i]))
		}
		if math.Abs(rowW-d[i]) > 1e-13*scale {
			t.Errorf("row %d of W sums to %.17g, D_ii = %.17g", i, rowW, d[i])
		}
	}
	// The sign pattern stated in §III-B: same-class weights ≤ 0.
	for c := range q.Counts {
		if -q.Alpha(c) > 0 {
			t.Errorf("same-class weight of class %d is %g > 0", c, -q.Alpha(c))
		}
	}
	// M is not symmetric for unbalanced classes (why eq. 22 symmetrises).
	if math.Abs(md.At(0, 1)-md.At(1, 0)) < 1e-3*scale {
		t.Error("M of eq. 19 unexpectedly symmetric on unbalanced classes")
	}
}

// M' is positive semi-definite of rank C − 1, its eigenvectors of nonzero
// eigenvalue span the centred class indicators (the span of GDA's graph),
// and Φᵀ·M'·Φ has rank ≤ C − 1 for centred Φ of any width; on centred X
// it equals Σ_c J_c²·m_c·m_cᵀ/n².
func TestQMIGraphRankAndSpan(t *testing.T) {
	y := qmiLabels
	n := len(y)
	g, _ := QMI(y)
	vals, vecs, err := linalg.SymEig(g.Dense(), 0, linalg.Largest)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := NewQMIConstants(y)
	tol := 1e-12 * q.In
	rank := 0
	for _, v := range vals {
		if v < -tol {
			t.Errorf("M' has negative eigenvalue %g", v)
		}
		if v > tol {
			rank++
		}
	}
	if rank != 3 {
		t.Fatalf("rank M' = %d, want C − 1 = 3 (eigenvalues %v)", rank, vals[:6])
	}
	// Span of the centred indicators = range of BetweenClass (over
	// labelled rows).
	_, bvecs, _ := linalg.SymEig(BetweenClass(y).Dense(), 3, linalg.Largest)
	ang, err := linalg.PrincipalAngles(vecs.Slice(0, n, 0, 3), bvecs)
	if err != nil {
		t.Fatal(err)
	}
	if ang[len(ang)-1] > 1e-7 { // acos resolves angles down to ~√ε ≈ 1.5e-8
		t.Errorf("nonzero eigenvectors of M' vs centred indicators: angles %v", ang)
	}
	// The indicator-span solver the regression route uses agrees.
	svals, _, err := g.EigIndicatorSpan(0, linalg.Largest)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if math.Abs(svals[i]-vals[i]) > 1e-10*vals[0] {
			t.Errorf("indicator-span eigenvalue %d: %g vs %g", i, svals[i], vals[i])
		}
	}

	// Centred data of width 7 > C: rank of XᵀM'X ≤ C − 1, and the
	// J_c²-weighted scatter identity.
	rng := rand.New(rand.NewPCG(1, 2))
	x := randRows(rng, n, 7)
	for i, v := range y {
		if v < 0 { // unlabeled rows: zero them so "centred" means over labelled rows
			for j := 0; j < 7; j++ {
				x.Set(i, j, 0)
			}
		}
	}
	mu := make([]float64, 7)
	for i, v := range y {
		if v >= 0 {
			for j := range mu {
				mu[j] += x.At(i, j) / float64(q.N)
			}
		}
	}
	for i, v := range y {
		if v >= 0 {
			for j := range mu {
				x.Set(i, j, x.At(i, j)-mu[j])
			}
		}
	}
	var s mat.Dense
	s.Mul(x.T(), g.Apply(x))
	sv, _, _ := linalg.SymEig(linalg.Symmetrize(&s), 0, linalg.Largest)
	if sv[3] > 1e-12*sv[0] {
		t.Errorf("XᵀM'X on centred X has eigenvalues %v; want rank ≤ 3", sv)
	}
	want := mat.NewDense(7, 7, nil)
	for c, jc := range q.Counts {
		m := make([]float64, 7)
		for i, v := range y {
			if v == c {
				for j := range m {
					m[j] += x.At(i, j) / float64(jc)
				}
			}
		}
		f := float64(jc*jc) / float64(q.N*q.N)
		for a := range m {
			for b := range m {
				want.Set(a, b, want.At(a, b)+f*m[a]*m[b])
			}
		}
	}
	if !mat.EqualApprox(&s, want, 1e-12*mat.Norm(want, math.Inf(1))) {
		t.Errorf("XᵀM'X ≠ Σ J_c² m_c m_cᵀ / n²")
	}
}

// For balanced classes M' = (W_c − 11ᵀ/n)/(n·C): a multiple of GDA's
// between-class graph, so KQMI and GDA coincide.
func TestQMIBalancedIsBetweenClass(t *testing.T) {
	y := []int{0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 1, 2}
	n, c := 12.0, 3.0
	g, _ := QMI(y)
	m := g.Dense()
	b := BetweenClass(y).Dense()
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			if math.Abs(m.At(i, j)-b.At(i, j)/(n*c)) > 1e-17 {
				t.Fatalf("balanced M'[%d][%d] = %g, (W_c − 11ᵀ/n)/(nC) = %g", i, j, m.At(i, j), b.At(i, j)/(n*c))
			}
		}
	}
}

// eq. 4 written out: E = (1/N²)[Σ_c Σ_{n,m∈c} E_nm + (Σ N_c²/N²) Σ_{n,m} E_nm
// − 2 Σ_c (N_c/N) Σ_{n∈c} Σ_m E_nm] with the explicit matrix exponentials
// E_nm = expm(−d dᵀ/(2σ²))/(σ√(2π)) (gonum's Dense.Exp), on a small case.
func explicitE(x *mat.Dense, y []int, sigma float64) *mat.Dense {
	n, d := x.Dims()
	counts := map[int]int{}
	for _, v := range y {
		counts[v]++
	}
	fn := float64(n)
	s := 0.0
	for _, k := range counts {
		s += float64(k * k)
	}
	s /= fn * fn
	e := mat.NewDense(d, d, nil)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			enm := pairE(x.RawRowView(a), x.RawRowView(b), sigma)
			coef := s - 2*float64(counts[y[a]])/fn
			if y[a] == y[b] {
				coef++
			}
			enm.Scale(coef/(fn*fn), enm)
			e.Add(e, enm)
		}
	}
	return e
}

func pairE(xn, xm []float64, sigma float64) *mat.Dense {
	d := len(xn)
	diff := mat.NewVecDense(d, nil)
	for i := range xn {
		diff.SetVec(i, xn[i]-xm[i])
	}
	var a mat.Dense
	a.Outer(-1/(2*sigma*sigma), diff, diff)
	var ex mat.Dense
	ex.Exp(&a)
	ex.Scale(1/(sigma*math.Sqrt(2*math.Pi)), &ex)
	return &ex
}

// AQMIDA's E from the ρ/τ form (ApproxQMI, eq. 9) equals the explicit sum
// of eq. 4 with matrix exponentials; also the direct double sum of eq. 9.
func TestApproxQMIMatchesExplicitSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	y := []int{0, 1, 0, 2, 1, 1, 0, 2, 0, 1, 1}
	x := randRows(rng, len(y), 3)
	x.Set(4, 0, x.At(1, 0)) // a repeated row: the d = 0 limit of τ
	x.Set(4, 1, x.At(1, 1))
	x.Set(4, 2, x.At(1, 2))
	for _, sigma := range []float64{0.4, 1.3} {
		l, err := ApproxQMI(x, y, sigma)
		if err != nil {
			t.Fatal(err)
		}
		var xl, e mat.Dense
		xl.Mul(x.T(), l)
		e.Mul(&xl, x)
		want := explicitE(x, y, sigma)
		tol := 1e-12 * mat.Norm(want, math.Inf(1))
		if !mat.EqualApprox(&e, want, tol) {
			t.Errorf("σ=%g: XᵀLX =\n%v\nexplicit eq. 4 =\n%v", sigma, mat.Formatted(&e), mat.Formatted(want))
		}
		// eq. 9 as a double sum of outer products.
		n := len(y)
		counts := map[int]int{}
		for _, v := range y {
			counts[v]++
		}
		s := 0.0
		for _, k := range counts {
			s += float64(k*k) / float64(n*n)
		}
		e9 := mat.NewDense(3, 3, nil)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				diff := make([]float64, 3)
				d2 := 0.0
				for j := range diff {
					diff[j] = x.At(a, j) - x.At(b, j)
					d2 += diff[j] * diff[j]
				}
				if d2 == 0 {
					continue
				}
				tau := (1 - math.Exp(-d2/(2*sigma*sigma))) / (sigma * math.Sqrt(2*math.Pi) * d2)
				rho := float64(counts[y[a]]+counts[y[b]])/float64(n) - s
				if y[a] == y[b] {
					rho--
				}
				rho *= tau
				dv := mat.NewVecDense(3, diff)
				var o mat.Dense
				o.Outer(rho/float64(n*n), dv, dv)
				e9.Add(e9, &o)
			}
		}
		if !mat.EqualApprox(&e, e9, tol) {
			t.Errorf("σ=%g: ApproxQMI differs from the direct double sum of eq. 9", sigma)
		}
	}
}

// seed 001 §3.1: for unit w, wᵀE_nm·w ≥ G_nm (a tight upper bound), with
// equality when w ⊥ xₙ − xₘ (λ = 0) and w ∥ xₙ − xₘ (λ = 1); and eq. 8's
// closed form of wᵀE_nm·w.
func TestAQMIDAPairBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sigma := 0.7
	norm := 1 / (sigma * math.Sqrt(2*math.Pi))
	for trial := 0; trial < 50; trial++ {
		xn := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		xm := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		e := pairE(xn, xm, sigma)
		d := mat.NewVecDense(3, []float64{xn[0] - xm[0], xn[1] - xm[1], xn[2] - xm[2]})
		dn := mat.Norm(d, 2)
		quad := func(w *mat.VecDense) (float64, float64) {
			w.ScaleVec(1/mat.Norm(w, 2), w)
			proj := mat.Dot(w, d)
			g := norm * math.Exp(-proj*proj/(2*sigma*sigma))
			return mat.Inner(w, e, w), g
		}
		// random direction: bound and eq. 8
		w := mat.NewVecDense(3, []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		q, g := quad(w)
		lambda := math.Pow(mat.Dot(w, d)/dn, 2)
		eq8 := norm * (1 - (1-math.Exp(-dn*dn/(2*sigma*sigma)))*lambda)
		if math.Abs(q-eq8) > 1e-12 {
			t.Fatalf("wᵀE_nm w = %.15g, eq. 8 gives %.15g", q, eq8)
		}
		if q < g-1e-14 {
			t.Errorf("wᵀE_nm w = %g < G_nm = %g (λ = %g)", q, g, lambda)
		}
		if lambda > 0.05 && lambda < 0.95 && q-g < 1e-6*norm {
			t.Errorf("bound unexpectedly tight inside (0,1): λ = %g, gap %g", lambda, q-g)
		}
		// λ = 1
		q1, g1 := quad(mat.VecDenseCopyOf(d))
		if math.Abs(q1-g1) > 1e-12 {
			t.Errorf("λ = 1: wᵀE w = %.15g, G = %.15g", q1, g1)
		}
		// λ = 0: w = random minus its projection on d
		var w0 mat.VecDense
		w0.AddScaledVec(w, -mat.Dot(w, d)/(dn*dn), d)
		q0, g0 := quad(&w0)
		if math.Abs(q0-g0) > 1e-12 || math.Abs(g0-norm) > 1e-12 {
			t.Errorf("λ = 0: wᵀE w = %.15g, G = %.15g, want 1/(σ√2π) = %.15g", q0, g0, norm)
		}
	}
}

func TestApproxQMIErrors(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 1, 2, 3, 4, 5})
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := ApproxQMI(x, []int{0, 1, 0}, s); err == nil {
			t.Errorf("sigma = %v: want an error", s)
		}
	}
	if _, err := ApproxQMI(x, []int{0, 1}, 1); err == nil {
		t.Error("2 labels for 3 rows: want an error")
	}
	if _, err := ApproxQMI(x, []int{0, -1, 1}, 1); err == nil {
		t.Error("unlabeled row: want an error")
	}
}

// QMIBlock refuses a negative class count, naming it; an empty class (a
// gap in the labels) is allowed and gets the entries of a class of 0 rows.
func TestQMIBlockCounts(t *testing.T) {
	if _, err := QMIBlock([]int{-1, 3}); err == nil || !strings.Contains(err.Error(), "class 0 has count -1") {
		t.Errorf("count -1: error %v", err)
	}
	if _, err := QMIBlock(nil); err == nil {
		t.Error("no classes: want an error")
	}
	b, err := QMIBlock([]int{0, 3})
	if err != nil {
		t.Fatal(err)
	}
	// n = 3: C_IN = 1/9, C_ALL = 9/81 = 1/9, C_BTW = (0, 3/27) → α₁ = 0.
	if got := b.At(1, 1); math.Abs(got) > 1e-15 {
		t.Errorf("α of the only class = %v, want 0", got)
	}
}

func TestSilvermanSigma(t *testing.T) {
	// (4·2⁵/(3·100))^{1/5}
	if got, want := SilvermanSigma(2, 100), math.Pow(128.0/300, 0.2); math.Abs(got-want) > 1e-15 {
		t.Errorf("SilvermanSigma(2, 100) = %g, want %g", got, want)
	}
}

// QMIWeights on labels that are not 0..C−1 (5, 7, 9) gives the weights of
// the same labels compacted: the constants are indexed by the labels
// themselves (the review: renumbering them inside NewQMIConstants made
// QMIWeights index past them and panic).
func TestQMIWeightsSparseLabels(t *testing.T) {
	w1, d1, err := QMIWeights([]int{5, 5, 7, 7, 7, 9})
	if err != nil {
		t.Fatal(err)
	}
	w2, d2, err := QMIWeights([]int{0, 0, 1, 1, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(w1.Dense(), w2.Dense()) || !slices.Equal(d1, d2) {
		t.Error("weights of labels 5, 7, 9 differ from those of 0, 1, 2")
	}
}
