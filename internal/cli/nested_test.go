package cli

import (
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

// eval --nested prints what evaluate.RunNested computes for the same
// protocol, with --grid routed as -p: sigma to the kernel method only,
// gda.alpha to gda, the keys searched in the order given.
func TestEvalNestedMatchesLibrary(t *testing.T) {
	st, out, errs := run(t, "eval", "-i", "builtin:wine", "-m", "lda,gda", "-c", "ncc,knn3", "--cv", "4", "--seed", "2",
		"--nested", "--inner-folds", "3", "--grid", "sigma=0.05,1", "--grid", "gda.alpha=0.01,1", "--format", "json", "--quiet")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var got evaluate.NestedReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	gda, _ := method.New("gda", nil)
	lda, _ := method.New("lda", nil)
	want, err := evaluate.RunNested(datasets.Wine(), evaluate.Protocol{
		Preprocess:  "minmax",
		Methods:     []evaluate.NamedMethod{{Name: "lda", Method: lda}, {Name: "gda", Method: gda}},
		Classifiers: []classify.Classifier{classify.NCC{}, classify.KNN{K: 3}},
		Folds:       4, Seed: 2, MaxDims: defaultEvalDims,
	}, evaluate.NestedOptions{InnerFolds: 3, Grid: []evaluate.GridParam{
		{Method: "gda", Key: "sigma", Values: []string{"0.05", "1"}},
		{Method: "gda", Key: "alpha", Values: []string{"0.01", "1"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want.Protocol = ""
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("eval --nested json differs from RunNested:\n%s", out)
	}
	if got.Results[0].Grid != nil || len(got.Results[2].Grid) != 2 || got.Results[2].Grid[0].Key != "sigma" {
		t.Errorf("grids: lda %v, gda %v", got.Results[0].Grid, got.Results[2].Grid)
	}

	// Text and markdown carry the nested columns and the protocol line;
	// CSV one parseable line per method and classifier.
	st, out, errs = run(t, "eval", "-i", "builtin:iris", "-m", "lda,gda", "-c", "ncc", "--cv", "3",
		"--nested", "--inner-folds", "2", "--grid", "sigma=0.5,1")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	for _, w := range []string{"2 inner stratified folds", "sigma ∈ {0.5, 1} (gda)", "nested error %", "fold std %", "chosen dim",
		"chosen grid (folds)", "min over dims %", "at grid", "/3)"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errs, "fits") {
		t.Errorf("no progress on stderr: %q", errs)
	}
	st, out, _ = run(t, "eval", "-i", "builtin:iris", "-m", "lda", "-c", "ncc,knn1", "--cv", "3", "--nested", "--inner-folds", "2", "--format", "csv", "--quiet")
	if st != 0 {
		t.Fatalf("csv: status %d", st)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][3] != "nested_error" || recs[1][1] != "lda" || recs[2][2] != "knn1" {
		t.Errorf("csv %v (%v):\n%s", recs, err, out)
	}
	st, out, _ = run(t, "eval", "-i", "builtin:iris", "-m", "lda", "-c", "ncc", "--cv", "3", "--nested", "--format", "markdown", "--quiet")
	if st != 0 || !strings.Contains(out, "| method | classifier | nested error % |") {
		t.Errorf("markdown: status %d\n%s", st, out)
	}
}

func TestEvalNestedBadInput(t *testing.T) {
	base := []string{"eval", "-i", "builtin:iris", "-m", "lda,gda", "-c", "ncc", "--cv", "3", "--quiet"}
	for _, tc := range []struct {
		args   []string
		status int
		wants  []string
	}{
		{[]string{"--grid", "sigma=1"}, 2, []string{"--grid, --inner-folds and --choose-classifier need --nested"}},
		{[]string{"--choose-classifier"}, 2, []string{"--choose-classifier need --nested"}},
		{[]string{"--inner-folds", "3"}, 2, []string{"need --nested"}},
		{[]string{"--nested", "--inner-folds", "1"}, 2, []string{"--inner-folds 1", "≥ 2"}},
		{[]string{"--nested", "--grid", "sigm=1,2"}, 2, []string{"--grid sigm=1,2", "unknown parameter sigm", "did you mean sigma"}},
		{[]string{"--nested", "--grid", "kpca.sigma=1"}, 2, []string{"--grid kpca.sigma=1", "kpca is not selected"}},
		{[]string{"--nested", "--grid", "sigma"}, 2, []string{"--grid sigma", "not key=value"}},
		{[]string{"--nested", "--grid", "sigma="}, 2, []string{"--grid sigma=", "no values"}},
		{[]string{"--nested", "--grid", "sigma=1,-2"}, 2, []string{"sigma=-2", `"gda"`, "must be > 0"}},
		{[]string{"--nested", "--grid", "sigma=1", "--grid", "gamma=1"}, 2, []string{"sigma", "gamma", "exclude each other"}},
		{[]string{"--nested", "--inner-folds", "40"}, 1, []string{"40 inner folds", "at least 40 labelled training rows of every class", "use at most"}},
		// The CLI audit: -p under a --grid of the same key (or sigma under
		// gamma) was replaced silently, and a repeated --grid key kept
		// only its last flag's values; both before the data is read.
		{[]string{"--nested", "--grid", "sigma=1,2", "-p", "gamma=3"}, 2, []string{"--grid sigma=1,2 and -p gamma=3 both set gamma"}},
		{[]string{"--nested", "--grid", "gda.alpha=1,2", "-p", "gda.alpha=3"}, 2, []string{"--grid gda.alpha=1,2 and -p gda.alpha=3 both set alpha"}},
		{[]string{"--nested", "--grid", "sigma=1,2", "-p", "gda.sigma=3"}, 2, []string{"--grid sigma=1,2 and -p gda.sigma=3"}},
		{[]string{"--nested", "--inner-folds", "2", "-p", "sigma=1", "--grid", "gda.sigma=0.5,2"}, 0, nil}, // the scoped grid wins, as in -p
		{[]string{"--nested", "--grid", "gda.sigma=0.5,2", "-p", "gamma=1000"}, 2, []string{"--grid gda.sigma=0.5,2 and -p gamma=1000 both set gamma"}},
		{[]string{"--nested", "--grid", "sigma=1,2", "--grid", "sigma=3"}, 2, []string{"--grid sigma=3: sigma is already given (--grid sigma=1,2)"}},
		{[]string{"-p", "sigma=1", "-p", "sigma=2"}, 2, []string{"-p sigma=2: sigma is already given (-p sigma=1)"}},
	} {
		st, _, errs := run(t, append(append([]string{}, base...), tc.args...)...)
		if st != tc.status {
			t.Errorf("%v: status %d, want %d (%s)", tc.args, st, tc.status, errs)
		}
		for _, w := range tc.wants {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, strings.TrimSpace(errs), w)
			}
		}
	}
}

// --choose-classifier reaches RunNested: one result per method, labelled
// with the candidates, and every fold names the classifier it chose.
func TestEvalChooseClassifier(t *testing.T) {
	st, out, errs := run(t, "eval", "-i", "builtin:iris", "-m", "lda", "-c", "knn1,knn5", "--cv", "3", "--nested", "--inner-folds", "2", "--choose-classifier", "--format", "json", "--quiet")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var rep evaluate.NestedReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Classifier != "chosen: knn1, knn5" {
		t.Fatalf("results %+v", rep.Results)
	}
	for _, f := range rep.Results[0].Folds {
		if f.Classifier != "knn1" && f.Classifier != "knn5" {
			t.Errorf("fold %s chose %q", f.Split, f.Classifier)
		}
	}
}
