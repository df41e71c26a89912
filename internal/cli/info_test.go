package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/method"
)

// info reports what a model file holds; its numbers are checked against
// the model loaded by the library and the sizes written out (150 training
// rows of 4 features, 2 output dimensions).
func TestInfo(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "gda.json")
	if st, _, errs := run(t, "fit", "-m", "gda", "-i", "builtin:iris", "-p", "alpha=0.01", "-o", model); st != 0 {
		t.Fatal(errs)
	}
	st, out, errs := run(t, "info", "--model", model)
	if st != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{
		"method      gda: Generalized discriminant analysis",
		"parameters  alpha=0.01",
		"input       4 features: sepal_length_cm, ", "; preprocessing minmax",
		"classes     3: ",
		"model       kernel expansion over 150 training rows (centred in feature space), kernel rbf(sigma=",
		"4 → 2",
		"size        1051 numbers", // 150·4 rows + 150·2 coefficients + 150 column means + the grand mean
		"values      2: ",
		"            (generalized eigenvalues λ = aᵀK̃(W_c − 11ᵀ/n)K̃a / aᵀ(K̃K̃ + αK̃)a",
		fmt.Sprintf("version %d, written by dimred ", method.FileVersion), "; checksum and matrices checked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
	st, out, errs = run(t, "info", "--model", model, "--format", "json")
	if st != 0 {
		t.Fatal(errs)
	}
	var in modelInfo
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(model)
	defer f.Close()
	p, err := method.LoadPipeline(f)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(model)
	if in.Method != "gda" || in.Dims != 2 || in.Features != 4 || in.Numbers != 1051 || in.Bytes != fi.Size() ||
		!slices.Equal(in.Values, p.Model.Values) || !strings.HasPrefix(in.ValuesAre, "generalized eigenvalues λ") || !slices.Equal(in.ClassNames, p.ClassNames) || in.Preprocess != "minmax" || in.Params["alpha"] != "0.01" || in.FileVersion != method.FileVersion || !in.Checksum {
		t.Errorf("info json: %+v", in)
	}

	// A version-1 file has no checksum, and info says so.
	if st, out, errs := run(t, "info", "--model", "testdata/v1_lda_iris.json"); st != 0 || !strings.Contains(out, "version 1, written by an unknown version; no checksum (written before version 3); matrices checked") {
		t.Errorf("version 1: status %d, %s%s", st, out, errs)
	}

	for _, c := range []struct {
		args []string
		st   int
		want string
	}{
		{[]string{"info"}, 2, "give --model MODEL (what a model file holds) or -i DATA"},
		{[]string{"info", "--model", model, "--format", "xml"}, 2, `--format must be text or json, got "xml"`},
		{[]string{"info", "--model", filepath.Join(dir, "none.json")}, 1, "none.json"},
		{[]string{"info", "--model", write(t, "bad.json", `{"format":"dimred-model","version":4}`)}, 1, "has none"},
	} {
		if st, _, errs := run(t, c.args...); st != c.st || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, %s; want %d and %q", c.args, st, errs, c.st, c.want)
		}
	}
}

// info -i says what the readers make of a data file: its counts checked
// against the file written out here (a named class without rows, an
// unlabelled row, a constant column).
func TestInfoData(t *testing.T) {
	in := write(t, "d.csv", "label,a,b,c\ncat,1,5,0\ndog,2,5,-3\n,3,5,2\ncat,4,5,7\n")
	st, out, errs := run(t, "info", "-i", in)
	if st != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"4 rows × 3 features: a, b, c", "classes     2: cat (2), dog (1)", "unlabelled  1 row", "values      from -3 to 7; 1 column constant in every row"} {
		if !strings.Contains(out, want) {
			t.Errorf("info -i lacks %q:\n%s", want, out)
		}
	}
	st, out, errs = run(t, "info", "-i", in, "--format", "json")
	var sum dataSummary
	if st != 0 || json.Unmarshal([]byte(out), &sum) != nil {
		t.Fatalf("json: %d %s %s", st, out, errs)
	}
	if sum.Rows != 4 || sum.Features != 3 || !slices.Equal(sum.ClassCounts, []int{2, 1}) || sum.Unlabelled != 1 || sum.Min != -3 || sum.Max != 7 || sum.Constant != 1 {
		t.Errorf("json: %+v", sum)
	}
	// An archive whose arrays have other names: info lists them beside the
	// error, and reads them once they are named.
	npz := filepath.Join(t.TempDir(), "odd.npz")
	odd := &data.Dataset{X: datasets.Iris().X, Y: datasets.Iris().Y, ClassNames: datasets.Iris().ClassNames}
	if err := data.WriteFile(npz, func(w io.Writer) error { return data.WriteNPZ(w, odd) }); err != nil {
		t.Fatal(err)
	}
	st, out, errs = run(t, "info", "-i", npz, "--npz-y", "X")
	if st != 1 || !strings.Contains(out, "file holds  X (150×4 <f8), y (150 <i8)") || !strings.Contains(errs, `array "X" cannot be both`) {
		t.Errorf("odd names: status %d, %s%s", st, out, errs)
	}
	if st, _, errs := run(t, "info", "-i", in, "--model", "m.json"); st != 2 || !strings.Contains(errs, "one of them") {
		t.Errorf("both: status %d, %s", st, errs)
	}
}

// Rows read without labels where labels are needed: the error says where
// such a file's labels come from, before any work.
func TestNoLabelsHints(t *testing.T) {
	ds := datasets.Iris()
	npy := filepath.Join(t.TempDir(), "x.npy")
	if err := data.WriteNPY(npy, ds.X); err != nil {
		t.Fatal(err)
	}
	hint := "input " + npy + " has no labels (a .npy file holds no labels: give them with --labels FILE"
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"fit", "-m", "lda", "-i", npy, "-o", filepath.Join(t.TempDir(), "m.json")}, "lda is a supervised method"},
		{[]string{"fit", "-m", "lqmi", "--stream", "-i", npy, "-o", filepath.Join(t.TempDir(), "m.json")}, "lqmi is a supervised method"},
		{[]string{"eval", "-m", "pca", "-i", npy}, "eval measures a classifier's error"},
		{[]string{"cluster", "-i", npy}, "the number of clusters cannot default to the number of classes: give -k"},
		{[]string{"score", "-i", npy}, "QMI is between an embedding and its labels"},
	} {
		st, _, errs := run(t, c.args...)
		if st != 1 || !strings.Contains(errs, hint) || !strings.Contains(errs, c.why) {
			t.Errorf("%v: status %d, %s", c.args, st, errs)
		}
	}
	npz := filepath.Join(t.TempDir(), "iris.npz")
	if err := data.WriteFile(npz, func(w io.Writer) error { return data.WriteNPZ(w, ds) }); err != nil {
		t.Fatal(err)
	}
	if st, _, errs := run(t, "fit", "-m", "gda", "-i", npz, "--no-labels", "-o", filepath.Join(t.TempDir(), "m.json")); st != 1 || !strings.Contains(errs, "(--no-labels was given); gda is a supervised method") {
		t.Errorf("--no-labels: status %d, %s", st, errs)
	}
	if st, _, errs := run(t, "fit", "-m", "pca", "-i", npy, "-o", filepath.Join(t.TempDir(), "m.json")); st != 0 {
		t.Errorf("pca needs no labels: %s", errs)
	}
}
