package evaluate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

func TestParseDims(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		text string
	}{
		{"5", []int{5}, "5"},
		{"2,5,10", []int{2, 5, 10}, "2,5,10"},
		{"10, 2 ,5", []int{2, 5, 10}, "2,5,10"},
		{"1-4,10,20", []int{1, 2, 3, 4, 10, 20}, "1-4,10,20"},
		{"3-5,4-6,1", []int{1, 3, 4, 5, 6}, "1,3-6"},
		{"7-8", []int{7, 8}, "7,8"},
	} {
		got, err := ParseDims(tc.in)
		if err != nil {
			t.Errorf("ParseDims(%q): %v", tc.in, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ParseDims(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if s := DimsText(got); s != tc.text {
			t.Errorf("DimsText(%v) = %q, want %q", got, s, tc.text)
		}
		if back, err := ParseDims(DimsText(got)); err != nil || !slices.Equal(back, got) {
			t.Errorf("ParseDims(DimsText(%v)) = %v, %v", got, back, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty entry"},
		{"2,,5", "empty entry"},
		{"0,3", `entry "0": dimensions start at 1`},
		{"-3", "not an integer"},
		{"two", `entry "two" is not an integer`},
		{"5-2", `range "5-2" ends before it starts`},
		{"1.5", "not an integer"},
		{"1-2000000", "more than a million"},
		// A range ending at math.MaxInt once looped for ever (k ≤ b holds).
		{"9223372036854775807", "dimensions above 1073741824 cannot be computed"},
		{"9223372036854775000-9223372036854775807", "dimensions above"},
	} {
		if _, err := ParseDims(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDims(%q): error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// A list of dimensions gives, at each listed dimension, exactly the
// errors (and spreads over repeats) of the full sweep 1..D: for a method
// fitted once (first columns) and for one that refits per dimension
// (last columns), with classifiers that sweep in one pass and an SVM that
// is fitted per dimension. The refitting method is fitted once per listed
// dimension and split, not D times, and Step counts those fits.
func TestRunDimsList(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(3, 8)), 90, 8, 3)
	svm, err := classify.Parse("svm-linear")
	if err != nil {
		t.Fatal(err)
	}
	cl := append(classifiers(), svm)
	var fits atomic.Int64
	ms := []NamedMethod{{"first", firstCols{}}, {"last", lastCols{&fits}}}
	base := Protocol{Methods: ms, Classifiers: cl, Folds: 4, Repeats: 2, Seed: 5}
	fullP := base
	fullP.MaxDims = 8
	full, err := Run(ds, fullP)
	if err != nil {
		t.Fatal(err)
	}
	list := []int{1, 3, 4, 7}
	fits.Store(0)
	var mu sync.Mutex
	steps := map[string]int{}
	listP := base
	listP.Dims = list
	listP.Workers = 3
	listP.Step = func(msg string) { mu.Lock(); steps[msg]++; mu.Unlock() }
	got, err := Run(ds, listP)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := fits.Load(), int64(2*4*len(list)); n != want {
		t.Errorf("the refitting method was fitted %d times, want %d (one per listed dimension and split)", n, want)
	}
	for f := 1; f <= 4; f++ {
		for k := 1; k <= len(list); k++ {
			if msg := fmt.Sprintf("last, repeat 2, fold %d of 4: %d/%d fits of the dimension sweep", f, k, len(list)); steps[msg] != 1 {
				t.Errorf("step line %q seen %d times, want once", msg, steps[msg])
			}
		}
	}
	for i := range got.Results {
		g, w := &got.Results[i], &full.Results[i]
		if !slices.Equal(g.Dims, list) {
			t.Errorf("%s/%s: Dims %v, want %v", g.Method, g.Classifier, g.Dims, list)
		}
		for j, k := range list {
			if g.Dim(j) != k || g.ErrorsByDim[j] != w.ErrorsByDim[k-1] || g.StdByDim[j] != w.StdByDim[k-1] {
				t.Errorf("%s/%s at %d dimensions: error %v ± %v, want %v ± %v (the full sweep's)",
					g.Method, g.Classifier, k, g.ErrorsByDim[j], g.StdByDim[j], w.ErrorsByDim[k-1], w.StdByDim[k-1])
			}
		}
		// The best listed dimension: the smallest with the least error.
		bi := 0
		for j := range list {
			if w.ErrorsByDim[list[j]-1] < w.ErrorsByDim[list[bi]-1]-1e-12 {
				bi = j
			}
		}
		if g.BestDim != list[bi] || g.MinError != w.ErrorsByDim[list[bi]-1] {
			t.Errorf("%s/%s: best %v at %d, want %v at %d", g.Method, g.Classifier, g.MinError, g.BestDim, w.ErrorsByDim[list[bi]-1], list[bi])
		}
		if s, ok := g.StdAtBest(); !ok || s != w.StdByDim[list[bi]-1] {
			t.Errorf("%s/%s: StdAtBest %v, %v; want %v", g.Method, g.Classifier, s, ok, w.StdByDim[list[bi]-1])
		}
	}
	// The refitting method is told apart from the first-columns one.
	if slices.Equal(got.Results[1].ErrorsByDim, got.Results[len(cl)+1].ErrorsByDim) {
		t.Error("first and last columns give the same errors: the test cannot tell a refit from a prefix")
	}
	// Output: the listed dimensions in the text and CSV forms.
	var text, csv bytes.Buffer
	if err := WriteText(&text, got); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "1,3,4,7") || !strings.Contains(text.String(), "dimensions 1,3,4,7") {
		t.Errorf("text output does not show the list:\n%s", text.String())
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 1+len(got.Results)*len(list) || !strings.HasPrefix(lines[2], "random,first,ncc,3,") {
		t.Errorf("CSV: %d lines, second row %q; want %d lines, the listed dimensions", len(lines), lines[2], 1+len(got.Results)*len(list))
	}
}

// A listed dimension above what a method produces is dropped for that
// method; with none left the method is evaluated at its largest dimension
// (the same errors as listing that one), an error naming the method and
// the splits when the fits disagree on it; Dims with MaxDims or FullDim,
// or out of order, is refused.
func TestRunDimsListLimits(t *testing.T) {
	ds := handData()
	nc := []classify.Classifier{classify.NCC{}}
	rep, err := Run(ds, Protocol{Methods: []NamedMethod{{"capped", firstCols{cap: 2}}, {"raw", firstCols{}}}, Classifiers: nc, Dims: []int{1, 2, 3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rep.Results[0].Dims, rep.Results[1].Dims; !slices.Equal(a, []int{1, 2}) || !slices.Equal(b, []int{1, 2, 3}) {
		t.Errorf("Dims 1,2,3,5: evaluated %v and %v, want [1 2] and [1 2 3]", a, b)
	}
	// handData: 1/21 wrong at dimension 1, none at 2 and 3.
	if r := rep.Results[1]; r.BestDim != 2 || r.MinError != 0 || r.ErrorsByDim[0] != 1.0/21 {
		t.Errorf("raw: errors %v, best %d; want 1/21 at 1 and 0 from 2", r.ErrorsByDim, r.BestDim)
	}
	beyond, err := Run(ds, Protocol{Methods: []NamedMethod{{"capped", firstCols{cap: 2}}}, Classifiers: nc, Dims: []int{3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	at2, err := Run(ds, Protocol{Methods: []NamedMethod{{"capped", firstCols{cap: 2}}}, Classifiers: nc, Dims: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := beyond.Results[0], at2.Results[0]; !slices.Equal(a.Dims, []int{2}) || !slices.Equal(a.ErrorsByDim, b.ErrorsByDim) || a.BestDim != 2 {
		t.Errorf("no listed dimension reachable: dims %v errors %v best %d; want [2], %v (listing 2), best 2", a.Dims, a.ErrorsByDim, a.BestDim, b.ErrorsByDim)
	}
	// oddDims gives 2 or 3 dimensions with the parity of the training
	// rows: listing 3 reaches it on some folds only, listing 4 none at
	// 2 on some and 3 on others.
	for _, dims := range [][]int{{3, 5}, {4}} {
		_, err = Run(ds, Protocol{Methods: []NamedMethod{{"odd", oddDims{}}}, Classifiers: nc, Folds: 10, Dims: dims})
		if err == nil || !strings.Contains(err.Error(), `method "odd" reaches none of the listed dimensions (`+DimsText(dims)+") on fold") {
			t.Errorf("Dims %v, folds disagreeing: error %v", dims, err)
		}
	}
	for _, tc := range []struct {
		p    Protocol
		want string
	}{
		{Protocol{Dims: []int{2, 4}, MaxDims: 3}, "both Dims (2,4) and MaxDims (3)"},
		{Protocol{Dims: []int{2}, FullDim: true}, "both Dims (2) and FullDim"},
		{Protocol{Dims: []int{4, 2}}, "want ascending, distinct dimensions ≥ 1 (entry 2 is 2)"},
		{Protocol{Dims: []int{0}}, "entry 1 is 0"},
	} {
		tc.p.Methods, tc.p.Classifiers = []NamedMethod{{"raw", firstCols{}}}, nc
		if _, err := Run(ds, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Dims %v: error %v, want one containing %q", tc.p.Dims, err, tc.want)
		}
	}
}

// Nested CV over a list chooses among the listed dimensions only: with
// two, each fold's choice is the one of the two single-dimension runs
// with fewer inner errors (ties to the smaller), with those inner and
// outer counts; over 1..D it equals the MaxDims run.
func TestNestedDimsList(t *testing.T) {
	ds := randomData(rand.New(rand.NewPCG(11, 2)), 120, 6, 3)
	run := func(dims []int, maxDims int) *NestedReport {
		t.Helper()
		rep, err := RunNested(ds, Protocol{Methods: []NamedMethod{{"last", lastCols{new(atomic.Int64)}}, {"first", firstCols{}}},
			Classifiers: []classify.Classifier{classify.KNN{K: 3}}, Folds: 5, Seed: 2, Dims: dims, MaxDims: maxDims},
			NestedOptions{InnerFolds: 3})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a, b := run([]int{2}, 0), run([]int{5}, 0)
	both := run([]int{2, 5}, 0)
	for m := range both.Results {
		for f, fold := range both.Results[m].Folds {
			fa, fb := a.Results[m].Folds[f], b.Results[m].Folds[f]
			if fa.Dim != 2 || fb.Dim != 5 {
				t.Fatalf("single-dimension runs chose %d and %d", fa.Dim, fb.Dim)
			}
			want := fa
			if fb.InnerErrors < fa.InnerErrors {
				want = fb
			}
			if fold.Dim != want.Dim || fold.InnerErrors != want.InnerErrors || fold.Errors != want.Errors {
				t.Errorf("%s, %s: chose %d (inner %d, outer %d), want %d (inner %d, outer %d)",
					both.Results[m].Method, fold.Split, fold.Dim, fold.InnerErrors, fold.Errors, want.Dim, want.InnerErrors, want.Errors)
			}
			if !slices.Equal(fold.Dims, []int{2, 5}) || fold.ErrorsByDim[slices.Index(fold.Dims, fold.Dim)] != fold.Errors {
				t.Errorf("%s: fold curve %v at %v, outer errors %d at %d", fold.Split, fold.ErrorsByDim, fold.Dims, fold.Errors, fold.Dim)
			}
		}
		if r := both.Results[m].MinOverDims; !slices.Equal(r.Dims, []int{2, 5}) || (r.BestDim != 2 && r.BestDim != 5) {
			t.Errorf("min over dims %v at %d over %v", r.MinError, r.BestDim, r.Dims)
		}
	}
	// Over every dimension the list and the cap agree, field for field but
	// for the list itself.
	listed, capped := run([]int{1, 2, 3, 4, 5, 6}, 0), run(nil, 6)
	for m := range listed.Results {
		l, c := listed.Results[m], capped.Results[m]
		l.MinOverDims.Dims = nil
		for f := range l.Folds {
			l.Folds[f].Dims = nil
		}
		if fmt.Sprint(l) != fmt.Sprint(c) {
			t.Errorf("%s: Dims 1-6 gives\n%v\nMaxDims 6 gives\n%v", l.Method, l, c)
		}
	}
}

// Step also receives the library's lines from inside each fit on at
// least progress.MinOrder training rows, prefixed with the method and the
// split; smaller fits send none.
func TestRunStepCarriesLibraryLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ds := randomData(rng, 2*progress.MinOrder, 2, 2)
	m, err := method.New("kpca", map[string]string{"sigma": "2"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	step := func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() }
	p := Protocol{Methods: []NamedMethod{{"kpca", m}}, Classifiers: []classify.Classifier{classify.NCC{}}, Folds: 2, MaxDims: 2, Step: step}
	if _, err := Run(ds, p); err != nil {
		t.Fatal(err)
	}
	for f := 1; f <= 2; f++ {
		want := fmt.Sprintf("kpca, fold %d of 2: kernel matrix, 2000×2000", f)
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in\n%s", want, strings.Join(lines, "\n"))
		}
	}
	lines = nil
	if _, err := Run(randomData(rng, 300, 2, 2), p); err != nil || len(lines) != 0 {
		t.Errorf("300 rows: err %v, lines %q", err, lines)
	}
}

// Nested CV of a method that reaches none of the listed dimensions
// evaluates it at its largest, as listing that one does; inner and outer
// fits that disagree on it are an error naming the inner fold.
func TestNestedDimsBeyond(t *testing.T) {
	nc := []classify.Classifier{classify.NCC{}}
	run := func(m method.Method, dims []int) (*NestedReport, error) {
		return RunNested(handData(), Protocol{Methods: []NamedMethod{{"m", m}}, Classifiers: nc, Folds: 3, Dims: dims}, NestedOptions{InnerFolds: 2})
	}
	beyond, err := run(firstCols{cap: 2}, []int{4, 6})
	if err != nil {
		t.Fatal(err)
	}
	at2, err := run(firstCols{cap: 2}, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	a, b := beyond.Results[0], at2.Results[0]
	if a.Error != b.Error || !slices.Equal(a.MinOverDims.Dims, []int{2}) || a.MinOverDims.MinError != b.MinOverDims.MinError {
		t.Errorf("Dims 4,6 beyond a 2-D method: error %v, min over dims %v at %v; want %v, %v at [2] (listing 2)", a.Error, a.MinOverDims.MinError, a.MinOverDims.Dims, b.Error, b.MinOverDims.MinError)
	}
	for _, f := range a.Folds {
		if f.Dim != 2 {
			t.Errorf("%s: chosen dimension %d, want 2", f.Split, f.Dim)
		}
	}
	if _, err := run(oddDims{}, []int{4}); err == nil || !strings.Contains(err.Error(), `method "m" reaches none of the listed dimensions (4) on fold 1 of 3, inner fold`) {
		t.Errorf("inner and outer fits disagreeing: error %v", err)
	}
}

// With a grid, a point that reaches none of the listed dimensions is
// compared with the others by its dimension: LPP after a PCA to 2
// components (2 dimensions) against one to 5 (3 and 4 listed), on three
// well-separated clusters where every choice has no inner error, ties
// go to the smaller dimension (2) whichever order the grid lists the
// points in (the review found the choice followed the grid's order).
func TestNestedDimsBeyondGridTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(60, 5, nil)
	y := make([]int, 60)
	centre := [3][5]float64{{0, 0, 0, 0, 0}, {40, -10, 25, 5, -30}, {-20, 35, 10, -40, 15}}
	for i := range y {
		y[i] = i % 3
		for j := range 5 {
			x.Set(i, j, centre[y[i]][j]+rng.NormFloat64())
		}
	}
	ds := &data.Dataset{Name: "separated", X: x, Y: y}
	p := Protocol{Methods: []NamedMethod{{"lpp", mustMethod(t, "lpp", nil)}}, Classifiers: []classify.Classifier{classify.NCC{}}, Folds: 3, Dims: []int{3, 4}}
	var chosen [2][]string
	for i, order := range [][]string{{"5", "2"}, {"2", "5"}} {
		rep, err := RunNested(ds, p, NestedOptions{InnerFolds: 3, Grid: []GridParam{{Key: "pca", Values: order}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Results[0].Folds {
			chosen[i] = append(chosen[i], fmt.Sprintf("%s: dimension %d, pca=%s, %d inner errors", f.Split, f.Dim, f.Params["pca"], f.InnerErrors))
			if f.Dim == 2 != (f.Params["pca"] == "2") {
				t.Errorf("grid pca=%v, %s: dimension %d with pca=%s", order, f.Split, f.Dim, f.Params["pca"])
			}
		}
	}
	if !slices.Equal(chosen[0], chosen[1]) {
		t.Errorf("the choices depend on the grid's order:\n%s\nagainst\n%s", strings.Join(chosen[0], "\n"), strings.Join(chosen[1], "\n"))
	}
	if !slices.ContainsFunc(chosen[0], func(s string) bool { return strings.Contains(s, "dimension 2, pca=2, 0 inner") }) {
		t.Errorf("no fold ties at 0 inner errors, so the case does not test the tie rule:\n%s", strings.Join(chosen[0], "\n"))
	}
}
