package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

func mustMethod(t *testing.T, name string, kv map[string]string) method.Method {
	t.Helper()
	m, err := method.New(name, kv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bruteChoice is what the straightforward loop of bruteNested chose in
// one outer fold.
type bruteChoice struct {
	dim, point, innerMiss, outerMiss int
	// outerByDim[k-1]: outer test errors of the chosen point fitted
	// afresh at dimension k, for every candidate dimension.
	outerByDim []int
}

// bruteNested recomputes nested CV the plain way, sharing nothing with
// RunNested but the fold functions: for every outer fold, grid point and
// dimension it fits the method afresh at that dimension on every inner
// training part (min-max scaling refitted there) and counts c's errors on
// the inner test fold; the (fewest errors, smallest dimension, earliest
// point) wins and is refitted at its dimension on the outer training part.
// The candidate dimensions of a point are 1..the fewest its fits at the
// largest dimension give (capped by maxDims).
func bruteNested(t *testing.T, ds *data.Dataset, points []method.Method, c classify.Classifier, outerK, innerK, maxDims int, seed uint64) []bruteChoice {
	t.Helper()
	pre, err := preprocess.Parse("minmax")
	if err != nil {
		t.Fatal(err)
	}
	errorsAt := func(m method.Method, trX *mat.Dense, ytr []int, teX *mat.Dense, yte []int, dims int) (miss, got int) {
		f, err := pre.Fit(trX)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := f.Apply(trX)
		b, _ := f.Apply(teX)
		model, err := m.Fit(a, ytr, dims)
		if err != nil {
			t.Fatal(err)
		}
		if dims == 0 {
			return 0, model.Dims()
		}
		za, _ := model.Transform(a)
		zb, _ := model.Transform(b)
		miss, err = classify.Misclassified(c, za, ytr, zb, yte)
		if err != nil {
			t.Fatal(err)
		}
		return miss, dims
	}
	outer, err := StratifiedKFold(ds.Y, outerK, seed)
	if err != nil {
		t.Fatal(err)
	}
	var out []bruteChoice
	for f, test := range outer {
		train := complement(len(ds.Y), test)
		trDS, teDS := ds.Subset(train), ds.Subset(test)
		inner, err := StratifiedKFold(trDS.Y, innerK, innerSeed(seed, f))
		if err != nil {
			t.Fatal(err)
		}
		best := bruteChoice{dim: -1}
		candDims := make([]int, len(points))
		for g, m := range points {
			_, dims := errorsAt(m, trDS.X, trDS.Y, teDS.X, teDS.Y, 0)
			for _, itest := range inner {
				in := trDS.Subset(complement(len(trDS.Y), itest))
				_, d := errorsAt(m, in.X, in.Y, in.X, in.Y, 0)
				dims = min(dims, d)
			}
			if maxDims > 0 {
				dims = min(dims, maxDims)
			}
			candDims[g] = dims
			for dim := 1; dim <= dims; dim++ {
				miss := 0
				for _, itest := range inner {
					in, held := trDS.Subset(complement(len(trDS.Y), itest)), trDS.Subset(itest)
					e, _ := errorsAt(m, in.X, in.Y, held.X, held.Y, dim)
					miss += e
				}
				better := best.dim < 0 || miss < best.innerMiss ||
					miss == best.innerMiss && (dim < best.dim || dim == best.dim && g < best.point)
				if better {
					best = bruteChoice{dim: dim, point: g, innerMiss: miss}
				}
			}
		}
		for dim := 1; dim <= candDims[best.point]; dim++ {
			e, _ := errorsAt(points[best.point], trDS.X, trDS.Y, teDS.X, teDS.Y, dim)
			best.outerByDim = append(best.outerByDim, e)
		}
		best.outerMiss = best.outerByDim[best.dim-1]
		out = append(out, best)
	}
	return out
}

func complement(n int, idx []int) []int {
	in := make([]bool, n)
	for _, i := range idx {
		in[i] = true
	}
	var out []int
	for i := 0; i < n; i++ {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

// TestNestedMatchesBruteForce: (a) RunNested's choices, inner and outer
// error counts on Wine equal a straightforward loop that fits every
// dimension afresh; (b) the outer error at the chosen dimension is the
// per-dimension outer error of that dimension in the same fold, the folds'
// curves pool to MinOverDims, and without a grid MinOverDims is Run's
// Result.
func TestNestedMatchesBruteForce(t *testing.T) {
	ds := datasets.Wine()
	const outerK, innerK, seed, maxDims = 3, 3, 7, 3
	cs := []classify.Classifier{classify.NCC{}, classify.KNN{K: 3}}
	p := Protocol{
		Preprocess: "minmax",
		Methods: []NamedMethod{
			{"lda", mustMethod(t, "lda", nil)},
			{"pca", mustMethod(t, "pca", nil)},
			{"gda", mustMethod(t, "gda", map[string]string{"alpha": "0.1"})},
		},
		Classifiers: cs,
		Folds:       outerK,
		Seed:        seed,
		MaxDims:     maxDims,
	}
	o := NestedOptions{InnerFolds: innerK, Grid: []GridParam{
		{Method: "gda", Key: "sigma", Values: []string{"0.05", "1"}},
		{Method: "gda", Key: "alpha", Values: []string{"0.1", "10"}},
	}}
	rep, err := RunNested(ds, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 6 || rep.InnerFolds != innerK {
		t.Fatalf("%d results, inner folds %d", len(rep.Results), rep.InnerFolds)
	}
	gdaPoints := []method.Method{}
	gdaParams := []map[string]string{}
	for _, s := range []string{"0.05", "1"} {
		for _, a := range []string{"0.1", "10"} {
			kv := map[string]string{"sigma": s, "alpha": a}
			gdaPoints = append(gdaPoints, mustMethod(t, "gda", kv))
			gdaParams = append(gdaParams, kv)
		}
	}
	sawGrid := map[string]bool{}
	for _, r := range rep.Results {
		points, params := []method.Method{mustMethod(t, r.Method, nil)}, []map[string]string{nil}
		if r.Method == "gda" {
			points, params = gdaPoints, gdaParams
		}
		c := cs[0]
		if r.Classifier == "knn3" {
			c = cs[1]
		}
		want := bruteNested(t, ds, points, c, outerK, innerK, maxDims, seed)
		total := 0
		for f, fold := range r.Folds {
			w := want[f]
			if fold.Dim != w.dim || !reflect.DeepEqual(fold.Params, params[w.point]) ||
				fold.InnerErrors != w.innerMiss || fold.Errors != w.outerMiss {
				t.Errorf("%s/%s fold %d: dim %d params %v inner %d outer %d; brute force: dim %d params %v inner %d outer %d",
					r.Method, r.Classifier, f+1, fold.Dim, fold.Params, fold.InnerErrors, fold.Errors,
					w.dim, params[w.point], w.innerMiss, w.outerMiss)
			}
			if fold.InnerRows != len(ds.Y)-fold.Rows {
				t.Errorf("%s fold %d: %d inner rows, want the %d training rows", r.Method, f+1, fold.InnerRows, len(ds.Y)-fold.Rows)
			}
			// (b) the outer error at the chosen dimension is the fold's
			// per-dimension error there, and that curve is the one of
			// fits made afresh at every dimension.
			if fold.Errors != fold.ErrorsByDim[fold.Dim-1] {
				t.Errorf("%s/%s fold %d: %d errors at dim %d, but the fold's curve has %d there", r.Method, r.Classifier, f+1, fold.Errors, fold.Dim, fold.ErrorsByDim[fold.Dim-1])
			}
			if len(fold.ErrorsByDim) < len(w.outerByDim) || !reflect.DeepEqual(fold.ErrorsByDim[:len(w.outerByDim)], w.outerByDim) {
				t.Errorf("%s/%s fold %d: outer curve %v, brute force %v", r.Method, r.Classifier, f+1, fold.ErrorsByDim, w.outerByDim)
			}
			sawGrid[fold.Params["sigma"]+"/"+fold.Params["alpha"]] = true
			total += fold.Errors
		}
		if r.Error != float64(total)/float64(len(ds.Y)) || r.Std != 0 {
			t.Errorf("%s/%s: error %v std %v, want %d/%d and 0", r.Method, r.Classifier, r.Error, r.Std, total, len(ds.Y))
		}
		if r.Method != "gda" {
			// The folds' curves pool to MinOverDims's curve.
			for k, e := range r.MinOverDims.ErrorsByDim {
				sum := 0
				for _, fold := range r.Folds {
					sum += fold.ErrorsByDim[k]
				}
				if e != float64(sum)/float64(len(ds.Y)) {
					t.Errorf("%s/%s dim %d: min-over-dims curve %v, folds pool to %d/%d", r.Method, r.Classifier, k+1, e, sum, len(ds.Y))
				}
			}
		}
	}
	if len(sawGrid) < 2 {
		t.Logf("every fold chose the same gda point: %v", sawGrid)
	}

	// Without a grid, MinOverDims is Run's Result, bit for bit.
	runRep, err := Run(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	noGrid, err := RunNested(ds, p, NestedOptions{InnerFolds: innerK})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range noGrid.Results {
		if !reflect.DeepEqual(r.MinOverDims, runRep.Results[i]) {
			t.Errorf("%s/%s: min over dims %+v, Run %+v", r.Method, r.Classifier, r.MinOverDims, runRep.Results[i])
		}
		if r.Grid != nil || r.MinParams != nil || r.Folds[0].Params != nil {
			t.Errorf("%s: grid fields set without a grid", r.Method)
		}
	}
	// The gda results with the grid: the min over dims and grid points is
	// no larger than any single point's (here the configured alpha=0.1
	// with sigma=1 is one of them) and names its point.
	for _, r := range rep.Results {
		if r.Method == "gda" && r.MinParams["sigma"] == "" {
			t.Errorf("gda: min over dims has no grid values: %+v", r.MinParams)
		}
	}
}

// TestNestedGridPicksWidth: (c) a far too narrow RBF (σ = 0.01 on rows
// scaled to [−1, 1]: the Gram matrix is nearly the identity, so test rows
// embed near the origin) is listed first, so a tie would pick it; the
// inner folds reject it in every outer fold.
func TestNestedGridPicksWidth(t *testing.T) {
	ds := datasets.Wine()
	rep, err := RunNested(ds, Protocol{
		Preprocess:  "minmax",
		Methods:     []NamedMethod{{"gda", mustMethod(t, "gda", nil)}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		Folds:       5,
		Seed:        1,
	}, NestedOptions{InnerFolds: 3, Grid: []GridParam{{Key: "sigma", Values: []string{"0.01", "1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	for _, f := range r.Folds {
		if f.Params["sigma"] != "1" {
			t.Errorf("%s chose sigma=%s (inner errors %d of %d)", f.Split, f.Params["sigma"], f.InnerErrors, f.InnerRows)
		}
	}
	if mode, n := r.ParamsMode(); mode["sigma"] != "1" || n["sigma"] != 5 {
		t.Errorf("mode %v in %v folds", mode, n)
	}
	if r.Error > 0.1 {
		t.Errorf("nested error %v with sigma=1 chosen, want a few percent", r.Error)
	}
	if !strings.Contains(rep.Protocol, "sigma ∈ {0.01, 1} (gda)") || !strings.Contains(rep.Protocol, "3 inner stratified folds") {
		t.Errorf("protocol line %q", rep.Protocol)
	}
}

// TestNestedDeterministic: (d) the same report for GOMAXPROCS 1 and 2 and
// any Workers, with repeats, the Unlabeled protocol and a grid; another
// seed changes it.
func TestNestedDeterministic(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(3, 4)), 90, 5, 3)
	p := Protocol{
		Preprocess:  "zscore",
		Methods:     []NamedMethod{{"raw", firstCols{}}, {"lda", mustMethod(t, "lda", nil)}, {"slpp", mustMethod(t, "slpp", nil)}},
		Classifiers: classifiers(),
		Folds:       4,
		Repeats:     2,
		Seed:        9,
		Unlabeled:   0.2,
	}
	o := NestedOptions{InnerFolds: 3, Grid: []GridParam{{Method: "slpp", Key: "k", Values: []string{"3", "7"}}}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *NestedReport
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, workers := range []int{0, 1, 3} {
			p.Workers = workers
			rep, err := RunNested(ds, p, o)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = rep
			} else if !reflect.DeepEqual(rep, first) {
				t.Fatalf("GOMAXPROCS=%d Workers=%d: reports differ", procs, workers)
			}
		}
	}
	r := first.Results[0]
	if len(r.Folds) != 8 || r.Std == 0 && r.Folds[0].Errors != r.Folds[4].Errors {
		t.Errorf("repeats: %d folds, std %v", len(r.Folds), r.Std)
	}
	// Unlabeled 0.2: the inner folds hold only the labelled training rows
	// (⌊0.2·n_c⌋ of each class's hidden), and every inner fit still sees
	// the hidden rows, unlabelled.
	splits, err := makeSplits(ds.Y, &p)
	if err != nil {
		t.Fatal(err)
	}
	var wantUnl, wantTotal int // over the first repeat's folds, checked below
	for s, f := range r.Folds {
		ytr := make([]int, len(splits[s].train))
		for i, row := range splits[s].train {
			ytr[i] = ds.Y[row]
		}
		hidden := 0
		for _, c := range data.ClassCounts(ytr) {
			hidden += int(0.2 * float64(c))
		}
		if want := len(ytr) - hidden; f.InnerRows != want {
			t.Errorf("%s: %d inner rows, want the %d labelled of %d training rows", f.Split, f.InnerRows, want, len(ytr))
		}
		if splits[s].repeat == 0 {
			// One outer fit on the training part, and 3 inner fits, each
			// on every hidden row and 2 of the 3 inner folds of labelled
			// rows: 2 × labelled rows in all.
			wantUnl += 4 * hidden
			wantTotal += len(ytr) + 3*hidden + 2*(len(ytr)-hidden)
		}
	}
	rec := &recordLabels{}
	q := p
	q.Methods = []NamedMethod{{"rec", rec}}
	q.Repeats = 1
	if _, err := RunNested(ds, q, NestedOptions{InnerFolds: 3}); err != nil {
		t.Fatal(err)
	}
	if rec.unlabeled != wantUnl || rec.total != wantTotal {
		t.Errorf("methods saw %d unlabelled of %d rows, want %d of %d", rec.unlabeled, rec.total, wantUnl, wantTotal)
	}
	p.Seed = 10
	other, err := RunNested(ds, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(other.Results, first.Results) {
		t.Error("another seed gave the same report")
	}
}

// TestNestedProgressAndCancel: one progress call per fit, the fit count
// (outer folds × (inner folds + 1) × grid points); a cancelled context
// stops the run with its error.
func TestNestedProgressAndCancel(t *testing.T) {
	var calls, total int
	p := Protocol{
		Methods:     []NamedMethod{{"lda", mustMethod(t, "lda", nil)}, {"gda", mustMethod(t, "gda", nil)}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		Folds:       3,
		Progress:    func(done, tot int) { calls, total = done, tot },
	}
	o := NestedOptions{InnerFolds: 2, Grid: []GridParam{{Key: "sigma", Values: []string{"0.5", "1", "2"}}}}
	if _, err := RunNested(datasets.Iris(), p, o); err != nil {
		t.Fatal(err)
	}
	if want := 3 * 3 * (1 + 3); total != want || calls != want {
		t.Errorf("progress %d of %d, want %d fits", calls, total, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Context = ctx
	if _, err := RunNested(datasets.Iris(), p, o); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestNestedFullDim: with FullDim only the grid point is chosen and every
// fold reports the method's full dimension.
func TestNestedFullDim(t *testing.T) {
	rep, err := RunNested(datasets.Iris(), Protocol{
		Preprocess:  "minmax",
		Methods:     []NamedMethod{{"gda", mustMethod(t, "gda", nil)}},
		Classifiers: []classify.Classifier{classify.KNN{K: 1}},
		Folds:       3,
		FullDim:     true,
	}, NestedOptions{InnerFolds: 3, Grid: []GridParam{{Key: "alpha", Values: []string{"0.01", "1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	for _, f := range r.Folds {
		if f.Dim != 2 || len(f.ErrorsByDim) != 1 || f.Errors != f.ErrorsByDim[0] {
			t.Errorf("%s: dim %d, curve %v, errors %d", f.Split, f.Dim, f.ErrorsByDim, f.Errors)
		}
	}
	if r.MinOverDims.BestDim != 2 {
		t.Errorf("min over dims at %d", r.MinOverDims.BestDim)
	}
}

func TestNestedPerClass(t *testing.T) {
	rep, err := RunNested(datasets.Iris(), Protocol{
		Methods:     []NamedMethod{{"lda", mustMethod(t, "lda", nil)}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		PerClass:    10,
		Repeats:     3,
		Seed:        2,
	}, NestedOptions{InnerFolds: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	rates := make([]float64, len(r.Folds))
	for i, f := range r.Folds {
		if f.Rows != 120 || f.InnerRows != 30 {
			t.Fatalf("%s: %d test rows, %d inner rows", f.Split, f.Rows, f.InnerRows)
		}
		rates[i] = float64(f.Errors) / 120
	}
	mean, std := meanStd(rates)
	if math.Abs(r.Error-mean) > 1e-15 || math.Abs(r.Std-std) > 1e-15 || r.FoldStd != r.Std {
		t.Errorf("error %v ± %v (fold std %v), want %v ± %v", r.Error, r.Std, r.FoldStd, mean, std)
	}
}

// TestNestedBadInput: (e) every bad input is an error naming the input,
// the rule and the value.
func TestNestedBadInput(t *testing.T) {
	gda := []NamedMethod{{"gda", method.GDA{}}}
	base := Protocol{Methods: gda, Classifiers: []classify.Classifier{classify.NCC{}}, Folds: 3}
	for _, tc := range []struct {
		name  string
		ds    *data.Dataset
		p     Protocol
		o     NestedOptions
		wants []string
	}{
		{"unknown key", nil, base, NestedOptions{Grid: []GridParam{{Key: "sigm", Values: []string{"1"}}}},
			[]string{"grid sigm", "no method has it", "unknown parameter sigm for gda", "did you mean sigma"}},
		{"empty values", nil, base, NestedOptions{Grid: []GridParam{{Key: "sigma"}}},
			[]string{"grid sigma", "empty value list"}},
		{"refused value", nil, base, NestedOptions{Grid: []GridParam{{Key: "sigma", Values: []string{"1", "-2"}}}},
			[]string{"sigma=-2", `"gda"`, "must be > 0"}},
		{"unreadable value", nil, base, NestedOptions{Grid: []GridParam{{Key: "alpha", Values: []string{"lots"}}}},
			[]string{"alpha=lots", `"gda"`}},
		{"exclusive keys", nil, base, NestedOptions{Grid: []GridParam{{Key: "sigma", Values: []string{"1"}}, {Key: "gamma", Values: []string{"1"}}}},
			[]string{"grid point gda [sigma=1 gamma=1]", "exclude each other"}},
		{"twice", nil, base, NestedOptions{Grid: []GridParam{{Key: "sigma", Values: []string{"1"}}, {Key: "sigma", Values: []string{"2"}}}},
			[]string{"grid sigma is given twice"}},
		{"unknown method", nil, base, NestedOptions{Grid: []GridParam{{Method: "kpca", Key: "sigma", Values: []string{"1"}}}},
			[]string{"grid kpca.sigma", `no method named "kpca"`, "methods: gda"}},
		{"no key", nil, base, NestedOptions{Grid: []GridParam{{Values: []string{"1"}}}},
			[]string{"no parameter name"}},
		{"no params", nil, Protocol{Methods: []NamedMethod{{"raw", firstCols{}}}, Classifiers: base.Classifiers},
			NestedOptions{Grid: []GridParam{{Key: "sigma", Values: []string{"1"}}}},
			[]string{"grid sigma", "no method has it", `method "raw"`, "declares no parameters"}},
		{"inner folds 1", nil, base, NestedOptions{InnerFolds: 1}, []string{"InnerFolds = 1", "k ≥ 2"}},
		{"inner folds > class", handData(), base, NestedOptions{InnerFolds: 7},
			[]string{"7 inner folds", "at least 7 labelled training rows of every class", "has 6 of class 1", "at most 6 inner folds"}},
		{"protocol", nil, Protocol{Methods: gda, Classifiers: base.Classifiers, Folds: 1}, NestedOptions{}, []string{"Folds = 1"}},
	} {
		ds := tc.ds
		if ds == nil {
			ds = datasets.Iris()
		}
		_, err := RunNested(ds, tc.p, tc.o)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
		var ge *GridError
		if isGrid := strings.Contains(err.Error(), "grid"); errors.As(err, &ge) != isGrid {
			t.Errorf("%s: %q is a GridError: %v", tc.name, err, !isGrid)
		}
		if small := tc.name == "inner folds > class"; errors.Is(err, ErrClassTooSmall) != small {
			t.Errorf("%s: errors.Is(err, ErrClassTooSmall) = %v", tc.name, !small)
		}
	}
	// The configured method is not changed by the grid.
	m := method.GDA{}
	if _, err := RunNested(datasets.Iris(), Protocol{Methods: []NamedMethod{{"gda", &m}}, Classifiers: base.Classifiers, Folds: 3},
		NestedOptions{InnerFolds: 2, Grid: []GridParam{{Key: "sigma", Values: []string{"3"}}}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, method.GDA{}) {
		t.Errorf("the grid changed the caller's method: %+v", m)
	}
}

func TestNestedFormats(t *testing.T) {
	rep := &NestedReport{Dataset: "toy", N: 20, D: 3, Classes: 2, InnerFolds: 5, Protocol: "2-fold stratified CV, seed 0",
		Results: []NestedResult{{
			Method: "gda", Classifier: "ncc", Error: 0.15, Std: 0.05, FoldStd: 0.1,
			Grid: []GridParam{{Method: "gda", Key: "sigma", Values: []string{"0.5", "1"}}},
			Folds: []NestedFold{
				{Split: "repeat 1, fold 1 of 2", Dim: 1, Params: map[string]string{"sigma": "1"}, Errors: 1, Rows: 10, ErrorsByDim: []int{1, 0}},
				{Split: "repeat 2, fold 1 of 2", Repeat: 1, Dim: 2, Params: map[string]string{"sigma": "1"}, Errors: 2, Rows: 10, ErrorsByDim: []int{3, 2}},
				{Split: "repeat 2, fold 2 of 2", Repeat: 1, Dim: 2, Params: map[string]string{"sigma": "0.5"}, Errors: 0, Rows: 10, ErrorsByDim: []int{1, 0}},
			},
			MinOverDims: Result{Method: "gda", Classifier: "ncc", MinError: 0.1, BestDim: 2, ErrorsByDim: []float64{0.2, 0.1}},
			MinParams:   map[string]string{"sigma": "0.5"},
		}}}
	if med, lo, hi := rep.Results[0].DimSummary(); med != 2 || lo != 1 || hi != 2 {
		t.Errorf("dim summary %v %v %v", med, lo, hi)
	}
	var b strings.Builder
	if err := WriteNested(&b, rep, "text"); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, w := range []string{"toy: n = 20, d = 3, 2 classes; 2-fold", "nested error %", "repeat std %", "chosen grid (folds)",
		"15.00", "10.00", "5.00", "2 (1–2)", "sigma=1 (2/3)", "sigma=0.5"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	b.Reset()
	if err := WriteNested(&b, rep, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| gda | ncc | 15.00 | 10.00 | 5.00 | 2 (1–2) | sigma=1 (2/3) | 10.00 | 2 | sigma=0.5 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := WriteNested(&b, rep, "csv"); err != nil {
		t.Fatal(err)
	}
	want := "dataset,method,classifier,nested_error,std,fold_std,dim_median,dim_min,dim_max,grid_choice,min_error,best_dim,best_grid\n" +
		"toy,gda,ncc,0.15,0.05,0.1,2,1,2,sigma=1 (2/3),0.1,2,sigma=0.5\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteNested(&b, rep, "json"); err != nil {
		t.Fatal(err)
	}
	var back NestedReport
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	back.Protocol = rep.Protocol
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("json round trip:\n%+v\nwant\n%+v", back, *rep)
	}
	if err := WriteNested(&b, rep, "xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestNestedIonosphereDocNumbers re-runs two rows of docs/nested.md's
// measured Ionosphere table (seed 000 protocol: min-max scaling on each
// training fold, 10-fold CV with seed 0, dimensions 1..34, 5 inner folds):
// PCA with 3-NN, nested 13.96 % (49 of 351 rows) beside the minimum over
// dimensions 11.68 % (41 rows, dimension 9, as in docs/reproduction.md);
// LDA with NCC, 13.96 % both ways (one dimension, nothing to choose).
func TestNestedIonosphereDocNumbers(t *testing.T) {
	ds, err := data.Load(testdata.Path(t, "data/uci/ionosphere.arff"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunNested(ds, Protocol{
		Preprocess:  "minmax",
		Methods:     []NamedMethod{{"lda", mustMethod(t, "lda", nil)}, {"pca", mustMethod(t, "pca", nil)}},
		Classifiers: []classify.Classifier{classify.NCC{}, classify.KNN{K: 3}},
		MaxDims:     34,
	}, NestedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i           int
		nested, min float64
		dim         int
	}{{0, 49, 49, 1}, {3, 49, 41, 9}} {
		r := rep.Results[c.i]
		if r.Error != c.nested/351 || r.MinOverDims.MinError != c.min/351 || r.MinOverDims.BestDim != c.dim {
			t.Errorf("%s/%s: nested %.4f, min %.4f at %d; docs/nested.md: %v/351, %v/351 at %d",
				r.Method, r.Classifier, r.Error, r.MinOverDims.MinError, r.MinOverDims.BestDim, c.nested, c.min, c.dim)
		}
	}
}

// An unscoped grid key goes to every method that declares it (lda has no
// sigma), a scoped one replaces it for its method.
func TestNestedGridRouting(t *testing.T) {
	rep, err := RunNested(datasets.Iris(), Protocol{
		Methods: []NamedMethod{{"lda", mustMethod(t, "lda", nil)}, {"gda", mustMethod(t, "gda", nil)},
			{"kpca", mustMethod(t, "kpca", nil)}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		Folds:       2,
		MaxDims:     3,
	}, NestedOptions{InnerFolds: 2, Grid: []GridParam{
		{Key: "sigma", Values: []string{"0.5", "1"}},
		{Method: "gda", Key: "sigma", Values: []string{"2"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]GridParam{
		"lda":  nil,
		"gda":  {{Method: "gda", Key: "sigma", Values: []string{"2"}}},
		"kpca": {{Method: "kpca", Key: "sigma", Values: []string{"0.5", "1"}}},
	}
	for _, r := range rep.Results {
		if !reflect.DeepEqual(r.Grid, want[r.Method]) {
			t.Errorf("%s: grid %+v, want %+v", r.Method, r.Grid, want[r.Method])
		}
		for _, f := range r.Folds {
			if r.Method == "gda" && f.Params["sigma"] != "2" {
				t.Errorf("gda chose %v", f.Params)
			}
		}
	}
}

// With ChooseClassifier each outer fold takes the classifier whose own
// nested choice (dimension and grid point) has the fewest inner errors,
// the earlier on ties: checked against the runs with one result per
// classifier (a second computation of every fold's choice from the
// separate results), with the outer errors, the pooled error and the
// minimum over dimensions (the smallest of the separate results'); the
// protocol line and the mode say what was chosen.
func TestNestedChooseClassifier(t *testing.T) {
	ds := datasets.Wine()
	p := Protocol{
		Preprocess:  "minmax",
		Methods:     []NamedMethod{{"pca", mustMethod(t, "pca", nil)}, {"lda", mustMethod(t, "lda", nil)}},
		Classifiers: []classify.Classifier{classify.KNN{K: 1}, classify.KNN{K: 5}, classify.NCC{}},
		Folds:       5,
		Repeats:     2,
		Seed:        3,
	}
	o := NestedOptions{InnerFolds: 3}
	sep, err := RunNested(ds, p, o)
	if err != nil {
		t.Fatal(err)
	}
	o.ChooseClassifier = true
	ch, err := RunNested(ds, p, o)
	if err != nil {
		t.Fatal(err)
	}
	nc := len(p.Classifiers)
	if len(ch.Results) != len(p.Methods) || len(sep.Results) != len(p.Methods)*nc {
		t.Fatalf("%d results choosing, %d separate", len(ch.Results), len(sep.Results))
	}
	if !strings.Contains(ch.Protocol, "dimension and the classifier chosen on 3 inner") {
		t.Errorf("protocol line %q", ch.Protocol)
	}
	picked := map[string]bool{}
	for m, r := range ch.Results {
		minErr := math.Inf(1)
		for c := 0; c < nc; c++ {
			minErr = math.Min(minErr, sep.Results[m*nc+c].MinOverDims.MinError)
		}
		if math.Abs(r.MinOverDims.MinError-minErr) > 1e-12 {
			t.Errorf("%s: min over dims %v, smallest of the classifiers' %v", r.Method, r.MinOverDims.MinError, minErr)
		}
		perRep := make([]float64, p.Repeats)
		for s, f := range r.Folds {
			best := 0
			for c := 1; c < nc; c++ {
				if sep.Results[m*nc+c].Folds[s].InnerErrors < sep.Results[m*nc+best].Folds[s].InnerErrors {
					best = c
				}
			}
			want := sep.Results[m*nc+best].Folds[s]
			if f.Classifier != p.Classifiers[best].Name() || f.Dim != want.Dim || f.InnerErrors != want.InnerErrors || f.Errors != want.Errors {
				t.Errorf("%s %s: chose %s at dim %d (%d inner, %d outer errors); the separate runs give %s at %d (%d, %d)",
					r.Method, f.Split, f.Classifier, f.Dim, f.InnerErrors, f.Errors, p.Classifiers[best].Name(), want.Dim, want.InnerErrors, want.Errors)
			}
			picked[f.Classifier] = true
			perRep[f.Repeat] += float64(f.Errors) / float64(ch.N)
		}
		if want := (perRep[0] + perRep[1]) / 2; math.Abs(r.Error-want) > 1e-12 {
			t.Errorf("%s: nested error %v, pooled from the chosen folds %v", r.Method, r.Error, want)
		}
		if c, k := r.ClassifierMode(); k == 0 || c == "" {
			t.Errorf("%s: no classifier mode", r.Method)
		}
	}
	if len(picked) < 2 {
		t.Logf("every fold chose the same classifier (%v): the choice is checked, not exercised", picked)
	}
}

// A precomputed Gram matrix (Protocol.Precomputed) is evaluated as the
// rows it was computed from: each split hands its methods K[train, train]
// and K[test, train], so GDA and KQMI with space=precomputed on the RBF
// Gram matrix of scaled Wine give Run's and RunNested's numbers of the
// same methods with the same kernel on the rows themselves (to rounding:
// the Gram matrices are computed the same way, but by different code). A
// non-square matrix or a preprocessing is refused.
func TestPrecomputedGramMatchesRows(t *testing.T) {
	ds := datasets.Wine()
	fp, err := preprocess.Pipeline{preprocess.MinMax{}}.Fit(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	x, err := fp.Apply(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	rows := &data.Dataset{Name: "wine", X: x, Y: ds.Y, ClassNames: ds.ClassNames}
	k, err := kernel.RBF(1).Gram(x, nil) // exp(−‖x − y‖²/2)
	if err != nil {
		t.Fatal(err)
	}
	gram := &data.Dataset{Name: "wine", X: k, Y: ds.Y, ClassNames: ds.ClassNames}
	proto := func(space string) Protocol {
		kv := map[string]string{"space": space}
		if space == "exact" {
			kv["sigma"] = "1"
		}
		return Protocol{Preprocess: "none", Folds: 3, Seed: 5, Precomputed: space == "precomputed",
			Methods: []NamedMethod{
				{"gda", mustMethod(t, "gda", kv)},
				{"kqmi", mustMethod(t, "kqmi", kv)},
			},
			Classifiers: []classify.Classifier{classify.NCC{}, classify.KNN{K: 1}}}
	}
	// With labels hidden (Unlabeled), the supervised methods leave the
	// unlabelled training points out, and their Gram matrix columns with
	// them; KSR's semi-supervised graph keeps them.
	for _, unl := range []float64{0, 0.3} {
		pw, pg := proto("exact"), proto("precomputed")
		pw.Unlabeled, pg.Unlabeled = unl, unl
		if unl > 0 {
			for _, name := range []string{"ckfd", "knda", "sklpp", "kmfa", "kmie0", "ksr"} {
				kv := map[string]string{"space": "exact", "kernel": "rbf", "sigma": "1"}
				if name == "sklpp" || name == "kmfa" || name == "kmie0" {
					kv["graphspace"] = "kernel" // a Gram matrix gives only the feature space's distances
				}
				pw.Methods = append(pw.Methods, NamedMethod{name, mustMethod(t, name, kv)})
				pg.Methods = append(pg.Methods, NamedMethod{name, mustMethod(t, name, map[string]string{"space": "precomputed"})})
			}
		}
		want, err := Run(rows, pw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Run(gram, pg)
		if err != nil {
			t.Fatalf("unlabeled %v: %v", unl, err)
		}
		for i, r := range want.Results {
			g := got.Results[i]
			if g.Method != r.Method || g.Classifier != r.Classifier || len(g.ErrorsByDim) != len(r.ErrorsByDim) {
				t.Fatalf("result %d: %s/%s with %d dims, want %s/%s with %d", i, g.Method, g.Classifier, len(g.ErrorsByDim), r.Method, r.Classifier, len(r.ErrorsByDim))
			}
			for d := range r.ErrorsByDim {
				if math.Abs(g.ErrorsByDim[d]-r.ErrorsByDim[d]) > 1e-12 {
					t.Errorf("unlabeled %v: %s/%s at %d dims: %v on the Gram matrix, %v on the rows", unl, r.Method, r.Classifier, d+1, g.ErrorsByDim[d], r.ErrorsByDim[d])
				}
			}
		}
	}
	o := NestedOptions{InnerFolds: 3, Grid: []GridParam{{Method: "gda", Key: "alpha", Values: []string{"0.01", "1"}}}}
	nwant, err := RunNested(rows, proto("exact"), o)
	if err != nil {
		t.Fatal(err)
	}
	ngot, err := RunNested(gram, proto("precomputed"), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range nwant.Results {
		if g := ngot.Results[i]; math.Abs(g.Error-r.Error) > 1e-12 || !reflect.DeepEqual(g.Folds, r.Folds) {
			t.Errorf("nested %s/%s: %v (folds %+v) on the Gram matrix, %v (folds %+v) on the rows", r.Method, r.Classifier, g.Error, g.Folds, r.Error, r.Folds)
		}
	}
	bad := proto("precomputed")
	if _, err := Run(rows, bad); err == nil || !strings.Contains(err.Error(), "n×n Gram matrix, got 178×13") {
		t.Errorf("rows as a Gram matrix: error %v", err)
	}
	bad.Preprocess = "minmax"
	if _, err := Run(gram, bad); err == nil || !strings.Contains(err.Error(), `preprocessing "minmax" would change the Gram matrix`) {
		t.Errorf("scaled Gram matrix: error %v", err)
	}
}
