package dimredbeam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
)

// npyShards writes the rows of ds as k .npy shards x-0.npy … (contiguous
// row ranges, in order) with their labels beside them, y-0.npy … as .npy
// vectors of int64, except shard 1's, which is text (y-1.txt.gz, its
// first row unlabelled when unlabel is set). It returns the directory.
func npyShards(t *testing.T, ds *data.Dataset, k int, unlabel bool) string {
	t.Helper()
	dir := t.TempDir()
	n, _ := ds.X.Dims()
	for i := 0; i < k; i++ {
		lo, hi := i*n/k, (i+1)*n/k
		x := ds.X.Slice(lo, hi, 0, ds.X.RawMatrix().Cols)
		if err := data.WriteNPY(filepath.Join(dir, fmt.Sprintf("x-%d.npy", i)), mat.DenseCopyOf(x)); err != nil {
			t.Fatal(err)
		}
		var err error
		if i == 1 {
			lines := make([]string, hi-lo)
			for j := range lines {
				lines[j] = strconv.Itoa(ds.Y[lo+j])
			}
			if unlabel {
				lines[0] = "?"
			}
			err = data.WriteFile(filepath.Join(dir, "y-1.txt.gz"), func(w io.Writer) error {
				_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
				return err
			})
		} else {
			err = data.WriteLabelsNPY(filepath.Join(dir, fmt.Sprintf("y-%d.npy", i)), ds.Y[lo:hi])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// .npy shards with their labels in files beside them (Input.Labels) fit
// as CSV shards do: the merged statistics are those of the whole table,
// LDA's model the in-memory one, and the transform's outputs carry the
// labels. Shard 2 of 3 holds no row of some classes, so Load's numbering
// of its labels alone would differ; Scan's (class index) is used.
func TestNPYShardsWithLabels(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	ds, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ds.Y[118:], 0) {
		t.Fatal("wine's last rows were expected to lack class 0")
	}
	dir := npyShards(t, ds, 3, false)
	out := t.TempDir()
	in := Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*"), Chunk: 41}
	model, statsPath := filepath.Join(out, "lda.json"), filepath.Join(out, "lda.drsm")
	if err := runFit(t, FitConfig{Input: in, Method: "lda", Model: model, Stats: statsPath}); err != nil {
		t.Fatal(err)
	}
	checkStats(t, "lda on .npy shards", statsPath, ds.X, ds.Y)
	want, err := method.LDA{}.Fit(ds.X, ds.Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, "lda on .npy shards", model, want, ds.X, 1e-9)

	tdir := filepath.Join(out, "z")
	if err := os.Mkdir(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runTransform(t, TransformConfig{Input: in, Model: model, Output: tdir}); err != nil {
		t.Fatal(err)
	}
	var labels []int
	for i := 0; i < 3; i++ {
		z, err := data.Load(filepath.Join(tdir, fmt.Sprintf("x-%d.csv", i)), data.Options{Classes: []string{"0", "1", "2"}})
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, z.Y...)
	}
	if !slices.Equal(labels, ds.Y) {
		t.Errorf("transform outputs' labels differ from the data's")
	}

	// The same transform to .npy outputs: the CSV outputs' values (the
	// shortest text that reads back as the same float64: exactly), and
	// the labels in text files beside them.
	ndir := filepath.Join(out, "n")
	if err := os.Mkdir(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runTransform(t, TransformConfig{Input: in, Model: model, Output: ndir, Format: "npy"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		csv, err := data.Load(filepath.Join(tdir, fmt.Sprintf("x-%d.csv", i)), data.Options{Classes: []string{"0", "1", "2"}})
		if err != nil {
			t.Fatal(err)
		}
		npyPath := filepath.Join(ndir, fmt.Sprintf("x-%d.npy", i))
		z, err := data.Load(npyPath, data.Options{LabelsFile: LabelsName(npyPath), Classes: []string{"0", "1", "2"}})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(z.X, csv.X) || !slices.Equal(z.Y, csv.Y) {
			t.Errorf("shard %d: the .npy output and its labels differ from the CSV output", i)
		}
	}
	if _, err := TransformPipeline(context.Background(), TransformConfig{Input: in, Model: model, Output: ndir, Format: "parquet"}); err == nil || !strings.Contains(err.Error(), `output format "parquet"`) {
		t.Errorf("unknown output format: %v", err)
	}
	// Again into the same directory, the rows read without labels: the
	// old labels files go, and no temporary file is left.
	unlabelled := Input{Glob: in.Glob, Chunk: in.Chunk, Options: data.Options{NoLabels: true}}
	if err := runTransform(t, TransformConfig{Input: unlabelled, Model: model, Output: ndir, Format: "npy"}); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(ndir, "*"))
	if want := []string{"x-0.npy", "x-1.npy", "x-2.npy"}; len(left) != 3 || filepath.Base(left[0]) != want[0] || filepath.Base(left[2]) != want[2] {
		t.Errorf("files after the unlabelled run: %q, want %q", left, want)
	}
}

// writeAtomic replaces a local file only once everything is written: a
// write that fails leaves the old file whole and no temporary file.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.json")
	ctx := context.Background()
	if err := writeFile(ctx, p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	err := writeAtomic(ctx, p, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return errors.New("disk full")
	})
	if b, _ := os.ReadFile(p); err == nil || err.Error() != "disk full" || string(b) != "old" {
		t.Errorf("failed write: %v, file %q", err, b)
	}
	if err := writeFile(ctx, p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("file %q after the write", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("files left: %q", left)
	}
}

// The pairing of shards and labels files is checked before anything runs,
// and a labels file that does not fit its shard fails the run naming it.
func TestNPYShardLabelsErrors(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	ds, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := npyShards(t, ds, 3, false)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"too few labels files", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*.npy")}, "2 files for the 3 shards"},
		{"labels among the shards", Input{Glob: filepath.Join(dir, "x-[01].npy"), Labels: filepath.Join(dir, "x-[12].npy")}, "is also matched by the shards' glob"},
		{"no labels file", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "none-*")}, "0 files for the 3 shards"},
		{"labels and no-labels", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*"), Options: data.Options{NoLabels: true}}, "given with Options.NoLabels"},
		{"labels and a labels file", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*"), Options: data.Options{LabelsFile: "y.npy"}}, "given with Options.LabelsFile"},
		{"labels with CSV shards", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*"), Options: data.Options{Format: "csv"}}, "go with .npy shards; shard"},
		{"wildcards matching other texts", Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y*")}, "no labels file for shard"},
	} {
		_, err := c.in.Match(ctx)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	// A labels file whose count is not its shard's fails the run naming it.
	os.Rename(filepath.Join(dir, "y-2.npy"), filepath.Join(dir, "y-2.bak"))
	os.Rename(filepath.Join(dir, "y-0.npy"), filepath.Join(dir, "y-2.npy"))
	os.Rename(filepath.Join(dir, "y-2.bak"), filepath.Join(dir, "y-0.npy"))
	err = runFit(t, FitConfig{Input: Input{Glob: filepath.Join(dir, "x-*.npy"), Labels: filepath.Join(dir, "y-*")}, Method: "lda", Model: filepath.Join(t.TempDir(), "m.json")})
	if err == nil || !strings.Contains(err.Error(), "labels for") || !strings.Contains(err.Error(), filepath.Join(dir, "y-0.npy")) && !strings.Contains(err.Error(), filepath.Join(dir, "y-2.npy")) {
		t.Errorf("labels of another shard's length: %v", err)
	}
}

// A shard's labels file is the one whose wildcards match the same texts,
// whatever the files' sorted order.
func TestPairByWildcards(t *testing.T) {
	for _, c := range []struct {
		shardGlob, labelsGlob string
		shards, labels, want  []string
	}{
		{"d/x-*.npy", "d/y-*.npy", []string{"d/x-0.npy", "d/x-1.npy"}, []string{"d/y-0.npy", "d/y-1.npy"}, []string{"d/y-0.npy", "d/y-1.npy"}},
		// Sorted order would swap these ('.' < '0' < '_').
		{"a*.npy", "a*_y.txt", []string{"a.npy", "a0.npy"}, []string{"a0_y.txt", "a_y.txt"}, []string{"a_y.txt", "a0_y.txt"}},
		{"part-*/x.npy", "labels/part-*.txt.gz", []string{"part-10/x.npy", "part-9/x.npy"}, []string{"labels/part-10.txt.gz", "labels/part-9.txt.gz"}, []string{"labels/part-10.txt.gz", "labels/part-9.txt.gz"}},
		{"x-?[0-9].npy", "y-?[0-9].npy", []string{"x-a1.npy", "x-b1.npy"}, []string{"y-b1.npy", "y-a1.npy"}, []string{"y-a1.npy", "y-b1.npy"}},
		{"gs://b/**/x.npy", "gs://b/**/y.npy", []string{"gs://b/p/q/x.npy", "gs://b/r/x.npy"}, []string{"gs://b/r/y.npy", "gs://b/p/q/y.npy"}, []string{"gs://b/p/q/y.npy", "gs://b/r/y.npy"}},
		{`x\*-*.npy`, "y-*.npy", []string{"x*-1.npy"}, []string{"y-1.npy"}, []string{"y-1.npy"}},
		{"x-*.npy", "y-*", []string{"x-1.npy", "x-2.npy"}, []string{"y-1.txt.gz", "y-2.npy"}, []string{"y-1.txt.gz", "y-2.npy"}},
		// Listed paths are cleaned (./d/y-*.npy lists d/y-1.npy); names
		// with dots, non-ASCII names, character classes with ! and ].
		{"./d/x-*.npy", "d//y-*", []string{"d/x-1.5.npy", "d/x-1.npy"}, []string{"d/y-1.npy", "d/y-1.5.npy"}, []string{"d/y-1.5.npy", "d/y-1.npy"}},
		{"données/x-*.npy", "données/é-*.txt", []string{"données/x-ü.npy"}, []string{"données/é-ü.txt"}, []string{"données/é-ü.txt"}},
		{"x-[!a]*.npy", "y-[]a]*.npy", []string{"x-b1.npy", "x-]2.npy"}, []string{"y-]2.npy", "y-b1.npy"}, []string{"y-b1.npy", "y-]2.npy"}},
	} {
		got, err := pairByWildcards(c.shardGlob, c.shards, c.labelsGlob, c.labels)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s with %s: %q, %v; want %q", c.shardGlob, c.labelsGlob, got, err, c.want)
		}
	}
	if _, err := pairByWildcards("x-*.npy", []string{"x-1.npy"}, "y-*.npy", []string{"y-2.npy"}); err == nil || !strings.Contains(err.Error(), `no labels file for shard x-1.npy`) {
		t.Errorf("no pair: %v", err)
	}
	if _, err := pairByWildcards("x-*.npy", []string{"x-1.npy", "x-2.npy"}, "y-*", []string{"y-1.npy", "y-1.txt"}); err == nil || !strings.Contains(err.Error(), `would share one labels file`) {
		t.Errorf("two labels files for one shard: %v", err)
	}
	if _, err := pairByWildcards("x-*", []string{"x-1.npy", "x-1.npy.gz"}, "y-*", []string{"y-1.npy", "y-2.npy"}); err == nil || !strings.Contains(err.Error(), `would share one labels file`) {
		t.Errorf("two shards for one labels file: %v", err)
	}
	for _, glob := range []string{"x-[", "x-[a", "x-[]"} {
		if _, err := pairByWildcards(glob, []string{"x-a"}, "y-*", []string{"y-a"}); err == nil {
			t.Errorf("glob %q: no error", glob)
		}
	}
}

// wildcardText never panics, and a glob without wildcards matches only
// itself.
func FuzzWildcardText(f *testing.F) {
	for _, s := range [][2]string{{"x-*.npy", "x-1.npy"}, {"y-[]a]*", "y-]1.txt"}, {`x\*-?`, "x*-1"}, {"a[", "a["}, {"**/x", "p/q/x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, p string) {
		text, ok := wildcardText(glob, p)
		if ok && len(text) > len(p) {
			t.Fatalf("%q in %q: text %q longer than the path", glob, p, text)
		}
		literal := glob
		if !strings.Contains(glob, "://") {
			literal = filepath.Clean(glob) // as a local listing cleans
		}
		if !strings.ContainsAny(glob, "*?[\\") && ok != (p == literal) {
			t.Fatalf("literal glob %q, path %q: ok %v", glob, p, ok)
		}
	})
}
