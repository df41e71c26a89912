package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/reproduce"
)

func isSep(r rune) bool { return r == ',' || r == '\n' }

func run(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	status = Do(args, strings.NewReader(""), &out, &errb)
	return status, out.String(), errb.String()
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMethodsListsEveryMethodWithParameters(t *testing.T) {
	st, out, _ := run(t, "methods", "-v")
	if st != 0 {
		t.Fatalf("status %d", st)
	}
	for _, want := range []string{"pca", "lda", "kpca", "gda", "-p sigma=auto", "-p alpha=", "C−1"} {
		if !strings.Contains(out, want) {
			t.Errorf("methods -v output lacks %q", want)
		}
	}
}

// fit → transform round trip: the transform of the training file through
// the saved model (with its saved min-max scaling) has C−1 columns and the
// label column first.
func TestFitTransformRoundTrip(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "gda.json")
	st, _, errs := run(t, "fit", "-m", "gda", "-i", "builtin:iris", "--scale", "minmax", "-p", "sigma=1", "-o", model)
	if st != 0 {
		t.Fatalf("fit: status %d: %s", st, errs)
	}
	var f map[string]any
	b, _ := os.ReadFile(model)
	if err := json.Unmarshal(b, &f); err != nil || f["format"] != "dimred-model" || f["version"] != float64(method.FileVersion) {
		t.Fatalf("model file: %v %v", err, f["format"])
	}
	outCSV := filepath.Join(dir, "z.csv")
	st, _, errs = run(t, "transform", "--model", model, "-i", "builtin:iris", "-o", outCSV)
	if st != 0 {
		t.Fatalf("transform: status %d: %s", st, errs)
	}
	z, _ := os.ReadFile(outCSV)
	lines := strings.Split(strings.TrimSpace(string(z)), "\n")
	if len(lines) != 151 || lines[0] != "label,z1,z2" {
		t.Fatalf("transform output: %d lines, header %q", len(lines), lines[0])
	}
	// -k keeps the first columns (the model is truncated before the
	// transform, so its product is over fewer columns: equal to rounding).
	outK := filepath.Join(dir, "z1.csv")
	if st, _, errs = run(t, "transform", "--model", model, "-i", "builtin:iris", "-o", outK, "-k", "1"); st != 0 {
		t.Fatalf("transform -k 1: status %d: %s", st, errs)
	}
	zk, _ := os.ReadFile(outK)
	linesK := strings.Split(strings.TrimSpace(string(zk)), "\n")
	if len(linesK) != len(lines) || linesK[0] != "label,z1" {
		t.Fatalf("transform -k 1: %d lines, header %q", len(linesK), linesK[0])
	}
	for i := 1; i < len(lines); i++ {
		full, one := strings.Split(lines[i], ","), strings.Split(linesK[i], ",")
		a, _ := strconv.ParseFloat(full[1], 64)
		b, err := strconv.ParseFloat(one[1], 64)
		if err != nil || len(one) != 2 || one[0] != full[0] || math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(a)) {
			t.Fatalf("row %d: -k 1 gives %q, the whole transform %q", i, linesK[i], lines[i])
		}
	}
	// The model refuses data with other columns.
	st, _, errs = run(t, "transform", "--model", model, "-i", "builtin:wine")
	if st == 0 || !strings.Contains(errs, "13 features") {
		t.Fatalf("column mismatch: status %d, %q", st, errs)
	}
}

