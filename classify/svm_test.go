package classify

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

type sklearnSVMCase struct {
	Name           string
	Kernel         string
	C, Gamma       float64
	X, XTest       [][]float64
	Y              []int
	Dec            [][]float64
	Pred           []int
	PredDefaultTol []int
	Support        []int
	DualCoef       [][]float64
	Intercept      []float64
}

func rowsDense(r [][]float64) *mat.Dense {
	m := mat.NewDense(len(r), len(r[0]), nil)
	for i, v := range r {
		m.SetRow(i, v)
	}
	return m
}

func (tc sklearnSVMCase) svm(tol float64) SVM {
	c := SVM{Kernel: tc.Kernel, C: tc.C, Tol: tol}
	if tc.Kernel == SVMRBF {
		c.Gamma = tc.Gamma
	}
	return c
}

// Against scikit-learn's SVC (LIBSVM) on fixed problems, both solved to
// tol 1e-12: decision values and dual coefficients within 1e-6 relative,
// intercepts likewise, the same support vectors and identical predictions;
// at the default tolerance the predictions are identical too.
func TestSVMMatchesScikitLearn(t *testing.T) {
	for _, tc := range sklearnSVMCases {
		t.Run(tc.Name, func(t *testing.T) {
			x, xt := rowsDense(tc.X), rowsDense(tc.XTest)
			p, err := tc.svm(1e-12).Fit(x, tc.Y)
			if err != nil {
				t.Fatal(err)
			}
			m := p.(*SVMModel)
			dec, err := m.Decision(xt)
			if err != nil {
				t.Fatal(err)
			}
			sign := 1.0
			if len(m.Classes) == 2 {
				sign = -1 // scikit-learn flips two-class decision values
			}
			scale := 0.0
			for _, r := range tc.Dec {
				for _, v := range r {
					scale = math.Max(scale, math.Abs(v))
				}
			}
			worst := 0.0
			for i, r := range tc.Dec {
				for p, v := range r {
					worst = math.Max(worst, math.Abs(sign*dec.At(i, p)-v)/scale)
				}
			}
			if worst > 1e-6 {
				t.Errorf("decision values differ by %.3g relative, want ≤ 1e-6", worst)
			}
			if !equalInts(m.Support, tc.Support) {
				t.Errorf("support vectors %v, scikit-learn %v", m.Support, tc.Support)
			}
			// dual_coef_: row t−1 holds the coefficients of class s's
			// vectors in pair (s, t), row s those of class t's.
			cls := map[int]int{}
			for k, c := range m.Classes {
				cls[c] = k
			}
			svClass := make([]int, len(tc.Support))
			for k, i := range tc.Support {
				svClass[k] = cls[tc.Y[i]]
			}
			cscale, cworst := 0.0, 0.0
			for _, r := range tc.DualCoef {
				for _, v := range r {
					cscale = math.Max(cscale, math.Abs(v))
				}
			}
			for pi, pr := range m.Pairs {
				s, u := cls[pr.First], cls[pr.Second]
				want := make([]float64, len(tc.Support))
				for k := range want {
					switch svClass[k] {
					case s:
						want[k] = sign * tc.DualCoef[u-1][k]
					case u:
						want[k] = sign * tc.DualCoef[s][k]
					}
				}
				got := make([]float64, len(tc.Support))
				for k, sv := range pr.SV {
					got[sv] = pr.Coef[k]
				}
				for k := range got {
					cworst = math.Max(cworst, math.Abs(got[k]-want[k])/cscale)
				}
				if d := math.Abs(-pr.Rho-sign*tc.Intercept[pi]) / math.Max(1, math.Abs(pr.Rho)); d > 1e-6 {
					t.Errorf("pair (%d, %d): ρ = %.10g, scikit-learn's intercept %.10g", pr.First, pr.Second, pr.Rho, tc.Intercept[pi])
				}
			}
			if cworst > 1e-6 {
				t.Errorf("dual coefficients differ by %.3g relative, want ≤ 1e-6", cworst)
			}
			pred, err := m.Predict(xt)
			if err != nil {
				t.Fatal(err)
			}
			if !equalInts(pred, tc.Pred) {
				t.Errorf("predictions %v, scikit-learn %v", pred, tc.Pred)
			}
			p3, err := tc.svm(0).Fit(x, tc.Y)
			if err != nil {
				t.Fatal(err)
			}
			pred3, _ := p3.Predict(xt)
			if !equalInts(pred3, tc.PredDefaultTol) {
				t.Errorf("default tol: predictions %v, scikit-learn %v", pred3, tc.PredDefaultTol)
			}
			t.Logf("decision values within %.2g, dual coefficients within %.2g (relative)", worst, cworst)
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// blobData draws c Gaussian classes of n rows in d dimensions (centres
// spaced sep apart along a cycle), rows interleaved.
func blobData(seed uint64, c, n, d int, sep float64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(c*n, d, nil)
	y := make([]int, c*n)
	for i := range y {
		y[i] = i % c
		for j := 0; j < d; j++ {
			mu := 0.0
			if j == y[i]%d {
				mu = sep
			}
			x.Set(i, j, mu+rng.NormFloat64())
		}
	}
	return x, y
}

// The KKT conditions of every pair's dual, recomputed in float64 from a
// dense Gram matrix (KKTViolation, which also checks 0 ≤ α ≤ C and
// yᵀα = 0): the largest violation max_{I_up} −yG + max_{I_low} yG is at
// most tol (plus the rounding of the float32 kernel cache), for both
// kernels, with and without shrinking and with a cache of two columns; a
// model whose coefficients were tampered with fails.
func TestSVMKKT(t *testing.T) {
	x, y := blobData(1, 3, 40, 4, 1.5)
	for _, c := range []SVM{
		{Kernel: SVMRBF, C: 100, Sigma: 1},
		{Kernel: SVMRBF, C: 1, Gamma: 2},
		{Kernel: SVMLinear, C: 10},
		{Kernel: SVMRBF, C: 100, NoShrinking: true},
		{Kernel: SVMLinear, C: 10, CacheMB: 1e-6},
	} {
		p, err := c.Fit(x, y)
		if err != nil {
			t.Fatal(err)
		}
		m := p.(*SVMModel)
		v, err := m.KKTViolation(x, y)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		r, _ := c.resolved()
		if v > r.Tol*(1+1e-3) {
			t.Errorf("%s: KKT violation %g > tol %g", c.Name(), v, r.Tol)
		}
		if c.Kernel == SVMRBF && c.Gamma == 0 {
			// Scaling one pair's coefficients breaks yᵀα = 0 or optimality.
			m.Pairs[0].Coef[0] *= 0.5
			if v2, err := m.KKTViolation(x, y); err == nil && v2 <= r.Tol {
				t.Errorf("%s: tampered model passes (violation %g)", c.Name(), v2)
			}
		}
	}
}

// One-vs-one voting: the vote of a pair goes to its first class when the
// decision value is > 0 and to its second otherwise (0 included); a tie
// in votes goes to the lowest label.
func TestSVMVoting(t *testing.T) {
	// Three classes, one support vector each; the linear kernel on a
	// 1-D input makes every decision value ±x or 0.
	sv := mat.NewDense(1, 1, []float64{1})
	mk := func(rho [3]float64) *SVMModel {
		return &SVMModel{Classes: []int{2, 5, 9}, Kernel: kernel.Linear(), SV: sv, Support: []int{0},
			Pairs: []SVMPair{
				{First: 2, Second: 5, SV: []int{0}, Coef: []float64{1}, Rho: rho[0]},
				{First: 2, Second: 9, SV: []int{0}, Coef: []float64{1}, Rho: rho[1]},
				{First: 5, Second: 9, SV: []int{0}, Coef: []float64{1}, Rho: rho[2]},
			}}
	}
	x := mat.NewDense(1, 1, []float64{0}) // decision value = −ρ
	for _, c := range []struct {
		rho  [3]float64
		want int
		why  string
	}{
		{[3]float64{-1, -1, -1}, 2, "2 wins both its pairs"},
		{[3]float64{1, 1, -1}, 5, "5 beats 2 and 9"},
		{[3]float64{1, 1, 1}, 9, "9 beats 2 and 5"},
		{[3]float64{-1, 1, -1}, 2, "a 1-1-1 tie goes to the lowest label"},
		{[3]float64{1, -1, 1}, 2, "the other 1-1-1 tie, lowest label"},
		{[3]float64{0, 0, 0}, 9, "decision value 0 votes for the second class"},
		{[3]float64{-1, 0, 0}, 9, "(2,5) to 2, (2,9) and (5,9) at 0 to 9: 9 has two votes"},
	} {
		got, err := mk(c.rho).Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != c.want {
			t.Errorf("ρ = %v: predicted %d, want %d (%s)", c.rho, got[0], c.want, c.why)
		}
	}
}

// Errors at the boundary: one class, NaN inputs, bad parameters (struct
// literals and text), a linear SVM given an RBF width, the wrong width of
// test rows.
func TestSVMErrors(t *testing.T) {
	x, y := blobData(2, 2, 10, 2, 2)
	one := make([]int, len(y))
	for i := range one {
		one[i] = 4
	}
	if _, err := (SVM{}).Fit(x, one); err == nil || !strings.Contains(err.Error(), "at least 2 classes") {
		t.Errorf("one class: %v", err)
	}
	bad := mat.DenseCopyOf(x)
	bad.Set(3, 1, math.NaN())
	if _, err := (SVM{}).Fit(bad, y); err == nil {
		t.Error("NaN training row accepted")
	}
	for _, c := range []SVM{{C: -1}, {C: math.NaN()}, {Sigma: -2}, {Gamma: -1}, {Tol: -1e-3}, {CacheMB: -5},
		{Kernel: "poly"}, {Kernel: SVMLinear, Sigma: 2}} {
		if _, err := c.Fit(x, y); err == nil {
			t.Errorf("%+v accepted", c)
		} else {
			t.Logf("%+v: %v", c, err)
		}
	}
	for _, s := range []string{"svm-rbf:C=0", "svm-rbf:C=-1", "svm-rbf:sigma=0", "svm-rbf:C=abc", "svm-linear:sigma=1",
		"svm-rbf:sigma=1,gamma=2", "svm-rbf:Cc=1", "svm-rbf:C", "svm-rbf:C=1,C=2", "svm-poly", "knn3:C=1", "svm-rbf:shrinking=maybe"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		} else {
			t.Logf("%s: %v", s, err)
		}
	}
	p, err := (SVM{}).Fit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Predict(mat.NewDense(2, 3, nil)); err == nil {
		t.Error("3-column rows accepted by a 2-column model")
	}
	nanRow := mat.NewDense(1, 2, []float64{math.NaN(), 0})
	if _, err := p.Predict(nanRow); err == nil {
		t.Error("NaN test row accepted")
	}
}

// Names: defaults print bare, other values in Parse's syntax, and Parse
// reads every form back (keys case-insensitive, lists with parameters).
func TestSVMNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want SVM
		name string
	}{
		{"svm-rbf", SVM{Kernel: SVMRBF}, "svm-rbf"},
		{"svm-rbf:sigma=auto", SVM{Kernel: SVMRBF}, "svm-rbf"},
		{"SVM-RBF:C=100,sigma=1", SVM{Kernel: SVMRBF, C: 100, Sigma: 1}, "svm-rbf:C=100,sigma=1"},
		{"svm-rbf:c=100,gamma=0.5", SVM{Kernel: SVMRBF, C: 100, Gamma: 0.5}, "svm-rbf:C=100,gamma=0.5"},
		{"svm-linear:C=100", SVM{Kernel: SVMLinear, C: 100}, "svm-linear:C=100"},
		{"svm-linear:tol=1e-4,cache=20,shrinking=false", SVM{Kernel: SVMLinear, Tol: 1e-4, CacheMB: 20, NoShrinking: true},
			"svm-linear:tol=0.0001,cache=20,shrinking=false"},
	} {
		got, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		w, _ := c.want.resolved()
		g, _ := got.(SVM).resolved()
		if g != w {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, g, w)
		}
		if got.Name() != c.name {
			t.Errorf("Parse(%q).Name() = %q, want %q", c.in, got.Name(), c.name)
		}
		back, err := Parse(got.Name())
		if err != nil || back.Name() != got.Name() {
			t.Errorf("Parse(Name()) = %v, %v", back, err)
		}
	}
	cs, err := ParseList("ncc,svm-rbf:C=100,sigma=1,knn3,svm-linear:C=100")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, " "); got != "ncc svm-rbf:C=100,sigma=1 knn3 svm-linear:C=100" {
		t.Errorf("ParseList: %s", got)
	}
}

