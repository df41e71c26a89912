package dimredbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/stats"
)

// The pipelines run in-process on Beam's Prism runner (the default of
// Run); -runner=direct selects the older direct runner. The runner's
// progress messages are left out of the test output (warnings and errors
// stay). The temporary files of the runs go to a directory removed at
// the end (InPrivateTemp).
func TestMain(m *testing.M) {
	slog.SetLogLoggerLevel(slog.LevelWarn)
	os.Exit(InPrivateTemp(func() int { return ptest.MainRet(m) }))
}

// splitShards writes the data rows of the CSV table at src (with its
// header) into k shard files in a new directory, contiguous row ranges in
// order, the shards named part-0.csv, part-1.csv.gz (gzipped), ...; edit,
// when not nil, changes the lines of shard 1 (with its header). It returns
// the directory.
func splitShards(t *testing.T, src string, k int, edit func(lines []string) []string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	header, rows := lines[0], lines[1:]
	dir := t.TempDir()
	for i := 0; i < k; i++ {
		part := append([]string{header}, rows[i*len(rows)/k:(i+1)*len(rows)/k]...)
		if i == 1 && edit != nil {
			part = edit(part)
		}
		text := []byte(strings.Join(part, "\n") + "\n")
		name := filepath.Join(dir, "part-"+string(rune('0'+i))+".csv")
		if i == 1 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(text)
			zw.Close()
			text, name = z.Bytes(), name+".gz"
		}
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runFit builds and runs the fit of cfg in-process.
func runFit(t *testing.T, cfg FitConfig) error {
	t.Helper()
	p, err := FitPipeline(context.Background(), cfg)
	if err != nil {
		t.Fatalf("building the fit of %s: %v", cfg.Method, err)
	}
	return Run(context.Background(), p)
}

// fitPipeline runs the fit of cfg and loads the pipeline it wrote to
// cfg.Model.
func fitPipeline(t *testing.T, cfg FitConfig) *method.Pipeline {
	t.Helper()
	if err := runFit(t, cfg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(cfg.Model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pipe, err := method.LoadPipeline(f)
	if err != nil {
		t.Fatal(err)
	}
	return pipe
}

func loadModelFile(t *testing.T, path string) *method.Fitted {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, m, err := method.Load(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// relDiff returns ‖a − b‖_max / ‖b‖_max.
func relDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) / mat.Norm(b, math.Inf(1))
}

// checkStats compares the merged statistics written at path with those of
// the rows x, y in one chunk (1e-9 relative on every statistic).
func checkStats(t *testing.T, what, path string, x *mat.Dense, y []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got, want stats.Moments
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if err := want.Add(x, y); err != nil {
		t.Fatal(err)
	}
	if got.N() != want.N() || got.LabeledN() != want.LabeledN() || !slices.Equal(got.ClassCounts(), want.ClassCounts()) {
		t.Fatalf("%s: counts %d/%d %v, want %d/%d %v", what, got.N(), got.LabeledN(), got.ClassCounts(), want.N(), want.LabeledN(), want.ClassCounts())
	}
	for _, c := range []struct {
		name      string
		got, want mat.Matrix
	}{
		{"mean", mat.NewVecDense(got.Dim(), got.Mean()), mat.NewVecDense(want.Dim(), want.Mean())},
		{"scatter", got.Scatter(), want.Scatter()},
		{"class means", got.ClassMeans(), want.ClassMeans()},
		{"between-class scatter", got.BetweenScatter(), want.BetweenScatter()},
		{"within-class scatter", got.WithinScatter(), want.WithinScatter()},
	} {
		if d := relDiff(c.got, c.want); d > 1e-9 {
			t.Errorf("%s: %s differs from the in-memory statistics by %.3g (relative)", what, c.name, d)
		}
	}
}

// checkModel compares the embeddings of x by the model at path and by the
// in-memory fit want (tol relative).
func checkModel(t *testing.T, what, path string, want method.Model, x *mat.Dense, tol float64) {
	t.Helper()
	got := loadModelFile(t, path)
	if got.Dims() != want.Dims() {
		t.Fatalf("%s: %d dimensions, in memory %d", what, got.Dims(), want.Dims())
	}
	zg, err := got.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := want.Transform(x)
	d := relDiff(zg, zw)
	t.Logf("%s: embeddings of %d rows within %.3g (relative) of the in-memory fit's", what, zw.RawMatrix().Rows, d)
	if d > tol {
		t.Errorf("%s: the embeddings differ from the in-memory fit's by %.3g (relative), want ≤ %g", what, d, tol)
	}
}

// Sharded digits (4 shards, one gzipped) through the Beam fit give the
// statistics of the whole table (1e-9 relative) and the in-memory models
// of PCA, LDA, LQMI, SR (supervised class graph) and of the Nyström kernel
// methods KPCA, GDA, KQMI, KSR and MKL-SR (against the in-memory fit with
// the same landmarks: the same seed on the rows in shard order).
func TestFitEqualsInMemory(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/digits.csv")
	ds, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := splitShards(t, src, 4, nil)
	out := t.TempDir()
	for i, tc := range []struct {
		method string
		params map[string]string
		dims   int
		tol    float64
	}{
		{"pca", nil, 5, 1e-9},
		{"lda", nil, 0, 1e-9},
		{"lqmi", nil, 0, 1e-9},
		{"kpca", map[string]string{"space": "nystrom", "landmarks": "150", "seed": "4", "sigma": "20"}, 6, 1e-8},
		{"gda", map[string]string{"space": "nystrom", "landmarks": "200", "seed": "2", "sigma": "25"}, 0, 1e-8},
		{"kqmi", map[string]string{"space": "nystrom", "landmarks": "120", "seed": "9", "sigma": "30"}, 0, 1e-8},
		{"sr", nil, 0, 1e-9},
		{"sr", map[string]string{"ridge": "0.01"}, 4, 1e-9},
		{"ksr", map[string]string{"space": "nystrom", "landmarks": "140", "seed": "3", "sigma": "25"}, 0, 1e-9},
		{"mklsr", map[string]string{"space": "nystrom", "landmarks": "130", "seed": "6", "kernels": "linear;poly:degree=2,offset=1;rbf:sigma=25", "ridge": "100"}, 0, 1e-8},
	} {
		name := fmt.Sprintf("%s-%d", tc.method, i)
		model := filepath.Join(out, name+".json")
		statsPath := filepath.Join(out, name+".drsm")
		cfg := FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*"), Chunk: 97}, Method: tc.method, Params: tc.params, Dims: tc.dims, Model: model}
		if tc.params["space"] == "" { // a Nyström fit refuses Stats (TestFitStatsFile)
			cfg.Stats = statsPath
		}
		if err := runFit(t, cfg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, err := method.New(tc.method, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Fit(ds.X, ds.Y, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		if tc.params["space"] == "" { // linear: the statistics are those of the rows
			checkStats(t, name, statsPath, ds.X, ds.Y)
		}
		checkModel(t, name, model, want, ds.X, tc.tol)
	}
}

// SR and KSR fit from statistics with the supervised class graph only: a
// shard with an unlabeled row (empty label) fails the SR fit with the
// reason, and SR with ritz=true and KSR with graph=unsupervised are
// refused when the pipeline is built.
func TestSRNeedsEveryRowLabelled(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	dir := splitShards(t, src, 3, func(lines []string) []string {
		lines[3] = lines[3][strings.IndexByte(lines[3], ','):] // empty label
		return lines
	})
	out := t.TempDir()
	err := runFit(t, FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Method: "sr", Model: filepath.Join(out, "sr.json")})
	if err == nil || !strings.Contains(err.Error(), "sr: 1 of 178 rows are unlabeled") {
		t.Errorf("SR fit with an unlabeled row: error %v, want one naming the unlabeled row", err)
	}
	_, err = FitPipeline(context.Background(), FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Method: "sr",
		Params: map[string]string{"ritz": "true"}, Model: filepath.Join(out, "sr.json")})
	if err == nil || !strings.Contains(err.Error(), "sr: ritz=true") {
		t.Errorf("SR ritz=true: build error %v", err)
	}
	_, err = FitPipeline(context.Background(), FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Method: "ksr",
		Params: map[string]string{"space": "nystrom", "sigma": "1", "graph": "unsupervised"}, Dims: 2, Model: filepath.Join(out, "ksr.json")})
	if err == nil || !strings.Contains(err.Error(), "graph=unsupervised needs the nearest neighbours") {
		t.Errorf("KSR graph=unsupervised: build error %v", err)
	}
	// MKL-SR's default Gaussian takes its width from the rows.
	_, err = FitPipeline(context.Background(), FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Method: "mklsr",
		Params: map[string]string{"space": "nystrom"}, Model: filepath.Join(out, "mklsr.json")})
	if err == nil || !strings.Contains(err.Error(), "base kernel 3 (rbf(sigma=auto)): sigma=auto") {
		t.Errorf("MKL-SR with sigma=auto: build error %v", err)
	}
	if !slices.Contains(NystromMethods(), "mklsr") {
		t.Errorf("Nyström methods %v lack mklsr", NystromMethods())
	}
}