func TestEvalJSONShape(t *testing.T) {
	st, out, errs := run(t, "eval", "-i", "builtin:iris", "-m", "pca,lda", "-c", "ncc,knn3", "--cv", "5", "--format", "json")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var rep struct {
		Dataset string
		N, D    int
		Classes int
		Results []struct {
			Method, Classifier string
			MinError           float64   `json:"min_error"`
			BestDim            int       `json:"best_dim"`
			ErrorsByDim        []float64 `json:"errors_by_dim"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.N != 150 || rep.D != 4 || rep.Classes != 3 || len(rep.Results) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	for _, r := range rep.Results {
		if r.BestDim < 1 || r.BestDim > len(r.ErrorsByDim) || r.ErrorsByDim[r.BestDim-1] != r.MinError {
			t.Errorf("%s/%s: best dim %d, min error %g, errors %v", r.Method, r.Classifier, r.BestDim, r.MinError, r.ErrorsByDim)
		}
		if r.Method == "lda" && len(r.ErrorsByDim) != 2 {
			t.Errorf("lda has %d dims, want 2", len(r.ErrorsByDim))
		}
	}
}

// eval --dims scores the listed dimensions only, with the full sweep's
// numbers there (CSV, same seed), and lists them in the JSON and the
// plan line; it refuses --max-dims beside it and a malformed list.
func TestEvalDimsList(t *testing.T) {
	st, full, errs := run(t, "eval", "-i", "builtin:wine", "-m", "pca,mie", "-c", "ncc,svm-linear", "--cv", "3", "--max-dims", "6", "--format", "csv", "--quiet")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	st, listed, errs := run(t, "eval", "-i", "builtin:wine", "-m", "pca,mie", "-c", "ncc,svm-linear", "--cv", "3", "--dims", "2,6,4", "--format", "csv")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	if !strings.Contains(errs, "mie is fitted once per dimension swept: each of its fits counted here is up to 3 (--dims 2,4,6)") {
		t.Errorf("plan line lacks the list:\n%s", errs)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(full), "\n")[1:] {
		f := strings.Split(l, ",")
		if f[3] == "2" || f[3] == "4" || f[3] == "6" {
			want = append(want, l)
		}
	}
	if got := strings.Split(strings.TrimSpace(listed), "\n")[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 12 {
		t.Errorf("--dims 2,6,4 rows:\n%s\nwant the full sweep's rows at 2, 4, 6:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st, js, errs := run(t, "eval", "-i", "builtin:wine", "-m", "lda", "-c", "ncc", "--cv", "3", "--dims", "1-3", "--format", "json", "--quiet")
	var rep struct{ Results []struct{ Dims []int } }
	if err := json.Unmarshal([]byte(js), &rep); st != 0 || err != nil || len(rep.Results) != 1 || fmt.Sprint(rep.Results[0].Dims) != "[1 2]" {
		t.Errorf("lda --dims 1-3 (2 dimensions exist): status %d, %s, %v; want dims [1 2] in\n%s", st, errs, err, js)
	}
	if !strings.Contains(errs, "eval: lda does not reach dimension 3 of --dims") {
		t.Errorf("no note of the dimension lda does not reach: %q", errs)
	}
	// None reached: lda is evaluated at its 2 beside pca at 5 and 10, with
	// lda's errors those of --dims 2 (nested too).
	for _, nested := range []string{"", "--nested"} {
		args := []string{"eval", "-i", "builtin:wine", "-m", "lda,pca", "-c", "ncc", "--cv", "3", "--format", "csv", "--quiet"}
		if nested != "" {
			args = append(args, nested)
		}
		st, beyond, errs := run(t, append(args, "--dims", "5,10")...)
		_, at2, _ := run(t, append(args, "--dims", "2")...)
		lda := func(out string) string {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "wine,lda,") {
					return l
				}
			}
			return ""
		}
		if st != 0 || lda(beyond) == "" || lda(beyond) != lda(at2) || !strings.Contains(beyond, "\nwine,pca,") {
			t.Errorf("eval %s --dims 5,10: status %d, %s; want lda's row as with --dims 2 (%q) and pca's:\n%s", nested, st, errs, lda(at2), beyond)
		}
		if !strings.Contains(errs, "eval: lda does not reach dimension 5,10 of --dims (it gives 2); evaluated at 2 instead") {
			t.Errorf("eval %s: no note that lda was evaluated at 2: %q", nested, errs)
		}
	}
	// Nested with a grid where one value falls back (LPP after a PCA to 2
	// components) and another reaches the list: the note names the grid
	// values, not the method as a whole (the review found it said "does
	// not reach" from the best grid point alone).
	st, _, errs = run(t, "eval", "-i", "builtin:wine", "-m", "lpp", "-c", "ncc", "--dims", "3,5", "--nested", "--cv", "3", "--inner-folds", "3", "--grid", "lpp.pca=2,10", "--quiet")
	if st != 0 || !strings.Contains(errs, "eval: lpp does not reach dimension 3,5 of --dims with some grid values (they give 2); those are evaluated at 2") {
		t.Errorf("nested grid with a falling-back value: status %d, %q", st, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dims", "2", "--max-dims", "5"}, "--dims and --max-dims exclude each other"},
		{[]string{"--dims", "0,2"}, `--dims: dimensions "0,2": entry "0": dimensions start at 1`},
		{[]string{"--dims", "a"}, "is not an integer"},
	} {
		st, _, errs := run(t, append([]string{"eval", "-i", "builtin:wine", "-m", "pca"}, tc.args...)...)
		if st != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: status %d, %q; want usage error containing %q", tc.args, st, errs, tc.want)
		}
	}
}

// eval with the SVMs of seed 000 (parameters after a colon, in a comma
// list): one result per classifier, named in the canonical form, every
// dimension scored.
func TestEvalSVM(t *testing.T) {
	st, out, errs := run(t, "eval", "-i", "builtin:iris", "-m", "pca,lda", "-c", "svm-linear:C=100,svm-rbf:C=100,sigma=1", "--cv", "5", "--format", "csv")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	for _, want := range []string{"pca,svm-linear:C=100,", "pca,svm-rbf:C=100,", "lda,svm-linear:C=100,", "lda,svm-rbf:C=100,"} {
		if !strings.Contains(strings.ReplaceAll(out, `"`, ""), want) {
			t.Errorf("no line with %q in:\n%s", want, out)
		}
	}
}

func TestDemoWritesPlots(t *testing.T) {
	if testing.Short() {
		t.Skip("demo run skipped in -short mode")
	}
	dir := t.TempDir()
	st, out, errs := run(t, "demo", "-o", dir)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	if !strings.Contains(out, "iris") || !strings.Contains(out, "gda") {
		t.Fatalf("demo output lacks the comparison table:\n%s", out)
	}
	for _, f := range []string{"swissroll_gda.png", "wine_lda.png", "twoclass_multimodal_pca.png"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("plot %s missing: %v", f, err)
		}
	}
}