// The same model, decision values and sweep whatever GOMAXPROCS is (the
// pairs and the dimensions run in parallel); the sweep equals a
// per-dimension Fit/Predict loop.
func TestSVMDeterministic(t *testing.T) {
	x, y := blobData(3, 4, 30, 5, 1.2)
	xt, yt := blobData(4, 4, 10, 5, 1.2)
	c := SVM{Kernel: SVMRBF, C: 10}
	run := func(procs int) (*mat.Dense, []int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		p, err := c.Fit(x, y)
		if err != nil {
			t.Fatal(err)
		}
		d, err := p.(*SVMModel).Decision(xt)
		if err != nil {
			t.Fatal(err)
		}
		miss, err := SweepMisclassified(c, x, y, xt, yt, 5)
		if err != nil {
			t.Fatal(err)
		}
		return d, miss
	}
	d1, m1 := run(1)
	d2, m2 := run(2)
	if !mat.Equal(d1, d2) {
		t.Error("decision values differ between GOMAXPROCS 1 and 2")
	}
	if !equalInts(m1, m2) {
		t.Errorf("sweep %v (1 proc) vs %v (2 procs)", m1, m2)
	}
	for k := 1; k <= 5; k++ {
		p, err := c.Fit(x.Slice(0, 120, 0, k).(*mat.Dense), y)
		if err != nil {
			t.Fatal(err)
		}
		pred, _ := p.Predict(xt.Slice(0, 40, 0, k).(*mat.Dense))
		miss := 0
		for i, v := range pred {
			if v != yt[i] {
				miss++
			}
		}
		if miss != m1[k-1] {
			t.Errorf("dimension %d: sweep %d, loop %d misclassified", k, m1[k-1], miss)
		}
	}
}

