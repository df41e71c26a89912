package data

import (
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
