package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
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
