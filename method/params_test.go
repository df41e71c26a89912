package method

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/param"
)

// paramsData is a small data set every method fits quickly: every third
// iris row (50 rows, 3 classes), scaled to [0, 1].
func paramsData(t *testing.T) (*mat.Dense, []int) {
	x, y := loadSklearn(t, "iris")
	var rows []float64
	var labels []int
	for i := 0; i < len(y); i += 3 {
		rows = append(rows, x.RawRowView(i)...)
		labels = append(labels, y[i])
	}
	_, d := x.Dims()
	return minmax(mat.NewDense(len(labels), d, rows)), labels
}

// fitZ fits m and returns the training rows' embedding and the values.
func fitZ(t *testing.T, what string, m Method, x *mat.Dense, y []int, dims int) (*mat.Dense, []float64) {
	t.Helper()
	f, err := m.Fit(x, y, dims)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	z, err := f.Transform(x)
	if err != nil {
		t.Fatalf("%s: transform: %v", what, err)
	}
	return z, f.(*Fitted).Values
}

// kernelShorthands change a kernel rather than hold a default of their own
// (their shown default is the RBF one), so they do not read back into the
// default struct of a method whose kernel is not RBF.
var kernelShorthands = map[string]bool{"sigma": true, "gamma": true, "degree": true, "offset": true}

// For every registered method: the zero struct, resolved, is the struct
// New(name, nil) builds; every default that Info.Params shows reads back
// to that struct; and the zero struct and New(name, nil) fit identical
// models.
func TestParamsRoundTrip(t *testing.T) {
	x, y := paramsData(t)
	for _, info := range All() {
		m, err := New(info.Name, nil)
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		zero := reflect.New(reflect.TypeOf(m))
		if err := resolve(info.Name, zero.Interface().(param.Declarer)); err != nil {
			t.Fatalf("%s: resolving the zero struct: %v", info.Name, err)
		}
		if got := zero.Elem().Interface(); !reflect.DeepEqual(got, m) {
			t.Errorf("%s: resolved zero struct %+v, New(nil) %+v", info.Name, got, m)
		}
		for _, p := range info.Params {
			if p.Type == "" || p.Doc == "" || p.Default == "" {
				t.Errorf("%s: parameter %s lacks a type, doc or default: %+v", info.Name, p.Name, p)
			}
			for _, v := range p.Allowed {
				if _, err := New(info.Name, map[string]string{p.Name: v}); err != nil {
					t.Errorf("%s: %s=%s, an allowed value, is refused: %v", info.Name, p.Name, v, err)
				}
			}
			if kernelShorthands[p.Name] {
				continue
			}
			got, err := New(info.Name, map[string]string{p.Name: p.Default})
			if err != nil || !reflect.DeepEqual(got, m) {
				t.Errorf("%s: %s=%s (the default shown) gives %+v, %v; want the default struct", info.Name, p.Name, p.Default, got, err)
			}
		}
		zd := reflect.Zero(reflect.TypeOf(m)).Interface().(Method)
		z1, v1 := fitZ(t, info.Name+" New(nil)", m, x, y, 0)
		z2, v2 := fitZ(t, info.Name+" zero struct", zd, x, y, 0)
		if !mat.Equal(z1, z2) || !reflect.DeepEqual(v1, v2) {
			t.Errorf("%s: New(name, nil) and the zero struct fit different models", info.Name)
		}
	}
}

// Every numeric bound of every method's parameters is enforced by New,
// with a message that names the method, the parameter, the value and the
// rule, and no Go field name.
func TestParamBoundsEnforced(t *testing.T) {
	checked := 0
	for _, info := range All() {
		m, _ := New(info.Name, nil)
		fields := fieldNames(reflect.TypeOf(m), nil)
		for _, p := range info.Params {
			for _, b := range p.Bounds {
				bad := b.Value
				switch b.Op {
				case "≥":
					bad = b.Value - 1
				case "≤":
					bad = b.Value + 1
				}
				text := strconv.FormatFloat(bad, 'g', -1, 64)
				_, err := New(info.Name, map[string]string{p.Name: text})
				want := info.Name + ": parameter " + p.Name + "=" + text + ": must be " + p.Rule
				if err == nil || err.Error() != want {
					t.Errorf("%s %s=%s: error %v, want %q", info.Name, p.Name, text, err, want)
					continue
				}
				for _, f := range fields {
					if strings.Contains(err.Error(), f) {
						t.Errorf("%s: error %q names the Go field %s", info.Name, err, f)
					}
				}
				checked++
			}
		}
	}
	if checked < 80 {
		t.Errorf("only %d bounds checked", checked)
	}
}

