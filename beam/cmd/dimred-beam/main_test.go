package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"

	dimredbeam "github.com/dimred/dimred/beam"
)

// The runner's progress messages are left out of the test output.
func TestMain(m *testing.M) {
	slog.SetLogLoggerLevel(slog.LevelWarn)
	os.Exit(dimredbeam.InPrivateTemp(func() int { return ptest.MainRet(m) }))
}

// The command fits LDA on iris split into LIBSVM shards (one gzipped) and
// transforms them, with a Beam flag passed through; the outputs have one
// row per input row. Usage errors name the flag.
func TestFitTransformCommand(t *testing.T) {
	ds, err := data.Load(testdata.Path(t, "data/sklearn/iris.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n, d := ds.X.Dims()
	for s := 0; s < 3; s++ {
		var b strings.Builder
		for i := s * n / 3; i < (s+1)*n/3; i++ {
			b.WriteString(ds.ClassNames[ds.Y[i]])
			for j := 0; j < d; j++ {
				fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(ds.X.At(i, j), 'g', -1, 64))
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("iris-%d.svm", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "lda.json")
	var out, errb bytes.Buffer
	err = run("fit", []string{"-i", filepath.Join(dir, "iris-*.svm"), "-m", "lda", "-o", model, "--features", "4", "--runner", "prism", "--chunk", "20"}, &out, &errb)
	if err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "fitted lda") || !strings.Contains(out.String(), "→ 2 dimensions") {
		t.Errorf("fit output: %s", out.String())
	}
	zdir := filepath.Join(dir, "z")
	out.Reset()
	if err := run("transform", []string{"-i", filepath.Join(dir, "iris-*.svm"), "--model", model, "-o", zdir, "-k", "1"}, &out, &errb); err != nil {
		t.Fatalf("transform: %v\n%s", err, errb.String())
	}
	rows := 0
	for s := 0; s < 3; s++ {
		z, err := data.Load(filepath.Join(zdir, fmt.Sprintf("iris-%d.csv", s)), data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, c := z.Dims()
		if c != 1 {
			t.Errorf("shard %d: %d columns, want 1", s, c)
		}
		rows += r
	}
	if rows != n {
		t.Errorf("%d output rows, want %d", rows, n)
	}

	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"fit", []string{"-m", "lda", "-o", model}, "-i GLOB is required"},
		{"fit", []string{"-i", filepath.Join(dir, "*.svm"), "-m", "lpp", "-o", model}, "lpp needs all rows in memory"},
		{"fit", []string{"-i", filepath.Join(dir, "*.svm"), "-m", "kpca", "-o", model}, "needs space=nystrom"},
		{"fit", []string{"-i", filepath.Join(dir, "*.svm"), "-m", "lda", "-o", model, "-p", "ridge"}, "want key=value"},
		{"transform", []string{"-i", filepath.Join(dir, "*.svm"), "-o", zdir}, "--model MODEL and -o DIR are required"},
		{"frobnicate", nil, "unknown command"},
	} {
		err := run(tc.cmd, tc.args, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.cmd, tc.args, err, tc.want)
		}
	}
}

// .npy shards take their labels from --shard-labels; the fit is the one of the
// same rows as LIBSVM shards (the same LDA directions).
func TestNPYShardsCommand(t *testing.T) {
	ds, err := data.Load(testdata.Path(t, "data/sklearn/iris.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n, d := ds.X.Dims()
	for s := 0; s < 2; s++ {
		lo, hi := s*n/2, (s+1)*n/2
		if err := data.WriteNPY(filepath.Join(dir, fmt.Sprintf("x-%d.npy", s)), mat.DenseCopyOf(ds.X.Slice(lo, hi, 0, d))); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteLabelsNPY(filepath.Join(dir, fmt.Sprintf("y-%d.npy", s)), ds.Y[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "lda.json")
	var out, errb bytes.Buffer
	err = run("fit", []string{"-i", filepath.Join(dir, "x-*.npy"), "--shard-labels", filepath.Join(dir, "y-*.npy"), "-m", "lda", "-k", "1", "-o", model}, &out, &errb)
	if err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "→ 1 dimension;") {
		t.Errorf("fit output: %s", out.String())
	}
	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, got, err := method.Load(f, model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := method.LDA{}.Fit(ds.X, ds.Y, 1)
	if err != nil {
		t.Fatal(err)
	}
	zg, _ := got.Transform(ds.X)
	zw, _ := want.Transform(ds.X)
	if !mat.EqualApprox(zg, zw, 1e-9*mat.Norm(zw, math.Inf(1))) {
		t.Errorf("the model of the .npy shards embeds the rows otherwise than the in-memory LDA")
	}
	// Transformed to .npy: the embedding, and the labels beside it.
	zdir := filepath.Join(dir, "z")
	err = run("transform", []string{"-i", filepath.Join(dir, "x-*.npy"), "--shard-labels", filepath.Join(dir, "y-*.npy"), "--model", model, "-o", zdir, "--format-out", "npy"}, &out, &errb)
	if err != nil {
		t.Fatalf("transform: %v\n%s", err, errb.String())
	}
	z1, err := data.Load(filepath.Join(zdir, "x-1.npy"), data.Options{LabelsFile: filepath.Join(zdir, "x-1.labels.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := z1.Dims(); r != n/2 || c != 1 || z1.X.At(0, 0) != zg.At(n/2, 0) || z1.ClassNames[z1.Y[r-1]] != "2" {
		t.Errorf("shard 1's .npy output: %d×%d, first value %v (want %v), last label %q", r, c, z1.X.At(0, 0), zg.At(n/2, 0), z1.ClassNames[z1.Y[r-1]])
	}
	err = run("fit", []string{"-i", filepath.Join(dir, "x-*.npy"), "--shard-labels", filepath.Join(dir, "y-0.npy"), "-m", "lda", "-o", model}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "1 files for the 2 shards") {
		t.Errorf("one labels file for two shards: %v", err)
	}
}

// -h lists dimred's flags on stdout and names Beam's (--help-beam lists
// them); a bad flag names the help; the fit line counts the rows; a run
// that fails in a DoFn reports the DoFn's error without the runner's
// plan; --from-stats fits from --stats' file; a transform names output
// files of an earlier run it did not write.
func TestCommandHelpAndReports(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run("fit", []string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("fit -h: %v", err)
	}
	if h := out.String(); !strings.Contains(h, "-from-stats") || !strings.Contains(h, "--help-beam lists them") || strings.Contains(h, "staging_location") {
		t.Errorf("fit -h: want dimred's flags and Beam's named, not listed:\n%s", h)
	}
	out.Reset()
	if err := run("transform", []string{"--help-beam"}, &out, &errb); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-runner") || strings.Contains(out.String(), "-ignore-names") {
		t.Errorf("transform --help-beam: %v\n%s", err, out.String())
	}
	if err := run("fit", []string{"--bogus"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "run 'dimred-beam fit -h' for the flags") {
		t.Errorf("fit --bogus: %v", err)
	}

	src := testdata.Path(t, "data/sklearn/wine.csv")
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[5] = lines[5][strings.IndexByte(lines[5], ','):] // an unlabelled row
	for s, part := range [][]string{lines[:90], append([]string{lines[0]}, lines[90:]...)} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", s)), []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	glob, model, statsPath := filepath.Join(dir, "part-*.csv"), filepath.Join(dir, "lda.json"), filepath.Join(dir, "wine.stats")
	out.Reset()
	if err := run("fit", []string{"-i", glob, "-m", "lda", "-o", model, "--stats", statsPath}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := "fitted lda from statistics of " + glob + " (178 rows, of which 1 unlabelled and left out) → 2 dimensions"; !strings.Contains(out.String(), want) {
		t.Errorf("fit line %q, want %q", out.String(), want)
	}
	err = run("fit", []string{"-i", glob, "-m", "lda", "-k", "5", "-o", model}, &out, &errb)
	if err == nil || runnerError(err) != "the pipeline failed: lda: 5 dimensions requested, but LDA gives at most C−1 = 2 for 3 classes (--log error prints the runner's report)" {
		t.Errorf("a DoFn's error: %q", runnerError(err))
	}
	out.Reset()
	if err := run("fit", []string{"--from-stats", statsPath, "-m", "pca", "-k", "3", "-o", filepath.Join(dir, "pca.json")}, &out, &errb); err != nil || !strings.Contains(out.String(), "fitted pca from the statistics in "+statsPath+" → 3 dimensions") {
		t.Errorf("--from-stats: %v, %q", err, out.String())
	}
	for _, bad := range [][]string{{"-i", glob}, {"--no-labels"}, {"--dead-letter", filepath.Join(dir, "x.txt")}} {
		if err := run("fit", append([]string{"--from-stats", statsPath, "-m", "pca", "-o", filepath.Join(dir, "pca.json")}, bad...), &out, &errb); err == nil || !strings.Contains(err.Error(), ": "+bad[0]+" not taken with it") {
			t.Errorf("--from-stats with %s: %v", bad[0], err)
		}
	}
	if err := run("fit", []string{"--from-stats", statsPath, "-m", "lda", "-o", filepath.Join(dir, "two.json"), "--classes", "a,b"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "2 class names (a,b) for statistics of 3 classes") {
		t.Errorf("--from-stats with too few class names: %v", err)
	}
	// --classes names the classes of a model fitted from statistics.
	named := filepath.Join(dir, "named.json")
	if err := run("fit", []string{"--from-stats", statsPath, "-m", "lda", "-o", named, "--classes", "barolo,grignolino,barbera"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(named)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := method.LoadPipeline(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pipe.ClassNames, []string{"barolo", "grignolino", "barbera"}) {
		t.Errorf("--from-stats --classes: class names %v", pipe.ClassNames)
	}
	zdir := filepath.Join(dir, "z")
	if err := os.MkdirAll(zdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(zdir, "part-5.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if err := run("transform", []string{"-i", glob, "--model", model, "-o", zdir}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "transformed "+glob+" (178 rows) with ") || !strings.Contains(errb.String(), zdir+" also holds part-5.csv, which this run did not write") {
		t.Errorf("transform: stdout %q, stderr %q", out.String(), errb.String())
	}
}