// sigma=auto (the zero SVM) takes σ = ½ × the median distance between the
// training rows: the model's γ is 1/(2σ²) with the median computed here by
// brute force over every pair; the fit equals the one with that σ given;
// it is invariant to the data's scale (γ divided by 49 when the rows are
// multiplied by 7, the same predictions); and where σ = 1 fails — rows
// about 60 apart, K ≈ I — it does not.
func TestSVMAutoSigma(t *testing.T) {
	x, y := blobData(1, 3, 60, 20, 3)
	x.Scale(10, x)
	tr, te := 120, 60
	xtr, ytr := mat.DenseCopyOf(x.Slice(0, tr, 0, 20)), y[:tr]
	xte, yte := mat.DenseCopyOf(x.Slice(tr, tr+te, 0, 20)), y[tr:]

	var d []float64
	for i := range tr {
		for j := i + 1; j < tr; j++ {
			d = append(d, floats.Distance(xtr.RawRowView(i), xtr.RawRowView(j), 2))
		}
	}
	sort.Float64s(d)
	med := (d[len(d)/2-1] + d[len(d)/2]) / 2 // an even number of pairs
	sigma := med / 2

	fit := func(c SVM, x *mat.Dense) (*SVMModel, []int) {
		t.Helper()
		p, err := c.Fit(x, ytr)
		if err != nil {
			t.Fatal(err)
		}
		m := p.(*SVMModel)
		pred, err := m.Predict(mat.DenseCopyOf(xte))
		if err != nil {
			t.Fatal(err)
		}
		return m, pred
	}
	auto, predAuto := fit(SVM{}, xtr)
	if want := 1 / (2 * sigma * sigma); math.Abs(auto.Kernel.Gamma-want) > 1e-12*want {
		t.Errorf("auto γ = %g, want 1/(2σ²) = %g with σ = ½ × median distance %g", auto.Kernel.Gamma, want, med)
	}
	kmed, err := kernel.MedianDistance(xtr, kernel.AutoWidthSample)
	if err != nil {
		t.Fatal(err)
	}
	given, _ := fit(SVM{Sigma: kernel.AutoWidthFactor * kmed}, xtr)
	if given.Kernel.Gamma != auto.Kernel.Gamma || !reflect.DeepEqual(given.Pairs, auto.Pairs) {
		t.Errorf("sigma=auto and sigma=%g give different models", kernel.AutoWidthFactor*kmed)
	}

	x7 := mat.DenseCopyOf(xtr)
	x7.Scale(7, x7)
	scaled, _ := fit(SVM{}, x7)
	if r := scaled.Kernel.Gamma * 49 / auto.Kernel.Gamma; math.Abs(r-1) > 1e-12 {
		t.Errorf("γ on 7·X × 49 / γ on X = %.15g, want 1", r)
	}
	xte7 := mat.DenseCopyOf(xte)
	xte7.Scale(7, xte7)
	pred7, err := scaled.Predict(xte7)
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(pred7, predAuto) {
		t.Errorf("sigma=auto predictions change when the data are scaled by 7")
	}

	if e := ErrorRate(predAuto, yte); e > 0.1 {
		t.Errorf("sigma=auto: test error %.3f, want ≤ 0.1", e)
	}
	if _, pred1 := fit(SVM{Sigma: 1}, xtr); ErrorRate(pred1, yte) < 0.5 {
		t.Errorf("sigma=1 on rows about 60 apart: test error %.3f, expected near chance (≥ 0.5); the test no longer shows what auto fixes", ErrorRate(pred1, yte))
	}
}

