package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/linalg"
)

// Bad input through the library (method.New and the method structs): each
// case must give an error whose message names the rule or the value, or —
// where the input is legitimate but awkward — a finite model with the
// documented number of dimensions. Nothing may panic.

// badTry runs f, turning a panic into a test error.
func badTry(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", what, r)
		}
	}()
	f()
}

// badFinite checks that the model's transform of x is finite with the
// model's Dims columns, and that its values are finite.
func badFinite(t *testing.T, what string, m Model, x *mat.Dense, wantDims int) {
	t.Helper()
	if m.Dims() != wantDims {
		t.Errorf("%s: %d dims, want %d", what, m.Dims(), wantDims)
	}
	if f, ok := m.(*Fitted); ok {
		for j, v := range f.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: value %d is %v", what, j+1, v)
			}
		}
	}
	z, err := m.Transform(x)
	if err != nil {
		t.Fatalf("%s: transform of training rows: %v", what, err)
	}
	r, c := z.Dims()
	n, _ := x.Dims()
	if r != n || c != wantDims {
		t.Errorf("%s: transform is %d×%d, want %d×%d", what, r, c, n, wantDims)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := z.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: transform entry (%d,%d) is %v", what, i+1, j+1, v)
			}
		}
	}
}

func badNew(t *testing.T, name string, params map[string]string) Method {
	t.Helper()
	m, err := New(name, params)
	if err != nil {
		t.Fatalf("New(%q, %v): %v", name, params, err)
	}
	return m
}

// badWant checks err is non-nil and mentions every fragment.
func badWant(t *testing.T, what string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not mention %q", what, err, f)
		}
	}
}

var badMethods = []string{"lda", "gda", "pca", "kpca"}

// Non-finite input, missing or mismatched labels, a single class, too many
// dimensions, negative dimensions.
func TestBadInputErrors(t *testing.T) {
	x, y := loadSklearn(t, "iris")
	x = minmax(x)
	n, _ := x.Dims()
	for _, name := range badMethods {
		m := badNew(t, name, nil)
		supervised := name == "lda" || name == "gda"
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			xb := mat.DenseCopyOf(x)
			xb.Set(2, 1, bad)
			badTry(t, name, func() {
				_, err := m.Fit(xb, y, 0)
				badWant(t, fmt.Sprintf("%s with %v", name, bad), err, name+":", "row 3, column 2", fmt.Sprint(bad), "finite")
			})
		}
		badTry(t, name, func() {
			_, err := m.Fit(nil, y, 0)
			badWant(t, name+" nil rows", err, "no training rows")
		})
		badTry(t, name, func() {
			_, err := m.Fit(x, y, -1)
			badWant(t, name+" dims -1", err, "-1")
		})
		if !supervised {
			continue
		}
		badTry(t, name, func() {
			_, err := m.Fit(x, nil, 0)
			badWant(t, name+" nil labels", err, "needs labels")
		})
		badTry(t, name, func() {
			_, err := m.Fit(x, y[:n-1], 0)
			badWant(t, name+" label count", err, fmt.Sprintf("%d labels for %d rows", n-1, n))
		})
		badTry(t, name, func() {
			_, err := m.Fit(x, make([]int, n), 0)
			badWant(t, name+" one class", err, "1 class(es) present", "at least 2")
		})
		badTry(t, name, func() {
			y2 := append([]int(nil), y...)
			for i := range y2 {
				if y2[i] == 2 {
					y2[i] = -1 // two classes left
				}
			}
			_, err := m.Fit(x, y2, 2)
			badWant(t, name+" dims > C−1 (2 classes)", err, "2 dimensions requested", "C−1 = 1")
		})
		badTry(t, name, func() {
			y2 := append([]int(nil), y...)
			y2[5] = -3
			_, err := m.Fit(x, y2, 0)
			badWant(t, name+" label −3", err, "label -3")
		})
		badTry(t, name, func() {
			_, err := m.Fit(x, y, 3)
			badWant(t, name+" dims > C−1", err, "3 dimensions requested", "C−1 = 2")
		})
	}
	// Too many dimensions for PCA (d = 4) and KPCA (at most n−1 = 19 on 20 rows).
	badTry(t, "pca", func() {
		_, err := badNew(t, "pca", nil).Fit(x, nil, 5)
		badWant(t, "pca dims 5 of 4", err, "dims: 5 requested", "at most 4")
	})
	badTry(t, "kpca", func() {
		_, err := badNew(t, "kpca", nil).Fit(mat.DenseCopyOf(x.Slice(0, 20, 0, 4)), nil, 20)
		badWant(t, "kpca dims 20 on 20 rows", err, "dims: 20 requested", "at most")
	})
	// Fewer than two rows.
	for _, name := range []string{"pca", "kpca"} {
		badTry(t, name, func() {
			_, err := badNew(t, name, nil).Fit(mat.DenseCopyOf(x.Slice(0, 1, 0, 4)), nil, 0)
			badWant(t, name+" one row", err, "need at least 2")
		})
	}
}

