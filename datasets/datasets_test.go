package datasets

import (
	"bytes"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
)

func TestTables(t *testing.T) {
	for _, tc := range []struct {
		name   string
		load   func() *data.Dataset
		n, p   int
		counts []int
		first  string // first feature name
	}{
		{"iris", Iris, 150, 4, []int{50, 50, 50}, "sepal_length_cm"},
		{"wine", Wine, 178, 13, []int{59, 71, 48}, "alcohol"},
		{"breast_cancer", BreastCancer, 569, 30, []int{212, 357}, "mean_radius"},
		{"digits", Digits, 1797, 64, []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}, "pixel_0_0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.load()
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if n, p := d.Dims(); n != tc.n || p != tc.p {
				t.Fatalf("dims %d×%d, want %d×%d", n, p, tc.n, tc.p)
			}
			if d.Name != tc.name {
				t.Errorf("Name %q, want %q", d.Name, tc.name)
			}
			if got := data.ClassCounts(d.Y); !slices.Equal(got, tc.counts) {
				t.Errorf("class counts %v, want %v", got, tc.counts)
			}
			if len(d.ClassNames) != len(tc.counts) {
				t.Errorf("%d class names, want %d", len(d.ClassNames), len(tc.counts))
			}
			for c, s := range d.ClassNames {
				if want := intNames(len(tc.counts))[c]; s != want {
					t.Errorf("class %d named %q, want %q", c, s, want)
				}
			}
			if len(d.FeatureNames) != tc.p || d.FeatureNames[0] != tc.first {
				t.Errorf("feature names %v... (%d), want %q first and %d", d.FeatureNames[:1], len(d.FeatureNames), tc.first, tc.p)
			}
		})
	}
	// Spot values (first row of iris, last of digits).
	if got := Iris().X.RawRowView(0); !slices.Equal(got, []float64{5.1, 3.5, 1.4, 0.2}) {
		t.Errorf("iris row 1 = %v", got)
	}
	dg := Digits()
	if v := mat.Max(dg.X); v != 16 {
		t.Errorf("digits max %v, want 16", v)
	}
}

