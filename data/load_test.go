package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// writeTemp writes content to dir/name and returns the path; names ending
// in ".gz" are gzipped.
func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	b := []byte(content)
	if strings.HasSuffix(name, ".gz") {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		b = z.Bytes()
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallARFF = `@relation r
@attribute a numeric
@attribute b numeric
@attribute class {x,y}
@data
1,2,x
3,4,y
`

func TestLoadFormats(t *testing.T) {
	dir := t.TempDir()
	want := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	files := map[string]Options{
		writeTemp(t, dir, "d.csv", "label,a,b\nx,1,2\ny,3,4\n"):       {},
		writeTemp(t, dir, "d2.CSV.gz", "label,a,b\nx,1,2\ny,3,4\n"):   {},
		writeTemp(t, dir, "d.tsv", "label\ta\tb\nx\t1\t2\ny\t3\t4\n"): {},
		writeTemp(t, dir, "d.libsvm", "x 1:1 2:2\ny 1:3 2:4\n"):       {},
		writeTemp(t, dir, "d.svm.gz", "x 1:1 2:2\ny 1:3 2:4\n"):       {},
		writeTemp(t, dir, "d.svmlight", "x 1:1 2:2\ny 1:3 2:4\n"):     {},
		writeTemp(t, dir, "d.arff", smallARFF):                        {},
		writeTemp(t, dir, "d.arff.gz", smallARFF):                     {},
		writeTemp(t, dir, "d.txt", "x 1:1 2:2\ny 1:3 2:4\n"):          {Format: "svmlight"},
		writeTemp(t, dir, "d.data", "a;b;label\n1;2;x\n3;4;y\n"):      {Format: "CSV", Delimiter: ';'},
		writeTemp(t, dir, "e.tsv", "a,b,label\n1,2,x\n3,4,y\n"):       {Format: "csv"},
	}
	for path, opt := range files {
		d, err := Load(path, opt)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !mat.Equal(d.X, want) || !slices.Equal(d.Y, []int{0, 1}) || !slices.Equal(d.ClassNames, []string{"x", "y"}) {
			t.Errorf("%s: X %v Y %v ClassNames %v", path, mat.Formatted(d.X), d.Y, d.ClassNames)
		}
	}
	if got := datasetName("/a/b/orl_32x32.csv.gz"); got != "orl_32x32" {
		t.Errorf("datasetName = %q", got)
	}
	if got := datasetName("x.y.data"); got != "x.y.data" {
		t.Errorf("datasetName = %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	csv := writeTemp(t, dir, "ok.csv", "label,a\n1,2\n")

	_, err := Load(filepath.Join(dir, "data.xlsx"), Options{})
	wantErr(t, "unknown extension", err, "data.xlsx", `unknown file extension ".xlsx"`)
	_, err = Load(filepath.Join(dir, "data.gz"), Options{})
	wantErr(t, "bare .gz", err, "data.gz", "unknown file extension")
	_, err = Load(csv, Options{Format: "parquet"})
	wantErr(t, "unknown format", err, "ok.csv", `unknown format "parquet"`)
	_, err = Load(filepath.Join(dir, "absent.csv"), Options{})
	wantErr(t, "missing file", err, "absent.csv")
	if !os.IsNotExist(errorsUnwrapAll(err)) {
		t.Errorf("missing file: %v is not a not-exist error", err)
	}
	_, err = Load(csv, Options{LabelsFile: "y.npy"})
	wantErr(t, "labels file with csv", err, "only used with .npy")
	_, err = Load(csv, Options{Nominal: "binary"})
	wantErr(t, "bad Nominal", err, `--nominal (Options.Nominal) is "binary"`)
	_, err = Load(csv, Options{Missing: "mean"})
	wantErr(t, "bad Missing", err, `--missing (Options.Missing) is "mean"`)
	_, err = Load(csv, Options{MatSamples: "cols"})
	wantErr(t, "bad MatSamples", err, `--mat-samples (Options.MatSamples) is "cols"`)
	_, err = Load(csv, Options{NumFeatures: -1})
	wantErr(t, "bad NumFeatures", err, "(Options.NumFeatures) is -1")
	_, err = Load(writeTemp(t, dir, "empty.csv", ""), Options{})
	wantErr(t, "empty file", err, "empty.csv", "empty file")

	// A truncated gzip file.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("label,a\n1,2\n"), 1000))
	zw.Close()
	gz := filepath.Join(dir, "trunc.csv.gz")
	os.WriteFile(gz, z.Bytes()[:z.Len()/2], 0o644)
	_, err = Load(gz, Options{})
	wantErr(t, "truncated gzip", err, "trunc.csv.gz", "truncated gzip")
	notgz := writeTemp(t, dir, "plain.csv.gz", "label,a\n1,2\n")
	os.WriteFile(notgz, []byte("label,a\n1,2\n"), 0o644)
	_, err = Load(notgz, Options{})
	wantErr(t, "not gzip", err, "plain.csv.gz", "not a valid gzip file")
}

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestEncodeLabels(t *testing.T) {
	y, names, err := encodeLabels([]string{"3", "01", "1", "", "-2"}, nil, "")
	if err != nil || !slices.Equal(y, []int{2, 1, 1, -1, 0}) || !slices.Equal(names, []string{"-2", "01", "3"}) {
		t.Errorf("integers: %v %q %v", y, names, err)
	}
	y, names, err = encodeLabels([]string{"?", ""}, nil, "")
	if err != nil || !slices.Equal(y, []int{-1, -1}) || len(names) != 0 {
		t.Errorf("all unlabeled: %v %q %v", y, names, err)
	}
	// Whole numbers written as decimals are the same numbers (one "1.0"
	// among integers made "1", "1.0" and "01" three classes), and a label
	// column pandas wrote as floats (missing values) reads as numbers.
	y, names, err = encodeLabels([]string{"1", "1.0", "01", "2", "1e1"}, nil, "")
	if err != nil || !slices.Equal(y, []int{0, 0, 0, 1, 2}) || !slices.Equal(names, []string{"1", "2", "10"}) {
		t.Errorf("whole decimals: %v %q %v", y, names, err)
	}
	y, names, err = encodeLabels([]string{"10.0", "", "9.0"}, nil, "")
	if err != nil || !slices.Equal(y, []int{1, -1, 0}) || !slices.Equal(names, []string{"9", "10"}) {
		t.Errorf("pandas float labels: %v %q %v", y, names, err)
	}
	// np.savetxt writes labels as "%.18e"; a class is named by its value,
	// and a file of those matches the classes of one with integers.
	texts := []string{"0.000000000000000000e+00", "1.000000000000000000e+00", "-1.000000000000000000e+00"}
	y, names, err = encodeLabels(texts, nil, "")
	if err != nil || !slices.Equal(y, []int{1, 2, 0}) || !slices.Equal(names, []string{"-1", "0", "1"}) {
		t.Errorf("np.savetxt labels: %v %q %v", y, names, err)
	}
	y, names, err = encodeLabels(texts, []string{"0", "1", "-1"}, "")
	if err != nil || !slices.Equal(y, []int{0, 1, 2}) || !slices.Equal(names, []string{"0", "1", "-1"}) {
		t.Errorf("np.savetxt labels by the given classes: %v %q %v", y, names, err)
	}
	// Options.Unlabelled: scikit-learn's -1, by value.
	y, names, err = encodeLabels(texts, nil, "-1")
	if err != nil || !slices.Equal(y, []int{0, 1, -1}) || !slices.Equal(names, []string{"0", "1"}) {
		t.Errorf("-1 unlabelled: %v %q %v", y, names, err)
	}
	y, _, err = encodeLabels([]string{"a", "-1", "b", "?"}, []string{"b", "a"}, "-1")
	if err != nil || !slices.Equal(y, []int{1, -1, 0, -1}) {
		t.Errorf("-1 unlabelled with classes: %v %v", y, err)
	}
	if _, _, err = encodeLabels([]string{"1", "1.0", "2"}, []string{"1.0", "3"}, ""); err == nil || !strings.Contains(err.Error(), `label "2" is not one of the given classes`) {
		t.Errorf("a class by value: %v", err)
	}
	if _, _, err = encodeLabels([]string{"1", "1.5"}, nil, ""); err == nil || !strings.Contains(err.Error(), "not a whole one") {
		t.Errorf("1.5: %v", err)
	}
}

func TestCompactClasses(t *testing.T) {
	d := &Dataset{Y: []int{2, 0, -1, 2}, ClassNames: []string{"a", "b", "c", "d"}}
	if n := d.CompactClasses(); n != 2 || !slices.Equal(d.Y, []int{1, 0, -1, 1}) || !slices.Equal(d.ClassNames, []string{"a", "c"}) {
		t.Errorf("CompactClasses = %d, Y %v, ClassNames %q", n, d.Y, d.ClassNames)
	}
	if n := d.CompactClasses(); n != 0 {
		t.Errorf("second CompactClasses = %d", n)
	}
	// Labels far beyond the rows (the library audit: {0, 1, 1e12} made a
	// table of 1e12 classes, math.MaxInt overflowed NumClasses).
	if c := NumClasses([]int{3, math.MaxInt, 1}); c != math.MaxInt {
		t.Errorf("NumClasses with math.MaxInt = %d", c)
	}
	for _, big := range []int{1_000_000_000_000, math.MaxInt} {
		d := &Dataset{Y: []int{big, 0, -1, 1}}
		if n := d.CompactClasses(); n != big+1-3 && big != math.MaxInt || !slices.Equal(d.Y, []int{2, 0, -1, 1}) {
			t.Errorf("label %d: CompactClasses = %d, Y %v", big, n, d.Y)
		}
	}
	d = &Dataset{Y: []int{1_000_000_000_000, 2, 2}, ClassNames: []string{"a", "b", "c"}}
	d.CompactClasses()
	if !slices.Equal(d.Y, []int{1, 0, 0}) || !slices.Equal(d.ClassNames, []string{"c", "1000000000000"}) {
		t.Errorf("named classes with a label past them: Y %v, ClassNames %q", d.Y, d.ClassNames)
	}
}

// CheckFinite names the first NaN or infinity in row order with its row
// and column, the same for a contiguous matrix, a strided view (read by
// rows) and a matrix read through At, and accepts the largest finite
// values.
func TestCheckFinite(t *testing.T) {
	big := mat.NewDense(6, 7, nil)
	for i := range 6 {
		for j := range 7 {
			big.Set(i, j, math.MaxFloat64*float64(1-2*((i+j)%2)))
		}
	}
	view := big.Slice(1, 5, 2, 6).(*mat.Dense)
	if err := CheckFinite("x", view); err != nil {
		t.Fatalf("finite view: %v", err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		big.Set(0, 0, bad) // outside the view
		big.Set(3, 1, bad) // outside the view
		if err := CheckFinite("x", view); err != nil {
			t.Errorf("%v outside the view: %v", bad, err)
		}
		big.Set(3, 4, bad) // row 3, column 3 of the view
		big.Set(4, 3, bad) // later in row order
		want := fmt.Sprintf("x: row 3, column 3 is %v; values must be finite", bad)
		for name, m := range map[string]mat.Matrix{"view": view, "copy": mat.DenseCopyOf(view), "through At": struct{ mat.Matrix }{view}} {
			if _, raw := m.(mat.RawMatrixer); name == "through At" && raw {
				t.Fatal("the At case is a RawMatrixer")
			}
			if err := CheckFinite("x", m); err == nil || err.Error() != want {
				t.Errorf("%v, %s: %v, want %q", bad, name, err, want)
			}
		}
		big.Set(3, 4, 1)
		big.Set(4, 3, 1)
	}
}

// A UTF-8 byte order mark (what Windows editors write first) is not part
// of the first line in any text format: it once made a class "\ufeff0" of
// a labels file or a LIBSVM file, and an ARFF header error. A labels file
// with one line too many names its first line as a possible header.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	const bom = "\ufeff"
	arff := writeTemp(t, dir, "b.arff", bom+"@relation s\n@attribute a numeric\n@attribute class {x,y}\n@data\n1,x\n2,y\n3,x\n")
	svm := writeTemp(t, dir, "b.libsvm", bom+"0 1:1\n1 1:2\n0 1:3\n")
	csv := writeTemp(t, dir, "b.csv", bom+"a,label\n1,0\n2,1\n3,0\n")
	for _, f := range []string{arff, svm, csv} {
		ds, err := Load(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(ds.ClassNames) != 2 || strings.Contains(ds.ClassNames[0], bom) || !slices.Equal(ds.Y, []int{0, 1, 0}) {
			t.Errorf("%s: classes %q, labels %v", f, ds.ClassNames, ds.Y)
		}
	}
	y, names, err := ReadLabels(strings.NewReader(bom+"0\n1\n0\n"), "y.txt", 3, nil)
	if err != nil || !slices.Equal(names, []string{"0", "1"}) || !slices.Equal(y, []int{0, 1, 0}) {
		t.Errorf("labels file with a BOM: classes %q, labels %v, %v", names, y, err)
	}
	_, _, err = ReadLabels(strings.NewReader("label\n0\n1\n0\n"), "h.txt", 3, nil)
	if err == nil || !strings.Contains(err.Error(), `4 labels for 3 rows of data: if the first line, "label", is a header, remove it`) {
		t.Errorf("labels file with a header line: %v", err)
	}
}

// The CSV reader's guesses: a column named target (or label, labels,
// class, gnd) is the labels wherever it stands; the last column taken by
// the rule with a class for more than half the rows, and a header of
// numbers that do not count the columns, get a note naming the option
// that settles it (the CLI audit: target-first and np.savetxt files were
// read with a feature for the labels, silently).
func TestCSVNotes(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("target,a,b\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "%d,%d.5,%d\n", i%3, i, 7*i)
	}
	ds, err := Load(writeTemp(t, dir, "t.csv", b.String()), Options{})
	if err != nil || len(ds.ClassNames) != 3 || len(ds.Notes) != 0 || ds.FeatureNames[0] != "a" {
		t.Fatalf("target column: %v, classes %q, notes %q", err, ds.ClassNames, ds.Notes)
	}
	last := strings.Replace(b.String(), "target,a,b", "kind,a,b", 1)
	ds, err = Load(writeTemp(t, dir, "k.csv", last), Options{})
	if err != nil || len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], `the labels were taken from the last column, "b"`) || !strings.Contains(ds.Notes[0], "30 classes for 30 rows") {
		t.Errorf("feature as labels: %v, notes %q", err, ds.Notes)
	}
	if ds, _ = Load(writeTemp(t, dir, "k.csv", last), Options{LabelColumn: "b"}); len(ds.Notes) != 0 {
		t.Errorf("--label-col given: notes %q", ds.Notes)
	}
	data := "1.5,2.5,0\n3.5,4.5,1\n5.5,6.5,0\n"
	ds, err = Load(writeTemp(t, dir, "s.csv", data), Options{})
	if err != nil || len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], `the header row's fields are all numbers ("1.5", "2.5", …): if the file has no header, give --no-header`) {
		t.Errorf("headerless: %v, notes %q", err, ds.Notes)
	}
	for _, h := range []string{"0,1,2", "2,0,1", "1,2,3"} { // pandas' column numbers
		ds, err = Load(writeTemp(t, dir, "p.csv", h+"\n"+data), Options{})
		if err != nil || len(ds.Notes) != 0 {
			t.Errorf("header %s: %v, notes %q", h, err, ds.Notes)
		}
	}
}