// Every bad input gives a clear message (naming the input, the rule and the
// value), a non-zero exit status and no panic.
func TestBadInputThroughCLI(t *testing.T) {
	nan := write(t, "nan.csv", "a,b,label\n1,2,x\n3,NaN,y\n5,6,x\n7,8,y\n")
	ragged := write(t, "ragged.csv", "a,b,label\n1,2,x\n3,y\n")
	text := write(t, "text.csv", "a,b,label\n1,2,x\n3,abc,y\n")
	one := write(t, "one.csv", "a,b,label\n1,2,x\n3,4,x\n5,7,x\n")
	small := write(t, "small.csv", "a,b,label\n1,2,x\n3,4,x\n5,6,x\n7,8,x\n9,1,y\n")
	trunc := write(t, "trunc.csv.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00")
	empty := write(t, "empty.csv", "")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"nan", []string{"fit", "-m", "pca", "-i", nan, "-o", "/dev/null"}, []string{"nan.csv", "3"}},
		{"ragged", []string{"fit", "-m", "pca", "-i", ragged, "-o", "/dev/null"}, []string{"ragged.csv", "3"}},
		{"non-numeric", []string{"fit", "-m", "pca", "-i", text, "-o", "/dev/null"}, []string{"text.csv", "abc"}},
		{"single class", []string{"fit", "-m", "lda", "-i", one, "-o", "/dev/null"}, []string{"class"}},
		{"class smaller than folds", []string{"eval", "-i", small, "-m", "lda", "--cv", "5"}, []string{`class "y" has one row (row 5)`}},
		// A one-row class under 10 folds, where the other folds still fit (the run went through before).
		{"one-row class", []string{"eval", "-i", write(t, "one-row.csv", "a,b,label\n"+strings.Repeat("1,2,x\n3,4,x\n2,3,z\n4,5,z\n", 6)+"9,1,y\n"), "-m", "lda", "-c", "ncc", "--cv", "10"}, []string{`class "y" has one row (row 25)`, "cannot be classified"}},
		{"too many dims", []string{"fit", "-m", "lda", "-i", "builtin:iris", "-k", "3", "-o", "/dev/null"}, []string{"3", "C−1 = 2"}},
		{"truncated gzip", []string{"fit", "-m", "pca", "-i", trunc, "-o", "/dev/null"}, []string{"trunc.csv.gz"}},
		{"empty file", []string{"fit", "-m", "pca", "-i", empty, "-o", "/dev/null"}, []string{"empty.csv"}},
		{"missing file", []string{"fit", "-m", "pca", "-i", "/nonexistent/x.csv", "-o", "/dev/null"}, []string{"/nonexistent/x.csv"}},
		{"unknown method", []string{"fit", "-m", "nope", "-i", "builtin:iris", "-o", "/dev/null"}, []string{"nope", "known:"}},
		{"bad parameter", []string{"fit", "-m", "gda", "-p", "sigma=-1", "-i", "builtin:iris", "-o", "/dev/null"}, []string{"sigma", "-1"}},
		{"unknown parameter", []string{"fit", "-m", "gda", "-p", "gda.bogus=1", "-i", "builtin:iris", "-o", "/dev/null"}, []string{"bogus"}},
		{"bad classifier", []string{"eval", "-i", "builtin:iris", "-c", "svm9"}, []string{"svm9"}},
		{"bad SVM cost", []string{"eval", "-i", "builtin:iris", "-c", "ncc,svm-rbf:C=0"}, []string{"svm-rbf", "C=0", "> 0"}},
		{"SVM parameter of the other kernel", []string{"eval", "-i", "builtin:iris", "-c", "svm-linear:sigma=1"}, []string{"sigma", "svm-linear"}},
		{"bad model file", []string{"transform", "--model", nan, "-i", "builtin:iris"}, []string{"nan.csv", "not a dimred model"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"output is the input (fit)", []string{"fit", "-m", "pca", "-i", one, "-o", one}, []string{"-o " + one + " is the input"}},
		{"output is the input (transform)", []string{"transform", "--model", nan, "-i", one, "-o", one}, []string{"is the input " + one}},
		{"single class (score)", []string{"score", "-i", one}, []string{"one.csv", "only one class"}},
		{"single class (cluster)", []string{"cluster", "-i", "builtin:iris", "--classes", "0"}, []string{"only one class"}},
		// The refit at the method's own dimension fails too: its cause is
		// reported, not "100 dimensions requested, but GDA gives at most 1".
		{"eval reports the fit's cause", []string{"eval", "-i", write(t, "same.csv", "a,b,label\n"+strings.Repeat("1,1,x\n1,1,y\n", 3)), "-m", "gda", "-c", "ncc", "--cv", "3", "--scale", "none"}, []string{"all rows coincide in feature space"}},
		{"output directory missing", []string{"fit", "-m", "pca", "-i", "builtin:iris", "-o", "/nonexistent/m.json"}, []string{"output /nonexistent/m.json", "directory /nonexistent/ does not exist"}},
	}
	for _, c := range cases {
		st, _, errs := run(t, c.args...)
		if st == 0 {
			t.Errorf("%s: exit status 0", c.name)
			continue
		}
		if strings.Contains(errs, "internal error") {
			t.Errorf("%s: panic: %s", c.name, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: message %q lacks %q", c.name, strings.TrimSpace(errs), w)
			}
		}
	}
}

// The seed 000 protocol on a shared UCI file (fast variant: two methods).
func TestEvalOnUCIArff(t *testing.T) {
	p := testdata.Path(t, "data/uci/iris.arff")
	st, out, errs := run(t, "eval", "-i", p, "-m", "lda,gda", "-c", "ncc", "--format", "csv")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	if !strings.Contains(out, "lda") || !strings.Contains(out, "gda") {
		t.Fatalf("csv output: %s", out)
	}
}

// score: the QMI criterion ranks the 2-D KQMI embedding of wine above the
// 2-D PCA embedding (KQMI maximises it; PCA ignores the labels), and
// rejects bad input.
func TestScoreRanksEmbeddings(t *testing.T) {
	dir := t.TempDir()
	qmiOf := func(m string) float64 {
		model := filepath.Join(dir, m+".json")
		if st, _, errs := run(t, "fit", "-m", m, "-k", "2", "-i", "builtin:wine", "--scale", "minmax", "-o", model); st != 0 {
			t.Fatalf("fit %s: %s", m, errs)
		}
		st, out, errs := run(t, "score", "-i", "builtin:wine", "--model", model, "--sigma", "0.5")
		if st != 0 {
			t.Fatalf("score %s: %s", m, errs)
		}
		var v float64
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "QMI") {
				if _, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "QMI")), "%g", &v); err != nil {
					t.Fatal(err)
				}
			}
		}
		return v
	}
	if k, p := qmiOf("kqmi"), qmiOf("pca"); !(k > p && p > 0) {
		t.Fatalf("QMI of KQMI embedding %g, of PCA embedding %g; want KQMI > PCA > 0", k, p)
	}
	noLabels := write(t, "nolab.csv", "a,b\n1,2\n3,4\n")
	for _, args := range [][]string{
		{"score", "-i", noLabels, "--no-labels"},
		{"score", "-i", "builtin:iris", "--sigma", "-1"},
	} {
		if st, _, errs := run(t, args...); st == 0 || errs == "" {
			t.Errorf("%v: status %d, message %q", args, st, errs)
		}
	}
}