// The embedded copies must equal the shared originals (when present).
func TestTablesMatchShared(t *testing.T) {
	for _, name := range []string{"iris", "wine", "breast_cancer", "digits"} {
		want, err := os.ReadFile(testdata.Path(t, "data/sklearn/"+name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := tables.ReadFile("embedded/" + name + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("embedded/%s.csv differs from ../shared/data/sklearn/%s.csv", name, name)
		}
	}
}

func TestTablesAreFreshCopies(t *testing.T) {
	a := Iris()
	a.X.Set(0, 0, -1)
	a.Y[0] = 2
	a.FeatureNames[0] = "changed"
	b := Iris()
	if b.X.At(0, 0) != 5.1 || b.Y[0] != 0 || b.FeatureNames[0] != "sepal_length_cm" {
		t.Error("modifying one result changed the next")
	}
}

func TestBuiltin(t *testing.T) {
	names := Names()
	for _, want := range []string{"iris", "wine", "breast_cancer", "digits", "swissroll",
		"twoclass_ideal", "twoclass_lppfails", "twoclass_multimodal", "gaussians"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v lacks %q", names, want)
		}
	}
	for _, name := range names {
		d, err := Builtin(name)
		if err != nil {
			t.Fatalf("Builtin(%q): %v", name, err)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("Builtin(%q): %v", name, err)
		}
		if d.Name != name {
			t.Errorf("Builtin(%q).Name = %q", name, d.Name)
		}
		if n := d.NumClasses(); n < 2 {
			t.Errorf("Builtin(%q) has %d classes", name, n)
		}
	}
	for in, want := range map[string]string{
		"builtin:iris": "iris", "Breast-Cancer": "breast_cancer", "builtin:swiss_roll": "swissroll",
		"BUILTIN:Multimodal": "twoclass_multimodal", "twoclass-LPPFails": "twoclass_lppfails",
	} {
		d, err := Builtin(in)
		if err != nil || d.Name != want {
			t.Errorf("Builtin(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	a, _ := Builtin("swissroll")
	b, _ := Builtin("builtin:swissroll")
	if !mat.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
		t.Error("builtin:swissroll differs between calls")
	}
	_, err := Builtin("builtin:irsi")
	if err == nil || !strings.Contains(err.Error(), `"builtin:irsi"`) || !strings.Contains(err.Error(), "iris") {
		t.Errorf("unknown name: error %v should quote the name and list the known ones", err)
	}
}

func TestSwissRoll(t *testing.T) {
	opt := SwissRollOptions{N: 1001, Classes: 5, Seed: 7}
	d, err := SwissRoll(opt)
	if err != nil {
		t.Fatal(err)
	}
	if n, p := d.Dims(); n != 1001 || p != 3 {
		t.Fatalf("dims %d×%d, want 1001×3", n, p)
	}
	if got := data.ClassCounts(d.Y); !slices.Equal(got, []int{201, 200, 200, 200, 200}) {
		t.Errorf("class counts %v", got)
	}
	if !slices.Equal(d.FeatureNames, []string{"x", "y", "z"}) || len(d.ClassNames) != 5 {
		t.Errorf("names %v %v", d.FeatureNames, d.ClassNames)
	}
	sorted := sort.IntsAreSorted(d.Y)
	if sorted {
		t.Error("rows are grouped by class; want random order")
	}
	seg := (rollTMax - rollTMin) / 5
	for i := range 1001 {
		x, h, z := d.X.At(i, 0), d.X.At(i, 1), d.X.At(i, 2)
		r := math.Hypot(x, z) // = t on the roll
		if r < rollTMin-1e-9 || r > rollTMax+1e-9 {
			t.Fatalf("row %d: t = %v outside [1.5π, 4.5π]", i, r)
		}
		if math.Abs(x-r*math.Cos(r)) > 1e-9 || math.Abs(z-r*math.Sin(r)) > 1e-9 {
			t.Fatalf("row %d: (%v, %v) is not (t cos t, t sin t) for t = %v", i, x, z, r)
		}
		if h < 0 || h > 21 {
			t.Fatalf("row %d: height %v outside [0, 21]", i, h)
		}
		lo := rollTMin + seg*float64(d.Y[i])
		if r < lo-1e-9 || r > lo+seg+1e-9 {
			t.Fatalf("row %d: class %d but t = %v outside its segment [%v, %v]", i, d.Y[i], r, lo, lo+seg)
		}
	}

	// Determinism and seeds.
	again, _ := SwissRoll(opt)
	if !mat.Equal(d.X, again.X) || !slices.Equal(d.Y, again.Y) {
		t.Error("same seed gave different data")
	}
	opt.Seed = 8
	other, _ := SwissRoll(opt)
	if mat.Equal(d.X, other.X) {
		t.Error("different seeds gave the same data")
	}

	// Noise moves points off the surface by about Noise; Height is honoured.
	noisy, err := SwissRoll(SwissRollOptions{N: 2000, Classes: 2, Height: 5, Noise: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var off float64
	for i := range 2000 {
		off = max(off, math.Abs(noisy.X.At(i, 1)-2.5))
	}
	if off > 2.5+0.6 || off < 2.5 {
		t.Errorf("height spread %v, want about 2.5 + noise", off)
	}
}

func TestTwoClassShapes(t *testing.T) {
	for _, tc := range []struct {
		kind   TwoClassKind
		counts []int
	}{
		{TwoClassIdeal, []int{50, 50}},
		{TwoClassLPPFails, []int{50, 50}},
		{TwoClassMultimodal, []int{100, 50}},
	} {
		d, err := TwoClass(TwoClassOptions{Kind: tc.kind, N: 50, NoiseDims: 3, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if n, p := d.Dims(); n != tc.counts[0]+tc.counts[1] || p != 5 {
			t.Errorf("%v: dims %d×%d", tc.kind, n, p)
		}
		if got := data.ClassCounts(d.Y); !slices.Equal(got, tc.counts) {
			t.Errorf("%v: class counts %v, want %v", tc.kind, got, tc.counts)
		}
		if d.Name != tc.kind.String() || d.FeatureNames[4] != "noise3" {
			t.Errorf("%v: name %q, features %v", tc.kind, d.Name, d.FeatureNames)
		}
		again, _ := TwoClass(TwoClassOptions{Kind: tc.kind, N: 50, NoiseDims: 3, Seed: 3})
		if !mat.Equal(d.X, again.X) || !slices.Equal(d.Y, again.Y) {
			t.Errorf("%v: same seed gave different data", tc.kind)
		}
	}
	// The multimodal class 0 has two modes at x1 ≈ ±6, class 1 sits at 0.
	d, _ := TwoClass(DefaultTwoClassOptions(TwoClassMultimodal))
	var left, right, mid int
	for i, c := range d.Y {
		x := d.X.At(i, 0)
		switch {
		case c == 0 && x < -3:
			left++
		case c == 0 && x > 3:
			right++
		case c == 1 && math.Abs(x) < 3:
			mid++
		}
	}
	if left < 95 || right < 95 || mid < 95 {
		t.Errorf("multimodal modes: %d left, %d right, %d middle of 100 each", left, right, mid)
	}
}

// The qualitative behaviour that seed 003 Fig. 1 reports: on the ideal set
// FDA and LPP both separate the classes, on the middle set LPP mixes them
// while FDA separates them, and on the multimodal set FDA fails while LPP
// succeeds. Separation is the leave-one-out 5-NN accuracy of the 1-D
// projection.
func TestTwoClassFig1Behaviour(t *testing.T) {
	for _, tc := range []struct {
		kind             TwoClassKind
		fdaGood, lppGood bool
	}{
		{TwoClassIdeal, true, true},
		{TwoClassLPPFails, true, false},
		{TwoClassMultimodal, false, true},
	} {
		d, err := TwoClass(DefaultTwoClassOptions(tc.kind))
		if err != nil {
			t.Fatal(err)
		}
		fda := knnAccuracy1D(project(d.X, fdaAngle(d.X, d.Y)), d.Y)
		lpp := knnAccuracy1D(project(d.X, lppAngle(d.X)), d.Y)
		t.Logf("%v: FDA accuracy %.3f, LPP accuracy %.3f", tc.kind, fda, lpp)
		if (fda >= 0.9) != tc.fdaGood || (fda < 0.75) == tc.fdaGood {
			t.Errorf("%v: FDA 1-D accuracy %.3f, want good=%v", tc.kind, fda, tc.fdaGood)
		}
		if (lpp >= 0.9) != tc.lppGood || (lpp < 0.75) == tc.lppGood {
			t.Errorf("%v: LPP 1-D accuracy %.3f, want good=%v", tc.kind, lpp, tc.lppGood)
		}
	}
}

func TestGaussianMixture(t *testing.T) {
	for _, tc := range []struct {
		dim, c int
		sep    float64
	}{
		{5, 3, 4}, // simplex corners
		{1, 3, 5}, // on a line
		{2, 6, 4}, // on a circle
	} {
		counts := make([]int, tc.c)
		for k := range counts {
			counts[k] = 400 + k
		}
		opt := GaussianMixtureOptions{Dim: tc.dim, Counts: counts, Separation: tc.sep, Std: 0.5, Seed: 11}
		d, err := GaussianMixture(opt)
		if err != nil {
			t.Fatal(err)
		}
		n, p := d.Dims()
		if p != tc.dim || n != tc.c*400+tc.c*(tc.c-1)/2 {
			t.Fatalf("dims %d×%d", n, p)
		}
		if got := data.ClassCounts(d.Y); !slices.Equal(got, counts) {
			t.Errorf("class counts %v, want %v", got, counts)
		}
		// Empirical means near the designed ones; nearest pair Separation apart.
		means := mixtureMeans(tc.c, tc.dim, tc.sep)
		emp := make([][]float64, tc.c)
		for k := range emp {
			emp[k] = make([]float64, tc.dim)
		}
		var ss float64
		for i, c := range d.Y {
			for j := range tc.dim {
				v := d.X.At(i, j)
				emp[c][j] += v / float64(counts[c])
				ss += (v - means[c][j]) * (v - means[c][j])
			}
		}
		for k := range emp {
			for j := range tc.dim {
				if math.Abs(emp[k][j]-means[k][j]) > 0.15 {
					t.Errorf("dim %d C %d: class %d mean[%d] = %v, want %v", tc.dim, tc.c, k, j, emp[k][j], means[k][j])
				}
			}
		}
		if sd := math.Sqrt(ss / float64(n*tc.dim)); math.Abs(sd-0.5) > 0.03 {
			t.Errorf("within-class std %v, want 0.5", sd)
		}
		nearest := math.Inf(1)
		for a := range means {
			for b := a + 1; b < len(means); b++ {
				nearest = min(nearest, dist(means[a], means[b]))
			}
		}
		if math.Abs(nearest-tc.sep) > 1e-12 {
			t.Errorf("dim %d C %d: nearest means %v apart, want %v", tc.dim, tc.c, nearest, tc.sep)
		}
		again, _ := GaussianMixture(opt)
		if !mat.Equal(d.X, again.X) || !slices.Equal(d.Y, again.Y) {
			t.Error("same seed gave different data")
		}
	}
}

func TestBadInput(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		run  func() (*data.Dataset, error)
		want []string // substrings of the error
	}{
		{"roll N<0", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: -5, Classes: 2}) }, []string{"N = -5"}},
		{"roll N=0", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: 0, Classes: 2}) }, []string{"N = 0"}},
		{"roll zero classes", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: 10}) }, []string{"Classes = 0"}},
		{"roll classes>N", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: 3, Classes: 4}) }, []string{"Classes = 4"}},
		{"roll height", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: 3, Classes: 1, Height: -1}) }, []string{"Height = -1"}},
		{"roll noise NaN", func() (*data.Dataset, error) {
			return SwissRoll(SwissRollOptions{N: 3, Classes: 1, Noise: math.NaN()})
		}, []string{"Noise = NaN"}},
		{"roll huge", func() (*data.Dataset, error) { return SwissRoll(SwissRollOptions{N: math.MaxInt, Classes: 1}) }, []string{"N = "}},
		{"twoclass N", func() (*data.Dataset, error) { return TwoClass(TwoClassOptions{N: -1}) }, []string{"N = -1"}},
		{"twoclass kind", func() (*data.Dataset, error) { return TwoClass(TwoClassOptions{Kind: 9, N: 1}) }, []string{"Kind = 9"}},
		{"twoclass noise dims", func() (*data.Dataset, error) { return TwoClass(TwoClassOptions{N: 1, NoiseDims: -2}) }, []string{"NoiseDims = -2"}},
		{"twoclass noise std", func() (*data.Dataset, error) {
			return TwoClass(TwoClassOptions{N: 1, NoiseDims: 1, NoiseStd: -3})
		}, []string{"NoiseStd = -3"}},
		{"twoclass huge", func() (*data.Dataset, error) { return TwoClass(TwoClassOptions{N: math.MaxInt / 2}) }, []string{"N = "}},
		{"mixture zero classes", func() (*data.Dataset, error) { return GaussianMixture(GaussianMixtureOptions{Dim: 2}) }, []string{"Counts", "0 classes"}},
		{"mixture negative count", func() (*data.Dataset, error) {
			return GaussianMixture(GaussianMixtureOptions{Dim: 2, Counts: []int{3, -4}})
		}, []string{"Counts[1] = -4"}},
		{"mixture dim", func() (*data.Dataset, error) {
			return GaussianMixture(GaussianMixtureOptions{Dim: 0, Counts: []int{3}})
		}, []string{"Dim = 0"}},
		{"mixture separation", func() (*data.Dataset, error) {
			return GaussianMixture(GaussianMixtureOptions{Dim: 1, Counts: []int{3}, Separation: -2})
		}, []string{"Separation = -2"}},
		{"mixture std", func() (*data.Dataset, error) {
			return GaussianMixture(GaussianMixtureOptions{Dim: 1, Counts: []int{3}, Std: inf})
		}, []string{"Std = +Inf"}},
		{"mixture huge", func() (*data.Dataset, error) {
			return GaussianMixture(GaussianMixtureOptions{Dim: 1 << 20, Counts: []int{1 << 20}})
		}, []string{"Counts"}},
		{"builtin", func() (*data.Dataset, error) { return Builtin("nope") }, []string{`"nope"`}},
	} {
		d, err := tc.run()
		if err == nil {
			t.Errorf("%s: no error (got %d rows)", tc.name, d.X.RawMatrix().Rows)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func TestDetMath(t *testing.T) {
	for x := 1e-300; x < 1e300; x *= 1.37 {
		if got, want := detLog(x), math.Log(x); math.Abs(got-want) > 4e-16*math.Max(1, math.Abs(want)) {
			t.Fatalf("detLog(%v) = %v, want %v", x, got, want)
		}
	}
	for x := -50.0; x < 50; x += 0.0137 {
		s, c := detSinCos(x)
		if math.Abs(s-math.Sin(x)) > 4e-16 || math.Abs(c-math.Cos(x)) > 4e-16 {
			t.Fatalf("detSinCos(%v) = %v, %v; want %v, %v", x, s, c, math.Sin(x), math.Cos(x))
		}
	}
	g := newRNG(5)
	var m1, m2, m4 float64
	const n = 200000
	for range n {
		z := g.normal()
		m1 += z / n
		m2 += z * z / n
		m4 += z * z * z * z / n
	}
	if math.Abs(m1) > 0.01 || math.Abs(m2-1) > 0.02 || math.Abs(m4-3) > 0.1 {
		t.Errorf("normal moments %v %v %v, want 0 1 3", m1, m2, m4)
	}
}

// TestGolden pins the exact bits of the default generated sets, so a change
// of platform (or of code) that alters the data is caught. The values were
// computed on linux/amd64 and checked on linux/386.
func TestGolden(t *testing.T) {
	for name, want := range map[string]uint64{
		"swissroll":           0x732fee511514850b,
		"twoclass_ideal":      0xdc6e89f9f1bf91c2,
		"twoclass_lppfails":   0xadb875060c36b756,
		"twoclass_multimodal": 0xbcebdb21202075a0,
		"gaussians":           0x3d945f36d6109665,
	} {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fingerprint(d); got != want {
			t.Errorf("%s: fingerprint %#x, want %#x", name, got, want)
		}
	}
}

func fingerprint(d *data.Dataset) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(u uint64) {
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	for _, v := range d.X.RawMatrix().Data {
		put(math.Float64bits(v))
	}
	for _, y := range d.Y {
		put(uint64(y))
	}
	return h.Sum64()
}

// --- helpers: 2-D FDA and LPP by search over projection angles ---

func project(x *mat.Dense, theta float64) []float64 {
	n, _ := x.Dims()
	z := make([]float64, n)
	c, s := math.Cos(theta), math.Sin(theta)
	for i := range z {
		z[i] = c*x.At(i, 0) + s*x.At(i, 1)
	}
	return z
}

// bestAngle returns the angle in [0, π) maximising score.
func bestAngle(score func(theta float64) float64) float64 {
	best, arg := math.Inf(-1), 0.0
	for k := range 1800 {
		th := math.Pi * float64(k) / 1800
		if s := score(th); s > best {
			best, arg = s, th
		}
	}
	return arg
}

// fdaAngle maximises between-class over within-class variance.
func fdaAngle(x *mat.Dense, y []int) float64 {
	return bestAngle(func(th float64) float64 {
		z := project(x, th)
		var mean [2]float64
		var cnt [2]float64
		for i, c := range y {
			mean[c] += z[i]
			cnt[c]++
		}
		mean[0] /= cnt[0]
		mean[1] /= cnt[1]
		var within float64
		for i, c := range y {
			within += (z[i] - mean[c]) * (z[i] - mean[c])
		}
		return (mean[0] - mean[1]) * (mean[0] - mean[1]) / within
	})
}

// lppAngle minimises the LPP criterion Σ W_ij (z_i - z_j)² / Σ D_ii z_i²
// (z centred) on a 7-NN graph with local-scaling heat weights, the
// affinity used by seed 003.
func lppAngle(x *mat.Dense) float64 {
	n, _ := x.Dims()
	const k = 7
	d2 := func(i, j int) float64 {
		a, b := x.At(i, 0)-x.At(j, 0), x.At(i, 1)-x.At(j, 1)
		return a*a + b*b
	}
	nbrs := make([][]int, n)
	sigma := make([]float64, n)
	for i := range n {
		idx := make([]int, 0, n-1)
		for j := range n {
			if j != i {
				idx = append(idx, j)
			}
		}
		sort.Slice(idx, func(a, b int) bool { return d2(i, idx[a]) < d2(i, idx[b]) })
		nbrs[i] = idx[:k]
		sigma[i] = math.Sqrt(d2(i, idx[k-1]))
	}
	w := map[[2]int]float64{}
	for i := range n {
		for _, j := range nbrs[i] {
			a, b := min(i, j), max(i, j)
			w[[2]int{a, b}] = math.Exp(-d2(a, b) / (sigma[a] * sigma[b]))
		}
	}
	deg := make([]float64, n)
	for e, v := range w {
		deg[e[0]] += v
		deg[e[1]] += v
	}
	return bestAngle(func(th float64) float64 {
		z := project(x, th)
		var mean, tot float64
		for i := range z {
			mean += deg[i] * z[i]
			tot += deg[i]
		}
		mean /= tot
		var num, den float64
		for e, v := range w {
			dz := z[e[0]] - z[e[1]]
			num += v * dz * dz
		}
		for i := range z {
			den += deg[i] * (z[i] - mean) * (z[i] - mean)
		}
		return -num / den
	})
}

// knnAccuracy1D is the leave-one-out 5-NN accuracy on the line.
func knnAccuracy1D(z []float64, y []int) float64 {
	idx := make([]int, len(z))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return z[idx[a]] < z[idx[b]] })
	correct := 0
	for pos, i := range idx {
		// Merge outwards from pos to collect the 5 nearest others.
		l, r, votes := pos-1, pos+1, [2]int{}
		for range 5 {
			if r >= len(idx) || (l >= 0 && z[i]-z[idx[l]] <= z[idx[r]]-z[i]) {
				votes[y[idx[l]]]++
				l--
			} else {
				votes[y[idx[r]]]++
				r++
			}
		}
		if (votes[1] > votes[0]) == (y[i] == 1) {
			correct++
		}
	}
	return float64(correct) / float64(len(z))
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}