// fieldNames adds the exported field names of struct type t and of the
// structs it contains (three letters or more: K and T are words too).
func fieldNames(t reflect.Type, out []string) []string {
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() && len(f.Name) > 2 {
			out = append(out, f.Name)
		}
		out = fieldNames(f.Type, out)
	}
	return out
}

// A struct literal breaking a rule fails in Fit with the same message as
// the text form.
func TestStructValuesChecked(t *testing.T) {
	x, y := paramsData(t)
	for _, tc := range []struct {
		m    Method
		want string
	}{
		{GDA{Alpha: param.Set(-1.0)}, "gda: parameter alpha=-1: must be ≥ 0"},
		{KLPP{Alpha: param.Set(-0.1)}, "klpp: parameter alpha=-0.1: must be ≥ 0"},
		{MFA{K2: -3}, "mfa: parameter k2=-3: must be ≥ 1"},
		{CKFD{Theta: -1}, "ckfd: parameter theta=-1: must be > 0"},
		{CKFD{Parts: "all"}, "ckfd: parameter parts=all: must be one of both, regular, irregular"},
		{KPCA{Space: KernelSpace{Landmarks: -5}}, "kpca: parameter landmarks=-5: must be ≥ 1"},
		{DNDA{NDA{Engine: Engine{Solver: "lanczos"}}}, "dnda: parameter solver=lanczos: must be auto or dense (no regression route: the jitter of KNDA and DNDA (seed 004 §3) is added to the dense problem's constraint, which the regression route does not form)"},
		{PCA{Engine{Solver: "regression"}}, "pca: parameter solver=regression: must be auto or dense (no regression route: " + principalNoRegression + ")"},
		{GDA{Engine: Engine{Solver: "lanczos"}}, "gda: parameter solver=lanczos: must be one of auto, dense, regression"},
		{SLPP{LPP: LPP{NeighbourParams: NeighbourParams{Weight: "gauss"}}}, "slpp: parameter weight=gauss: must be one of heat, constant, local"},
		{LQMI{MinClassRows: -1}, "lqmi: parameter min_class=-1: must be ≥ 1"},
	} {
		_, err := tc.m.Fit(x, y, 0)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%T: error %v, want %q", tc.m, err, tc.want)
		}
	}
}

// alpha = 0 means no regulariser, not the default: for every method whose
// alpha has a nonzero default, alpha=0 fits another model, and the struct
// form param.Set(0.0) fits the same model as the text form.
func TestAlphaZeroIsNotTheDefault(t *testing.T) {
	x, y := paramsData(t)
	tested := 0
	for _, info := range All() {
		i := slicesIndex(info.Params, "alpha")
		if i < 0 || info.Params[i].Default == "0" {
			continue
		}
		tested++
		def, _ := New(info.Name, nil)
		zero, err := New(info.Name, map[string]string{"alpha": "0"})
		if err != nil {
			t.Fatalf("%s alpha=0: %v", info.Name, err)
		}
		zd, _ := fitZ(t, info.Name+" default", def, x, y, 2)
		z0, _ := fitZ(t, info.Name+" alpha=0", zero, x, y, 2)
		if a := maxAngle(t, zd, z0); a < 1e-3 {
			t.Errorf("%s: alpha=0 and the default alpha=%s span the same subspace (%.2g rad)", info.Name, info.Params[i].Default, a)
		}
	}
	if tested < 5 {
		t.Errorf("only %d methods with a nonzero default alpha", tested)
	}
	zs, _ := fitZ(t, "GDA{Alpha: Set(0)}", GDA{Alpha: param.Set(0.0)}, x, y, 0)
	m, _ := New("gda", map[string]string{"alpha": "0"})
	zt, _ := fitZ(t, "gda alpha=0", m, x, y, 0)
	if !mat.Equal(zs, zt) {
		t.Error("GDA{Alpha: param.Set(0.0)} and alpha=0 fit different models")
	}
}