// A cancelled context stops SMO at its first check, after min(l, 1000)
// iterations (the shrinking cadence), on a problem that needs far more
// (overlapping classes, linear kernel, C = 1000); FitContext returns the
// context's error and no model; the uncancelled run converges.
func TestSVMFitContextCancel(t *testing.T) {
	x, y := blobData(3, 2, 300, 2, 0.5)
	n, d := x.Dims()
	ys := make([]float64, n)
	for i, v := range y {
		ys[i] = float64(1 - 2*v)
	}
	solve := func(ctx context.Context) smoResult {
		return solveSMO(ctx, newSVMKernel(x.RawMatrix().Data, d, false, 0), ys, 1000, 1e-3, 1<<22, true)
	}
	full := solve(context.Background())
	if full.stopped || full.iter <= 5*1000 {
		t.Fatalf("uncancelled run: %d iterations (stopped %v); the test needs a problem of more than 5 000", full.iter, full.stopped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := solve(ctx); !r.stopped || r.iter != min(n, 1000) || r.coef != nil {
		t.Errorf("cancelled run: stopped %v after %d iterations, want stopped after %d with no solution", r.stopped, r.iter, min(n, 1000))
	}
	for _, c := range []SVM{{Kernel: SVMLinear, C: 1000}, {C: 1000}} {
		p, err := c.FitContext(ctx, x, y)
		if !errors.Is(err, context.Canceled) || p != nil {
			t.Errorf("%s: FitContext after cancel: %v, %v", c.Name(), p, err)
		}
		if _, err := MisclassifiedContext(ctx, c, x, y, x, y); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: MisclassifiedContext after cancel: %v", c.Name(), err)
		}
	}
	if _, err := SweepAtContext(ctx, []Classifier{SVM{}}, x, y, x, y, []int{1, 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("SweepAtContext after cancel: %v", err)
	}
}