// The first signal cancels the command's context, says so, and releases
// the signals so that a second Ctrl-C ends the process at once; without a
// signal, done releases them and nothing is written.
func TestInterruptible(t *testing.T) {
	sig := make(chan os.Signal, 1)
	released := 0
	var errb bytes.Buffer
	ctx, done := interruptible(sig, func() { released++ }, &errb)
	sig <- os.Interrupt
	<-ctx.Done()
	done()
	if released < 1 || !strings.Contains(errb.String(), "Ctrl-C again to quit at once") {
		t.Errorf("after a signal: released %d times, stderr %q", released, errb.String())
	}
	released = 0
	errb.Reset()
	ctx, done = interruptible(make(chan os.Signal), func() { released++ }, &errb)
	done()
	if released != 1 || errb.Len() != 0 || ctx.Err() == nil {
		t.Errorf("without a signal: released %d times, stderr %q, context %v", released, errb.String(), ctx.Err())
	}
}

// A file whose header holds the model's features and no label column is
// embedded without labels (the label/class/last rule had taken its last
// feature for the labels: "has 2 features, the model was fitted on 3");
// with one more column, under any name and anywhere, that column is the
// labels; the features in another order get the order's error, not a
// wrong label column. transform, transform --stream and score agree, and
// the rows' embedding is the same whichever way the file came.
func TestTransformFindsLabelsByModelFeatures(t *testing.T) {
	// Class indices as labels, which --stream reads (it cannot see every
	// label before its first chunk).
	body := [][]string{{"1", "2", "3", "0"}, {"2", "1", "5", "1"}, {"3", "4", "4", "0"}, {"5", "3", "1", "1"}, {"4", "4", "2", "0"}, {"6", "1", "3", "1"}}
	table := func(name string, cols []int, header ...string) string {
		var sb strings.Builder
		sb.WriteString(strings.Join(header, ",") + "\n")
		for _, r := range body {
			f := make([]string, len(cols))
			for i, c := range cols {
				f[i] = r[c]
			}
			sb.WriteString(strings.Join(f, ",") + "\n")
		}
		return write(t, name, sb.String())
	}
	fitted := table("fit.csv", []int{0, 1, 2, 3}, "p", "q", "r", "label")
	model := filepath.Join(t.TempDir(), "m.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", fitted, "-o", model); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	st, want, errs := run(t, "transform", "--model", model, "-i", table("nolab0.csv", []int{0, 1, 2}, "p", "q", "r"), "--no-labels")
	if st != 0 {
		t.Fatalf("transform --no-labels: %s", errs)
	}
	st, wantLabelled, errs := run(t, "transform", "--model", model, "-i", fitted)
	if st != 0 {
		t.Fatalf("transform: %s", errs)
	}
	noLabels := table("nolab.csv", []int{0, 1, 2}, "p", "q", "r")
	middle := table("mid.csv", []int{0, 3, 1, 2}, "p", "group", "q", "r")
	for _, c := range []struct {
		name string
		args []string
		want string // the output, or "error: …"
	}{
		{"no label column", []string{"transform", "-i", noLabels}, want},
		{"no label column, streamed", []string{"transform", "-i", noLabels, "--stream"}, want},
		{"labels in the middle, another name", []string{"transform", "-i", middle}, wantLabelled},
		{"labels in the middle, streamed", []string{"transform", "-i", middle, "--stream"}, wantLabelled},
		{"reordered, no labels", []string{"transform", "-i", table("perm.csv", []int{1, 0, 2}, "q", "p", "r")}, `error: column 1 is "q", but the model took "p" there`},
		{"score: labels in the middle", []string{"score", "-i", middle}, "QMI"},
		{"score: no label column", []string{"score", "-i", noLabels}, "error: no labels"},
	} {
		st, out, errs := run(t, append([]string{c.args[0], "--model", model}, c.args[1:]...)...)
		switch {
		case strings.HasPrefix(c.want, "error: "):
			if st == 0 || !strings.Contains(errs, strings.TrimPrefix(c.want, "error: ")) {
				t.Errorf("%s: status %d, stderr %q, want an error with %q", c.name, st, errs, c.want)
			}
		case st != 0:
			t.Errorf("%s: status %d: %s", c.name, st, errs)
		case c.args[0] == "score":
			if !strings.Contains(out, c.want) {
				t.Errorf("%s: output %q lacks %q", c.name, out, c.want)
			}
		case out != c.want:
			t.Errorf("%s: output\n%s\nwant\n%s", c.name, out, c.want)
		}
	}
	// Columns named by numbers (pandas' default names): the label column
	// is named, not numbered, so "1" is not taken for the column named
	// "1" (the review found transform and score failing on the very file
	// the model was fitted on).
	numFit := table("num.csv", []int{3, 0, 1, 2}, "label", "0", "1", "2")
	numModel := filepath.Join(t.TempDir(), "num.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", numFit, "-o", numModel); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	numNoLabels := table("num_nolab.csv", []int{0, 1, 2}, "0", "1", "2")
	for _, args := range [][]string{
		{"transform", "-i", numFit}, {"transform", "-i", numFit, "--stream"}, {"score", "-i", numFit},
		{"transform", "-i", numNoLabels}, {"transform", "-i", table("num_mid.csv", []int{0, 3, 1, 2}, "0", "y", "1", "2")},
	} {
		if st, _, errs := run(t, append([]string{args[0], "--model", numModel}, args[1:]...)...); st != 0 {
			t.Errorf("numbered columns, %v: status %d: %s", args, st, errs)
		}
	}
}

