package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"gonum.org/v1/gonum/mat"
)

// transform writes by extension (.csv, .tsv, .npy, .npz, .mat, any of them
// .gz; - for stdout) and reads -i - from stdin; the model written by fit loads in
// the library and maps rows the same way.
func TestTransformOutputs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	if st, _, errs := run(t, "fit", "-m", "gda", "-i", "builtin:iris", "-o", model); st != 0 {
		t.Fatal(errs)
	}
	_, stdout, _ := run(t, "transform", "--model", model, "-i", "builtin:iris")
	want := readCSVFloats(t, write(t, "stdout.csv", stdout))
	for _, name := range []string{"z.csv", "z.tsv", "z.csv.gz", "z.tsv.gz", "z.npy", "z.npy.gz", "z.npz", "z.npz.gz", "z.mat", "z.mat.gz"} {
		out := filepath.Join(dir, name)
		if st, _, errs := run(t, "transform", "--model", model, "-i", "builtin:iris", "-o", out); st != 0 {
			t.Fatalf("%s: %s", name, errs)
		}
		var got [][]float64
		if strings.Contains(name, ".npy") {
			x, err := data.Load(out, data.Options{NoLabels: true})
			if err != nil {
				t.Fatal(err)
			}
			r, c := x.Dims()
			for i := 0; i < r; i++ {
				got = append(got, append([]float64{want[i][0]}, x.X.RawRowView(i)[:c]...))
			}
		} else {
			opt := data.Options{} // .npz: X and y; .mat: fea and gnd
			if strings.Contains(name, ".csv") || strings.Contains(name, ".tsv") {
				opt = data.Options{LabelColumn: "label"}
			}
			ds, err := data.Load(out, opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ds.Y {
				got = append(got, append([]float64{float64(ds.Y[i])}, ds.X.RawRowView(i)...))
			}
		}
		if len(got) != len(want) || got[7][2] != want[7][2] || got[149][1] != want[149][1] || got[60][0] != want[60][0] {
			t.Errorf("%s: content differs from the stdout CSV", name)
		}
	}
	// The .npz and .mat outputs (arrays X and y; fea and gnd) are data
	// for the next command.
	for _, name := range []string{"z.npz", "z.mat"} {
		if st, _, errs := run(t, "fit", "-m", "lda", "-i", filepath.Join(dir, name), "-o", filepath.Join(dir, "lda.json")); st != 0 {
			t.Errorf("fit on transform's %s: %s", name, errs)
		}
	}
	// -i - reads CSV from stdin.
	var csvIn bytes.Buffer
	ds := datasets.Iris()
	if err := data.WriteCSV(&csvIn, ds); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csvIn.Bytes())
	zw.Close()
	for _, in := range [][]byte{csvIn.Bytes(), gz.Bytes()} {
		var out, errb bytes.Buffer
		if st := Do([]string{"transform", "--model", model, "-i", "-", "-o", "-"}, bytes.NewReader(in), &out, &errb); st != 0 {
			t.Fatalf("-i -: %s", errb.String())
		}
		if out.String() != stdout {
			t.Error("-i - gives a different embedding")
		}
	}
	// The library loads the CLI's model with its preprocessing.
	mf, _ := os.Open(model)
	defer mf.Close()
	p, err := method.LoadPipeline(mf)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := p.Transform(ds.X)
	if z.At(7, 1) != want[7][2] {
		t.Errorf("library transform %v, CLI %v", z.At(7, 1), want[7][2])
	}
	if st, _, errs := run(t, "transform", "--model", model, "-i", "builtin:iris", "-o", filepath.Join(dir, "z.xlsx")); st != 2 || !strings.Contains(errs, ".csv, .tsv, .npy, .npz, .mat or .libsvm") {
		t.Errorf("unknown extension: status %d, %s", st, errs)
	}
}