func slicesIndex(ps []Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Misspelt keys are refused with the nearest valid name; sigma and gamma
// exclude each other, also through a kernel spec.
func TestParamKeyErrors(t *testing.T) {
	for _, tc := range []struct {
		method string
		kv     map[string]string
		want   string
	}{
		{"gda", map[string]string{"sigmaa": "1"}, "unknown parameter sigmaa for gda; did you mean sigma?"},
		{"gda", map[string]string{"alpah": "1"}, "unknown parameter alpah for gda; did you mean alpha?"},
		{"kqmi", map[string]string{"min-class": "1"}, "unknown parameter min-class for kqmi; did you mean min_class?"},
		{"knda", map[string]string{"jiter": "1"}, "unknown parameter jiter for knda; did you mean jitter?"},
		{"pca", map[string]string{"neighbours": "5"}, "unknown parameter neighbours for pca (parameters: solver, eigen, norm)"},
		{"gda", map[string]string{"seed": "-3"}, "gda: parameter seed=-3: must be a whole number ≥ 0"},
		{"gda", map[string]string{"sigma": "1", "gamma": "2"}, "gda: parameters sigma and gamma exclude each other; give one"},
		{"gda", map[string]string{"kernel": "rbf:gamma=1", "sigma": "2"}, "gda: parameter sigma=2: the kernel spec sets gamma"},
		{"gda", map[string]string{"kernel": "rbf:sigma=1", "gamma": "2"}, "gda: parameter gamma=2: the kernel spec sets sigma"},
		{"gda", map[string]string{"kernel": "rbf:sigma=1,gamma=2"}, "sigma and gamma exclude each other"},
		{"klpp", map[string]string{"space": "precomputed", "pca": "5"}, "klpp: pca=5 needs input rows to project, and space=precomputed gives a Gram matrix"},
		// A shorthand the kernel would ignore (the audit: sigma changed nothing for knda).
		{"knda", map[string]string{"sigma": "1e-4"}, "knda: parameter sigma does not apply to the poly kernel, which takes only gamma, degree, offset (it would be ignored); give -p kernel=TYPE"},
		{"gda", map[string]string{"sigma": "1", "kernel": "poly"}, "sigma does not apply to the poly kernel"},
		{"gda", map[string]string{"kernel": "linear", "degree": "5"}, "degree does not apply to the linear kernel"},
		{"gda", map[string]string{"offset": "1"}, "offset does not apply to the rbf kernel"},
	} {
		_, err := New(tc.method, tc.kv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.method, tc.kv, err, tc.want)
		}
	}
	// An unscoped shorthand goes only to the methods whose kernel uses it;
	// a scoped kernel=… wins over an unscoped one.
	gda, _ := Lookup("gda")
	knda, _ := Lookup("knda")
	for _, tc := range []struct {
		flags    []string
		gda, knd string // the sigma each gets ("": none)
	}{
		{[]string{"sigma=2"}, "2", ""},
		{[]string{"sigma=2", "knda.kernel=rbf"}, "2", "2"},
		{[]string{"kernel=poly", "sigma=2"}, "2", "2"}, // applies to neither: New says why
		{[]string{"kernel=poly", "gda.kernel=rbf", "sigma=2"}, "2", ""},
	} {
		got, err := Route("-p", tc.flags, []Info{gda, knda})
		if err != nil || got["gda"]["sigma"] != tc.gda || got["knda"]["sigma"] != tc.knd {
			t.Errorf("Route %v: %v, %v; want gda sigma %q, knda %q", tc.flags, got, err, tc.gda, tc.knd)
		}
	}
	// A method without a kernel keeps its own parameter of the same name.
	aq, _ := Lookup("aqmida")
	if got, err := Route("-p", []string{"sigma=2"}, []Info{aq, knda}); err != nil || got["aqmida"]["sigma"] != "2" || got["knda"]["sigma"] != "" {
		t.Errorf("Route sigma=2 to aqmida, knda: %v, %v", got, err)
	}
	// The shorthands change the kernel given.
	m, err := New("knda", map[string]string{"kernel": "rbf", "gamma": "0.5"})
	if err != nil || m.(KNDA).Kernel.Type != "rbf" || m.(KNDA).Kernel.Gamma != 0.5 {
		t.Errorf("knda kernel=rbf gamma=0.5: %+v, %v", m, err)
	}
}

