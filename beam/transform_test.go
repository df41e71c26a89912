package dimredbeam

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

func runTransform(t *testing.T, cfg TransformConfig) error {
	t.Helper()
	p, err := TransformPipeline(context.Background(), cfg)
	if err != nil {
		return err
	}
	return Run(context.Background(), p)
}

// readOutputs reads the k output shards part-0.csv … in dir and returns
// their rows in order.
func readOutputs(t *testing.T, dir string, k int) *mat.Dense {
	t.Helper()
	var rows []float64
	cols := 0
	for i := 0; i < k; i++ {
		ds, err := data.Load(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, c := ds.X.Dims()
		cols = c
		for j := 0; j < r; j++ {
			rows = append(rows, ds.X.RawRowView(j)...)
		}
	}
	return mat.NewDense(len(rows)/cols, cols, rows)
}

// A model fitted in memory with preprocessing (z-scores), saved as dimred
// fit saves it, applied by the transform pipeline to the sharded digits:
// one output shard per input shard, the embedding of every row equal to
// the in-memory transform's (shortest round-trip text: exactly), in order,
// with the labels; the first dims only with Dims.
func TestTransformEqualsInMemory(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/digits.csv")
	ds, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := preprocess.Parse("zscore")
	if err != nil {
		t.Fatal(err)
	}
	fp, err := pipe.Fit(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	xs, err := fp.Apply(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := method.LDA{}.Fit(xs, ds.Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := preprocess.MarshalFitted(fp)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	modelPath := filepath.Join(out, "lda.json")
	var buf bytes.Buffer
	if err := method.Save(&buf, method.File{Method: "lda", Preprocess: pre}, fitted.(*method.Fitted)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(modelPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	zw, err := fitted.Transform(xs)
	if err != nil {
		t.Fatal(err)
	}

	dir := splitShards(t, src, 4, nil)
	for _, dims := range []int{0, 3} {
		cfg := TransformConfig{Input: Input{Glob: filepath.Join(dir, "part-*"), Chunk: 50}, Model: modelPath, Output: filepath.Join(out, fmt.Sprint("z", dims)), Dims: dims}
		if err := os.Mkdir(cfg.Output, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runTransform(t, cfg); err != nil {
			t.Fatal(err)
		}
		z := readOutputs(t, cfg.Output, 4)
		want := zw
		if dims > 0 {
			want = mat.DenseCopyOf(zw.Slice(0, ds.X.RawMatrix().Rows, 0, dims))
		}
		if !mat.Equal(z, want) {
			t.Errorf("dims %d: the output shards differ from the in-memory transform by %.3g (relative)", dims, relDiff(z, want))
		}
		// Labels come through in order.
		var labels []int
		for i := 0; i < 4; i++ {
			o, err := data.Load(filepath.Join(cfg.Output, fmt.Sprintf("part-%d.csv", i)), data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range o.Y {
				labels = append(labels, c)
			}
		}
		if !slices.Equal(labels, ds.Y) {
			t.Errorf("dims %d: the output labels are not the input labels", dims)
		}
	}

	// Bad configurations are refused before anything runs.
	for _, tc := range []struct {
		cfg  TransformConfig
		want string
	}{
		{TransformConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Model: modelPath, Output: out, Dims: 99}, "dims 99: the model"},
		{TransformConfig{Input: Input{Glob: filepath.Join(dir, "nothing-*")}, Model: modelPath, Output: out}, "no file matches"},
		{TransformConfig{Input: Input{Glob: filepath.Join(dir, "part-*")}, Model: filepath.Join(out, "absent.json"), Output: out}, "absent.json"},
	} {
		if _, err := TransformPipeline(context.Background(), tc.cfg); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// A LIBSVM shard whose last feature is zero in every row is read at the
// model's width, as 'dimred transform' reads it (it failed with "has 3
// features, the model was fitted on 4").
func TestTransformLIBSVMShardAtModelWidth(t *testing.T) {
	x, y := testdata.Sklearn(t, "iris")
	x = mat.DenseCopyOf(x)
	var b bytes.Buffer
	for i := range y {
		x.Set(i, 3, 0)
		fmt.Fprintf(&b, "%d 1:%v 2:%v 3:%v\n", y[i], x.At(i, 0), x.At(i, 1), x.At(i, 2))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.libsvm"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fitted, err := method.PCA{}.Fit(x, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := method.Save(&buf, method.File{Method: "pca"}, fitted.(*method.Fitted)); err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "pca.json")
	if err := os.WriteFile(modelPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runTransform(t, TransformConfig{Input: Input{Glob: filepath.Join(dir, "s.libsvm")}, Model: modelPath, Output: out}); err != nil {
		t.Fatal(err)
	}
	got, err := data.Load(filepath.Join(out, "s.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fitted.Transform(x)
	if !mat.EqualApprox(got.X, want, 1e-12) {
		t.Errorf("the LIBSVM shard's embedding differs from the in-memory one by %.3g", relDiff(got.X, want))
	}
}

// A model fitted on zero-based LIBSVM shards records it
// (method.Pipeline.LIBSVMZeroBased), and a transform reads zero-based
// shards without an index 0 zero-based, without being told: a user test
// found them read one-based, every feature a column off, by dimred.
func TestTransformZeroBasedLIBSVMModel(t *testing.T) {
	x, y := testdata.Sklearn(t, "iris")
	x = mat.DenseCopyOf(x)
	var b bytes.Buffer
	for i := range y {
		x.Set(i, 0, 0) // no index 0 in the file
		fmt.Fprintf(&b, "%d 1:%v 2:%v 3:%v\n", y[i], x.At(i, 1), x.At(i, 2), x.At(i, 3))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.libsvm"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "pca.json")
	in := Input{Glob: filepath.Join(dir, "s.libsvm"), Options: data.Options{ZeroBased: true, NumFeatures: 4}}
	pipe := fitPipeline(t, FitConfig{Input: in, Method: "pca", Model: modelPath})
	if !pipe.LIBSVMZeroBased {
		t.Fatal("the model does not record zero-based shards")
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runTransform(t, TransformConfig{Input: Input{Glob: filepath.Join(dir, "s.libsvm")}, Model: modelPath, Output: out}); err != nil {
		t.Fatal(err)
	}
	got, err := data.Load(filepath.Join(out, "s.csv"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := pipe.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(got.X, want, 1e-12) {
		t.Errorf("the zero-based shard's embedding differs from the in-memory one by %.3g", relDiff(got.X, want))
	}
}

// Shards whose header says "Column indices are zero-based" (scikit-learn's
// dump_svmlight_file with a comment) make a model that records a
// zero-based training file, as 'dimred fit' does, so a shard of new rows
// without a header and without an index 0 is read zero-based; one whose
// header says one-based is read one-based (the review: Beam's fit did not
// record the header's base, and the model's base overruled a one-based
// header).
func TestFitZeroBasedHeaderRecorded(t *testing.T) {
	x, y := testdata.Sklearn(t, "iris")
	x = mat.DenseCopyOf(x)
	var train, test, oneBased bytes.Buffer
	train.WriteString("# Generated by dump_svmlight_file from scikit-learn 1.5.2\n# Column indices are zero-based\n#\n")
	oneBased.WriteString("# Generated by dump_svmlight_file from scikit-learn 1.5.2\n# Column indices are one-based\n#\n")
	for i := range y {
		fmt.Fprintf(&train, "%d 0:%v 1:%v 2:%v 3:%v\n", y[i], x.At(i, 0), x.At(i, 1), x.At(i, 2), x.At(i, 3))
	}
	x0 := mat.DenseCopyOf(x) // first feature zero: no index 0 in the test shard
	x3 := mat.DenseCopyOf(x) // last feature zero: no index 4 in the one-based shard
	for i := range y {
		x0.Set(i, 0, 0)
		x3.Set(i, 3, 0)
		fmt.Fprintf(&test, "%d 1:%v 2:%v 3:%v\n", y[i], x.At(i, 1), x.At(i, 2), x.At(i, 3))
		fmt.Fprintf(&oneBased, "%d 1:%v 2:%v 3:%v\n", y[i], x.At(i, 0), x.At(i, 1), x.At(i, 2))
	}
	dir := t.TempDir()
	for name, b := range map[string]*bytes.Buffer{"train.libsvm": &train, "test.libsvm": &test, "one.libsvm": &oneBased} {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modelPath := filepath.Join(dir, "pca.json")
	pipe := fitPipeline(t, FitConfig{Input: Input{Glob: filepath.Join(dir, "train.libsvm")}, Method: "pca", Model: modelPath})
	if !pipe.LIBSVMZeroBased {
		t.Fatal("header-declared zero-based shards are not recorded")
	}
	for _, c := range []struct {
		shard string
		rows  *mat.Dense
	}{{"test", x0}, {"one", x3}} {
		out := filepath.Join(dir, "out-"+c.shard)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runTransform(t, TransformConfig{Input: Input{Glob: filepath.Join(dir, c.shard+".libsvm")}, Model: modelPath, Output: out}); err != nil {
			t.Fatal(err)
		}
		got, err := data.Load(filepath.Join(out, c.shard+".csv"), data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := pipe.Transform(c.rows)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got.X, want, 1e-12) {
			t.Errorf("%s shard: embedding off by %.3g relative", c.shard, relDiff(got.X, want))
		}
	}
}
