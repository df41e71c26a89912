package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/progress"
)

// firstCols is a fake method whose embedding is the first dims raw
// columns. cap, when > 0, makes Fit reject dims > cap as real methods do.
type firstCols struct{ cap int }

type firstColsModel struct{ k int }

func (f firstCols) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) {
	_, p := X.Dims()
	limit := p
	if f.cap > 0 {
		limit = min(p, f.cap)
	}
	if dims > limit {
		return nil, fmt.Errorf("dims = %d, want ≤ %d", dims, limit)
	}
	if dims == 0 {
		dims = limit
	}
	return firstColsModel{dims}, nil
}

func (m firstColsModel) Dims() int { return m.k }

func (m firstColsModel) Transform(X *mat.Dense) (*mat.Dense, error) {
	r, _ := X.Dims()
	return mat.DenseCopyOf(X.Slice(0, r, 0, m.k)), nil
}

// oddDims produces 2 dimensions when trained on an even number of rows and
// 3 otherwise.
type oddDims struct{}

func (oddDims) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) {
	n, _ := X.Dims()
	return firstColsModel{2 + n%2}, nil
}

type failing struct{}

func (failing) Name() string { return "broken" }
func (failing) Fit(X *mat.Dense, y []int) (classify.Predictor, error) {
	return nil, errors.New("cannot fit")
}

// handData: class 0 at x₀ = 0, 0.1, …, 0.9 and x₁ ≈ 0; class 1 at
// x₀ = 10, …, 10.9 and x₁ ≈ 100; plus one class-0 row at x₀ = 8,
// x₁ = 0.5. Column 2 repeats column 1. On x₀ alone the odd row is always
// misclassified (its neighbours and the nearer centroid are class 1), and
// every other row is right (its own class is within 0.9, the odd row at
// least 2 away, and the odd row moves the class-0 centroid only to about
// 1.1); with x₁ every row is right. So the 10-fold CV
// error is 1/21 at dimension 1 and 0 at dimensions 2 and 3, for 1-NN, 3-NN
// and NCC alike, whatever the folds.
func handData() *data.Dataset {
	x := mat.NewDense(21, 3, nil)
	y := make([]int, 21)
	for i := 0; i < 10; i++ {
		x.SetRow(i, []float64{0.1 * float64(i), 0.01 * float64(i), 0.01 * float64(i)})
		x.SetRow(10+i, []float64{10 + 0.1*float64(i), 100 + 0.01*float64(i), 100 + 0.01*float64(i)})
		y[10+i] = 1
	}
	x.SetRow(20, []float64{8, 0.5, 0.5})
	return &data.Dataset{Name: "hand", X: x, Y: y}
}

func classifiers() []classify.Classifier {
	return []classify.Classifier{classify.NCC{}, classify.KNN{K: 1}, classify.KNN{K: 3}}
}