// solver=regression is refused before any data is read where the problem
// has no regression route (PCA and KPCA: the identity objective; CKFD's
// KPCA step; LDA's within-class constraint; KNDA and DNDA's jitter), and
// elsewhere it gives directions as good as the dense route's: the
// training NCC error on the first 2 dimensions of wine (scaled to
// [0, 1]) is at most the dense route's + 3 points. Before, a minimisation
// (the LPP family, MFA) lost its eigenvalue-0 responses, and SKLPP's
// regression fit erred on 49 % of wine in cross-validation against 2 %.
func TestSolverRegressionWhereItApplies(t *testing.T) {
	refused := map[string]bool{"pca": true, "kpca": true, "ckfd": true, "lda": true, "knda": true, "dnda": true}
	x, y := loadSklearn(t, "wine")
	x = testdata.MinMax(x)
	nccErr := func(m Model) float64 {
		z, err := m.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		z2 := mat.DenseCopyOf(z.Slice(0, 178, 0, 2))
		p, err := classify.NCC{}.Fit(z2, y)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := p.Predict(z2)
		if err != nil {
			t.Fatal(err)
		}
		wrong := 0
		for i, c := range pred {
			if c != y[i] {
				wrong++
			}
		}
		return float64(wrong) / float64(len(y))
	}
	for _, info := range All() {
		has := false
		for _, p := range info.Params {
			has = has || p.Name == "solver"
		}
		if !has {
			continue
		}
		_, err := New(info.Name, map[string]string{"solver": "regression"})
		if refused[info.Name] {
			if err == nil || !strings.Contains(err.Error(), "solver=regression: must be auto or dense (no regression route: ") {
				t.Errorf("%s: solver=regression: error %v, want a refusal naming why", info.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: solver=regression refused: %v", info.Name, err)
			continue
		}
		var errs [2]float64
		for i, solver := range []string{"dense", "regression"} {
			m, err := New(info.Name, map[string]string{"solver": solver})
			if err != nil {
				t.Fatal(err)
			}
			f, err := m.Fit(x, y, 0)
			if err != nil {
				t.Fatalf("%s solver=%s: %v", info.Name, solver, err)
			}
			errs[i] = nccErr(f)
		}
		if errs[1] > errs[0]+0.03 {
			t.Errorf("%s: training NCC error on 2 dimensions %.3f with solver=regression, %.3f with dense", info.Name, errs[1], errs[0])
		}
	}
}

// eigen=lanczos or randomized on a generalized problem (LDA's, KLPP's)
// says so and names the solvers that take it (the message was linalg's
// "b must be nil"), and eigen=lobpcg solves it.
func TestStandardOnlyEigenSolvers(t *testing.T) {
	x, y := paramsData(t)
	for _, name := range []string{"lda", "klpp"} {
		for _, e := range []string{"lanczos", "randomized"} {
			_, err := badNew(t, name, map[string]string{"eigen": e}).Fit(x, y, 1)
			if err == nil || !strings.Contains(err.Error(), "eigen="+e+" solves standard eigenproblems") || !strings.Contains(err.Error(), "give eigen=lobpcg") {
				t.Errorf("%s eigen=%s: %v", name, e, err)
			}
		}
		if _, err := badNew(t, name, map[string]string{"eigen": "lobpcg"}).Fit(x, y, 1); err != nil {
			t.Errorf("%s eigen=lobpcg: %v", name, err)
		}
	}
}
