package preprocess

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	x := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x.Set(i, j, rng.NormFloat64()*float64(j+1)+float64(j))
		}
	}
	return x
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func equalDense(t *testing.T, what string, got, want *mat.Dense, tol float64) {
	t.Helper()
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("%s: got %d×%d, want %d×%d", what, gr, gc, wr, wc)
	}
	for i := 0; i < gr; i++ {
		for j := 0; j < gc; j++ {
			if !near(got.At(i, j), want.At(i, j), tol) {
				t.Fatalf("%s: [%d,%d] = %v, want %v", what, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

func TestMinMax(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{
		0, 5, 1,
		2, 5, -1,
		4, 5, 0,
	})
	f, err := MinMax{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 3, []float64{
		-1, 0, 1,
		0, 0, -1,
		1, 0, 0,
	})
	equalDense(t, "minmax train", got, want, 1e-15)
	// New rows: not clipped; constant column still 0.
	got, err = f.Apply(mat.NewDense(1, 3, []float64{8, 7, 3}))
	if err != nil {
		t.Fatal(err)
	}
	equalDense(t, "minmax new", got, mat.NewDense(1, 3, []float64{3, 0, 3}), 1e-15)
}

func TestZScore(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{
		1, 7,
		2, 7,
		3, 7,
		6, 7,
	})
	f, err := ZScore{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	z := f.(*ZScoreFitted)
	// mean 3, population variance (4+1+0+9)/4 = 3.5
	if !near(z.Mean[0], 3, 1e-15) || !near(z.Scale[0], math.Sqrt(3.5), 1e-15) || z.Scale[1] != 1 || z.Mean[1] != 7 {
		t.Fatalf("zscore state %+v", z)
	}
	got, err := f.Apply(mat.NewDense(1, 2, []float64{3 + math.Sqrt(3.5), 9}))
	if err != nil {
		t.Fatal(err)
	}
	equalDense(t, "zscore", got, mat.NewDense(1, 2, []float64{1, 2}), 1e-14)
}

func TestUnit(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{
		3, 4,
		0, 0,
		1e300, 1e300,
	})
	f, err := Unit{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	s := 1 / math.Sqrt2
	equalDense(t, "unit", got, mat.NewDense(3, 2, []float64{0.6, 0.8, 0, 0, s, s}), 1e-15)
}

// TestPCAMatchesEigen checks PCA against an eigendecomposition of the
// covariance matrix, for tall (n ≥ p) and wide (p > n) data.
func TestPCAMatchesEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{40, 6}, {6, 15}} {
		n, c := sz[0], sz[1]
		x := randDense(rng, n, c)
		f, err := PCA{Fraction: 1}.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		p := f.(*PCAFitted)
		rank := min(n-1, c)
		if p.OutDims() != rank {
			t.Fatalf("%d×%d: kept %d components at fraction 1, want rank %d", n, c, p.OutDims(), rank)
		}
		// Covariance eigen-decomposition.
		mean := colMeans(x)
		xc := mat.NewDense(n, c, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < c; j++ {
				xc.Set(i, j, x.At(i, j)-mean[j])
			}
		}
		var cov mat.SymDense
		cov.SymOuterK(1, xc.T())
		var eig mat.EigenSym
		if !eig.Factorize(&cov, true) {
			t.Fatal("eigen failed")
		}
		vals := eig.Values(nil) // ascending
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		total := 0.0
		for _, v := range vals {
			total += v
		}
		sum := 0.0
		for i := 0; i < rank; i++ {
			e := vals[c-1-i]
			if !near(p.Ratio[i], e/total, 1e-9) {
				t.Fatalf("%d×%d: ratio %d = %v, want %v", n, c, i, p.Ratio[i], e/total)
			}
			sum += p.Ratio[i]
			// Same direction up to sign, and the sign rule holds.
			dot := 0.0
			big := 0
			for j := 0; j < c; j++ {
				dot += p.Components[i][j] * vecs.At(j, c-1-i)
				if math.Abs(p.Components[i][j]) > math.Abs(p.Components[i][big]) {
					big = j
				}
			}
			if !near(math.Abs(dot), 1, 1e-8) {
				t.Fatalf("%d×%d: component %d |cos| = %v", n, c, i, math.Abs(dot))
			}
			if p.Components[i][big] <= 0 {
				t.Fatalf("component %d: largest entry %v not positive", i, p.Components[i][big])
			}
		}
		if !near(sum, 1, 1e-12) {
			t.Fatalf("ratios sum to %v", sum)
		}
		// Projections of the training data are centred with variances e.
		z, err := f.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < rank; i++ {
			m, v := 0.0, 0.0
			for r := 0; r < n; r++ {
				m += z.At(r, i)
			}
			for r := 0; r < n; r++ {
				v += z.At(r, i) * z.At(r, i)
			}
			if math.Abs(m) > 1e-9*math.Sqrt(v) || !near(v, vals[c-1-i], 1e-9) {
				t.Fatalf("component %d: sum %v, sum of squares %v, want 0 and %v", i, m, v, vals[c-1-i])
			}
		}
	}
}

func TestPCAFractionChoosesFewest(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{
		10, 0, 0,
		-10, 0, 0,
		0, math.Sqrt(10), 1,
		0, -math.Sqrt(10), -1,
	})
	// Sums of squares: 200 along the first axis, 22 along (0, √10, 1);
	// total 222, rank 2.
	for _, tc := range []struct {
		frac float64
		k    int
	}{{0.5, 1}, {200.0 / 222, 1}, {0.91, 2}, {0.99, 2}, {221.0 / 222, 2}, {0.999, 2}, {1, 2}} {
		f, err := PCA{Fraction: tc.frac}.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		if f.OutDims() != tc.k {
			t.Errorf("fraction %v: kept %d, want %d", tc.frac, f.OutDims(), tc.k)
		}
	}
	f, err := PCA{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.(*PCAFitted).Fraction; got != 0.99 {
		t.Errorf("default fraction %v", got)
	}
}

func TestPCADeterministicSign(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randDense(rng, 30, 5)
	neg := mat.DenseCopyOf(x)
	neg.Scale(-1, neg)
	f1, err := PCA{Fraction: 1}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := PCA{Fraction: 1}.Fit(neg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := f1.(*PCAFitted), f2.(*PCAFitted)
	for i := range a.Components {
		for j := range a.Components[i] {
			if !near(a.Components[i][j], b.Components[i][j], 1e-9) {
				t.Fatalf("component %d differs between X and -X", i)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for spec, want := range map[string]string{
		"":                  "none",
		"none":              "none",
		" MinMax ":          "minmax",
		"zscore":            "zscore",
		"l2":                "unit",
		"pca":               "pca:0.99",
		"unit, pca:0.95":    "unit,pca:0.95",
		"minmax,pca:1":      "minmax,pca:1",
		"zscore,unit,pca:1": "zscore,unit,pca:1",
	} {
		p, err := Parse(spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
			continue
		}
		if p.Spec() != want {
			t.Errorf("Parse(%q).Spec() = %q, want %q", spec, p.Spec(), want)
		}
	}
	for spec, frag := range map[string]string{
		"pca:0":       "outside (0, 1]",
		"pca:1.5":     "outside (0, 1]",
		"pca:-0.1":    "outside (0, 1]",
		"pca:NaN":     "outside (0, 1]",
		"pca:x":       "not a number",
		"minmax:2":    "takes no argument",
		"scale":       `unknown step "scale"`,
		"minmax,,pca": "empty step",
		"none,unit":   "cannot be combined",
	} {
		_, err := Parse(spec)
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", spec, err, frag)
		}
	}
	if _, err := (PCA{Fraction: 2}).Fit(mat.NewDense(2, 1, []float64{1, 2})); err == nil || !strings.Contains(err.Error(), "outside (0, 1]") {
		t.Errorf("PCA{Fraction: 2}.Fit error = %v", err)
	}
}

func TestErrors(t *testing.T) {
	bad := mat.NewDense(2, 2, []float64{1, math.NaN(), 3, 4})
	inf := mat.NewDense(2, 2, []float64{1, 2, math.Inf(-1), 4})
	good := mat.NewDense(3, 2, []float64{1, 2, 3, 5, 4, 4})
	for _, s := range []Step{MinMax{}, ZScore{}, Unit{}, PCA{}} {
		if _, err := s.Fit(bad); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s.Fit(NaN) error = %v", s.Spec(), err)
		}
		if _, err := s.Fit(nil); err == nil {
			t.Errorf("%s.Fit(nil) no error", s.Spec())
		}
		f, err := s.Fit(good)
		if err != nil {
			t.Fatalf("%s: %v", s.Spec(), err)
		}
		if _, err := f.Apply(inf); err == nil || !strings.Contains(err.Error(), "row 2, column 1") {
			t.Errorf("%s.Apply(Inf) error = %v", s.Spec(), err)
		}
		_, err = f.Apply(mat.NewDense(1, 3, nil))
		if err == nil || !strings.Contains(err.Error(), "input has 3 columns, fitted on 2") {
			t.Errorf("%s.Apply(3 columns) error = %v", s.Spec(), err)
		}
	}
	p, _ := Parse("minmax,pca")
	if _, err := p.Fit(bad); err == nil {
		t.Error("pipeline Fit(NaN): no error")
	}
	fp, err := p.Fit(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fp.Apply(mat.NewDense(1, 5, nil)); err == nil || !strings.Contains(err.Error(), "5 columns, fitted on 2") {
		t.Errorf("pipeline Apply error = %v", err)
	}
	same := mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})
	if _, err := (PCA{}).Fit(same); err == nil || !strings.Contains(err.Error(), "no variance above rounding (its 3 rows agree") {
		t.Errorf("PCA of identical rows: error = %v", err)
	}
	// Huge values (the library audit): σ² overflowed from 1e154 on, so
	// iris ×1e153 kept 1 component instead of 3, and rows of ±1e308 gave
	// a PCA of 0 components whose Apply panicked.
	x := randDense(rand.New(rand.NewPCG(1, 2)), 40, 4)
	for j := 0; j < 4; j++ { // variances 1, 1e-2, 1e-4, 1e-6: 99.99 % in 3
		for i := 0; i < 40; i++ {
			x.Set(i, j, x.At(i, j)*math.Pow(10, -float64(j)))
		}
	}
	want, err := PCA{Fraction: 0.9999}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	var big mat.Dense
	big.Scale(1e153, x)
	got, err := PCA{Fraction: 0.9999}.Fit(&big)
	if err != nil || got.OutDims() != want.OutDims() {
		t.Errorf("PCA of rows ×1e153: %v, want %d components", err, want.OutDims())
	}
	big.Scale(1e307/1e153, &big)
	if f, err := (PCA{}).Fit(&big); err == nil && f.OutDims() == 0 || err != nil && !strings.Contains(err.Error(), "overflows") {
		t.Errorf("PCA of rows ×1e307: %v", err)
	} else if err == nil {
		if _, err := f.Apply(&big); err != nil {
			t.Errorf("PCA of rows ×1e307: Apply: %v", err)
		}
	}
}

func TestPipelineAndJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	train := randDense(rng, 25, 8)
	test := randDense(rng, 7, 8)
	for _, spec := range []string{"none", "minmax", "zscore", "unit", "pca:0.9", "unit,pca:0.99", "minmax,zscore,unit,pca:1"} {
		p, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := p.Fit(train)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		// The pipeline equals applying its steps by hand.
		want := test
		for _, s := range fp.Steps {
			if want, err = s.Apply(want); err != nil {
				t.Fatal(err)
			}
		}
		got, err := fp.Apply(test)
		if err != nil {
			t.Fatal(err)
		}
		equalDense(t, spec, got, want, 0)
		if _, c := got.Dims(); c != fp.OutDims() {
			t.Errorf("%s: OutDims %d, output has %d columns", spec, fp.OutDims(), c)
		}
		if spec == "none" && got == test {
			t.Error("identity pipeline returned its input, want a copy")
		}

		// Round trip through MarshalFitted and through json.Marshal of the
		// pipeline as a struct field.
		b, err := MarshalFitted(fp)
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalFitted(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", spec, err, b)
		}
		again, err := back.Apply(test)
		if err != nil {
			t.Fatal(err)
		}
		equalDense(t, spec+" after JSON", again, want, 0)

		type saved struct {
			Pre *FittedPipeline `json:"preprocess"`
		}
		b, err = json.Marshal(saved{fp})
		if err != nil {
			t.Fatal(err)
		}
		var s saved
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		again, err = s.Pre.Apply(test)
		if err != nil {
			t.Fatal(err)
		}
		equalDense(t, spec+" after field JSON", again, want, 0)
		if s.Pre.Spec() != fp.Spec() {
			t.Errorf("spec %q after JSON, want %q", s.Pre.Spec(), fp.Spec())
		}
	}
}

func TestUnmarshalFittedErrors(t *testing.T) {
	for in, frag := range map[string]string{
		`{`:                         "decoding",
		`{"kind":"svd","state":{}}`: `unknown kind "svd"`,
		`{"kind":"minmax"}`:         "missing state",
		`{"kind":"minmax","state":{"min":[1],"max":[0]}}`:                                                        "min ≤ max",
		`{"kind":"minmax","state":{"min":[1,2],"max":[3]}}`:                                                      "2 minima and 1 maxima",
		`{"kind":"zscore","state":{"mean":[0],"scale":[0]}}`:                                                     "scale > 0",
		`{"kind":"unit","state":{"cols":0}}`:                                                                     "cols = 0",
		`{"kind":"pca","state":{"fraction":0.9,"mean":[0,0],"components":[[1]],"explained_variance_ratio":[1]}}`: "component 1 has 1 entries, want 2",
		`{"kind":"pipeline","state":{"cols":3,"steps":[{"kind":"unit","state":{"cols":2}}]}}`:                    "takes 2 columns, previous output has 3",
	} {
		_, err := UnmarshalFitted([]byte(in))
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("UnmarshalFitted(%s) error = %v, want %q", in, err, frag)
		}
	}
}

