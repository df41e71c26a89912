package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/method"
	"gonum.org/v1/gonum/mat"
)

// sameOutput reports whether two transform outputs agree: byte for byte
// in the pure-Go build, whose products give a row the same bits whatever
// the other rows of its chunk; within 1e-12 of the largest coordinate in
// the openblas build, whose dgemm sums a row in an order that depends on
// the shape of the chunk (a chunk of one row is a matrix-vector product).
// Anything but the numbers must be equal in both.
func sameOutput(t *testing.T, a, b []byte, gz bool) bool {
	t.Helper()
	if bytes.Equal(a, b) {
		return true
	}
	if linalg.Backend() != "openblas" {
		return false
	}
	text := func(x []byte) string {
		if !gz {
			return string(x)
		}
		r, err := gzip.NewReader(bytes.NewReader(x))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	fa := strings.FieldsFunc(text(a), func(r rune) bool { return r == ',' || r == '\t' || r == '\n' })
	fb := strings.FieldsFunc(text(b), func(r rune) bool { return r == ',' || r == '\t' || r == '\n' })
	if len(fa) != len(fb) {
		return false
	}
	var scale, diff float64
	for i := range fa {
		va, erra := strconv.ParseFloat(fa[i], 64)
		vb, errb := strconv.ParseFloat(fb[i], 64)
		if erra != nil || errb != nil {
			if fa[i] != fb[i] {
				return false
			}
			continue
		}
		scale = max(scale, math.Abs(va))
		diff = max(diff, math.Abs(va-vb))
	}
	return diff <= 1e-12*scale
}

// `fit --stream` fits from statistics of chunks and writes a model whose
// transform equals the in-memory fit's (1e-9 relative); a method that
// needs every row, or a preprocessing step, is refused with the reason.
func TestFitStream(t *testing.T) {
	dir, csvPath := digitsCSV(t)
	for _, m := range []string{"lda", "pca", "lqmi", "sr"} {
		streamed, whole := filepath.Join(dir, m+"-s.json"), filepath.Join(dir, m+"-w.json")
		if st, _, errs := run(t, "fit", "-m", m, "-i", csvPath, "--stream", "--chunk", "300", "-k", "5", "-o", streamed); st != 0 {
			t.Fatalf("%s --stream: status %d: %s", m, st, errs)
		}
		if st, _, errs := run(t, "fit", "-m", m, "-i", csvPath, "-k", "5", "--scale", "none", "-o", whole); st != 0 {
			t.Fatalf("%s: status %d: %s", m, st, errs)
		}
		if worst, scale := transformGap(t, csvPath, streamed, whole); worst > 1e-9*scale {
			t.Errorf("%s: streamed model differs from the in-memory one by %.3g (scale %.3g)", m, worst, scale)
		}
		// The streamed model keeps the header's feature names, as the
		// in-memory one does (the CLI audit: it kept none, so transform
		// took columns in another order without a word), and the classes.
		ps, pw := loadPipelineFile(t, streamed), loadPipelineFile(t, whole)
		if !slices.Equal(ps.FeatureNames, pw.FeatureNames) || len(ps.FeatureNames) != 64 || ps.ClassNames != nil {
			t.Errorf("%s: streamed model's names %q, classes %q; in memory %q (a scan sees class indices, not names)", m, ps.FeatureNames, ps.ClassNames, pw.FeatureNames)
		}
	}
	// A .npy file with a labels file streams too, and gives the model of
	// the same rows read whole.
	ds, err := data.Load(csvPath, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	npyPath, labelsPath := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	if err := data.WriteNPY(npyPath, ds.X); err != nil {
		t.Fatal(err)
	}
	names := make([]int, len(ds.Y))
	for i, c := range ds.Y {
		names[i], _ = strconv.Atoi(ds.ClassNames[c])
	}
	if err := data.WriteLabelsNPY(labelsPath, names); err != nil {
		t.Fatal(err)
	}
	fromNPY := filepath.Join(dir, "lda-npy.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", npyPath, "--labels", labelsPath, "--stream", "--chunk", "300", "-k", "5", "-o", fromNPY); st != 0 {
		t.Fatalf("lda --stream from .npy: status %d: %s", st, errs)
	}
	if worst, scale := transformGap(t, csvPath, fromNPY, filepath.Join(dir, "lda-w.json")); worst > 1e-9*scale {
		t.Errorf("lda from .npy: streamed model differs from the in-memory one by %.3g (scale %.3g)", worst, scale)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "lpp"}, "needs all rows in memory"},
		{[]string{"-m", "lda", "--scale", "minmax"}, "--scale none"},
		{[]string{"-m", "lda", "--chunk", "0"}, "--chunk must be"},
		{[]string{"-m", "sr", "-p", "graph=unsupervised", "-k", "2"}, "graph=unsupervised needs the nearest neighbours"},
	} {
		args := append([]string{"fit", "-i", csvPath, "--stream", "-o", filepath.Join(dir, "x.json")}, c.args...)
		st, _, errs := run(t, args...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want an error mentioning %q", c.args, st, errs, c.want)
		}
	}
}