// transform takes columns by position, so a file whose header names the
// model's columns in another order, or other columns, is an error unless
// --ignore-names (the audit's perm.csv was embedded silently wrong).
func TestTransformChecksColumnNames(t *testing.T) {
	rows := "1,2,3,a\n2,1,5,b\n3,4,4,a\n5,3,1,b\n4,4,2,a\n6,1,3,b\n"
	fitted := write(t, "fit.csv", "p,q,r,label\n"+rows)
	model := filepath.Join(t.TempDir(), "m.json")
	if st, _, errs := run(t, "fit", "-m", "pca", "-i", fitted, "-o", model); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	perm := write(t, "perm.csv", "q,p,r,label\n"+rows)
	other := write(t, "other.csv", "p,q,s,label\n"+rows)
	bare := write(t, "bare.csv", rows)
	for _, c := range []struct {
		name string
		args []string
		want string // "" for success
	}{
		{"same names", []string{"-i", fitted}, ""},
		{"reordered", []string{"-i", perm}, `column 1 is "q", but the model took "p" there and "q" as column 2`},
		{"reordered, streamed", []string{"-i", perm, "--stream"}, `column 1 is "q"`},
		{"another column", []string{"-i", other}, `column 3 is "s", but the model was fitted with "r" there (and has no feature "s")`},
		{"by position", []string{"-i", perm, "--ignore-names"}, ""},
		{"headerless", []string{"-i", bare, "--no-header"}, ""},
	} {
		st, _, errs := run(t, append([]string{"transform", "--model", model}, c.args...)...)
		switch {
		case c.want == "" && st != 0:
			t.Errorf("%s: status %d: %s", c.name, st, errs)
		case c.want != "" && (st == 0 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--ignore-names")):
			t.Errorf("%s: status %d, message %q lacks %q", c.name, st, errs, c.want)
		}
	}
}

// -p space=precomputed: the input rows are a Gram matrix, so --scale
// defaults to none (the default min-max scaling made it unsymmetric and
// the fit failed), another --scale is a usage error, and eval
// cross-validates it by K[train, train] and K[test, train]: the same
// table as the rows with the same kernel.
func TestPrecomputedKernelCommands(t *testing.T) {
	dir := t.TempDir()
	// Three overlapping classes of 10 rows, so that the errors are not 0.
	const n = 30
	rng := rand.New(rand.NewPCG(4, 2))
	xs := make([]float64, 2*n)
	for i := range xs {
		xs[i] = rng.NormFloat64() + 0.8*float64(i/2/10)
	}
	var rows, gram strings.Builder
	rows.WriteString("a,b,label\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&rows, "%.17g,%.17g,%d\n", xs[2*i], xs[2*i+1], i/10)
	}
	for j := 0; j < n; j++ {
		fmt.Fprintf(&gram, "k%d,", j)
	}
	gram.WriteString("label\n")
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			dx, dy := xs[2*i]-xs[2*j], xs[2*i+1]-xs[2*j+1]
			fmt.Fprintf(&gram, "%.17g,", math.Exp(-(dx*dx+dy*dy)/2))
		}
		fmt.Fprintf(&gram, "%d\n", i/10)
	}
	rowsFile, gramFile := write(t, "rows.csv", rows.String()), write(t, "gram.csv", gram.String())
	if st, _, errs := run(t, "fit", "-m", "gda", "-p", "space=precomputed", "-i", gramFile, "-o", filepath.Join(dir, "g.json")); st != 0 {
		t.Errorf("fit on a Gram matrix with the default --scale: status %d: %s", st, errs)
	}
	if st, _, errs := run(t, "fit", "-m", "gda", "-p", "space=precomputed", "-i", gramFile, "--scale", "minmax", "-o", filepath.Join(dir, "g.json")); st != 2 || !strings.Contains(errs, "--scale minmax with -p space=precomputed") {
		t.Errorf("fit with --scale minmax on a Gram matrix: status %d: %s", st, errs)
	}
	st, onGram, errs := run(t, "eval", "-m", "gda,kqmi", "-p", "space=precomputed", "-i", gramFile, "--cv", "3", "--format", "csv")
	if st != 0 {
		t.Fatalf("eval on a Gram matrix: status %d: %s", st, errs)
	}
	st, onRows, errs := run(t, "eval", "-m", "gda,kqmi", "-p", "sigma=1", "-i", rowsFile, "--cv", "3", "--scale", "none", "--format", "csv")
	if st != 0 {
		t.Fatalf("eval on the rows: status %d: %s", st, errs)
	}
	// The first column names the data set (gram, rows).
	if strings.ReplaceAll(onGram, "\ngram,", "\n") != strings.ReplaceAll(onRows, "\nrows,", "\n") || !strings.Contains(onRows, "\nrows,") {
		t.Errorf("eval on the Gram matrix:\n%s\non the rows:\n%s", onGram, onRows)
	}
	if !strings.Contains(onRows, ",0.") {
		t.Errorf("the rows' errors are all 0 or 1, which checks little:\n%s", onRows)
	}
	// The Gram matrix is every method's input or none's; a grid cannot
	// make it one candidate's; "None" is none.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "gda,pca", "-p", "gda.space=precomputed"}, "space=precomputed for 1 of the 2 methods"},
		{[]string{"-m", "gda", "--nested", "--grid", "space=exact,precomputed"}, "--grid space=exact,precomputed: a precomputed kernel"},
		{[]string{"-m", "gda", "-p", "space=precomputed", "--scale", "unit"}, "--scale unit with -p space=precomputed"},
	} {
		if st, _, errs := run(t, append([]string{"eval", "-i", gramFile, "--cv", "3"}, c.args...)...); st != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("eval %v: status %d, stderr %q, want a usage error with %q", c.args, st, errs, c.want)
		}
	}
	if st, _, errs := run(t, "eval", "-m", "gda", "-p", "space=precomputed", "-i", gramFile, "--cv", "3", "--scale", "None"); st != 0 {
		t.Errorf("eval --scale None on a Gram matrix: status %d: %s", st, errs)
	}
	// --subsample keeps the chosen rows' columns of the Gram matrix.
	_, onGram, errs = run(t, "eval", "-m", "gda", "-p", "space=precomputed", "-i", gramFile, "--cv", "3", "--subsample", "15", "--format", "csv")
	_, onRows, errs2 := run(t, "eval", "-m", "gda", "-p", "sigma=1", "-i", rowsFile, "--cv", "3", "--subsample", "15", "--scale", "none", "--format", "csv")
	if onGram == "" || strings.ReplaceAll(onGram, "\ngram,", "\n") != strings.ReplaceAll(onRows, "\nrows,", "\n") {
		t.Errorf("--subsample 15: on the Gram matrix:\n%s%s\non the rows:\n%s%s", onGram, errs, onRows, errs2)
	}
	// cluster --classes and --subsample keep the kept rows' columns too.
	type clusterOut struct {
		Rows        int
		Eigenvalues []float64
		Accuracy    []float64
		NMI         []float64
	}
	clusterRun := func(args ...string) clusterOut {
		t.Helper()
		st, out, errs := run(t, append([]string{"cluster", "-m", "kpca", "--classes", "0,2", "--subsample", "14", "--format", "json"}, args...)...)
		var c clusterOut
		if err := json.Unmarshal([]byte(out), &c); st != 0 || err != nil {
			t.Fatalf("cluster %v: status %d, %v: %s", args, st, err, errs)
		}
		return c
	}
	cg := clusterRun("-p", "space=precomputed", "-i", gramFile)
	cr := clusterRun("-p", "sigma=1", "--scale", "none", "-i", rowsFile)
	if cg.Rows != 14 || !reflect.DeepEqual(cg.Accuracy, cr.Accuracy) || !reflect.DeepEqual(cg.NMI, cr.NMI) || len(cg.Eigenvalues) != len(cr.Eigenvalues) {
		t.Errorf("cluster --classes --subsample: on the Gram matrix %+v, on the rows %+v", cg, cr)
	}
	for i, v := range cr.Eigenvalues {
		if math.Abs(cg.Eigenvalues[i]-v) > 1e-9 {
			t.Errorf("cluster eigenvalue %d: %v on the Gram matrix, %v on the rows", i+1, cg.Eigenvalues[i], v)
		}
	}
	// A supervised method leaves unlabelled points out of the fit, and
	// their columns of the Gram matrix with them: fitting the Gram matrix
	// with some labels blank equals fitting the rows with them blank, and
	// the model reads every column of new kernel rows.
	blank := func(s string) string {
		lines := strings.Split(s, "\n")
		for i := 1; i < len(lines); i += 4 {
			if j := strings.LastIndexByte(lines[i], ','); j >= 0 {
				lines[i] = lines[i][:j+1]
			}
		}
		return strings.Join(lines, "\n")
	}
	gramPart, rowsPart := write(t, "gram-part.csv", blank(gram.String())), write(t, "rows-part.csv", blank(rows.String()))
	for _, c := range [][]string{
		{"-p", "space=precomputed", "-i", gramPart, "-o", filepath.Join(dir, "gp.json")},
		{"-p", "sigma=1", "--scale", "none", "-i", rowsPart, "-o", filepath.Join(dir, "rp.json")},
	} {
		if st, _, errs := run(t, append([]string{"fit", "-m", "gda"}, c...)...); st != 0 {
			t.Fatalf("fit %v with blank labels: status %d: %s", c, st, errs)
		}
	}
	_, zg, errs := run(t, "transform", "--model", filepath.Join(dir, "gp.json"), "-i", gramFile, "--quiet")
	_, zr, errs2 := run(t, "transform", "--model", filepath.Join(dir, "rp.json"), "-i", rowsFile, "--quiet")
	// The Gram matrix read from text and the one computed from the rows
	// agree to rounding: 1e-9.
	fg, fr := strings.FieldsFunc(zg, isSep), strings.FieldsFunc(zr, isSep)
	if len(fg) != len(fr) || len(fg) < 3*n {
		t.Fatalf("GDA with blank labels: on the Gram matrix\n%s%s\non the rows\n%s%s", zg, errs, zr, errs2)
	}
	for i := range fg {
		a, errA := strconv.ParseFloat(fg[i], 64)
		b, errB := strconv.ParseFloat(fr[i], 64)
		if (errA != nil) != (errB != nil) || (errA != nil && fg[i] != fr[i]) || math.Abs(a-b) > 1e-9 {
			t.Errorf("GDA with blank labels: field %d is %s on the Gram matrix, %s on the rows", i, fg[i], fr[i])
		}
	}
}

