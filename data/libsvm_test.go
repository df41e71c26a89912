package data

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadLIBSVM(t *testing.T) {
	in := `# a comment line
+1 1:0.5 3:-2 # trailing comment
-1 qid:7 2:1e3

-1 3:4 1:1
1
`
	d, err := ReadLIBSVM(strings.NewReader(in), "a.svm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(4, 3, []float64{0.5, 0, -2, 0, 1000, 0, 1, 0, 4, 0, 0, 0})
	if !mat.Equal(d.X, want) {
		t.Errorf("X = %v", mat.Formatted(d.X))
	}
	if !slices.Equal(d.Y, []int{1, 0, 0, 1}) || !slices.Equal(d.ClassNames, []string{"-1", "+1"}) {
		t.Errorf("Y %v ClassNames %q", d.Y, d.ClassNames)
	}
	if !slices.Equal(d.FeatureNames, []string{"f1", "f2", "f3"}) || d.Name != "a" {
		t.Errorf("FeatureNames %q Name %q", d.FeatureNames, d.Name)
	}

	d, err = ReadLIBSVM(strings.NewReader(in), "a.svm", Options{NumFeatures: 5, NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, p := d.Dims(); p != 5 || d.Y != nil {
		t.Errorf("NumFeatures 5: %d columns, Y %v", p, d.Y)
	}
	d, err = ReadLIBSVM(strings.NewReader("2:1\n1:3\n"), "u.svm", Options{NoLabels: true})
	if err != nil || d.X.At(1, 0) != 3 {
		t.Errorf("unlabelled rows: %v", err)
	}
}

func TestReadLIBSVMErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opt      Options
		wants    []string
	}{
		{"negative index", "1 -1:1\n", Options{}, []string{"b.svm:1", `index "-1" is not a non-negative integer`}},
		{"bad index", "1 1:2\n1 x:1\n", Options{}, []string{"b.svm:2", `index "x"`}},
		{"no colon", "1 1:2 3\n", Options{}, []string{"b.svm:1", `token "3": want index:value`}},
		{"bad value", "1 1:abc\n", Options{}, []string{"b.svm:1", "feature 1", `cannot parse "abc"`}},
		{"NaN", "1 1:1\n0 2:nan\n", Options{}, []string{"b.svm:2", "feature 2", "not finite"}},
		{"duplicate", "1 2:1 2:3\n", Options{}, []string{"b.svm:1", "index 2 appears twice"}},
		{"above NumFeatures", "1 4:1\n", Options{NumFeatures: 3}, []string{"b.svm:1", "exceeds the dimension 3"}},
		{"no label", "1:1 2:2\n", Options{}, []string{"b.svm:1", "want a label"}},
		{"multi-label", "1,2 1:1\n", Options{}, []string{"b.svm:1", "multi-label"}},
		{"empty", "# nothing\n\n", Options{}, []string{"b.svm", "empty file"}},
		{"no features", "1\n2\n", Options{}, []string{"b.svm", "no features"}},
		{"unknown class", "1 1:1\n3 1:1\n", Options{Classes: []string{"1", "2"}}, []string{"b.svm:2", `label "3"`}},
		// A dense matrix beyond MaxInputBytes: an error, not an exhausted machine.
		{"huge index", "0 1:1\n1 4000000000:1\n", Options{}, []string{"b.svm:2", "feature index 4000000000", "2 rows", "192 GB with their names", "MaxInputBytes"}},
		{"largest index", "0 1:1\n1 9223372036854775807:1\n", Options{}, []string{"b.svm:2", "feature index 9223372036854775807"}},
		{"huge NumFeatures", "0 1:1\n", Options{NumFeatures: 4000000000}, []string{"b.svm", "dimension 4000000000 (--features"}},
	}
	for _, c := range cases {
		_, err := ReadLIBSVM(strings.NewReader(c.in), "b.svm", c.opt)
		wantErr(t, c.name, err, c.wants...)
		if c.name == "huge index" || c.name == "huge NumFeatures" { // Scan says the same
			err := ScanReader(strings.NewReader(c.in), "b.svm", c.opt, 100, func(*mat.Dense, []int) error { return nil }, nil)
			wantErr(t, c.name+" (Scan)", err, append(c.wants[:2:2], "a chunk of 100 rows")...)
		}
	}
}

// WriteLIBSVM's text reads back as the data (values exactly, the classes
// by name, the dimension even when the last feature is zero everywhere),
// and data LIBSVM cannot hold is refused.
func TestWriteLIBSVMRoundTrip(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{0.1, 0, 1e-300, 0, 0, 0, 0, 0, -2.5, 1.0 / 3, 0, 0})
	d := &Dataset{Name: "t", X: x, Y: []int{1, 0, 1}, ClassNames: []string{"-1", "+1"}}
	var b bytes.Buffer
	if err := WriteLIBSVM(&b, d); err != nil {
		t.Fatal(err)
	}
	want := "+1 1:0.1 3:1e-300 4:0\n-1\n+1 1:-2.5 2:0.3333333333333333\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant\n%s", b.String(), want)
	}
	back, err := ReadLIBSVM(bytes.NewReader(b.Bytes()), "t.libsvm", Options{})
	if err != nil || !mat.Equal(back.X, x) || !slices.Equal(back.Y, d.Y) || !slices.Equal(back.ClassNames, d.ClassNames) {
		t.Errorf("read back: %v\n%v %v %q", err, mat.Formatted(back.X), back.Y, back.ClassNames)
	}
	for _, c := range []struct {
		name string
		d    *Dataset
		want string
	}{
		{"no labels", &Dataset{Name: "t", X: x}, "has no labels"},
		{"unlabelled row", &Dataset{Name: "t", X: x, Y: []int{0, -1, 0}}, "row 2 is unlabelled"},
	} {
		err := WriteLIBSVM(io.Discard, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Text class names (which LIBSVM's strtod and scikit-learn's float()
	// refuse; the review) are written as their indices.
	b.Reset()
	named := &Dataset{Name: "t", X: x, Y: []int{1, 0, 1}, ClassNames: []string{"setosa", "a b:c"}}
	if err := WriteLIBSVM(&b, named); err != nil {
		t.Fatal(err)
	}
	if want := "1 1:0.1 3:1e-300 4:0\n0\n1 1:-2.5 2:0.3333333333333333\n"; b.String() != want {
		t.Errorf("text names:\n%s\nwant\n%s", b.String(), want)
	}
	for _, c := range []struct {
		names []string
		want  bool
	}{{[]string{"-1", "+1"}, true}, {[]string{"0", "2.5", "1e3"}, true}, {[]string{"1", "setosa"}, false}, {[]string{"NaN"}, false}, {[]string{"Inf"}, false}, {[]string{" 1"}, false}, {nil, true},
		{[]string{"0x1p0"}, false}, {[]string{"1_0"}, false}} {
		if got := LIBSVMNumericNames(c.names); got != c.want {
			t.Errorf("LIBSVMNumericNames(%q) = %v", c.names, got)
		}
	}
	// Names that are one number twice go out as indices: read back, the
	// classes stay apart (the review: "1" and "1.0" merged into one).
	for _, names := range [][]string{{"1", "1.0"}, {"+1", "1"}, {"0", "-0"}, {"1", "01"}} {
		d := &Dataset{Name: "t", X: mat.NewDense(2, 1, []float64{1, 2}), Y: []int{0, 1}, ClassNames: names}
		b.Reset()
		if err := WriteLIBSVM(&b, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadLIBSVM(&b, "t.libsvm", Options{})
		if err != nil || len(back.ClassNames) != 2 || !slices.Equal(back.Y, []int{0, 1}) {
			t.Errorf("names %q read back as %q, %v (%v)", names, back.ClassNames, back.Y, err)
		}
	}
}