// transformGap transforms the rows of csvPath with the models a and b and
// returns the largest difference between their coordinates and the
// largest coordinate of b (the label column, first, left out).
func transformGap(t *testing.T, csvPath, a, b string) (worst, scale float64) {
	t.Helper()
	var z [2][][]float64
	for i, model := range []string{a, b} {
		out := filepath.Join(t.TempDir(), "z.csv")
		if st, _, errs := run(t, "transform", "--model", model, "-i", csvPath, "-o", out); st != 0 {
			t.Fatalf("transform %s: %s", model, errs)
		}
		z[i] = readCSVFloats(t, out)
	}
	if len(z[0]) != len(z[1]) || len(z[0][0]) != len(z[1][0]) {
		t.Fatalf("%s gives %d×%d coordinates, %s %d×%d", a, len(z[0]), len(z[0][0]), b, len(z[1]), len(z[1][0]))
	}
	for i := range z[1] {
		for j := 1; j < len(z[1][i]); j++ {
			scale = math.Max(scale, math.Abs(z[1][i][j]))
			worst = math.Max(worst, math.Abs(z[0][i][j]-z[1][i][j]))
		}
	}
	return worst, scale
}

// `fit --stream` fits a kernel method with space=nystrom in three passes
// (method.NystromStats) and writes a model whose transform equals the
// in-memory Nyström fit's on the same landmarks (1e-10 relative to the
// largest coordinate; measured 3e-16 to 4e-12: the statistics route sums
// the features' scatter in another order); chunks that split the
// landmarks across them, and a chunk larger than the file, give the same
// model. What cannot fit this way is refused with the reason.
func TestFitStreamNystrom(t *testing.T) {
	dir, csvPath := digitsCSV(t)
	space := []string{"-p", "space=nystrom", "-p", "landmarks=150", "-p", "seed=3"}
	for _, c := range []struct {
		m      string
		params []string
	}{
		{"kpca", []string{"-p", "sigma=20"}},
		{"gda", []string{"-p", "sigma=20"}},
		{"kqmi", []string{"-p", "sigma=20"}},
		{"ksr", []string{"-p", "gamma=0.002"}},
		{"mklsr", []string{"-p", "kernels=linear;rbf:sigma=20"}},
	} {
		args := append(append([]string{"-m", c.m, "-i", csvPath, "-k", "4"}, space...), c.params...)
		whole := filepath.Join(dir, c.m+"-w.json")
		if st, _, errs := run(t, append([]string{"fit", "--scale", "none", "-o", whole}, args...)...); st != 0 {
			t.Fatalf("%s: status %d: %s", c.m, st, errs)
		}
		for _, chunk := range []string{"97", "5000"} {
			streamed := filepath.Join(dir, c.m+"-s"+chunk+".json")
			st, _, errs := run(t, append([]string{"fit", "--stream", "--chunk", chunk, "-o", streamed}, args...)...)
			if st != 0 {
				t.Fatalf("%s --stream --chunk %s: status %d: %s", c.m, chunk, st, errs)
			}
			if worst, scale := transformGap(t, csvPath, streamed, whole); worst > 1e-10*scale {
				t.Errorf("%s --chunk %s: streamed model differs from the in-memory one by %.3g (scale %.3g)", c.m, chunk, worst, scale)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "ksr"}, "space=nystrom"},
		{[]string{"-m", "kpca", "-p", "space=nystrom", "-p", "sigma=auto"}, "sigma=auto"},
		{[]string{"-m", "kpca", "-p", "space=nystrom", "-p", "sigma=20", "-p", "sampling=kmeans++", "-p", "landmarks=100"}, "needs every row in memory"},
		{[]string{"-m", "kqmi", "-p", "space=nystrom", "-p", "sigma=20", "-p", "reg=cutoff"}, "reg=cutoff"},
		{[]string{"-m", "kpca", "-p", "space=nystrom", "-p", "sigma=20", "--scale", "unit"}, "--scale none"},
	} {
		args := append([]string{"fit", "-i", csvPath, "--stream", "-o", filepath.Join(dir, "x.json")}, c.args...)
		st, _, errs := run(t, args...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want an error mentioning %q", c.args, st, errs, c.want)
		}
	}
}