// Parameters through method.New: σ ≤ 0 (and other non-finite kernel
// widths), unknown parameters and methods, malformed numbers.
func TestBadParameters(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]string
		want   []string
	}{
		{"gda", map[string]string{"sigma": "0"}, []string{"gda: parameter sigma=0: must be > 0"}},
		{"gda", map[string]string{"sigma": "-1"}, []string{"sigma=-1: must be > 0"}},
		{"gda", map[string]string{"sigma": "NaN"}, []string{"sigma", "NaN"}},
		{"gda", map[string]string{"sigma": "Inf"}, []string{"sigma", "Inf"}},
		{"gda", map[string]string{"sigma": "wide"}, []string{"sigma=wide: must be a number > 0"}},
		{"kpca", map[string]string{"sigma": "0"}, []string{"kpca: parameter sigma=0: must be > 0"}},
		{"gda", map[string]string{"gamma": "-2"}, []string{"gamma=-2: must be > 0"}},
		{"gda", map[string]string{"alpha": "-1"}, []string{"alpha=-1: must be ≥ 0"}},
		{"gda", map[string]string{"solver": "lanczos"}, []string{"solver=lanczos: must be one of auto, dense, regression"}},
		{"gda", map[string]string{"eigen": "arpack"}, []string{"eigen=arpack: must be one of auto, dense, lanczos, lobpcg, randomized"}},
		{"gda", map[string]string{"kernel": "wavelet"}, []string{"kernel=wavelet", "wavelet"}},
		{"gda", map[string]string{"sigmaa": "1"}, []string{"unknown parameter sigmaa for gda; did you mean sigma?"}},
		{"pca", map[string]string{"sigma": "1"}, []string{"unknown parameter sigma for pca", "solver, eigen, norm"}},
		{"lda", map[string]string{"ridge": "-0.5"}, []string{"lda: parameter ridge=-0.5: must be ≥ 0"}},
		{"lda", map[string]string{"ridge": "x"}, []string{"ridge=x: must be a number ≥ 0"}},
		{"ldaa", nil, []string{`unknown method "ldaa"`, "lda"}},
	} {
		badTry(t, tc.name, func() {
			m, err := New(tc.name, tc.params)
			if err == nil {
				t.Errorf("New(%q, %v): no error (%T)", tc.name, tc.params, m)
				return
			}
			badWant(t, fmt.Sprintf("New(%q, %v)", tc.name, tc.params), err, tc.want...)
		})
	}
}