func TestRunByHand(t *testing.T) {
	rep, err := Run(handData(), Protocol{
		Methods:     []NamedMethod{{"raw", firstCols{}}},
		Classifiers: classifiers(),
		Seed:        3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dataset != "hand" || rep.N != 21 || rep.D != 3 || rep.Classes != 2 || len(rep.Results) != 3 {
		t.Fatalf("report header %+v", rep)
	}
	for _, r := range rep.Results {
		want := []float64{1.0 / 21, 0, 0}
		if !reflect.DeepEqual(r.ErrorsByDim, want) || r.MinError != 0 || r.BestDim != 2 || r.StdByDim != nil {
			t.Errorf("%s/%s: %+v, want errors %v, min 0 at dim 2", r.Method, r.Classifier, r, want)
		}
	}
	if rep.Results[0].Method != "raw" || rep.Results[1].Classifier != "knn1" {
		t.Errorf("result order: %+v", rep.Results)
	}

	// Repeated CV: the same figures in every repeat, so std 0.
	rep, err = Run(handData(), Protocol{
		Methods:     []NamedMethod{{"raw", firstCols{}}},
		Classifiers: classifiers(),
		Folds:       3,
		Repeats:     4,
		MaxDims:     2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !reflect.DeepEqual(r.ErrorsByDim, []float64{1.0 / 21, 0}) || !reflect.DeepEqual(r.StdByDim, []float64{0, 0}) {
			t.Errorf("repeated CV %s: %+v", r.Classifier, r)
		}
	}

	// Preprocessing is applied: min-max scaling shrinks column 1 to the
	// range of column 0, and still separates the classes.
	rep, err = Run(handData(), Protocol{
		Preprocess:  "minmax",
		Methods:     []NamedMethod{{"raw", firstCols{}}},
		Classifiers: []classify.Classifier{classify.KNN{K: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.ErrorsByDim[0] != 1.0/21 || r.MinError != 0 {
		t.Errorf("minmax: %+v", r)
	}
}

// TestRunPerClassMatchesDirect recomputes the repeated-split figures
// directly: per split, the per-dimension error of a fresh fit; then mean
// and sample standard deviation.
func TestRunPerClassMatchesDirect(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(9, 9)), 60, 4, 3)
	const reps, nu = 5, 4
	rep, err := Run(ds, Protocol{
		Methods:     []NamedMethod{{"raw", firstCols{}}},
		Classifiers: []classify.Classifier{classify.KNN{K: 1}, classify.NCC{}},
		PerClass:    nu,
		Repeats:     reps,
		Seed:        42,
	})
	if err != nil {
		t.Fatal(err)
	}
	for ci, c := range []classify.Classifier{classify.KNN{K: 1}, classify.NCC{}} {
		per := make([][]float64, reps)
		for r := 0; r < reps; r++ {
			tr, te, err := PerClassSplit(ds.Y, nu, repeatSeed(42, r))
			if err != nil {
				t.Fatal(err)
			}
			a, b := ds.Subset(tr), ds.Subset(te)
			for k := 1; k <= 4; k++ {
				p, err := c.Fit(mat.DenseCopyOf(a.X.Slice(0, len(tr), 0, k)), a.Y)
				if err != nil {
					t.Fatal(err)
				}
				pred, err := p.Predict(mat.DenseCopyOf(b.X.Slice(0, len(te), 0, k)))
				if err != nil {
					t.Fatal(err)
				}
				per[r] = append(per[r], classify.ErrorRate(pred, b.Y))
			}
		}
		got := rep.Results[ci]
		for k := 0; k < 4; k++ {
			m, ss := 0.0, 0.0
			for r := range per {
				m += per[r][k]
			}
			m /= reps
			for r := range per {
				ss += (per[r][k] - m) * (per[r][k] - m)
			}
			sd := math.Sqrt(ss / (reps - 1))
			if math.Abs(got.ErrorsByDim[k]-m) > 1e-12 || math.Abs(got.StdByDim[k]-sd) > 1e-12 {
				t.Errorf("%s dim %d: mean %v ± %v, want %v ± %v", c.Name(), k+1, got.ErrorsByDim[k], got.StdByDim[k], m, sd)
			}
		}
		if got.MinError != slicesMin(got.ErrorsByDim) || got.ErrorsByDim[got.BestDim-1] != got.MinError {
			t.Errorf("%s: min %v at %d, errors %v", c.Name(), got.MinError, got.BestDim, got.ErrorsByDim)
		}
		for k := 0; k < got.BestDim-1; k++ {
			if got.ErrorsByDim[k] <= got.MinError {
				t.Errorf("%s: best dim %d is not the smallest reaching the minimum", c.Name(), got.BestDim)
			}
		}
	}
}

func slicesMin(s []float64) float64 {
	m := math.Inf(1)
	for _, v := range s {
		m = math.Min(m, v)
	}
	return m
}

func randomData(rng *rand.Rand, n, p, c int) *data.Dataset {
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % c
		for j := 0; j < p; j++ {
			x.Set(i, j, rng.NormFloat64()+0.8*float64((y[i]+j)%c))
		}
	}
	return &data.Dataset{Name: "random", X: x, Y: y}
}

func TestRunDimsAndRetry(t *testing.T) {
	ds := handData()
	// Dims differ across folds (2 or 3): the sweep covers the minimum.
	rep, err := Run(ds, Protocol{
		Methods:     []NamedMethod{{"odd", oddDims{}}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		Folds:       10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rep.Results[0].ErrorsByDim); got != 2 {
		t.Errorf("odd dims: %d dimensions swept, want 2 (the minimum over folds)", got)
	}
	// A method that rejects dims > 2 is refitted with its maximum.
	rep, err = Run(ds, Protocol{
		Methods:     []NamedMethod{{"capped", firstCols{cap: 2}}, {"raw", firstCols{}}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		MaxDims:     50,
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := len(rep.Results[0].ErrorsByDim), len(rep.Results[1].ErrorsByDim); a != 2 || b != 3 {
		t.Errorf("MaxDims 50: %d and %d dimensions, want 2 and 3", a, b)
	}
}

func TestRunDeterministicAcrossGOMAXPROCS(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(1, 2)), 150, 6, 4)
	prot := Protocol{
		Preprocess:  "zscore,pca:1",
		Methods:     []NamedMethod{{"raw", firstCols{}}, {"odd", oddDims{}}},
		Classifiers: classifiers(),
		Folds:       5,
		Repeats:     3,
		Seed:        5,
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *Report
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, workers := range []int{0, 3} {
			prot.Workers = workers
			rep, err := Run(ds, prot)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = rep
			} else if !reflect.DeepEqual(rep, first) {
				t.Fatalf("GOMAXPROCS=%d Workers=%d: results differ", procs, workers)
			}
		}
	}
	prot.Seed = 6
	other, err := Run(ds, prot)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(other.Results, first.Results) {
		t.Error("a different seed gave identical results")
	}
}

func TestRunProgress(t *testing.T) {
	var calls []int
	total := 0
	_, err := Run(handData(), Protocol{
		Methods:     []NamedMethod{{"a", firstCols{}}, {"b", firstCols{}}},
		Classifiers: []classify.Classifier{classify.NCC{}},
		Folds:       5,
		Progress: func(done, tot int) {
			calls = append(calls, done)
			total = tot
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if total != 10 || len(calls) != 10 {
		t.Fatalf("progress: total %d, %d calls, want 10 and 10", total, len(calls))
	}
	for i, d := range calls {
		if d != i+1 {
			t.Fatalf("progress calls %v, want 1..10", calls)
		}
	}
}

func TestRunErrors(t *testing.T) {
	good := handData()
	raw := []NamedMethod{{"raw", firstCols{}}}
	nccs := []classify.Classifier{classify.NCC{}}
	single := &data.Dataset{Name: "one", X: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Y: []int{0, 0, 0, 0}}
	few := &data.Dataset{Name: "few", X: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Y: []int{0, 1, 0, 1}}
	unl := &data.Dataset{Name: "unl", X: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Y: []int{0, 1, -1, 1}}
	nolab := &data.Dataset{Name: "nolab", X: mat.NewDense(4, 1, []float64{1, 2, 3, 4})}
	for _, tc := range []struct {
		name string
		ds   *data.Dataset
		p    Protocol
		frag string
	}{
		{"nil dataset", nil, Protocol{Methods: raw, Classifiers: nccs}, "no dataset"},
		{"single class", single, Protocol{Methods: raw, Classifiers: nccs}, `dataset "one" has 1 class(es)`},
		{"fewer rows than folds", few, Protocol{Methods: raw, Classifiers: nccs}, "k = 10 folds, want 2 ≤ k ≤ 4"},
		{"unlabeled", unl, Protocol{Methods: raw, Classifiers: nccs}, "row 3 is unlabeled"},
		{"no labels", nolab, Protocol{Methods: raw, Classifiers: nccs}, "has no labels"},
		{"ν too large", good, Protocol{Methods: raw, Classifiers: nccs, PerClass: 10}, "class 1 has 10 rows; ν = 10"},
		{"classifier fails", good, Protocol{Methods: raw, Classifiers: []classify.Classifier{failing{}}}, `method "raw", fold 1 of 10: classifier broken at dimension 1: cannot fit`},
		{"kNN too large", good, Protocol{Methods: raw, Classifiers: []classify.Classifier{classify.KNN{K: 12}}, PerClass: 5}, "K = 12 exceeds the 10 training rows"},
		{"capped method at its maximum", good, Protocol{Methods: []NamedMethod{{"capped", firstCols{cap: 1}}}, Classifiers: nccs, MaxDims: 0}, ""},
		{"no methods", good, Protocol{Classifiers: nccs}, "no methods"},
		{"unnamed method", good, Protocol{Methods: []NamedMethod{{"", firstCols{}}}, Classifiers: nccs}, "method 1 has no name"},
		{"nil method", good, Protocol{Methods: []NamedMethod{{"x", nil}}, Classifiers: nccs}, `method 1 ("x") is nil`},
		{"two methods of one name", good, Protocol{Methods: []NamedMethod{{"x", firstCols{}}, {"y", firstCols{}}, {"x", firstCols{}}}, Classifiers: nccs}, `methods 1 and 3 are both named "x"`},
		{"no classifiers", good, Protocol{Methods: raw}, "no classifiers"},
		{"one fold", good, Protocol{Methods: raw, Classifiers: nccs, Folds: 1}, "Folds = 1, want k ≥ 2"},
		{"both protocols", good, Protocol{Methods: raw, Classifiers: nccs, Folds: 5, PerClass: 2}, "both Folds (5) and PerClass (2)"},
		{"bad repeats", good, Protocol{Methods: raw, Classifiers: nccs, Repeats: -1}, "Repeats = -1"},
		{"bad spec", good, Protocol{Methods: raw, Classifiers: nccs, Preprocess: "pca:2"}, "outside (0, 1]"},
	} {
		_, err := Run(tc.ds, tc.p)
		if tc.frag == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.frag) {
			t.Errorf("%s: error = %v, want it to contain %q", tc.name, err, tc.frag)
		}
	}
	// NaN in an embedding is reported as such.
	_, err := Run(good, Protocol{Methods: []NamedMethod{{"nan", nanMethod{}}}, Classifiers: nccs, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), `method "nan", fold 1 of 10: embedding of the training rows: row 1, column 1 is NaN`) {
		t.Errorf("NaN embedding error = %v", err)
	}
	// A method error names the method and split.
	_, err = Run(good, Protocol{Methods: []NamedMethod{{"bad", badMethod{}}}, Classifiers: nccs, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), `method "bad", fold 1 of 10: fit: singular`) {
		t.Errorf("method error = %v", err)
	}
}

// nanMethod embeds every row as NaN.
type nanMethod struct{}

func (nanMethod) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) { return nanMethod{}, nil }
func (nanMethod) Dims() int                                                 { return 1 }
func (nanMethod) Transform(X *mat.Dense) (*mat.Dense, error) {
	r, _ := X.Dims()
	z := mat.NewDense(r, 1, nil)
	z.Set(0, 0, math.NaN())
	return z, nil
}

type badMethod struct{}

func (badMethod) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) {
	return nil, errors.New("singular")
}

func TestFormats(t *testing.T) {
	rep := &Report{Dataset: "hand", N: 21, D: 3, Classes: 2, Protocol: "10-fold stratified CV, seed 0",
		Results: []Result{
			{Method: "raw", Classifier: "ncc", MinError: 0, BestDim: 2, ErrorsByDim: []float64{1.0 / 21, 0, 0}},
			{Method: "raw", Classifier: "knn1", MinError: 0.25, BestDim: 1, ErrorsByDim: []float64{0.25, 0.5}, StdByDim: []float64{0.125, 0}},
		}}
	var b bytes.Buffer
	if err := Write(&b, rep, "json"); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		slices.Sort(k)
		return k
	}
	if got := keys(m); !reflect.DeepEqual(got, []string{"classes", "d", "dataset", "n", "results"}) {
		t.Errorf("JSON keys %v", got)
	}
	res := m["results"].([]any)
	if got := keys(res[0].(map[string]any)); !reflect.DeepEqual(got, []string{"best_dim", "classifier", "errors_by_dim", "method", "min_error"}) {
		t.Errorf("result keys %v", got)
	}
	if got := keys(res[1].(map[string]any)); !reflect.DeepEqual(got, []string{"best_dim", "classifier", "errors_by_dim", "method", "min_error", "std_by_dim"}) {
		t.Errorf("repeated result keys %v", got)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	back.Protocol = rep.Protocol
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("JSON round trip: %+v", back)
	}

	b.Reset()
	if err := Write(&b, rep, "csv"); err != nil {
		t.Fatal(err)
	}
	wantCSV := "dataset,method,classifier,dim,error,std\n" +
		"hand,raw,ncc,1,0.047619047619047616,\nhand,raw,ncc,2,0,\nhand,raw,ncc,3,0,\n" +
		"hand,raw,knn1,1,0.25,0.125\nhand,raw,knn1,2,0.5,0\n"
	if b.String() != wantCSV {
		t.Errorf("CSV:\n%s\nwant\n%s", b.String(), wantCSV)
	}

	b.Reset()
	if err := Write(&b, rep, "text"); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	for _, frag := range []string{"hand: n = 21, d = 3, 2 classes; 10-fold stratified CV", "min error %", "25.00", "12.50", "knn1"} {
		if !strings.Contains(txt, frag) {
			t.Errorf("text output lacks %q:\n%s", frag, txt)
		}
	}
	b.Reset()
	if err := Write(&b, rep, "md"); err != nil {
		t.Fatal(err)
	}
	wantMD := "**hand: n = 21, d = 3, 2 classes; 10-fold stratified CV, seed 0**\n\n" +
		"| method | classifier | min error % | std % | best dim | dims |\n" +
		"| --- | --- | ---: | ---: | ---: | ---: |\n" +
		"| raw | ncc | 0.00 |  | 2 | 3 |\n" +
		"| raw | knn1 | 25.00 | 12.50 | 1 | 2 |\n"
	if b.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant\n%s", b.String(), wantMD)
	}
	if err := Write(&b, rep, "xml"); err == nil || !strings.Contains(err.Error(), `unknown output format "xml"; valid formats: text, csv, json, markdown`) {
		t.Errorf("bad format error = %v", err)
	}
}

// BenchmarkRunCV is 10-fold CV of 2000 rows × 40 columns with NCC, 1-NN and
// 3-NN at every dimension 1..40.
func BenchmarkRunCV(b *testing.B) {
	ds := randomData(rand.New(rand.NewPCG(3, 3)), 2000, 40, 5)
	p := Protocol{
		Methods:     []NamedMethod{{"raw", firstCols{}}},
		Classifiers: classifiers(),
	}
	for b.Loop() {
		if _, err := Run(ds, p); err != nil {
			b.Fatal(err)
		}
	}
}

// Unlabeled hides ⌊frac·n_c⌋ labels of every class of each training split
// from the methods (they see −1) and trains classifiers on the labelled
// rows only; the same seed hides the same rows.
func TestUnlabeledProtocol(t *testing.T) {
	y := []int{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2}
	got, keep := hideLabels(y, 0.5, 7)
	hidden := map[int]int{}
	for i, v := range got {
		if v < 0 {
			hidden[y[i]]++
		} else if v != y[i] {
			t.Fatalf("row %d relabelled %d → %d", i, y[i], v)
		}
	}
	if hidden[0] != 2 || hidden[1] != 3 || hidden[2] != 1 || len(keep) != 7 {
		t.Errorf("hidden per class %v, kept %d", hidden, len(keep))
	}
	again, _ := hideLabels(y, 0.5, 7)
	for i := range got {
		if got[i] != again[i] {
			t.Fatal("same seed, different rows hidden")
		}
	}
	rec := &recordLabels{}
	ds := &data.Dataset{Name: "toy", X: mat.NewDense(40, 2, nil), Y: make([]int, 40)}
	for i := 0; i < 40; i++ {
		ds.X.Set(i, 0, float64(i%2)*5+float64(i)*0.01)
		ds.X.Set(i, 1, float64(i)*0.02)
		ds.Y[i] = i % 2
	}
	cl, _ := classify.ParseList("ncc")
	if _, err := Run(ds, Protocol{Methods: []NamedMethod{{"rec", rec}}, Classifiers: cl, Folds: 2, Unlabeled: 0.5}); err != nil {
		t.Fatal(err)
	}
	if rec.unlabeled == 0 || rec.unlabeled*2 != rec.total {
		t.Errorf("methods saw %d unlabeled of %d training rows, want half", rec.unlabeled, rec.total)
	}
	if _, err := Run(ds, Protocol{Methods: []NamedMethod{{"rec", rec}}, Classifiers: cl, Unlabeled: 1}); err == nil {
		t.Error("Unlabeled = 1 accepted")
	}
}

// recordLabels is a method that counts the labels it is given.
type recordLabels struct {
	mu               sync.Mutex
	unlabeled, total int
}

func (r *recordLabels) Fit(x *mat.Dense, y []int, dims int) (method.Model, error) {
	r.mu.Lock()
	for _, v := range y {
		r.total++
		if v < 0 {
			r.unlabeled++
		}
	}
	r.mu.Unlock()
	return method.PCA{}.Fit(x, nil, 1)
}

// FullDim: one error per method, at its full dimension, equal to the last
// entry of the full sweep (per-class splits and pooled CV folds, with an
// SVM, which refits per dimension, and k-NN, which sweeps in one pass);
// a method whose dimension changes between splits is an error.
func TestRunFullDim(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(3, 4)), 90, 5, 3)
	cs := []classify.Classifier{classify.KNN{K: 3}, classify.SVM{Kernel: classify.SVMLinear}}
	for _, base := range []Protocol{{PerClass: 10, Repeats: 4, Seed: 7}, {Folds: 5, Seed: 7}} {
		base.Methods = []NamedMethod{{"raw", firstCols{}}, {"capped", firstCols{cap: 3}}}
		base.Classifiers = cs
		sweep, err := Run(ds, base)
		if err != nil {
			t.Fatal(err)
		}
		full := base
		full.FullDim = true
		got, err := Run(ds, full)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got.Results {
			s := sweep.Results[i]
			d := len(s.ErrorsByDim)
			if len(r.ErrorsByDim) != 1 || r.BestDim != d || r.MinError != s.ErrorsByDim[d-1] {
				t.Errorf("%s/%s: FullDim %v at %d, want %v at %d", r.Method, r.Classifier, r.ErrorsByDim, r.BestDim, s.ErrorsByDim[d-1], d)
			}
			if s.StdByDim != nil && (len(r.StdByDim) != 1 || r.StdByDim[0] != s.StdByDim[d-1]) {
				t.Errorf("%s/%s: std %v, want %v", r.Method, r.Classifier, r.StdByDim, s.StdByDim[d-1])
			}
		}
	}
	_, err := Run(handData(), Protocol{Methods: []NamedMethod{{"odd", oddDims{}}}, Classifiers: []classify.Classifier{classify.NCC{}}, Folds: 10, FullDim: true})
	if err == nil || !strings.Contains(err.Error(), "FullDim") {
		t.Errorf("dimensions differing between folds: err = %v, want a FullDim error", err)
	}
}

// colPick embeds the rows as one chosen column; it records how many
// labels each fit saw hidden.
type colPick struct {
	col    int
	hidden *[]int
}

func (c colPick) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) {
	h := 0
	for _, v := range y {
		if v < 0 {
			h++
		}
	}
	*c.hidden = append(*c.hidden, h)
	return colModel{c.col}, nil
}

type colModel struct{ col int }

func (m colModel) Dims() int { return 1 }

func (m colModel) Transform(X *mat.Dense) (*mat.Dense, error) {
	r, _ := X.Dims()
	out := mat.NewDense(r, 1, nil)
	for i := 0; i < r; i++ {
		out.Set(i, 0, X.At(i, m.col))
	}
	return out, nil
}

// Tuned picks the value whose inner-CV error is lowest (the informative
// column over pure noise, whatever their order), hides exactly one inner
// fold of the labelled rows per inner fit (rows already unlabeled stay
// so), and refits on all rows with the chosen value.
func TestTuned(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 60
	x := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 2
		x.Set(i, 0, rng.NormFloat64())                     // noise
		x.Set(i, 1, 4*float64(y[i])+0.3*rng.NormFloat64()) // the class
	}
	y[0], y[1] = -1, -1 // two rows without labels
	for _, values := range [][]string{{"0", "1"}, {"1", "0"}} {
		var hidden []int
		var chosen string
		tu := Tuned{
			Build: func(v string) (method.Method, error) {
				return colPick{col: int(v[0] - '0'), hidden: &hidden}, nil
			},
			Values: values, Folds: 3, Seed: 1, Chosen: func(v string) { chosen = v },
		}
		m, err := tu.Fit(x, y, 1)
		if err != nil {
			t.Fatal(err)
		}
		if chosen != "1" || m.(colModel).col != 1 {
			t.Errorf("values %v: chose %q, want the informative column 1", values, chosen)
		}
		// 2 values × 3 inner fits, then the refit: 58 labelled rows in
		// folds of 19-20, plus the 2 unlabeled rows.
		if len(hidden) != 7 || hidden[6] != 2 {
			t.Fatalf("hidden counts %v, want 6 inner fits then the refit with 2", hidden)
		}
		for _, h := range hidden[:6] {
			if h < 2+19 || h > 2+20 {
				t.Errorf("an inner fit saw %d hidden labels, want 2 + one fold (19-20)", h)
			}
		}
	}
	if _, err := (Tuned{}).Fit(x, y, 1); err == nil {
		t.Error("no values: want an error")
	}
	// A cancelled context stops the inner cross-validation before any
	// fit (the library audit: Tuned had no Context, so a cancelled
	// evaluation ran every inner fit to the end), and the built methods
	// get the context (method.FitContext sets Tuned.Context).
	var hidden []int
	var got context.Context
	tu := Tuned{
		Build: func(v string) (method.Method, error) {
			return colPick{col: int(v[0] - '0'), hidden: &hidden}, nil
		},
		Values: []string{"0", "1"}, Folds: 3,
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := method.FitContext(ctx, tu, x, y, 1); !errors.Is(err, context.Canceled) || len(hidden) != 0 {
		t.Errorf("cancelled: error %v after %d inner fits", err, len(hidden))
	}
	tu.Context = context.WithValue(context.Background(), ctxKey{}, 1)
	tu.Build = func(string) (method.Method, error) { return ctxSpy{got: &got}, nil }
	if _, err := tu.Fit(x, y, 1); err != nil || got == nil || got.Value(ctxKey{}) != 1 {
		t.Errorf("the built methods did not run with Tuned.Context: %v", err)
	}
}

type ctxKey struct{}

// ctxSpy records the context it is fitted with (a method with a Context
// field, as method.WithContext sets) and fits the first column.
type ctxSpy struct {
	got     *context.Context
	Context context.Context
}

func (m ctxSpy) Fit(x *mat.Dense, y []int, dims int) (method.Model, error) {
	*m.got = m.Context
	return colModel{col: 0}, nil
}

// lastCols is a fake dimension-dependent method: its k-dimensional fit is
// the last k input columns, so the first k columns of a larger fit are
// not it. It counts its fits.
type lastCols struct{ fits *atomic.Int64 }

type lastColsModel struct{ from, k int }

func (l lastCols) Fit(X *mat.Dense, y []int, dims int) (method.Model, error) {
	l.fits.Add(1)
	_, p := X.Dims()
	if dims == 0 {
		dims = p
	}
	return lastColsModel{p - dims, dims}, nil
}

func (lastCols) DimensionDependent() bool { return true }

func (m lastColsModel) Dims() int { return m.k }

func (m lastColsModel) Transform(X *mat.Dense) (*mat.Dense, error) {
	r, _ := X.Dims()
	return mat.DenseCopyOf(X.Slice(0, r, m.from, m.from+m.k)), nil
}

// A dimension-dependent method is refitted for every dimension of the
// sweep and scored on that fit: its errors equal those of the nested
// first-columns method on the columns in reverse order (the distances and
// centroids of NCC and k-NN do not depend on the order of the columns),
// with D fits per split; the same fake read as nested would be scored on
// the first columns instead. Under FullDim it is fitted once.
func TestRunRefitsPerDimension(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	ds := randomData(rng, 60, 5, 3)
	_, p := ds.X.Dims()
	rev := mat.NewDense(60, p, nil)
	for j := 0; j < p; j++ {
		rev.SetCol(j, mat.Col(nil, p-1-j, ds.X))
	}
	cl := classifiers()
	var fits atomic.Int64
	got, err := Run(ds, Protocol{Methods: []NamedMethod{{"last", lastCols{&fits}}}, Classifiers: cl, Folds: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(&data.Dataset{Name: "reversed", X: rev, Y: ds.Y}, Protocol{Methods: []NamedMethod{{"raw", firstCols{}}}, Classifiers: cl, Folds: 4})
	if err != nil {
		t.Fatal(err)
	}
	for c := range cl {
		g, w := got.Results[c].ErrorsByDim, want.Results[c].ErrorsByDim
		if !slices.Equal(g, w) {
			t.Errorf("%s: errors by dimension %v, want %v (the k-dimensional fits)", cl[c].Name(), g, w)
		}
	}
	if n := fits.Load(); n != int64(4*p) {
		t.Errorf("%d fits, want %d (%d per fold)", n, 4*p, p)
	}
	nested, err := Run(ds, Protocol{Methods: []NamedMethod{{"raw", firstCols{}}}, Classifiers: cl, Folds: 4})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(nested.Results[1].ErrorsByDim, got.Results[1].ErrorsByDim) {
		t.Error("the refitted sweep equals the first-columns sweep: the test data do not tell them apart")
	}
	// Step reports every fit of each unit's sweep: the first at the largest
	// dimension, then one per smaller k, per fold; none for a nested
	// method.
	fits.Store(0)
	var mu sync.Mutex
	steps := map[string]int{}
	_, err = Run(ds, Protocol{Methods: []NamedMethod{{"raw", firstCols{}}, {"last", lastCols{&fits}}}, Classifiers: cl, Folds: 4, Workers: 2,
		Step: func(msg string) { mu.Lock(); steps[msg]++; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4*p {
		t.Errorf("%d distinct step lines, want %d: %v", len(steps), 4*p, steps)
	}
	for f := 1; f <= 4; f++ {
		for k := 1; k <= p; k++ {
			if msg := fmt.Sprintf("last, fold %d of 4: %d/%d fits of the dimension sweep", f, k, p); steps[msg] != 1 {
				t.Errorf("step line %q seen %d times, want once", msg, steps[msg])
			}
		}
	}
	fits.Store(0)
	if _, err := Run(ds, Protocol{Methods: []NamedMethod{{"last", lastCols{&fits}}}, Classifiers: cl, Folds: 4, FullDim: true}); err != nil {
		t.Fatal(err)
	}
	if n := fits.Load(); n != 4 {
		t.Errorf("FullDim: %d fits, want 4 (one per fold)", n)
	}
}

// A tuned method refits per dimension exactly when the method it builds
// does.
func TestTunedDimensionDependent(t *testing.T) {
	var fits atomic.Int64
	for _, c := range []struct {
		m    method.Method
		want bool
	}{{lastCols{&fits}, true}, {firstCols{}, false}} {
		tu := Tuned{Build: func(string) (method.Method, error) { return c.m, nil }, Values: []string{"a"}}
		if got := method.RefitsPerDimension(tu); got != c.want {
			t.Errorf("tuned %T: RefitsPerDimension = %v, want %v", c.m, got, c.want)
		}
	}
	if method.RefitsPerDimension(Tuned{}) {
		t.Error("a tuned method with no values refits per dimension")
	}
}

// An SVM sweep on 2 000 training rows reports its share of fits done
// through Step, and a cancellation made from that line stops the run with
// the context's error (the fits left are not started or stop within a few
// hundred SMO iterations); the same protocol uncancelled completes.
func TestSVMSweepProgressAndCancel(t *testing.T) {
	old := progress.MinGap
	progress.MinGap = 0
	defer func() { progress.MinGap = old }()
	// At most 2 fits in flight when the cancellation comes, whatever the
	// machine, so the count of lines below is bounded.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 4000, 6
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 2
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+float64(y[i])*0.8)
		}
	}
	ds := &data.Dataset{Name: "blobs", X: x, Y: y}
	p := Protocol{Methods: []NamedMethod{{"pca", mustMethod(t, "pca", nil)}}, Classifiers: []classify.Classifier{classify.SVM{}}, Folds: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lines []string
	p.Context = ctx
	p.Step = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(msg, "svm-rbf on 2000 training rows: 6 fits (6 dimensions)") {
			lines = append(lines, msg)
			cancel()
		}
	}
	if _, err := Run(ds, p); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled from the sweep's progress line: %v", err)
	}
	if len(lines) == 0 || !strings.Contains(lines[0], " %") {
		t.Errorf("no progress line with a percentage from the SVM sweep: %q", lines)
	}
	// Each fit done reports (MinGap 0, one sixth per fit): a sweep that
	// went on after the cancellation would send 5 lines per fold.
	if len(lines) >= 5 {
		t.Errorf("%d progress lines after cancelling at the first: the sweep did not stop: %q", len(lines), lines)
	}
	p.Context, p.Step = nil, nil
	if _, err := Run(ds, p); err != nil {
		t.Errorf("uncancelled: %v", err)
	}
}
