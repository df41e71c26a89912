package data

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func readCSVString(s string, opt Options) (*Dataset, error) {
	return ReadCSV(strings.NewReader(s), "in.csv", opt)
}

// wantErr checks that err is not nil and contains every want string.
func wantErr(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, wants)
		return
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not contain %q", what, err, w)
		}
	}
}

func TestReadCSVLabelColumn(t *testing.T) {
	cases := []struct {
		name, in string
		opt      Options
		feats    []string
		classes  []string
		y        []int
	}{
		{"label first", "label,a,b\n1,0.5,2\n0,1,3\n", Options{}, []string{"a", "b"}, []string{"0", "1"}, []int{1, 0}},
		{"Class any case", "a,CLASS,b\n0.5,x,2\n1,y,3\n", Options{}, []string{"a", "b"}, []string{"x", "y"}, []int{0, 1}},
		{"label beats class", "class,label,a\n1,b,2\n2,a,3\n", Options{}, []string{"class", "a"}, []string{"a", "b"}, []int{1, 0}},
		{"last by default", "a,b,target\n0.5,2,no\n1,3,yes\n", Options{}, []string{"a", "b"}, []string{"no", "yes"}, []int{0, 1}},
		{"by name", "a,b,target\nu,2,4\n1,3,5\n", Options{LabelColumn: "a"}, []string{"b", "target"}, []string{"1", "u"}, []int{1, 0}},
		{"whole numbers written as floats", "a,label\n1,2.0\n2,1.0\n3,2.0\n", Options{}, []string{"a"}, []string{"1", "2"}, []int{1, 0, 1}},
		{"by name any case", "a,Species,b\n0.5,s,2\n1,v,3\n", Options{LabelColumn: "species"}, []string{"a", "b"}, []string{"s", "v"}, []int{0, 1}},
		{"by index", "a,b,c\n0.5,2,7\n1,3,8\n", Options{LabelColumn: "2"}, []string{"a", "c"}, []string{"2", "3"}, []int{0, 1}},
		{"numeric order", "label,a\n10,1\n9,2\n-1,3\n+9,4\n", Options{}, []string{"a"}, []string{"-1", "9", "10"}, []int{2, 1, 0, 1}},
		{"string order", "label,a\nb,1\nB,2\na,3\n10,4\n9,5\n", Options{}, []string{"a"}, []string{"10", "9", "B", "a", "b"}, []int{4, 2, 3, 0, 1}},
		{"unlabeled", "label,a\n2,1\n,2\n?,3\n1,4\n", Options{}, []string{"a"}, []string{"1", "2"}, []int{1, -1, -1, 0}},
		{"given classes", "label,a\nb,1\na,2\n", Options{Classes: []string{"b", "a", "c"}}, []string{"a"}, []string{"b", "a", "c"}, []int{0, 1}},
		{"quoted, spaces, CRLF, blank lines, BOM", "\ufefflabel,\"x, y\", z \r\n\r\n \"a b\", 1 , \" 2\"\r\n", Options{}, []string{"x, y", "z"}, []string{"a b"}, []int{0}},
		{"no header", "1,2,a\n3,4,b\n", Options{NoHeader: true}, []string{"x0", "x1"}, []string{"a", "b"}, []int{0, 1}},
		{"no header, index", "a,1,2\nb,3,4\n", Options{NoHeader: true, LabelColumn: "1"}, []string{"x0", "x1"}, []string{"a", "b"}, []int{0, 1}},
		{"tsv", "label\ta\tb\nx\t1\t\t2\n", Options{Delimiter: '\t'}, nil, nil, nil},
	}
	// A label column of fractions, or NaN, is a feature taken for labels
	// (the audit: a file without a label column got 22 "classes").
	for in, want := range map[string]string{
		"a,b\n1,0.2\n2,1.5\n":     `in.csv:2: column "b": label "0.2" is a number but not a whole one`,
		"a,label\n1,1\n2,NaN\n":   `in.csv:3: column "label": label "NaN"`,
		"a,label\n1,1\n2,Inf\n":   `label "Inf"`,
		"label,a\n1e400,1\n0,2\n": `label "1e400"`,
	} {
		_, err := readCSVString(in, Options{})
		wantErr(t, in, err, want, "--label-col", "--no-labels")
	}
	for _, c := range cases {
		d, err := readCSVString(c.in, c.opt)
		if c.name == "tsv" {
			// An empty TSV cell is an empty value, not skipped whitespace.
			wantErr(t, c.name, err, "in.csv:2", "ragged row")
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(d.FeatureNames, c.feats) || !slices.Equal(d.ClassNames, c.classes) || !slices.Equal(d.Y, c.y) {
			t.Errorf("%s: features %q classes %q y %v; want %q %q %v", c.name, d.FeatureNames, d.ClassNames, d.Y, c.feats, c.classes, c.y)
		}
		if d.Name != "in" {
			t.Errorf("%s: Name %q", c.name, d.Name)
		}
	}

	for _, opt := range []Options{{Delimiter: '\t'}, {Format: "tsv"}} {
		d, err := readCSVString("label\ta b\tc\nx\t1\t 2\n", opt)
		if err != nil || d.X.At(0, 1) != 2 || d.FeatureNames[0] != "a b" {
			t.Errorf("tsv %+v: %v", opt, err)
		}
	}
	d, err := readCSVString("a,b,label\n1,2,3\n", Options{NoLabels: true})
	if err != nil || d.Y != nil || d.ClassNames != nil {
		t.Fatalf("NoLabels: %v %v", err, d)
	}
	if _, p := d.Dims(); p != 3 {
		t.Errorf("NoLabels: %d columns, want 3", p)
	}
}

func TestReadCSVValues(t *testing.T) {
	d, err := readCSVString("label,a,b\n0, 1.5 ,-2e3\n1,0,1e-300\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{1.5, -2000, 0, 1e-300})
	if !mat.Equal(d.X, want) {
		t.Errorf("X = %v", mat.Formatted(d.X))
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opt      Options
		wants    []string
	}{
		{"NaN", "label,a,b\n0,1,2\n1,NaN,3\n", Options{}, []string{"in.csv:3", `column "a"`, `missing value "NaN"`, "--missing drop"}},
		{"inf", "label,a,b\n0,1,2\n1,-inf,3\n", Options{}, []string{"in.csv:3", `column "a"`, `"-inf"`, "not finite"}},
		{"Inf", "label,a,b\n0,1,-Inf\n", Options{}, []string{"in.csv:2", `column "b"`, `"-Inf"`, "not finite"}},
		{"overflow", "label,a\n0,1e999\n", Options{}, []string{"in.csv:2", `"1e999"`, "range"}},
		{"non-numeric", "label,a,b\n0,1,2\n1,2,abc\n", Options{}, []string{"in.csv:3", `column "b"`, `cannot parse "abc"`}},
		{"empty cell", "label,a,b\n0,,2\n", Options{}, []string{"in.csv:2", `column "a"`, `missing value ""`, "--missing drop"}},
		{"identifier column", "id,a,label\nr0,1,x\n", Options{}, []string{"in.csv:2", `column "id": cannot parse "r0"`, `leave it out with --drop "id"`}},
		{"missing cell", "label,a,b\n0,?,2\n", Options{}, []string{"in.csv:2", `column "a"`, "missing value"}},
		{"short row", "label,a,b\n0,1,2\n1,2\n", Options{}, []string{"in.csv:3", "ragged row", "2 fields", "header has 3", `column "b" is missing`}},
		{"long row", "label,a,b\n0,1,2,3\n", Options{}, []string{"in.csv:2", "ragged row", "4 fields", `extra value "3"`}},
		{"empty file", "", Options{}, []string{"in.csv", "empty file"}},
		{"blank file", "\n\n", Options{}, []string{"in.csv", "empty file"}},
		{"header only", "label,a\n", Options{}, []string{"in.csv", "no data rows"}},
		{"missing label column", "a,b,c\n1,2,3\n", Options{LabelColumn: "target"}, []string{"in.csv:1", `label column "target" not found`, `"a", "b", "c"`}},
		{"label index out of range", "a,b,c\n1,2,3\n", Options{LabelColumn: "7"}, []string{"in.csv:1", "out of range 1..3"}},
		{"only a label", "label\n1\n", Options{}, []string{"in.csv:1", "no feature columns"}},
		{"bad quote", "label,a\n0,\"1\n", Options{}, []string{"in.csv:2", "malformed CSV"}},
		{"digit separator", "label,a\n0,1_0.5\n", Options{}, []string{"in.csv:2", `"1_0.5" as a decimal number`}},
		{"hexadecimal", "label,a\n0,0x1p-2\n", Options{}, []string{"in.csv:2", `"0x1p-2" as a decimal number`}},
		// An open quote runs to the end of the file: the line that opened it.
		{"open quote", "label,a\n0,1\n1,\"2\n0,3\n1,4\n0,5\n", Options{}, []string{"in.csv:3", "not closed (the reader ran on to line 6)"}},
		{"unknown class", "label,a\nx,1\nz,2\n", Options{Classes: []string{"x", "y"}}, []string{"in.csv:3", `label "z" is not one of the given classes`}},
		{"no header bad index", "1,2\n", Options{NoHeader: true, LabelColumn: "a"}, []string{"1-based index"}},
		// Files written with another separator say which, and how to read them.
		{"semicolon file", "a;b;label\n1;2;x\n", Options{}, []string{"in.csv:1", "no feature columns", `it holds ';': a file separated by ';'? give --sep ';'`}},
		{"tab file read as CSV", "a\tb\tlabel\n1\t2\tx\n", Options{}, []string{"in.csv:1", "a tab-separated file? give --format-in tsv"}},
		{"tab file read with --sep ';'", "a\tb\tlabel\n1\t2\tx\n", Options{Delimiter: ';'}, []string{"in.csv:1", "give --format-in tsv without --sep"}},
		{"bar file", "a|b|label\n1|2|x\n", Options{}, []string{"in.csv:1", `give --sep '|'`}},
		{"semicolon row without labels", "a\n1;2\n", Options{NoLabels: true}, []string{"in.csv:2", `cannot parse "1;2"`, "separated by ';'"}},
		{"decimal comma", "a;label\n1,5;x\n", Options{Delimiter: ';'}, []string{"in.csv:2", `cannot parse "1,5"`, "a decimal point, not a decimal comma"}},
	}
	for _, c := range cases {
		_, err := readCSVString(c.in, c.opt)
		wantErr(t, c.name, err, c.wants...)
	}
	// Nothing is hinted where nothing points to another separator.
	for _, in := range []string{"label,a\n0,abc\n", "label\n1\n"} {
		if _, err := readCSVString(in, Options{}); err == nil || strings.Contains(err.Error(), "--sep") || strings.Contains(err.Error(), "decimal comma") {
			t.Errorf("%q: error %v, want one without a separator hint", in, err)
		}
	}
	// A long bad field is quoted by its first 40 bytes and its length.
	long := strings.Repeat("x", 5<<20)
	_, err := readCSVString("label,a,b\n0,1,"+long+"\n", Options{})
	wantErr(t, "long field", err, `column "b"`, `cannot parse "`+strings.Repeat("x", 40)+`... (5242880 bytes)"`)
	if len(err.Error()) > 300 {
		t.Errorf("long field: the error is %d bytes long", len(err.Error()))
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{
		0.1, -2, 1e-300,
		math.Pi, 0, -0.0,
		1e300, 123456789.125, 5,
		-1.5, 2.5e-8, 7,
	})
	names := []string{"a", "b, with comma", `c "quoted"`}
	cases := []struct {
		name string
		d    *Dataset
		opt  Options
	}{
		{"string classes", &Dataset{X: x, Y: []int{0, 1, 1, -1}, FeatureNames: names, ClassNames: []string{"cat", "dog"}}, Options{}},
		{"integer classes", &Dataset{X: x, Y: []int{2, 0, 1, 0}, FeatureNames: names, ClassNames: []string{"1", "2", "10"}}, Options{}},
		{"classes not sorted", &Dataset{X: x, Y: []int{0, 1, 2, 0}, FeatureNames: names, ClassNames: []string{"zeta", "alpha", "mid"}}, Options{Classes: []string{"zeta", "alpha", "mid"}}},
		{"absent class", &Dataset{X: x, Y: []int{0, 0, 2, 2}, FeatureNames: names, ClassNames: []string{"a", "b", "c"}}, Options{Classes: []string{"a", "b", "c"}}},
		{"no class names", &Dataset{X: x, Y: []int{0, 1, 2, 3}, FeatureNames: names}, Options{}},
		{"no labels, default names", &Dataset{X: x}, Options{NoLabels: true}},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, c.d); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := ReadCSV(bytes.NewReader(buf.Bytes()), "rt.csv", c.opt)
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", c.name, err, buf.String())
		}
		if !mat.Equal(got.X, c.d.X) {
			t.Errorf("%s: X differs:\n%v\n%s", c.name, mat.Formatted(got.X), buf.String())
		}
		wantNames := c.d.FeatureNames
		if wantNames == nil {
			wantNames = defaultNames(3)
		}
		if !slices.Equal(got.FeatureNames, wantNames) {
			t.Errorf("%s: FeatureNames %q, want %q", c.name, got.FeatureNames, wantNames)
		}
		wantClasses := c.d.ClassNames
		if c.d.Y != nil && wantClasses == nil {
			wantClasses = []string{"0", "1", "2", "3"}
		}
		if !slices.Equal(got.Y, c.d.Y) || !slices.Equal(got.ClassNames, wantClasses) {
			t.Errorf("%s: Y %v ClassNames %q, want %v %q", c.name, got.Y, got.ClassNames, c.d.Y, wantClasses)
		}
		if c.d.Y != nil && !strings.HasPrefix(buf.String(), "label,") {
			t.Errorf("%s: header %q does not start with label", c.name, strings.SplitN(buf.String(), "\n", 2)[0])
		}
	}
}

func TestWriteCSVErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 2, 3, math.Inf(1)})
	var buf bytes.Buffer
	wantErr(t, "Inf", WriteCSV(&buf, &Dataset{Name: "d", X: x}), `dataset "d"`, "row 2", `column "x1"`, "+Inf")
	x.Set(1, 1, 0)
	wantErr(t, "label range", WriteCSV(&buf, &Dataset{X: x, Y: []int{0, 2}, ClassNames: []string{"a", "b"}}), "row 2 has label 2")
	wantErr(t, "label count", WriteCSV(&buf, &Dataset{X: x, Y: []int{0}}), "1 labels for 2 rows")
	wantErr(t, "bad class name", WriteCSV(&buf, &Dataset{X: x, Y: []int{0, 0}, ClassNames: []string{"?"}}), `named "?"`)
	wantErr(t, "names", WriteCSV(&buf, &Dataset{X: x, FeatureNames: []string{"a"}}), "1 feature names for 2 columns")
	wantErr(t, "nil", WriteCSV(&buf, nil), "no data")
}

// CSV and TSV take --drop (columns by name or index) and --missing drop
// (rows with an empty, ?, NA, N/A, NaN or null field left out and
// counted), as ARFF does; options of one format given for another are
// errors naming the formats they are for (the CLI audit: they were
// ignored without a word).
func TestCSVDropAndMissing(t *testing.T) {
	in := "id,a,b,label\nr0,1,2,x\nr1,NA,3,y\nr2,4,,x\nr3,5,6,y\nr4,n/a,7,x\nr5,8,9,\n"
	ds, err := readCSVString(in, Options{Drop: []string{"id"}, Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	if n, p := ds.Dims(); n != 3 || p != 2 || ds.DroppedRows != 3 || !slices.Equal(ds.FeatureNames, []string{"a", "b"}) || !slices.Equal(ds.Y, []int{0, 1, -1}) || ds.X.At(2, 1) != 9 {
		t.Errorf("dropped: %d×%d, %d dropped, features %q, labels %v", n, p, ds.DroppedRows, ds.FeatureNames, ds.Y)
	}
	if ds, err := readCSVString(in, Options{Drop: []string{"1"}, Missing: "drop"}); err != nil || ds.FeatureNames[0] != "a" {
		t.Errorf("--drop by index: %v", err)
	}
	_, err = readCSVString(in, Options{Drop: []string{"id"}})
	wantErr(t, "missing rejected", err, "in.csv:3", `column "a": missing value "NA"`, "--missing drop")
	_, err = readCSVString(in, Options{Drop: []string{"label"}})
	wantErr(t, "drop the labels", err, `--drop "label": column "label" is the label column`)
	_, err = readCSVString(in, Options{Drop: []string{"idd"}})
	wantErr(t, "unknown column", err, `--drop "idd"`, `no column named "idd"`)
	_, err = readCSVString("a,label\nNA,x\n?,y\n", Options{Missing: "drop"})
	wantErr(t, "every row missing", err, "no data rows left: all 2 rows have missing values")

	dir := t.TempDir()
	arff := writeTemp(t, dir, "d.arff", "@relation r\n@attribute a numeric\n@attribute class {x,y}\n@data\n1,x\n2,y\n")
	csv := writeTemp(t, dir, "d.csv", "a,label\n1,x\n2,y\n")
	for _, c := range []struct {
		path string
		opt  Options
		want string
	}{
		{csv, Options{ClassAttr: "label"}, "--class-attr (Options.ClassAttr) is for ARFF data (CSV and TSV take --label-col), not csv"},
		{csv, Options{Nominal: "onehot"}, "--nominal (Options.Nominal) is for ARFF data, not csv"},
		{csv, Options{NumFeatures: 3}, "--features (Options.NumFeatures) is for LIBSVM data, not csv"},
		{arff, Options{LabelColumn: "a"}, "--label-col (Options.LabelColumn) is for CSV and TSV data (ARFF takes --class-attr), not arff"},
		{arff, Options{NoHeader: true}, "--no-header (Options.NoHeader) is for CSV and TSV data, not arff"},
		{arff, Options{Delimiter: ';'}, "--sep (Options.Delimiter) is for CSV data, not arff"},
	} {
		_, err := Load(c.path, c.opt)
		wantErr(t, c.want, err, c.want)
	}
}

// --drop with --no-header: the kept columns keep their generated names
// (x0, x2 after dropping x1 or column 2), which count as generated names
// (no header to check against), as do a zero-based LIBSVM file's f0, f1, …
// (the review: they were renumbered x0, x1 after the drop).
func TestDropWithoutHeaderKeepsNames(t *testing.T) {
	for _, drop := range []string{"x1", "2"} {
		ds, err := readCSVString("1,2,3,x\n4,5,6,y\n", Options{NoHeader: true, Drop: []string{drop}})
		if err != nil || !slices.Equal(ds.FeatureNames, []string{"x0", "x2"}) || ds.X.At(1, 1) != 6 {
			t.Errorf("--drop %s: %v, names %q", drop, err, ds.FeatureNames)
		}
	}
	for _, c := range []struct {
		names []string
		want  bool
	}{{nil, true}, {[]string{"x0", "x2"}, true}, {[]string{"f0", "f1"}, true}, {[]string{"f1", "f2"}, true},
		{[]string{"x2", "x0"}, false}, {[]string{"x0", "x01"}, false}, {[]string{"a", "b"}, false}, {[]string{"x0", "f1"}, false}} {
		if got := GeneratedNames(c.names); got != c.want {
			t.Errorf("GeneratedNames(%q) = %v", c.names, got)
		}
	}
}

// A feature column named "" or "Unnamed: 0" (pandas' to_csv index) gets
// a note naming --drop; once dropped, none (a user test: the row number
// leaked the class of class-sorted rows).
func TestCSVNotePandasIndex(t *testing.T) {
	dir := t.TempDir()
	for _, head := range []string{"", "Unnamed: 0"} {
		p := filepath.Join(dir, "pd.csv")
		text := head + ",a,label\n0,1.5,x\n1,2.5,y\n2,0.5,x\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := Load(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], "column 1, named "+strconv.Quote(head)+", is read as a feature") || !strings.Contains(ds.Notes[0], "--drop 1") {
			t.Errorf("header %q: notes %q", head, ds.Notes)
		}
		if ds, err = Load(p, Options{Drop: []string{"1"}}); err != nil || len(ds.Notes) != 0 {
			t.Errorf("header %q with --drop 1: notes %q, %v", head, ds.Notes, err)
		}
	}
}

// np.savetxt(f, a, header="a,b,label", delimiter=",") writes the header
// as "# a,b,label": the comment mark is no part of the first name, and
// the label column is found by its name.
func TestCSVSavetxtHeader(t *testing.T) {
	d, err := readCSVString("# a,b,label\n1.000000000000000000e+00,2,0.000000000000000000e+00\n3,4,1.000000000000000000e+00\n", Options{})
	if err != nil || !slices.Equal(d.FeatureNames, []string{"a", "b"}) || !slices.Equal(d.ClassNames, []string{"0", "1"}) {
		t.Errorf("np.savetxt header: %v", err)
	} else if d.X.At(0, 0) != 1 {
		t.Errorf("np.savetxt values: %v", d.X.At(0, 0))
	}
	// A column named "#" (a row number) keeps its name.
	d, err = readCSVString("#,a,label\n1,2,x\n2,3,y\n", Options{})
	if err != nil || !slices.Equal(d.FeatureNames, []string{"#", "a"}) {
		t.Errorf("a column named #: %v %q", err, d.FeatureNames)
	}
}