// A failed transform or fit leaves an existing output file as it was, and
// no temporary file behind.
func TestFailedRunKeepsExistingOutput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", "builtin:iris", "-o", model); st != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "z.csv")
	os.WriteFile(out, []byte("precious\n"), 0o644)
	if st, _, _ := run(t, "transform", "--model", model, "-i", "builtin:wine", "-o", out); st != 1 {
		t.Errorf("mismatched features: status %d", st)
	}
	if st, _, _ := run(t, "fit", "-m", "lda", "-i", write(t, "one.csv", "a,label\n1,x\n2,x\n"), "-o", model+"x"); st == 0 {
		t.Error("one-class fit succeeded")
	}
	b, _ := os.ReadFile(out)
	if string(b) != "precious\n" {
		t.Errorf("existing output changed to %q", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// fit -o - writes the model (only) to stdout, its status line to stderr.
func TestFitToStdout(t *testing.T) {
	st, out, errs := run(t, "fit", "-m", "lda", "-i", "builtin:iris", "-o", "-")
	if st != 0 || !strings.Contains(errs, "model written to -") {
		t.Fatalf("status %d, stderr %q", st, errs)
	}
	p, err := method.LoadPipeline(strings.NewReader(out))
	if err != nil || p.Method != "lda" {
		t.Errorf("stdout is not the model: %v", err)
	}
}

// fit names the kernel with the width the fit chose (sigma=auto resolved).
func TestFitNamesResolvedKernel(t *testing.T) {
	st, out, errs := run(t, "fit", "-m", "gda", "-i", "builtin:iris", "-o", filepath.Join(t.TempDir(), "m.json"))
	if st != 0 || !strings.Contains(out, "kernel rbf(sigma=") || strings.Contains(out, "auto") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errs)
	}
}

// eval --plot draws the error curves, transform --plot the embedding and
// cluster --plot the clusters, as PNG files of the default size; a path that cannot be written (an
// unknown extension, a missing directory, an input file) or a flag that
// cannot be combined with it is refused before any work.
func TestPlotFlags(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "lda.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", "builtin:iris", "-o", model); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	curves, emb, clusters := filepath.Join(dir, "curves.png"), filepath.Join(dir, "z.png"), filepath.Join(dir, "clusters.png")
	if st, _, errs := run(t, "eval", "-i", "builtin:iris", "-m", "pca,lda", "-c", "ncc", "--cv", "3", "--repeats", "2", "--plot", curves); st != 0 {
		t.Fatalf("eval --plot: status %d: %s", st, errs)
	}
	if st, _, errs := run(t, "transform", "--model", model, "-i", "builtin:iris", "-o", filepath.Join(dir, "z.csv"), "--plot", emb); st != 0 {
		t.Fatalf("transform --plot: status %d: %s", st, errs)
	}
	if st, _, errs := run(t, "cluster", "-i", "builtin:iris", "--runs", "2", "--plot", clusters); st != 0 {
		t.Fatalf("cluster --plot: status %d: %s", st, errs)
	}
	for _, p := range []string{curves, emb, clusters} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != plot.DefaultWidth || cfg.Height != plot.DefaultHeight {
			t.Errorf("%s: %v, %d×%d", p, err, cfg.Width, cfg.Height)
		}
	}
	svgInput := filepath.Join(dir, "rows.svg") // CSV rows under a plot's name
	if err := os.WriteFile(svgInput, []byte("a,b,c,d,label\n1,2,3,4,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-i", "builtin:iris", "--plot", filepath.Join(dir, "c.xyz")}, `unsupported extension ".xyz"`},
		{[]string{"eval", "-i", "builtin:iris", "--plot", filepath.Join(dir, "none", "c.png")}, "does not exist"},
		{[]string{"eval", "-i", "builtin:iris", "--nested", "--plot", curves}, "without --nested"},
		{[]string{"transform", "--model", model, "-i", "builtin:iris", "--stream", "--plot", emb}, "--stream"},
		{[]string{"cluster", "-i", "builtin:iris", "--plot", filepath.Join(dir, "c.txt")}, `unsupported extension ".txt"`},
		{[]string{"transform", "--model", model, "-i", svgInput, "--format-in", "csv", "--plot", svgInput}, "is an input file"},
	} {
		if st, _, errs := run(t, c.args...); st != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, %q; want 2 and %q", c.args, st, errs, c.want)
		}
	}
}