// FitApply is Parse, Fit and Apply on the same rows; a bad spec is an error
// naming it.
func TestFitApply(t *testing.T) {
	x := randDense(rand.New(rand.NewPCG(5, 6)), 30, 4)
	f, z, err := FitApply("zscore,pca:0.9", x)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Parse("zscore,pca:0.9")
	g, _ := p.Fit(x)
	want, _ := g.Apply(x)
	if f.Spec() != g.Spec() {
		t.Errorf("fitted %s, want %s", f.Spec(), g.Spec())
	}
	equalDense(t, "FitApply", z, want, 0)
	if _, _, err := FitApply("pca:2", x); err == nil || !strings.Contains(err.Error(), `"pca:2"`) {
		t.Errorf("bad spec: %v", err)
	}
}

// Columns whose squares or ranges leave the floating-point range: the
// audit's row of 1e300 zeroed the column silently under zscore (its
// standard deviation overflowed to +Inf).
func TestScalingNearTheFloatRange(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 1e300, 2, 0, 3, 0, 4, 0})
	f, err := ZScore{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	// Column 2: mean 2.5e299, deviations 7.5e299 and 3 × −2.5e299:
	// sd = 1e300·sqrt((0.75² + 3·0.25²)/4) = 1e300·sqrt(0.1875).
	want := 1e300 * math.Sqrt(0.1875)
	if sd := f.(*ZScoreFitted).Scale[1]; math.Abs(sd-want) > 1e-15*want {
		t.Errorf("sd of the large column = %g, want %g", sd, want)
	}
	if sd := f.(*ZScoreFitted).Scale[0]; sd != math.Sqrt(1.25) {
		t.Errorf("sd of the small column = %v, want sqrt(1.25) exactly as before", sd)
	}
	z, err := f.Apply(x)
	if err != nil || math.Abs(z.At(0, 1)-0.75/math.Sqrt(0.1875)) > 1e-14 {
		t.Errorf("scaled large entry %v, %v", z.At(0, 1), err)
	}
	// Subnormal deviations (the library audit): the squares underflowed
	// to 0 and the column was taken for a constant one (scale 1).
	tiny := mat.NewDense(4, 1, []float64{1e-310, 2e-310, 3e-310, 4e-310})
	ft, err := ZScore{}.Fit(tiny)
	if err != nil {
		t.Fatal(err)
	}
	if zt, err := ft.Apply(tiny); err != nil || math.Abs(zt.At(3, 0)-1.5/math.Sqrt(1.25)) > 1e-9 {
		t.Errorf("subnormal column standardised to %v (scale %g), %v; want %v", zt.At(3, 0), ft.(*ZScoreFitted).Scale[0], err, 1.5/math.Sqrt(1.25))
	}
	huge := mat.NewDense(2, 1, []float64{1.7e308, 1.7e308})
	if _, err := (ZScore{}).Fit(huge); err == nil || !strings.Contains(err.Error(), "column 1: its mean is beyond the floating-point range") {
		t.Errorf("overflowing mean: %v", err)
	}
	wide := mat.NewDense(2, 1, []float64{-1e308, 1e308})
	if _, err := (MinMax{}).Fit(wide); err == nil || !strings.Contains(err.Error(), "minmax: column 1 ranges from -1e+308 to 1e+308") {
		t.Errorf("overflowing range: %v", err)
	}
}
