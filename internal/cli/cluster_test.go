package cli

import (
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dimred/dimred/cluster"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
)

// cluster on iris: the raw features and LDA's embedding, text and JSON;
// the JSON runs agree with the text summary and are reproducible.
func TestClusterIris(t *testing.T) {
	st, out, errs := run(t, "cluster", "-i", "builtin:iris", "--runs", "3")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	for _, want := range []string{"none (input features) → 4 dimensions", "graph     knn, p = 10", "minimum spanning edges added", "3 runs (seeds 0..2)", "accuracy  96.67 ± 0.00 %", "NMI "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "2 connected components; joined by 1 minimum spanning edges") {
		t.Errorf("no warning about the disconnected graph: %q", errs)
	}
	var reps [2]clusterReport
	for i := range reps {
		st, out, errs = run(t, "cluster", "-i", "builtin:iris", "-m", "lda", "-k", "3", "--affinity", "selftune", "--runs", "4", "--seed", "7", "--format", "json")
		if st != 0 {
			t.Fatalf("status %d: %s", st, errs)
		}
		if err := json.Unmarshal([]byte(out), &reps[i]); err != nil {
			t.Fatal(err)
		}
	}
	r := reps[0]
	if r.Method != "lda" || r.Dims != 2 || r.Clusters != 3 || len(r.Accuracy) != 4 || len(r.NMI) != 4 || r.Graph.Affinity != "selftune" {
		t.Errorf("report %+v: want lda → 2 dimensions (C−1 < k), 3 clusters, 4 runs", r)
	}
	if r.AccMean == nil || *r.AccMean < 0.9 || *r.NMIMean < 0.8 {
		t.Errorf("LDA on iris: accuracy %v, NMI %v", r.AccMean, r.NMIMean)
	}
	b0, _ := json.Marshal(reps[0])
	b1, _ := json.Marshal(reps[1])
	if string(b0) != string(b1) {
		t.Error("two runs with the same seed differ")
	}
}

func TestClusterClassFilterAndErrors(t *testing.T) {
	st, out, errs := run(t, "cluster", "-i", "builtin:digits", "--classes", "0,6", "--affinity", "rbf", "--runs", "1", "--format", "json")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var r clusterReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Rows != 359 || r.Classes != 2 || r.Graph.Sigma <= 0 {
		t.Errorf("digits 0,6: %d rows, %d classes, σ %v; want 359, 2, the median distance", r.Rows, r.Classes, r.Graph.Sigma)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--affinity", "cosine"}, `--affinity "cosine"`},
		{[]string{"--connect", "glue"}, `--connect "glue"`},
		{[]string{"--runs", "0"}, "--runs and --restarts must be ≥ 1"},
		{[]string{"-m", "nosuch"}, "unknown method"},
		{[]string{"-p", "sigma=1"}, "-m none has no parameters"},
		{[]string{"--classes", "12"}, `no class "12"`},
		{[]string{"-k", "200"}, "larger than the number of rows"},
		{[]string{"--format", "xml"}, "want text or json"},
		{[]string{"-m", "sr", "--dims", "5"}, "dimred cluster: sr: 5 dimensions requested"}, // the method named once
	} {
		st, _, errs := run(t, append([]string{"cluster", "-i", "builtin:iris"}, c.args...)...)
		if st == 0 || !strings.Contains(errs, c.want) || strings.Contains(errs, "sr: sr:") {
			t.Errorf("%v: status %d, stderr %q; want an error containing %q", c.args, st, errs, c.want)
		}
	}
	st, out, _ = run(t, "cluster", "-h") // help goes to stdout
	if st != 0 || !strings.Contains(out, "Example") || !strings.Contains(out, "--affinity") {
		t.Errorf("cluster -h: status %d, %q", st, out)
	}
}