// The reader's notes reach stderr, also under --quiet, and the command
// still runs (they are guesses, not errors).
func TestReaderNotesPrinted(t *testing.T) {
	f := write(t, "savetxt.csv", "1.5,2.5,0\n3.5,4.5,1\n5.5,6.5,0\n7.5,1.5,1\n")
	st, out, errs := run(t, "info", "-i", f, "--quiet")
	if st != 0 || !strings.Contains(errs, "dimred: note: ") || !strings.Contains(errs, "give --no-header") || !strings.Contains(out, "3 rows") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errs)
	}
	if st, _, errs := run(t, "info", "-i", f, "--no-header"); st != 0 || strings.Contains(errs, "note") {
		t.Errorf("--no-header: status %d, stderr %q", st, errs)
	}
}

// Flags that would be ignored, or repeat another, are usage errors (the
// CLI audit): a classifier twice, a negative --subsample, a label option
// under --no-labels, a cluster flag of another affinity.
func TestIgnoredFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-i", "builtin:iris", "-m", "pca", "-c", "ncc,ncc"}, `classifier "ncc" is ncc again`},
		{[]string{"eval", "-i", "builtin:iris", "-m", "pca,lda,PCA"}, "-m: pca is listed twice"},
		{[]string{"eval", "-i", "builtin:iris", "-m", "pca", "--subsample", "-5"}, "--subsample must be ≥ 0, got -5"},
		{[]string{"cluster", "-i", "builtin:iris", "--subsample", "-5"}, "--subsample must be ≥ 0"},
		{[]string{"info", "-i", write(t, "nl.csv", "a,b\n1,2\n3,4\n"), "--no-labels", "--label-col", "1"}, "--no-labels with --label-col"},
		{[]string{"cluster", "-i", "builtin:iris", "--sigma", "2"}, "--sigma is for --affinity rbf, and the affinity is knn"},
		{[]string{"cluster", "-i", "builtin:iris", "--affinity", "rbf", "--nn", "5"}, "--nn is for --affinity knn"},
		{[]string{"cluster", "-i", "builtin:iris", "--affinity", "selftune", "--t", "1"}, "--t is for --affinity knn"},
		{[]string{"info", "-i", write(t, "s.csv", "a,b\n1,2\n"), "--sep", `\t`}, "for tab-separated data give --format-in tsv"},
		{[]string{"info", "-i", write(t, "s.csv", "a,b\n1,2\n"), "--sep", `"`}, "a quote, a line break or an invalid character cannot separate fields"},
	} {
		if st, _, errs := run(t, c.args...); st != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q, want a usage error with %q", c.args, st, errs, c.want)
		}
	}
}