// transform maps more than transformChunk rows a chunk at a time: the
// output equals the library's transform of all rows at once bit for bit,
// progress is reported from 2 000 rows on, and an error in a later chunk
// names the row by its number in the file.
func TestTransformInChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,c,label\n")
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, "%d,%d,%g,%d\n", i%37, (i*7)%41, float64(i%13)/7, i%3)
	}
	in := write(t, "rows.csv", b.String())
	dir := t.TempDir()
	for _, m := range []string{"gda", "lda"} {
		model := filepath.Join(dir, m+".json")
		if st, _, errs := run(t, "fit", "-m", m, "-i", in, "-o", model); st != 0 {
			t.Fatal(errs)
		}
		out := filepath.Join(dir, m+".npy")
		st, _, errs := run(t, "transform", "--model", model, "-i", in, "-o", out)
		if st != 0 {
			t.Fatal(errs)
		}
		if !strings.Contains(errs, "transform: 1000/2500 rows mapped") || !strings.Contains(errs, "transform: 2500/2500 rows mapped") {
			t.Errorf("%s: progress %q", m, errs)
		}
		got, err := data.Load(out, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ds, err := data.Load(in, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mf, _ := os.Open(model)
		p, err := method.LoadPipeline(mf)
		mf.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Transform(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		// Bit for bit in the pure-Go build; the openblas build's dgemm sums
		// in an order that depends on the chunk's shape (sameOutput).
		if tol := 0.0; linalg.Backend() == "openblas" {
			tol = 1e-12 * mat.Norm(want, math.Inf(1))
			if !mat.EqualApprox(got.X, want, tol) {
				t.Errorf("%s: the chunked transform differs from the whole one beyond %g", m, tol)
			}
		} else if !mat.Equal(got.X, want) {
			t.Errorf("%s: the chunked transform differs from the whole one", m)
		}
	}
	// Row 2100 far outside the training range: its number in the file.
	lines := strings.Split(b.String(), "\n")
	lines[2100] = "1e308,0,0,0"
	bad := write(t, "bad.csv", strings.Join(lines, "\n"))
	st, _, errs := run(t, "transform", "--model", filepath.Join(dir, "gda.json"), "-i", bad, "-o", filepath.Join(dir, "bad.npy"))
	if st != 1 || !strings.Contains(errs, "row 2100, column 1: the value 1e+308 leaves the floating-point range") {
		t.Errorf("status %d, %s", st, errs)
	}
}

// A model written before np.savetxt's "# " header mark was stripped
// recorded its first feature as "# a"; it still transforms its own
// training file, streamed or not (the review: such models refused it
// as "column 1 is \"a\", but the model was fitted with \"# a\"").
func TestOldSavetxtModelName(t *testing.T) {
	dir := t.TempDir()
	f := write(t, "sv.csv", "# a,b,label\n1,2,0\n2,1,1\n3,5,0\n4,3,1\n5,6.5,0\n6,4,1\n")
	model := filepath.Join(dir, "m.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", f, "-o", model); st != 0 {
		t.Fatal(errs)
	}
	p, err := loadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if p.FeatureNames[0] != "a" {
		t.Fatalf("feature names %q, want the first as a", p.FeatureNames)
	}
	p.FeatureNames[0] = "# a" // what 62af02b and earlier recorded
	if err := data.WriteFile(model, p.Save); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--stream"}} {
		args := append([]string{"transform", "--model", model, "-i", f, "-o", filepath.Join(dir, "z.csv")}, extra...)
		if st, _, errs := run(t, args...); st != 0 {
			t.Errorf("transform %v: status %d, %s", extra, st, errs)
		}
	}
	// Another first name is still refused.
	g := write(t, "sv2.csv", "# c,b,label\n1,2,0\n2,1,1\n")
	if st, _, errs := run(t, "transform", "--model", model, "-i", g, "-o", filepath.Join(dir, "z.csv")); st == 0 || !strings.Contains(errs, `column 1 is "c"`) {
		t.Errorf("other first column: status %d, %s", st, errs)
	}
}
