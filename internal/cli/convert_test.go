package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
)

// convert writes what it reads in the format of the output's extension,
// and each output reads back as the input: the same rows and, but for
// .npy, the same labels by name (for .npy through --labels-out, as .npy
// or text).
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	// String class names and an unlabelled row.
	src := write(t, "s.csv", "a,b,label\n1,2.5,cat\n-3,4,dög\n5,6e-300,\n7,8,cat\n")
	want, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	named := func(d *data.Dataset) []string {
		var s []string
		for _, c := range d.Y {
			s = append(s, data.LabelText(c, d.ClassNames))
		}
		return s
	}
	for _, name := range []string{"c.csv", "c.tsv.gz", "c.npz", "c.mat", "c.npy"} {
		out := filepath.Join(dir, name)
		args := []string{"convert", "-i", src, "-o", out}
		opt := data.Options{}
		if name == "c.npy" {
			args = append(args, "--labels-out", filepath.Join(dir, "y.txt"))
			opt.LabelsFile = filepath.Join(dir, "y.txt")
		}
		st, stdout, errs := run(t, args...)
		if st != 0 {
			t.Fatalf("%s: status %d: %s", name, st, errs)
		}
		if !strings.Contains(stdout, "(4 rows, 2 features, 2 classes)") {
			t.Errorf("%s: %q", name, stdout)
		}
		got, err := data.Load(out, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !mat.Equal(got.X, want.X) || !slices.Equal(named(got), named(want)) {
			t.Errorf("%s: read back %v, labels %q; want %q", name, mat.Formatted(got.X), named(got), named(want))
		}
	}
	// .npy labels: strings as "<U…", read back by --labels.
	st, _, errs := run(t, "convert", "-i", src, "-o", filepath.Join(dir, "x.npy"), "--labels-out", filepath.Join(dir, "y.npy"))
	if st != 0 {
		t.Fatal(errs)
	}
	got, err := data.Load(filepath.Join(dir, "x.npy"), data.Options{LabelsFile: filepath.Join(dir, "y.npy")})
	if err != nil || !slices.Equal(named(got), named(want)) {
		t.Errorf(".npy labels: %q, %v", named(got), err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-i", src}, "-o OUT is required"},
		{[]string{"-i", src, "-o", filepath.Join(dir, "c.xlsx")}, "unknown extension"},
		{[]string{"-i", src, "-o", src}, "is the input"},
		{[]string{"-i", src, "-o", filepath.Join(dir, "same.npy"), "--labels-out", filepath.Join(dir, ".", "same.npy")}, "the labels would replace the rows"},
		{[]string{"-i", write(t, "n.csv", "a,b\n1,2\n3,4\n"), "--no-labels", "-o", filepath.Join(dir, "d.csv"), "--labels-out", filepath.Join(dir, "z.txt")}, "--labels-out writes the labels"},
	} {
		st, _, errs := run(t, append([]string{"convert"}, c.args...)...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, %q; want %q", c.args, st, errs, c.want)
		}
	}
}

// convert -o .libsvm writes LIBSVM text that reads back as the input (the
// rows exactly, the classes by name); rows LIBSVM cannot hold (an
// unlabelled row) are refused with the row named, and nothing is left.
func TestConvertLIBSVM(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.libsvm.gz")
	st, _, errs := run(t, "convert", "-i", "builtin:wine", "-o", out)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	want, err := datasets.Builtin("wine")
	if err != nil {
		t.Fatal(err)
	}
	got, err := data.Load(out, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got.X, want.X) {
		t.Errorf("rows differ")
	}
	for i := range want.Y {
		if data.LabelText(got.Y[i], got.ClassNames) != data.LabelText(want.Y[i], want.ClassNames) {
			t.Fatalf("row %d: label %q, want %q", i+1, data.LabelText(got.Y[i], got.ClassNames), data.LabelText(want.Y[i], want.ClassNames))
		}
	}
	// Text classes go out as their indices (LIBSVM and scikit-learn read
	// numeric labels only), with a note giving the mapping.
	txt := write(t, "t.csv", "a,b,species\n1,2,setosa\n3,4,virginica\n5,0,setosa\n")
	tout := filepath.Join(dir, "t.libsvm")
	st, _, errs = run(t, "convert", "-i", txt, "-o", tout)
	if b, _ := os.ReadFile(tout); st != 0 || string(b) != "0 1:1 2:2\n1 1:3 2:4\n0 1:5\n" || !strings.Contains(errs, "holds the class indices: 0 = setosa, 1 = virginica") {
		t.Errorf("text classes: status %d, %q, %s", st, b, errs)
	}
	src := write(t, "u.csv", "a,b,label\n1,2,x\n3,4,\n")
	bad := filepath.Join(dir, "u.svm")
	st, _, errs = run(t, "convert", "-i", src, "-o", bad)
	if st == 0 || !strings.Contains(errs, "row 2 is unlabelled") {
		t.Errorf("unlabelled row: status %d, %q", st, errs)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("%s left behind after the refusal", bad)
	}
}