// cluster -o writes the first run's clusters with each row's input row
// number and class: after --classes and --subsample the row numbers lead
// back to rows of those classes, and the written clusters and classes give
// the first run's reported accuracy; -o - puts them on standard output and
// the report on standard error.
func TestClusterOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.csv")
	st, stdout, errs := run(t, "cluster", "-i", "builtin:digits", "--classes", "3,8", "--subsample", "120", "--runs", "2", "--format", "json", "-o", out)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var r clusterReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	got, err := data.Load(out, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := datasets.Digits()
	n, _ := got.Dims()
	if n != 120 || !slices.Equal(got.FeatureNames, []string{"row", "cluster"}) {
		t.Fatalf("%d rows, columns %q; want 120, [row cluster]", n, got.FeatureNames)
	}
	pred, truth := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		row, c := int(got.X.At(i, 0)), int(got.X.At(i, 1))
		class := got.ClassNames[got.Y[i]]
		if row < 1 || row > len(all.Y) || all.ClassNames[all.Y[row-1]] != class || (class != "3" && class != "8") || c < 1 || c > 2 {
			t.Fatalf("row %d: input row %d (class %q there), cluster %d, class %q", i+1, row, all.ClassNames[all.Y[row-1]], c, class)
		}
		pred[i], truth[i] = c-1, got.Y[i]
	}
	acc, err := cluster.Accuracy(pred, truth)
	if err != nil || acc != r.Accuracy[0] {
		t.Errorf("accuracy of the written clusters %v (%v); the report's first run %v", acc, err, r.Accuracy[0])
	}
	st, stdout, errs = run(t, "cluster", "-i", "builtin:iris", "--runs", "1", "-o", "-")
	if st != 0 || !strings.HasPrefix(stdout, "label,row,cluster\n") || strings.Count(stdout, "\n") != 151 || !strings.Contains(errs, "accuracy  ") {
		t.Errorf("-o -: status %d, stdout %.80q…, stderr %q", st, stdout, errs)
	}
	if st, _, errs = run(t, "cluster", "-i", "builtin:iris", "-o", "-", "--format", "json"); st != 2 || !strings.Contains(errs, "both write to standard output") {
		t.Errorf("-o - with --format json: status %d, %s", st, errs)
	}
}

// Data without labels is clustered with -k given (the CLI audit: it was
// refused, although -o gives what such a user wants): no scores, and the
// clusters written are those of the run of lowest inertia, which on iris
// read without its labels are the labelled run's partition up to the
// cluster numbers (the same rows, features and seeds; the first run is
// also of lowest inertia there or another of equal partition).
func TestClusterUnlabelled(t *testing.T) {
	dir := t.TempDir()
	ds := datasets.Iris()
	f := filepath.Join(dir, "x.csv")
	if err := data.WriteFile(f, func(w io.Writer) error {
		return data.WriteCSV(w, &data.Dataset{X: ds.X, FeatureNames: ds.FeatureNames})
	}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "c.csv")
	st, stdout, errs := run(t, "cluster", "-i", f, "--no-labels", "-k", "3", "--runs", "5", "-o", out, "--format", "json")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var r clusterReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Classes != 0 || r.Accuracy != nil || r.AccMean != nil || len(r.Inertia) != 5 || r.Kept < 1 || slices.Min(r.Inertia) != r.Inertia[r.Kept-1] {
		t.Errorf("report %+v: want no scores, 5 inertias, the kept run the lowest", r)
	}
	got, err := data.Load(out, data.Options{NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, c := got.Dims(); n != 150 || c != 2 {
		t.Fatalf("-o wrote %d×%d", n, c)
	}
	clusters := make([]int, 150)
	for i := range clusters {
		clusters[i] = int(got.X.At(i, 1)) - 1
	}
	acc, err := cluster.Accuracy(clusters, ds.Y)
	if err != nil || acc < 0.9 {
		t.Errorf("the clusters written match iris's classes at %.3f (%v)", acc, err)
	}
	st, stdout, _ = run(t, "cluster", "-i", f, "--no-labels", "-k", "3", "--runs", "2")
	if st != 0 || !strings.Contains(stdout, "accuracy  none: the data has no classes") {
		t.Errorf("text report: status %d\n%s", st, stdout)
	}
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{nil, 1, "has no labels (--no-labels was given); the number of clusters cannot default"},
		{[]string{"-k", "3", "--subsample", "20"}, 2, "select rows by their classes"},
	} {
		if st, _, errs := run(t, append([]string{"cluster", "-i", f, "--no-labels"}, c.args...)...); st != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, %s", c.args, st, errs)
		}
	}
}