// digitsCSV writes the built-in digits to a CSV file in a temporary
// directory and returns both.
func digitsCSV(t *testing.T) (dir, path string) {
	t.Helper()
	ds, err := datasets.Builtin("builtin:digits")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	path = filepath.Join(dir, "digits.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := data.WriteCSV(f, ds); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// `transform --stream` writes, chunk by chunk, the bytes transform writes
// from the whole file (CSV, TSV, gzipped, -k, standard input), for a
// linear model and a Nyström one; what it cannot do is refused.
func TestTransformStream(t *testing.T) {
	dir, csvPath := digitsCSV(t)
	models := map[string][]string{
		"lda":  {"-m", "lda", "--scale", "zscore"},
		"ksr":  {"-m", "ksr", "-p", "space=nystrom", "-p", "landmarks=100", "-p", "gamma=0.002"},
		"kpca": {"-m", "kpca", "-p", "sigma=20", "-k", "6"},
	}
	for name, args := range models {
		model := filepath.Join(dir, name+".json")
		if st, _, errs := run(t, append([]string{"fit", "-i", csvPath, "-o", model}, args...)...); st != 0 {
			t.Fatalf("fit %s: %s", name, errs)
		}
		for _, c := range []struct {
			out   string
			extra []string
		}{
			{"z.csv", []string{"--chunk", "1"}},
			{"z.csv", []string{"--chunk", "97"}},
			{"z.tsv.gz", []string{"--chunk", "5000", "-k", "3"}},
		} {
			var got [2][]byte
			for i, mode := range [][]string{nil, {"--stream"}} {
				out := filepath.Join(t.TempDir(), c.out)
				args := append(append([]string{"transform", "--model", model, "-i", csvPath, "-o", out}, mode...), c.extra...)
				if st, _, errs := run(t, args...); st != 0 {
					t.Fatalf("%v: status %d: %s", args, st, errs)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = b
			}
			if !sameOutput(t, got[0], got[1], strings.HasSuffix(c.out, ".gz")) {
				t.Errorf("%s %v: --stream wrote %d bytes that differ from transform's %d", name, c.extra, len(got[1]), len(got[0]))
			}
		}
	}
	// A .npy output streamed holds the array transform writes (its header
	// padded otherwise), whatever the chunk.
	model := filepath.Join(dir, "lda.json")
	whole := filepath.Join(dir, "whole.npy")
	if st, _, errs := run(t, "transform", "--model", model, "-i", csvPath, "-o", whole); st != 0 {
		t.Fatal(errs)
	}
	want, err := data.Load(whole, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []string{"1", "64", "5000"} {
		streamed := filepath.Join(dir, "streamed.npy")
		if st, _, errs := run(t, "transform", "--model", model, "-i", csvPath, "--stream", "--chunk", chunk, "-o", streamed); st != 0 {
			t.Fatal(errs)
		}
		got, err := data.Load(streamed, data.Options{})
		if err != nil {
			t.Fatalf("chunks of %s: %v", chunk, err)
		}
		if linalg.Backend() == "openblas" { // its dgemm sums by the chunk's shape (sameOutput)
			if !mat.EqualApprox(got.X, want.X, 1e-12*mat.Norm(want.X, math.Inf(1))) {
				t.Errorf("chunks of %s: the streamed .npy differs from transform's", chunk)
			}
		} else if !mat.Equal(got.X, want.X) {
			t.Errorf("chunks of %s: the streamed .npy differs from transform's", chunk)
		}
	}
	// Standard input, streamed, to standard output.
	raw, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	var a, b, errb bytes.Buffer
	if st := Do([]string{"transform", "--model", model, "-i", csvPath}, strings.NewReader(""), &a, &errb); st != 0 {
		t.Fatal(errb.String())
	}
	if st := Do([]string{"transform", "--model", model, "-i", "-", "--stream", "--chunk", "64"}, bytes.NewReader(raw), &b, &errb); st != 0 {
		t.Fatal(errb.String())
	}
	if !sameOutput(t, a.Bytes(), b.Bytes(), false) {
		t.Errorf("--stream from standard input differs from transform of the file")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-i", csvPath, "-o", filepath.Join(dir, "z.npy.gz")}, "--stream writes .npy only to a file, not to standard output or .gz"},
		{[]string{"-i", csvPath, "-o", filepath.Join(dir, "z.npz")}, "a .npz file's array header needs the row count"},
		{[]string{"-i", csvPath, "-o", filepath.Join(dir, "z.mat")}, "a .mat file's array header needs the row count"},
		{[]string{"-i", csvPath, "--chunk", "0"}, "--chunk must be"},
		{[]string{"-i", "builtin:digits"}, "needs a CSV, TSV, LIBSVM or .npy file"},
		{[]string{"-i", csvPath, "-k", "99"}, "-k 99: the model has"},
		{[]string{"-i", write(t, "three.csv", "label,a,b,c\n0,1,2,3\n")}, "has 3 features, the model"},
	} {
		args := append([]string{"transform", "--model", model, "--stream"}, c.args...)
		st, _, errs := run(t, args...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want an error mentioning %q", c.args, st, errs, c.want)
		}
	}
}

func loadPipelineFile(t *testing.T, path string) *method.Pipeline {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := method.LoadPipeline(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// transform --stream reads labels the model names (strings) by the
// model's classes and writes them back by name: the output of transform
// without --stream (sameOutput) (the CLI audit: "label barolo is not a class index").
func TestTransformStreamNamedLabels(t *testing.T) {
	dir := t.TempDir()
	ds := datasets.Wine()
	ds.ClassNames = []string{"barolo", "grignolino", "barbera"}
	in := filepath.Join(dir, "w.csv")
	if err := data.WriteFile(in, func(w io.Writer) error { return data.WriteCSV(w, ds) }); err != nil {
		t.Fatal(err)
	}
	outs := streamedAndWhole(t, dir, in, in)
	if !sameOutput(t, outs[0], outs[1], false) || !bytes.Contains(outs[0], []byte("\nbarbera,")) {
		t.Errorf("streamed output differs from the whole one or lacks the names:\n%.200s\n%.200s", outs[0], outs[1])
	}
	// A model of whole-number classes (1, 2, 3, as the face sets) reads
	// whole-number labels as they are, new ones (0, 4) included, as it
	// did before text labels were read by the model's classes (the review
	// of that change: "label 4 is not one of the given classes").
	ds.ClassNames = []string{"1", "2", "3"}
	fit := filepath.Join(dir, "fit.csv")
	if err := data.WriteFile(fit, func(w io.Writer) error { return data.WriteCSV(w, ds) }); err != nil {
		t.Fatal(err)
	}
	ds.Y[0], ds.ClassNames = 3, []string{"1", "2", "3", "4"} // a label the model never saw
	if err := data.WriteFile(in, func(w io.Writer) error { return data.WriteCSV(w, ds) }); err != nil {
		t.Fatal(err)
	}
	outs = streamedAndWhole(t, dir, fit, in)
	if !sameOutput(t, outs[0], outs[1], false) || !bytes.HasPrefix(outs[0], []byte("label,z1,z2\n4,")) {
		t.Errorf("whole-number labels: streamed output differs from the whole one:\n%.200s\n%.200s", outs[0], outs[1])
	}
}

// A LIBSVM file whose last feature is zero in every row is read at the
// model's width by transform, streamed or not (the CLI audit: "has 12
// features, the model was fitted on 13"), and gives the rows' embedding.
func TestTransformLIBSVMModelWidth(t *testing.T) {
	dir := t.TempDir()
	ds := datasets.Wine()
	var b strings.Builder
	for i := 0; i < 178; i++ {
		b.WriteString(strconv.Itoa(ds.Y[i]))
		for j := 0; j < 12; j++ {
			fmt.Fprintf(&b, " %d:%v", j+1, ds.X.At(i, j))
		}
		b.WriteString("\n")
		ds.X.Set(i, 12, 0)
	}
	svm := filepath.Join(dir, "w.libsvm")
	if err := os.WriteFile(svm, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "w.csv")
	if err := data.WriteFile(csv, func(w io.Writer) error { return data.WriteCSV(w, ds) }); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", "builtin:wine", "--scale", "none", "-o", model); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	transformsLikeCSV(t, dir, model, csv, svm)
}

// transformsLikeCSV checks that transform of input through model, with
// and without --stream (and the flags extra), writes what transform of the
// same rows as the CSV csv writes (columns taken by position).
func transformsLikeCSV(t *testing.T, dir, model, csv, input string, extra ...string) {
	t.Helper()
	want := filepath.Join(dir, "want.csv")
	if st, _, errs := run(t, "transform", "--model", model, "-i", csv, "-o", want, "--ignore-names"); st != 0 {
		t.Fatalf("transform of the CSV: %s", errs)
	}
	wb, _ := os.ReadFile(want)
	for _, stream := range [][]string{nil, {"--stream"}} {
		out := filepath.Join(dir, "z.csv")
		args := append(append([]string{"transform", "--model", model, "-i", input, "-o", out}, extra...), stream...)
		if st, _, errs := run(t, args...); st != 0 {
			t.Fatalf("transform %v of %s: %s", stream, input, errs)
		}
		if got, _ := os.ReadFile(out); !sameOutput(t, got, wb, false) {
			t.Errorf("transform %v of %s differs from the CSV's", stream, input)
		}
	}
}

// A model fitted on a zero-based LIBSVM file reads a test file of the same
// kind zero-based even when it has no index 0 and no --zero-based is given
// (a user test: it was read one-based, every feature a column off, with
// only a note), streamed or not; score reads it at the model's width too.
func TestLIBSVMZeroBasedModel(t *testing.T) {
	dir := t.TempDir()
	ds := datasets.Iris()
	svm := func(name string, zeroFirst bool) string {
		var b strings.Builder
		for i := 0; i < 150; i++ {
			b.WriteString(strconv.Itoa(ds.Y[i]))
			for j := 0; j < 4; j++ {
				if j == 0 && zeroFirst {
					continue // column 0 zero in every row: no index 0 in the file
				}
				fmt.Fprintf(&b, " %d:%v", j, ds.X.At(i, j))
			}
			b.WriteString("\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train, test := svm("tr.svm", false), svm("te.svm", true)
	zeroed := mat.DenseCopyOf(ds.X)
	for i := 0; i < 150; i++ {
		zeroed.Set(i, 0, 0)
	}
	csv := filepath.Join(dir, "te.csv")
	if err := data.WriteFile(csv, func(w io.Writer) error {
		return data.WriteCSV(w, &data.Dataset{X: zeroed, Y: ds.Y})
	}); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", train, "--scale", "none", "-o", model); st != 0 {
		t.Fatalf("fit: %s", errs)
	}
	// The model records that its training file was zero-based
	// (Pipeline.LIBSVMZeroBased), so a file lacking an index 0 is read
	// zero-based without --zero-based, and a note says so.
	if st, _, errs := run(t, "transform", "--model", model, "-i", test, "-o", filepath.Join(dir, "x.csv")); st != 0 || !strings.Contains(errs, "is read zero-based (index 0 is the first feature), as the model's training file was") {
		t.Errorf("transform of the zero-based file without --zero-based: status %d, %s", st, errs)
	}
	transformsLikeCSV(t, dir, model, csv, test)
	transformsLikeCSV(t, dir, model, csv, test, "--zero-based")
	_, s1, errs := run(t, "score", "--model", model, "-i", test)
	_, s2, errs2 := run(t, "score", "--model", model, "-i", csv, "--ignore-names")
	if s1 == "" || s1 != s2 {
		t.Errorf("score --model of the narrow zero-based file:\n%s%s\nof the CSV:\n%s%s", s1, errs, s2, errs2)
	}
	for i, extra := range [][]string{{"--stream"}, nil} {
		m := filepath.Join(dir, "s"+strconv.Itoa(i)+".json")
		args := []string{"fit", "-m", "lda", "-i", test, "--zero-based", "--features", "4", "--scale", "none", "-o", m}
		if st, _, errs := run(t, append(args, extra...)...); st != 0 {
			t.Fatalf("fit %v --zero-based: %s", extra, errs)
		}
		if p, err := loadModel(m); err != nil || !p.LIBSVMZeroBased {
			t.Errorf("fit %v --zero-based: the model does not record a zero-based file (%v)", extra, err)
		}
	}
	// A model of a CSV whose header is f0, f1, … records no LIBSVM file:
	// a LIBSVM file without an index 0 is read one-based, with a note
	// naming --zero-based.
	named := filepath.Join(dir, "named.csv")
	if err := data.WriteFile(named, func(w io.Writer) error {
		return data.WriteCSV(w, &data.Dataset{X: ds.X, Y: ds.Y, FeatureNames: []string{"f0", "f1", "f2", "f3"}})
	}); err != nil {
		t.Fatal(err)
	}
	csvModel := filepath.Join(dir, "csvm.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", named, "--scale", "none", "-o", csvModel); st != 0 {
		t.Fatalf("fit of the CSV: %s", errs)
	}
	if st, _, errs := run(t, "transform", "--model", csvModel, "-i", test, "-o", filepath.Join(dir, "x.csv")); st != 0 || !strings.Contains(errs, "give --zero-based") || strings.Contains(errs, "is read zero-based") {
		t.Errorf("transform through a CSV model named f0, f1, …: status %d, %s", st, errs)
	}
	if worst, scale := transformGap(t, csv, filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json")); worst > 1e-9*scale {
		t.Errorf("fit --stream --zero-based differs from the fit in memory by %.3g (scale %.3g)", worst, scale)
	}

	// A one-based file of new rows (its last feature zero in every row)
	// is read one-based through the zero-based model when its header
	// says so (scikit-learn's dump_svmlight_file(zero_based=False)) or
	// with --zero-based=false (the second review: the model's base won
	// over the file's own header, every feature a column off).
	var one strings.Builder
	lastZero := mat.DenseCopyOf(ds.X)
	for i := 0; i < 150; i++ {
		one.WriteString(strconv.Itoa(ds.Y[i]))
		for j := 0; j < 3; j++ {
			fmt.Fprintf(&one, " %d:%v", j+1, ds.X.At(i, j))
		}
		one.WriteString("\n")
		lastZero.Set(i, 3, 0)
	}
	lastCSV := filepath.Join(dir, "last.csv")
	if err := data.WriteFile(lastCSV, func(w io.Writer) error {
		return data.WriteCSV(w, &data.Dataset{X: lastZero, Y: ds.Y})
	}); err != nil {
		t.Fatal(err)
	}
	headed := filepath.Join(dir, "one-headed.svm")
	plain := filepath.Join(dir, "one.svm")
	for _, f := range []struct{ path, text string }{
		{headed, "# Generated by dump_svmlight_file from scikit-learn 1.5.2\n# Column indices are one-based\n#\n" + one.String()},
		{plain, one.String()},
	} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	transformsLikeCSV(t, dir, model, lastCSV, headed)
	transformsLikeCSV(t, dir, model, lastCSV, plain, "--zero-based=false")
	// Iris through convert (one-based, index 4 present) and the
	// zero-based model: the error says where the zero base came from and
	// the way out.
	conv := filepath.Join(dir, "conv.libsvm")
	if st, _, errs := run(t, "convert", "-i", "builtin:iris", "-o", conv); st != 0 {
		t.Fatal(errs)
	}
	if st, _, errs := run(t, "transform", "--model", model, "-i", conv, "-o", filepath.Join(dir, "c.csv")); st == 0 || !strings.Contains(errs, "the model was fitted on a zero-based LIBSVM file; --zero-based=false reads this one one-based") {
		t.Errorf("one-based file through a zero-based model: status %d, %s", st, errs)
	}
	// A file with an index 0 is zero-based whatever the flags say, and
	// the error says so (the review: it named --zero-based=false, which
	// cannot help).
	idx0 := filepath.Join(dir, "idx0.svm")
	if err := os.WriteFile(idx0, []byte("1 0:1 4:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--zero-based=false"}} {
		args := append([]string{"transform", "--model", model, "-i", idx0, "-o", filepath.Join(dir, "c.csv")}, extra...)
		if st, _, errs := run(t, args...); st == 0 || !strings.Contains(errs, "(zero-based: the file has an index 0)") {
			t.Errorf("index 0 %v: status %d, %s", extra, st, errs)
		}
	}
}

// Binary LIBSVM labels ±1 stream through transform as without --stream
// (the second review: a model of whole-number names read them as class
// indices, and −1 is none).
func TestTransformStreamPlusMinusOne(t *testing.T) {
	dir := t.TempDir()
	svm := filepath.Join(dir, "pm.libsvm")
	if err := os.WriteFile(svm, []byte("-1 1:0.5 2:1.2 3:0.1\n+1 1:1.5 2:0.2 3:0.4\n-1 1:0.7 2:1.0 3:0.3\n+1 1:1.9 2:0.1 3:0.2\n-1 1:0.4 2:1.4\n+1 1:1.2 2:0.3 3:0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := streamedAndWhole(t, dir, svm, svm)
	if !sameOutput(t, outs[0], outs[1], false) || !bytes.Contains(outs[0], []byte("\n-1,")) {
		t.Errorf("±1 labels: streamed\n%s\nwhole\n%s", outs[0], outs[1])
	}
}

// streamedAndWhole fits LDA on fit and returns what transform of input
// through the model writes with --stream (chunks of 50 rows) and without.
func streamedAndWhole(t *testing.T, dir, fit, input string) (outs [2][]byte) {
	t.Helper()
	model := filepath.Join(dir, "sw.json")
	if st, _, errs := run(t, "fit", "-m", "lda", "-i", fit, "-o", model); st != 0 {
		t.Fatalf("fit on %s: %s", fit, errs)
	}
	for i, extra := range [][]string{{"--stream", "--chunk", "50"}, nil} {
		out := filepath.Join(dir, "sw"+strconv.Itoa(i)+".csv")
		if st, _, errs := run(t, append([]string{"transform", "--model", model, "-i", input, "-o", out}, extra...)...); st != 0 {
			t.Fatalf("transform %v of %s: %s", extra, input, errs)
		}
		outs[i], _ = os.ReadFile(out)
	}
	return outs
}

// transform --stream of a .npy array without --labels to CSV writes the
// embedding without a label column, as transform does (it wrote a label
// column it had no labels for and failed; found by a review).
func TestTransformStreamNPYWithoutLabels(t *testing.T) {
	dir := t.TempDir()
	npy, model := filepath.Join(dir, "x.npy"), filepath.Join(dir, "pca.json")
	for _, args := range [][]string{
		{"convert", "-i", "builtin:wine", "-o", npy},
		{"fit", "-m", "pca", "-k", "2", "-i", "builtin:wine", "-o", model},
	} {
		if st, _, errs := run(t, append(args, "--quiet")...); st != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	streamed, whole := filepath.Join(dir, "s.csv"), filepath.Join(dir, "w.csv")
	if st, _, errs := run(t, "transform", "--stream", "--model", model, "-i", npy, "-o", streamed, "--quiet"); st != 0 {
		t.Fatalf("transform --stream: %s", errs)
	}
	if st, _, errs := run(t, "transform", "--model", model, "-i", npy, "-o", whole, "--quiet"); st != 0 {
		t.Fatalf("transform: %s", errs)
	}
	a, err := os.ReadFile(streamed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !sameOutput(t, a, b, false) || !bytes.HasPrefix(a, []byte("z1,z2\n")) {
		t.Errorf("transform --stream of a .npy without labels:\n%.200s\nwant as transform:\n%.200s", a, b)
	}
}