// "Every command takes --quiet", also before the command's name.
func TestQuietBeforeCommand(t *testing.T) {
	st, out, errs := run(t, "--quiet", "datasets")
	if st != 0 || !strings.Contains(out, "builtin:iris") {
		t.Errorf("--quiet datasets: status %d, %s%s", st, out, errs)
	}
}

// fit says how many rows a supervised method left out for want of a
// label (the CLI audit: "178 rows" where 89 were used).
func TestFitSaysUnlabelledRowsLeftOut(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := 0; i < 30; i++ {
		label := strconv.Itoa(i % 3)
		if i%5 == 4 {
			label = ""
		}
		fmt.Fprintf(&b, "%d.5,%d,%s\n", i, (i*7)%11, label)
	}
	f := write(t, "half.csv", b.String())
	st, out, errs := run(t, "fit", "-m", "lda", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || !strings.Contains(out+errs, "(30 rows, of which 6 unlabelled and left out, 2 features, --scale minmax)") {
		t.Errorf("lda: status %d: %s%s", st, out, errs)
	}
	st, out, errs = run(t, "fit", "-m", "sr", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || strings.Contains(out+errs, "left out") || !strings.Contains(out+errs, "of which 6 unlabelled: fitted semi-supervised") {
		t.Errorf("sr (semi-supervised: every row used, and said): status %d: %s%s", st, out, errs)
	}
	st, out, errs = run(t, "fit", "--stream", "--scale", "none", "-m", "lda", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || !strings.Contains(out+errs, "(30 rows, of which 6 unlabelled and left out, 2 features; 1 chunk; not scaled") {
		t.Errorf("lda --stream: status %d: %s%s", st, out, errs)
	}
}

// A label -1 beside 0, 1, … is a class with a note naming --unlabelled,
// and --unlabelled -1 (scikit-learn's semi-supervised mark) reads those
// rows unlabelled, also as np.savetxt writes it and with --stream.
func TestUnlabelledMinusOne(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := 0; i < 30; i++ {
		label := fmt.Sprintf("%.18e", float64(i%3))
		if i%5 == 4 {
			label = "-1"
		}
		fmt.Fprintf(&b, "%d.5,%d,%s\n", i, (i*7)%11, label)
	}
	f := write(t, "sk.csv", b.String())
	st, out, errs := run(t, "fit", "-m", "sr", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || !strings.Contains(errs, "label -1 is read as a class (6 rows)") || !strings.Contains(errs, "give --unlabelled -1") || !strings.Contains(out, "(30 rows, 2 features") {
		t.Errorf("sr without --unlabelled: status %d: %s%s", st, out, errs)
	}
	model := filepath.Join(t.TempDir(), "m.json")
	st, out, errs = run(t, "fit", "-m", "sr", "--unlabelled", "-1", "-i", f, "-o", model)
	if st != 0 || strings.Contains(errs, "read as a class") || !strings.Contains(out, "of which 6 unlabelled: fitted semi-supervised") {
		t.Errorf("sr --unlabelled -1: status %d: %s%s", st, out, errs)
	}
	st, out, errs = run(t, "info", "--model", model)
	if st != 0 || !strings.Contains(out, `"0", "1", "2"`) && !strings.Contains(out, "0, 1, 2") {
		t.Errorf("info of the model: class names are the values (0, 1, 2): status %d: %s%s", st, out, errs)
	}
	st, out, errs = run(t, "fit", "--stream", "--scale", "none", "-m", "lda", "--unlabelled", "-1", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || !strings.Contains(out+errs, "(30 rows, of which 6 unlabelled and left out, 2 features; 1 chunk; not scaled") {
		t.Errorf("lda --stream --unlabelled -1: status %d: %s%s", st, out, errs)
	}
	st, out, errs = run(t, "fit", "--no-labels", "--unlabelled", "-1", "-m", "pca", "-i", f, "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 2 || !strings.Contains(errs, "--unlabelled") {
		t.Errorf("--no-labels with --unlabelled: status %d: %s%s", st, out, errs)
	}
}

// score on partly labelled rows is the score of the labelled rows alone,
// standardisation and width included, and says so (the CLI audit: it
// standardised with every row, scored the labelled ones and said "rows
// 178").
func TestScoreLeavesUnlabelledRowsOut(t *testing.T) {
	var all, lab strings.Builder
	all.WriteString("a,b,label\n")
	lab.WriteString("a,b,label\n")
	for i := 0; i < 40; i++ {
		row := fmt.Sprintf("%d.25,%d,", i, (i*7)%13)
		if i%4 == 3 {
			all.WriteString(row + "\n")
			continue
		}
		all.WriteString(row + strconv.Itoa(i%2) + "\n")
		lab.WriteString(row + strconv.Itoa(i%2) + "\n")
	}
	st, got, errs := run(t, "score", "-i", write(t, "all.csv", all.String()))
	st2, want, errs2 := run(t, "score", "-i", write(t, "lab.csv", lab.String()))
	if st != 0 || st2 != 0 {
		t.Fatalf("status %d %d: %s%s", st, st2, errs, errs2)
	}
	if !strings.HasPrefix(got, "rows 30 labelled (of 40; the unlabelled ones left out)") {
		t.Errorf("report: %s", got)
	}
	_, gotRest, _ := strings.Cut(got, ", dimensions")
	_, wantRest, _ := strings.Cut(want, ", dimensions")
	if gotRest != wantRest {
		t.Errorf("partly labelled:\n%s\nlabelled rows alone:\n%s", got, want)
	}
}

// A reproduce filter that no computed cell carries is named in a note
// with the names the column does hold (the CLI audit: --datasets Nope ran
// empty tables without a word); an experiment that ran cells outside a
// filter is named; filters that together select nothing say so.
func TestReproduceFilterNotes(t *testing.T) {
	outs := []*reproduce.Outcome{{Experiment: "x", Tables: []reproduce.TableResult{{Keys: []string{"dataset", "method"}, Cells: []reproduce.Cell{
		{Keys: []string{"Iris", "GDA"}, Ran: true},
		{Keys: []string{"Wine", "PCA"}, Ran: false},
	}}}}}
	got := filterNotes([]string{"iris", "Nope", "Wine"}, []string{"gda"}, outs)
	if want := []string{"--datasets Nope,Wine matched no table cell of the experiments run (their datasets: Iris)"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	got = filterNotes(nil, []string{"LDA"}, outs)
	if want := []string{"-m does not restrict x, which ran GDA too", "-m LDA matched no table cell of the experiments run (their methods: GDA)"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got := filterNotes(nil, nil, outs); got != nil {
		t.Errorf("no filter: %q", got)
	}
	none := []*reproduce.Outcome{{Experiment: "x", Tables: []reproduce.TableResult{{Keys: []string{"dataset", "method"}}}}}
	if got := filterNotes([]string{"Nope"}, []string{"GDA"}, none); !slices.Equal(got, []string{"no table cell ran: --datasets Nope and -m GDA left nothing to run in the experiments' tables"}) {
		t.Errorf("nothing ran: %q", got)
	}
	curve := []*reproduce.Outcome{{Experiment: "seed001-letter", Tables: []reproduce.TableResult{{Keys: []string{"method", "features"}, Cells: []reproduce.Cell{{Keys: []string{"lda", "1"}, Ran: true}}}}}}
	if got := filterNotes([]string{"Wine"}, nil, curve); !slices.Equal(got, []string{"--datasets does not apply to seed001-letter (its tables have no dataset column)"}) {
		t.Errorf("a table without a dataset column: %q", got)
	}
	figure := []*reproduce.Outcome{{Experiment: "seed001-orl"}}
	if got := filterNotes([]string{"Wine"}, nil, figure); got != nil {
		t.Errorf("a figure experiment alone: %q; want no note (--datasets does not apply to it)", got)
	}
}

// score of wide rows, whose default width makes the Parzen normaliser
// underflow (a 10 000-row user: MNIST's 784 columns failed on score's
// own σ), prints the terms relative to it and says so; a σ too small for
// the rows' distances is an error naming σ.
func TestScoreWideRows(t *testing.T) {
	var b strings.Builder
	for j := 0; j < 400; j++ {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("label\n")
	for i := 0; i < 40; i++ {
		for j := 0; j < 400; j++ {
			fmt.Fprintf(&b, "%d,", (i*7919+j*104729+i*j*31)%1009+(i%2)*300) // no two rows alike
		}
		fmt.Fprintf(&b, "%d\n", i%2)
	}
	f := write(t, "wide.csv", b.String())
	st, out, errs := run(t, "score", "-i", f)
	if st != 0 || !strings.Contains(out, "relative to the Parzen normaliser (4πσ²)^(−d/2) = 10^") || !strings.Contains(out, "; half the median distance, as Silverman's rule") {
		t.Errorf("wide rows: status %d\n%s%s", st, out, errs)
	}
	if st, out, _ := run(t, "score", "-i", f, "--sigma", "3"); st != 0 || !strings.Contains(out, "sigma is small for these rows' distances") {
		t.Errorf("--sigma 3 (windows hardly overlap): status %d, want a note\n%s", st, out)
	}
	if st, _, errs := run(t, "score", "-i", f, "--sigma", "0.01"); st != 1 || !strings.Contains(errs, "σ = 0.01 is too small for these rows") {
		t.Errorf("--sigma 0.01: status %d, %q", st, errs)
	}
}