// An RBF γ of 0 is outside its documented range (γ > 0; KernelParams:
// "exp(−γ‖x−y‖²)"), but Kernel.Validate treats Gamma == 0 as "unset" and
// falls back to σ, so method.New("gda", {"gamma": "0"}) silently fits with
// σ = 1.
func TestBadParameterGammaZero(t *testing.T) {
	badTry(t, "gamma=0", func() {
		m, err := New("gda", map[string]string{"gamma": "0"})
		if err == nil {
			t.Errorf("New(gda, gamma=0) accepted (%+v); want an error saying gamma must be > 0", m)
		}
	})
}

// All rows identical: kernel and linear scatter vanish. GDA, KPCA and PCA
// must refuse with an error saying there is nothing to embed; LDA must not
// panic (an error is the only sane outcome, there is no direction).
func TestBadInputIdenticalRows(t *testing.T) {
	x := mat.NewDense(12, 3, nil)
	for i := 0; i < 12; i++ {
		x.SetRow(i, []float64{0.5, -1, 2})
	}
	y := []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}
	for _, tc := range []struct {
		name string
		want string
	}{
		{"gda", "all rows coincide in feature space"},
		{"kpca", "all rows coincide in feature space"},
		{"pca", "all rows coincide in feature space"},
		{"lda", "lda:"},
	} {
		badTry(t, tc.name, func() {
			m, err := badNew(t, tc.name, nil).Fit(x, y, 0)
			if err == nil {
				z, _ := m.Transform(x)
				t.Errorf("%s on identical rows: no error (%d dims, transform %v)", tc.name, m.Dims(), z)
				return
			}
			badWant(t, tc.name+" identical rows", err, tc.want)
		})
	}
}

// Singular within-class scatter. (1) d > n: 20 rows × 50 features, 3
// classes: LDA goes through PCA+LDA and returns C−1 = 2 finite dimensions;
// its model rejects 49-column input. (2) A constant feature added to iris:
// S_w is singular, PCA+LDA drops the zero-variance direction, and the
// embedding of the rows spans the same plane as plain LDA on iris
// (principal angles ≤ 1e-6 rad) — an independent check that the
// constant column changed nothing.
func TestBadInputSingularWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x := mat.NewDense(20, 50, nil)
	y := make([]int, 20)
	for i := 0; i < 20; i++ {
		y[i] = i % 3
		for j := 0; j < 50; j++ {
			x.Set(i, j, rng.NormFloat64()+float64(y[i]*(j%4)))
		}
	}
	badTry(t, "lda wide", func() {
		m, err := LDA{}.Fit(x, y, 0)
		if err != nil {
			t.Fatalf("LDA on 20×50: %v", err)
		}
		badFinite(t, "LDA on 20×50", m, x, 2)
		_, err = m.Transform(mat.NewDense(3, 49, nil))
		badWant(t, "LDA 20×50 transform of 49 columns", err, "49 columns", "fitted on 50")
	})

	xi, yi := loadSklearn(t, "iris")
	n, d := xi.Dims()
	xc := mat.NewDense(n, d+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			xc.Set(i, j, xi.At(i, j))
		}
		xc.Set(i, d, 7.5)
	}
	badTry(t, "lda constant feature", func() {
		m, err := LDA{}.Fit(xc, yi, 0)
		if err != nil {
			t.Fatalf("LDA with a constant feature: %v", err)
		}
		badFinite(t, "LDA with a constant feature", m, xc, 2)
		ref, err := LDA{}.Fit(xi, yi, 0)
		if err != nil {
			t.Fatal(err)
		}
		z, _ := m.Transform(xc)
		zr, _ := ref.Transform(xi)
		ang, err := linalg.PrincipalAngles(z, zr)
		if err != nil {
			t.Fatal(err)
		}
		if ang[len(ang)-1] > 1e-6 {
			t.Errorf("LDA with a constant feature spans a different plane: angles %v", ang)
		}
		// Same generalized eigenvalues (scale-free ratios of between to within).
		fv, rv := m.(*Fitted).Values, ref.(*Fitted).Values
		for j := range rv {
			if math.Abs(fv[j]-rv[j]) > 1e-6*rv[0] {
				t.Errorf("eigenvalue %d: %g with the constant feature, %g without", j+1, fv[j], rv[j])
			}
		}
	})
	// A constant feature is harmless for the other methods too.
	for _, name := range []string{"gda", "pca", "kpca"} {
		badTry(t, name+" constant feature", func() {
			m, err := badNew(t, name, nil).Fit(minmaxSafe(xc), yi, 2)
			if err != nil {
				t.Fatalf("%s with a constant feature: %v", name, err)
			}
			badFinite(t, name+" with a constant feature", m, minmaxSafe(xc), 2)
		})
	}
}

