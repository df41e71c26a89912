package dimredbeam

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
)

// swapColumns returns an edit of splitShards that swaps the CSV columns
// i and j (0-based, header included) of every line.
func swapColumns(i, j int) func(lines []string) []string {
	return func(lines []string) []string {
		for k, l := range lines {
			f := strings.Split(l, ",")
			f[i], f[j] = f[j], f[i]
			lines[k] = strings.Join(f, ",")
		}
		return lines
	}
}

// Shards are checked before anything runs: a shard whose columns are in
// another order than the first's, shards of two formats, a supervised
// method on shards without labels, and model, statistics and dead-letter
// paths that are an input, another output or a directory are refused
// with the shard or path named (a directory that does not exist yet is
// created). The model keeps the shards' feature names.
func TestFitChecksShards(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	ctx := context.Background()
	good := splitShards(t, src, 3, nil)
	swapped := splitShards(t, src, 3, swapColumns(1, 2))
	mixed := splitShards(t, src, 2, nil)
	if err := os.WriteFile(filepath.Join(mixed, "part-9.npy"), []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	model := filepath.Join(out, "m.json")
	glob := func(dir string) Input { return Input{Glob: filepath.Join(dir, "part-*")} }
	header, err := data.ScanHeader(filepath.Join(good, "part-0.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  FitConfig
		want string
	}{
		{"columns swapped in one shard", FitConfig{Input: glob(swapped), Method: "lda", Model: model},
			"has column " + `"` + header[1] + `" where shard ` + filepath.Join(swapped, "part-0.csv") + ` has "` + header[0] + `" (feature 1)`},
		{"two formats", FitConfig{Input: glob(mixed), Method: "pca", Model: model}, "is npy but shard " + filepath.Join(mixed, "part-0.csv") + " is csv"},
		{"supervised without labels", FitConfig{Input: Input{Glob: filepath.Join(good, "part-*"), Options: data.Options{NoLabels: true}}, Method: "lda", Model: model}, "lda is supervised and the shards are read without labels"},
		{"model over a shard", FitConfig{Input: glob(good), Method: "pca", Model: filepath.Join(good, "part-0.csv")}, "is the shard " + filepath.Join(good, "part-0.csv")},
		{"model is a directory", FitConfig{Input: glob(good), Method: "pca", Model: out}, "is a directory"},
		{"statistics over a shard", FitConfig{Input: glob(good), Method: "pca", Model: model, Stats: filepath.Join(good, "part-2.csv")}, "statistics file " + filepath.Join(good, "part-2.csv") + " is the shard " + filepath.Join(good, "part-2.csv")},
		{"dead letters over a shard", FitConfig{Input: glob(good), Method: "pca", Model: model, DeadLetter: filepath.Join(good, "part-1.csv.gz")}, "dead-letter file " + filepath.Join(good, "part-1.csv.gz") + " is the shard"},
		{"statistics over the model", FitConfig{Input: glob(good), Method: "pca", Model: model, Stats: model}, "statistics file " + model + " is the model file " + model},
		{"model below a file", FitConfig{Input: glob(good), Method: "pca", Model: filepath.Join(good, "part-0.csv", "m.json")}, filepath.Join(good, "part-0.csv") + " is a file, not a directory"},
		{"model where no file can be made", FitConfig{Input: glob(good), Method: "pca", Model: "/proc/m.json"}, "model file /proc/m.json: cannot write in its directory"}, // Linux: /proc takes no new files, even as root
		{"statistics of a Nyström fit", FitConfig{Input: glob(good), Method: "kpca", Params: map[string]string{"space": "nystrom", "sigma": "100", "landmarks": "20"}, Model: model, Stats: filepath.Join(out, "k.stats")}, "cannot be fitted again without the landmarks"},
	} {
		if _, err := FitPipeline(ctx, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	npy := npyShards(t, mustLoad(t, src), 2, false)
	if _, err := FitPipeline(ctx, FitConfig{Input: Input{Glob: filepath.Join(npy, "x-*.npy")}, Method: "lda", Model: model}); err == nil || !strings.Contains(err.Error(), "the .npy shards hold only features: give their labels files") {
		t.Errorf(".npy shards without labels, lda: error %v", err)
	}
	// The good shards fit, into a directory made for the model, and the
	// model keeps their feature names.
	model = filepath.Join(out, "new", "m.json")
	pipe := fitPipeline(t, FitConfig{Input: glob(good), Method: "lda", Model: model})
	if !slices.Equal(pipe.FeatureNames, header) {
		t.Errorf("model feature names %v, want the shards' header %v", pipe.FeatureNames, header)
	}
}

func mustLoad(t *testing.T, path string) *data.Dataset {
	t.Helper()
	ds, err := data.Load(path, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A transform checks its shards' header against the model's feature
// names (IgnoreNames takes the columns by position) and refuses an output
// directory in which it would overwrite a shard or the model; Stale names
// the output-like files of an earlier run that it does not write.
func TestTransformChecksShards(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	ctx := context.Background()
	good := splitShards(t, src, 2, nil)
	model := filepath.Join(t.TempDir(), "lda.json")
	if err := runFit(t, FitConfig{Input: Input{Glob: filepath.Join(good, "part-*")}, Method: "lda", Model: model}); err != nil {
		t.Fatal(err)
	}
	// Every shard with two features swapped: the same header in each, not
	// the model's.
	swapped := t.TempDir()
	for _, name := range []string{"part-0.csv", "part-1.csv"} {
		b, err := os.ReadFile(filepath.Join(good, "part-0.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := swapColumns(1, 2)(strings.Split(strings.TrimSpace(string(b)), "\n"))
		if err := os.WriteFile(filepath.Join(swapped, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	cfg := TransformConfig{Input: Input{Glob: filepath.Join(swapped, "part-*")}, Model: model, Output: out}
	if _, err := TransformPipeline(ctx, cfg); err == nil || !strings.Contains(err.Error(), "the columns are in another order than at the fit") || !strings.Contains(err.Error(), "--ignore-names") {
		t.Errorf("swapped columns: error %v", err)
	}
	cfg.IgnoreNames = true
	if _, err := TransformPipeline(ctx, cfg); err != nil {
		t.Errorf("swapped columns with IgnoreNames: %v", err)
	}
	over := TransformConfig{Input: Input{Glob: filepath.Join(good, "part-0.csv")}, Model: model, Output: good}
	if _, err := TransformPipeline(ctx, over); err == nil || !strings.Contains(err.Error(), "output "+filepath.Join(good, "part-0.csv")+" (of shard "+filepath.Join(good, "part-0.csv")+") is the shard") {
		t.Errorf("output over the shards: error %v", err)
	}
	dl := TransformConfig{Input: Input{Glob: filepath.Join(good, "part-*")}, Model: model, Output: out, DeadLetter: filepath.Join(out, "part-0.csv")}
	if _, err := TransformPipeline(ctx, dl); err == nil || !strings.Contains(err.Error(), "is the dead-letter file") {
		t.Errorf("dead-letter file over an output shard: error %v", err)
	}
	// Stale: an earlier run's part-7.csv and notes.txt in the output; only
	// the first looks like an output shard.
	for _, name := range []string{"part-7.csv", "notes.txt", "part-0.csv"} {
		if err := os.WriteFile(filepath.Join(out, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale, err := TransformConfig{Input: Input{Glob: filepath.Join(good, "part-*")}, Model: model, Output: out}.Stale(ctx)
	if err != nil || !slices.Equal(stale, []string{"part-7.csv"}) {
		t.Errorf("Stale: %v, %v; want [part-7.csv]", stale, err)
	}
}

// RunCounts reports the rows a fit read and the unlabelled ones among
// them, and the rows a transform wrote.
func TestRunCounts(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	dir := splitShards(t, src, 3, func(lines []string) []string {
		for _, i := range []int{2, 5} {
			lines[i] = lines[i][strings.IndexByte(lines[i], ','):] // empty label
		}
		return lines
	})
	ctx := context.Background()
	model := filepath.Join(t.TempDir(), "pca.json")
	p, err := FitPipeline(ctx, FitConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Method: "pca", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	c, err := RunCounts(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{Rows: 178, Unlabelled: 2, Known: true}) {
		t.Errorf("fit counts %+v, want 178 rows, 2 unlabelled", c)
	}
	// A malformed row, sent to the dead-letter file, is counted apart.
	bad := splitShards(t, src, 3, func(lines []string) []string {
		lines[4] = strings.Replace(lines[4], ",", ",abc,", 1)
		return lines
	})
	p, err = FitPipeline(ctx, FitConfig{Input: Input{Glob: filepath.Join(bad, "part-*")}, Method: "pca", Model: filepath.Join(t.TempDir(), "m.json"), DeadLetter: filepath.Join(t.TempDir(), "bad.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = RunCounts(ctx, p); err != nil || c != (Counts{Rows: 177, Bad: 1, Known: true}) {
		t.Errorf("fit with a malformed row: counts %+v, %v; want 177 rows, 1 bad", c, err)
	}
	p, err = TransformPipeline(ctx, TransformConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Model: model, Output: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = RunCounts(ctx, p); err != nil || c != (Counts{Rows: 178, Known: true}) {
		t.Errorf("transform counts %+v, %v; want 178 rows", c, err)
	}
}

// A model fitted from a statistics file (FitStatsFile) is the model the
// pipeline fits from the same statistics: PCA written with Stats, then
// PCA at 3 dimensions and LDA from the file, against the pipeline's fits.
func TestFitStatsFile(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	dir := splitShards(t, src, 3, nil)
	out := t.TempDir()
	statsPath := filepath.Join(out, "wine.stats")
	ctx := context.Background()
	in := Input{Glob: filepath.Join(dir, "part-*")}
	if err := runFit(t, FitConfig{Input: in, Method: "pca", Model: filepath.Join(out, "pca.json"), Stats: statsPath}); err != nil {
		t.Fatal(err)
	}
	x := mustLoad(t, src).X
	for _, tc := range []struct {
		method string
		dims   int
	}{{"pca", 3}, {"lda", 0}} {
		direct := filepath.Join(out, tc.method+"-direct.json")
		if err := runFit(t, FitConfig{Input: in, Method: tc.method, Dims: tc.dims, Model: direct}); err != nil {
			t.Fatal(err)
		}
		fromFile := filepath.Join(out, tc.method+"-stats.json")
		if err := FitStatsFile(ctx, FitConfig{Method: tc.method, Dims: tc.dims, Model: fromFile}, statsPath); err != nil {
			t.Fatal(err)
		}
		checkModel(t, tc.method+" from the statistics file", fromFile, loadModelFile(t, direct), x, 0)
	}
	if err := FitStatsFile(ctx, FitConfig{Method: "kqmi", Params: map[string]string{"space": "nystrom", "sigma": "1"}, Model: filepath.Join(out, "k.json")}, statsPath); err == nil || !strings.Contains(err.Error(), "fit it from the shards") {
		t.Errorf("kqmi with space=nystrom from a statistics file: error %v", err)
	}
	if err := FitStatsFile(ctx, FitConfig{Method: "pca", Model: statsPath}, statsPath); err == nil || !strings.Contains(err.Error(), "is the statistics file") {
		t.Errorf("model over the statistics file: error %v", err)
	}
}

// A transform reads text labels by the classes a model names (a model of
// dimred fit on rows labelled setosa, …), without --classes, and writes
// them back by name.
func TestTransformTextLabelsByModelClasses(t *testing.T) {
	ds := mustLoad(t, testdata.Path(t, "data/sklearn/iris.csv"))
	names := []string{"setosa", "versicolor", "virginica"}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("label,a,b,c,d\n")
	for i := range ds.Y {
		b.WriteString(names[ds.Y[i]])
		for _, v := range ds.X.RawRowView(i) {
			b.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteString("\n")
	}
	src := filepath.Join(dir, "iris.csv")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "lda.json")
	f, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := method.PipelineSpec{Method: "lda", Scale: "none"}.Fit(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if err := pipe.Save(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "z")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := TransformPipeline(context.Background(), TransformConfig{Input: Input{Glob: src}, Model: model, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), p); err != nil {
		t.Fatalf("text labels without Classes: %v", err)
	}
	z, err := data.Load(filepath.Join(out, "iris.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(z.ClassNames, text.ClassNames) || !slices.Equal(z.Y, text.Y) {
		t.Errorf("labels written back: classes %v, want %v (and the same labels)", z.ClassNames, text.ClassNames)
	}
}