// minmaxSafe scales to [−1, 1] and maps constant columns to 0.
func minmaxSafe(x *mat.Dense) *mat.Dense { return testdata.MinMax(x) }

// A class with a single row (iris with one row relabelled as a fourth
// class): LDA and GDA either fit C−1 = 3 finite dimensions or refuse with
// an error that names the class size; whichever, no panic and no NaN.
// (The code fits: a one-row class adds nothing to S_w.)
func TestBadInputOneRowClass(t *testing.T) {
	x, y := loadSklearn(t, "iris")
	x = minmax(x)
	y = append([]int(nil), y...)
	y[0] = 3
	for _, name := range []string{"lda", "gda"} {
		badTry(t, name, func() {
			m, err := badNew(t, name, nil).Fit(x, y, 0)
			if err != nil {
				badWant(t, name+" one-row class", err, "class 3", "1 rows")
				return
			}
			badFinite(t, name+" with a one-row class", m, x, 3)
		})
	}
}

// ExplainedVariance needs the number of training rows, at least 2 (n − 1
// divides), and says so.
func TestBadInputExplainedVariance(t *testing.T) {
	x, y := loadSklearn(t, "iris")
	m, err := badNew(t, "pca", nil).Fit(x, y, 2)
	if err != nil {
		t.Fatal(err)
	}
	f := m.(*Fitted)
	for _, n := range []int{1, 0, -3} {
		if _, err := ExplainedVariance(f, n); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("n = %d rows", n)) {
			t.Errorf("n = %d: error %v", n, err)
		}
	}
	// Another method's fit: its Values are not variances (the library
	// audit: LDA's eigenvalues were divided by n − 1 without a word).
	for _, name := range []string{"kpca", "lda"} {
		m, err := badNew(t, name, nil).Fit(x, y, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ExplainedVariance(m.(*Fitted), 150); err == nil || !strings.Contains(err.Error(), "a "+name+" fit; it is PCA's") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// Transform of a fitted model with the wrong number of columns, or with
// NaN, is an error naming the counts or the cell — for every method and
// for the composed PCA+LDA model.
func TestBadInputTransform(t *testing.T) {
	x, y := loadSklearn(t, "iris")
	x = minmax(x)
	for _, name := range badMethods {
		badTry(t, name, func() {
			m, err := badNew(t, name, nil).Fit(x, y, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, cols := range []int{3, 5} {
				_, err := m.Transform(mat.NewDense(2, cols, nil))
				badWant(t, fmt.Sprintf("%s transform of %d columns", name, cols), err,
					fmt.Sprintf("%d columns", cols), "fitted on 4")
			}
			xb := mat.DenseCopyOf(x.Slice(0, 4, 0, 4))
			xb.Set(3, 0, math.NaN())
			_, err = m.Transform(xb)
			badWant(t, name+" transform of NaN", err, "row 4, column 1 is NaN")
			if _, err := m.Transform(nil); err == nil {
				t.Errorf("%s: transform of nil accepted", name)
			}
		})
	}
}

// Every method that takes labels refuses −2 (sr, ksr and mklsr took it for
// unlabeled, as −1), and labels far beyond the rows fit as compact ones
// do without tables of their size (the library audit).
func TestLabelValuesAcrossMethods(t *testing.T) {
	x, y := loadSklearn(t, "iris")
	x = minmax(x)
	for _, name := range []string{"lda", "sr", "ksr", "mklsr", "slpp", "gda", "mfa"} { // (lpp ignores labels)
		m := badNew(t, name, nil)
		y2 := append([]int(nil), y...)
		y2[5] = -2
		badTry(t, name, func() {
			_, err := m.Fit(x, y2, 0)
			badWant(t, name+" label −2", err, "row 6 has label -2", "≥ 0 (or −1 for unlabeled)")
		})
	}
	big := append([]int(nil), y...)
	for i, v := range big {
		big[i] = v * 400_000_000 // 0, 4e8, 8e8
		if v == 2 {
			big[i] = math.MaxInt // once overflowed data.NumClasses and panicked
		}
	}
	for _, name := range []string{"lda", "sr", "gda", "kqmi", "aqmida", "mie0", "knda"} {
		a, err := badNew(t, name, nil).Fit(x, big, 0)
		if err != nil {
			t.Fatalf("%s with labels up to math.MaxInt: %v", name, err)
		}
		b, _ := badNew(t, name, nil).Fit(x, y, 0)
		za, _ := a.Transform(x)
		zb, _ := b.Transform(x)
		if !mat.Equal(za, zb) {
			t.Errorf("%s: labels 0, 4e8, math.MaxInt give another embedding than 0, 1, 2", name)
		}
	}
}

// One row per class: S_w = 0. LDA said "constraint matrix B has no
// positive eigenvalue" (the CLI audit); now it names the cause.
func TestLDAOneRowPerClass(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 1, 2, 0, 1, 1})
	_, err := badNew(t, "lda", nil).Fit(x, []int{0, 1, 2}, 0)
	badWant(t, "lda one row per class", err, "every class has a single row (3 rows, 3 classes)", "within-class scatter S_w is zero")
}

// Every method asked for more dimensions than it gives returns an
// *embed.DimsError (errors.As), whatever its rule, with the request and
// the bound (a library tester: only some methods did, so a service could
// not tell the error from others without reading its text).
func TestDimsErrorEveryMethod(t *testing.T) {
	x, y := paramsData(t) // 50 rows, 4 features, 3 classes
	for _, info := range All() {
		m, err := New(info.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Fit(x, y, 1000)
		var de *embed.DimsError
		if !errors.As(err, &de) || de.Requested != 1000 || de.Available < 1 || de.Available >= 50 || !strings.HasPrefix(err.Error(), info.Name+": ") {
			t.Errorf("%s: error %v (%T), want an *embed.DimsError of 1000 requested", info.Name, err, err)
		}
	}
}

// A NaN or an infinity in the rows, at the fit of every method and at a
// pipeline's transform, is a *data.NonFiniteError naming its row and
// column (errors.As; a library tester found only text to match).
func TestNonFiniteErrorEveryMethod(t *testing.T) {
	x, y := paramsData(t)
	bad := mat.DenseCopyOf(x)
	bad.Set(7, 2, math.Inf(-1))
	for _, info := range All() {
		m, err := New(info.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Fit(bad, y, 2)
		var nf *data.NonFiniteError
		if !errors.As(err, &nf) || nf.Row != 8 || nf.Col != 3 || !math.IsInf(nf.Value, -1) {
			t.Errorf("%s: fit: error %v (%T), want a *data.NonFiniteError at row 8, column 3", info.Name, err, err)
		}
	}
	p, err := PipelineSpec{Method: "gda", Scale: "minmax"}.Fit(context.Background(), &data.Dataset{X: x, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	bad.Set(7, 2, math.NaN())
	_, err = p.Transform(bad)
	var nf *data.NonFiniteError
	if !errors.As(err, &nf) || nf.Row != 8 || nf.Col != 3 {
		t.Errorf("transform: error %v (%T), want a *data.NonFiniteError at row 8, column 3", err, err)
	}
}
