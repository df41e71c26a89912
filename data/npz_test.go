package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The .npz files of testdata/ were written by NumPy 1.24 (gen_fixtures.py):
// fea (fixtureFea) and its labels under the names and dtypes each test
// states.
func TestReadNPZNumpyFixtures(t *testing.T) {
	cases := []struct {
		file    string
		opt     Options
		y       []int
		classes []string
	}{
		// X float64, y int32.
		{"numpy_savez.npz", Options{}, []int{2, 0, 2, 1}, []string{"1", "2", "3"}},
		// deflated; data float32 in Fortran order, labels "<U4" with
		// non-ASCII letters.
		{"numpy_savez_compressed.npz", Options{}, []int{0, 1, 0, 2}, []string{"cat", "dög", "émeu"}},
		// np.savez(f, fea, gnd): arr_0 and arr_1, gnd 4×1.
		{"numpy_positional.npz", Options{}, []int{2, 0, 2, 1}, []string{"1", "2", "3"}},
		// labels "|S3" under a name found by default, another array beside.
		{"numpy_bytes_labels.npz", Options{}, []int{0, 1, 0, 2}, []string{"cat", "dog", "emu"}},
		// the labels named, the class order given.
		{"numpy_bytes_labels.npz", Options{NPZFeatures: "X", NPZLabels: "target", Classes: []string{"emu", "dog", "cat"}}, []int{2, 1, 2, 0}, []string{"emu", "dog", "cat"}},
		// unlabelled.
		{"numpy_object_labels.npz", Options{NoLabels: true}, nil, nil},
	}
	for _, c := range cases {
		d, err := Load(filepath.Join("testdata", c.file), c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if !mat.Equal(d.X, fixtureFea) {
			t.Errorf("%s: X = %v", c.file, mat.Formatted(d.X))
		}
		if !slices.Equal(d.Y, c.y) || !slices.Equal(d.ClassNames, c.classes) {
			t.Errorf("%s: Y %v ClassNames %q, want %v %q", c.file, d.Y, d.ClassNames, c.y, c.classes)
		}
		if len(d.FeatureNames) != 3 || d.Name != strings.TrimSuffix(c.file, ".npz") {
			t.Errorf("%s: FeatureNames %q Name %q", c.file, d.FeatureNames, d.Name)
		}
	}

	for _, c := range []struct {
		file  string
		opt   Options
		wants []string
	}{
		{"numpy_object_labels.npz", Options{}, []string{"numpy_object_labels.npz[y.npy]", `dtype "|O" is an array of Python objects`}},
		{"numpy_savez.npz", Options{NPZLabels: "labels"}, []string{"numpy_savez.npz", `no label array "labels" (--npz-y`, `the archive holds "X", "y"`}},
		{"numpy_savez.npz", Options{NPZFeatures: "fea"}, []string{`no feature array "fea" (--npz-x`}},
		{"numpy_savez.npz", Options{NPZFeatures: "X", NPZLabels: "X"}, []string{`array "X" cannot be both the features and the labels`}},
		{"numpy_savez.npz", Options{NPZFeatures: "y", NPZLabels: "X"}, []string{"numpy_savez.npz[X.npy]", "labels array has shape [4 3]; want a vector"}},
		{"numpy_savez_compressed.npz", Options{NPZFeatures: "labels", NoLabels: true}, []string{"numpy_savez_compressed.npz[labels.npy]", `holds strings (dtype "<U4"); features must be numbers`}},
		{"numpy_savez_compressed.npz", Options{Classes: []string{"cat", "dög"}}, []string{"numpy_savez_compressed.npz[labels.npy]", "label 4", `"émeu"`}},
		{"numpy_savez.npz", Options{MatFeatures: "fea"}, []string{"--mat-fea", "not npz"}},
	} {
		_, err := Load(filepath.Join("testdata", c.file), c.opt)
		wantErr(t, c.file, err, c.wants...)
	}
	_, err := Load("testdata/numpy_c.npy", Options{NPZLabels: "y"})
	wantErr(t, "npz option on npy", err, "--npz-x and --npz-y", "not npy")
}

// npzOf builds an archive of the given .npy members (deflated when
// compress).
func npzOf(t *testing.T, compress bool, members ...struct {
	name string
	b    []byte
}) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		method := zip.Store
		if compress {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type member = struct {
	name string
	b    []byte
}

func TestReadNPZErrors(t *testing.T) {
	x := rawNPY("<f8", false, "(2, 2)", encodeValues(binary.LittleEndian, []float64{1, 2, 3, 4}))
	y := rawNPY("<i8", false, "(2,)", encodeValues(binary.LittleEndian, []int64{0, 1}))
	good := npzOf(t, true, member{"X.npy", x}, member{"y.npy", y})
	if d, err := ReadNPZ(bytes.NewReader(good), "g.npz", Options{}); err != nil || !slices.Equal(d.Y, []int{0, 1}) {
		t.Fatalf("good archive: %v", err)
	}
	nan := rawNPY("<f8", false, "(2, 2)", encodeValues(binary.LittleEndian, []float64{1, math.NaN(), 3, 4}))
	cases := []struct {
		name  string
		b     []byte
		opt   Options
		wants []string
	}{
		{"not zip", []byte("label,a\n1,2\n"), Options{}, []string{"bad.npz", "not a NumPy .npz file"}},
		{"truncated", good[:len(good)-30], Options{}, []string{"bad.npz", "unreadable zip archive"}},
		{"no arrays", npzOf(t, false, member{"readme.txt", []byte("hi")}), Options{}, []string{"bad.npz", "holds no .npy arrays"}},
		{"two unnamed", npzOf(t, false, member{"a.npy", x}, member{"b.npy", y}), Options{}, []string{"no feature array", `"a", "b"`, "--npz-x"}},
		{"no labels", npzOf(t, false, member{"X.npy", x}, member{"w.npy", y}), Options{}, []string{"no label array", `"X", "w"`, "--npz-y", "--no-labels"}},
		{"label count", npzOf(t, false, member{"X.npy", x}, member{"y.npy", rawNPY("<i8", false, "(3,)", make([]byte, 24))}), Options{}, []string{`label array "y" has 3 entries but feature array "X" has 2 rows`}},
		{"NaN", npzOf(t, false, member{"X.npy", nan}), Options{}, []string{"bad.npz[X.npy]", "row 1, column 2 is NaN"}},
		{"bad member", npzOf(t, false, member{"X.npy", x[:40]}), Options{}, []string{"bad.npz[X.npy]", "truncated"}},
		{"fractional labels", npzOf(t, false, member{"X.npy", x}, member{"y.npy", rawNPY("<f8", false, "(2,)", encodeValues(binary.LittleEndian, []float64{1, 1.5}))}), Options{}, []string{"bad.npz[y.npy]", "label 2 is 1.5", "integers or strings"}},
		{"duplicate", npzOf(t, false, member{"X.npy", x}, member{"X.npy", x}), Options{}, []string{`two arrays named "X"`}},
	}
	for _, c := range cases {
		_, err := ReadNPZ(bytes.NewReader(c.b), "bad.npz", c.opt)
		wantErr(t, c.name, err, c.wants...)
	}

	// A member whose stored bytes were damaged fails its CRC.
	plain := npzOf(t, false, member{"X.npy", x})
	i := bytes.Index(plain, x[len(x)-8:])
	bad := slices.Clone(plain)
	bad[i] ^= 1
	_, err := ReadNPZ(bytes.NewReader(bad), "crc.npz", Options{})
	wantErr(t, "crc", err, "crc.npz[X.npy]", "cannot read the archive member")

	// A member larger than MaxInputBytes is refused before it is read.
	defer func(v int64) { MaxInputBytes = v }(MaxInputBytes)
	MaxInputBytes = 40
	_, err = ReadNPZ(bytes.NewReader(good), "big.npz", Options{})
	wantErr(t, "limit", err, "big.npz[X.npy]", "more than the 40 bytes")
}

func TestNPZRoundTrip(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(3, 2, []float64{0.1, -2, math.Pi, 1e-300, 5, 6})
	for _, c := range []struct {
		name    string
		y       []int
		classes []string
	}{
		{"ints", []int{1, 0, 1}, []string{"-4", "17"}},
		{"strings", []int{2, 0, 1}, []string{"cat", "日本", "x"}},
		{"unlabelled row", []int{0, Unlabeled, 0}, []string{"3"}},
		{"no labels", nil, nil},
	} {
		for _, file := range []string{"z.npz", "z.npz.gz"} {
			path := filepath.Join(dir, file)
			d := &Dataset{X: x, Y: c.y, ClassNames: c.classes}
			if err := WriteFile(path, func(w io.Writer) error { return Write(w, "npz", d) }); err != nil {
				t.Fatal(err)
			}
			got, err := Load(path, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, file, err)
			}
			if !mat.Equal(got.X, x) || (got.Y == nil) != (c.y == nil) || len(got.Y) != len(c.y) {
				t.Errorf("%s %s: X %v Y %v", c.name, file, mat.Formatted(got.X), got.Y)
			}
			if c.y != nil {
				// Each row keeps its class name (the names come back
				// sorted, so the label numbers may differ).
				var names []string
				for _, l := range got.Y {
					if l == Unlabeled {
						names = append(names, "?")
					} else {
						names = append(names, got.ClassNames[l])
					}
				}
				var wantNames []string
				for _, l := range c.y {
					if l == Unlabeled {
						wantNames = append(wantNames, "?")
					} else {
						wantNames = append(wantNames, c.classes[l])
					}
				}
				if !slices.Equal(names, wantNames) {
					t.Errorf("%s %s: row classes %q, want %q", c.name, file, names, wantNames)
				}
			}
		}
	}
	if err := Write(new(bytes.Buffer), "npz", &Dataset{X: x, Y: []int{0, 5, 0}, ClassNames: []string{"a"}}); err == nil || !strings.Contains(err.Error(), "row 2 has label 5") {
		t.Errorf("label out of range: %v", err)
	}
	if err := Write(new(bytes.Buffer), "npz", &Dataset{}); err == nil {
		t.Error("empty data: no error")
	}
}

// A labels file for .npy data may hold strings too.
func TestReadLabelsStrings(t *testing.T) {
	u := rawNPY(">U2", false, "(3,)", encodeValues(binary.BigEndian, []uint32{'a', 0, 'b', 'c', 'a', 0}))
	y, names, err := ReadLabels(bytes.NewReader(u), "y.npy", 3, nil)
	if err != nil || !slices.Equal(y, []int{0, 1, 0}) || !slices.Equal(names, []string{"a", "bc"}) {
		t.Errorf(">U2 labels: %v %v %v", y, names, err)
	}
	s := rawNPY("|S2", false, "(3,)", []byte("a\x00?\x00bc"))
	y, names, err = ReadLabels(bytes.NewReader(s), "y.npy", 3, nil)
	if err != nil || !slices.Equal(y, []int{0, Unlabeled, 1}) || !slices.Equal(names, []string{"a", "bc"}) {
		t.Errorf("|S2 labels: %v %v %v", y, names, err)
	}
}

func FuzzReadNPZ(f *testing.F) {
	for _, file := range []string{"numpy_savez.npz", "numpy_savez_compressed.npz", "numpy_positional.npz", "numpy_bytes_labels.npz", "numpy_object_labels.npz"} { // written by NumPy
		if b, err := os.ReadFile(filepath.Join("testdata", file)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadNPZ(bytes.NewReader(b), "fuzz.npz", Options{})
		checkFuzzResult(t, "fuzz.npz", d, err)
	})
}

// NPYWriter writes a stream of chunks as one array (its row count in the
// header at the end), which Load and the header's shape agree on; it
// needs a writer that can seek.
func TestNPYWriter(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(5, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, math.Pi})
	path := filepath.Join(dir, "z.npy")
	err := WriteFile(path, func(w io.Writer) error {
		nw, err := NewNPYWriter(w, path, 2)
		if err != nil {
			return err
		}
		for _, r := range [][2]int{{0, 2}, {2, 3}, {3, 5}} {
			if err := nw.Write(x.Slice(r[0], r[1], 0, 2).(*mat.Dense), nil); err != nil {
				return err
			}
		}
		return nw.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	whole := filepath.Join(dir, "whole.npy")
	if err := WriteNPY(whole, x); err != nil {
		t.Fatal(err)
	}
	if w, _ := os.ReadFile(whole); !bytes.Equal(b, w) {
		t.Errorf("streamed file differs from WriteNPY's:\n%q\n%q", b, w)
	}
	d, err := Load(path, Options{})
	if err != nil || !mat.Equal(d.X, x) {
		t.Errorf("read back: %v", err)
	}
	if _, err := NewNPYWriter(new(bytes.Buffer), "out", 2); err == nil || !strings.Contains(err.Error(), "not standard output, a pipe or a .gz") {
		t.Errorf("a writer that cannot seek: %v", err)
	}
	// No rows: an empty (0, 2) array, as np.save writes np.zeros((0, 2));
	// the readers refuse it with their rule for empty data.
	empty := filepath.Join(dir, "e.npy")
	err = WriteFile(empty, func(w io.Writer) error {
		nw, err := NewNPYWriter(w, "e.npy", 2)
		if err != nil {
			return err
		}
		return nw.Flush()
	})
	if b, _ := os.ReadFile(empty); err != nil || !bytes.Equal(b, npyHeader("<f8", 0, 2)) {
		t.Errorf("no rows: %v, %q", err, b)
	}
	if _, err := Load(empty, Options{}); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("reading an empty array: %v", err)
	}
}

// The .npy writers write the bytes NumPy 1.24's np.save and np.savez
// wrote for the same arrays (testdata/gen_fixtures.py): the header padded
// for the first dimension to grow to 21 digits, then to 64 bytes.
func TestNPYWritersMatchNumPy(t *testing.T) {
	dir := t.TempDir()
	fea := fixtureFea
	check := func(what string, got []byte, wantFile, member string) {
		t.Helper()
		var want []byte
		if member == "" {
			want, _ = os.ReadFile(wantFile)
		} else {
			want = zipMember(t, wantFile, member)
		}
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: %q\nnumpy (%s %s): %q", what, got, wantFile, member, want)
		}
	}
	p := filepath.Join(dir, "x.npy")
	if err := WriteNPY(p, fea); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	check("WriteNPY", b, "testdata/numpy_c.npy", "")
	if err := WriteLabelsNPY(p, []int{3, 1, 3, 2}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	check("WriteLabelsNPY", b, "testdata/numpy_labels.npy", "")
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, &Dataset{X: fea}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, buf.Bytes(), 0o644)
	check("WriteNPZ X", zipMember(t, p, "X.npy"), "testdata/numpy_savez.npz", "X.npy")
	buf.Reset()
	if err := writeUnicodeNPY(&buf, []string{"cat", "dög", "cat", "émeu"}); err != nil {
		t.Fatal(err)
	}
	check("unicode labels", buf.Bytes(), "testdata/numpy_savez_compressed.npz", "labels.npy")
	// The header's length does not depend on the row count, so that
	// NPYWriter can write the count into it at the end.
	for _, p := range []int{1, 784, 123456} {
		n0 := len(npyHeader("<f8", 0, p))
		for _, n := range []int{1, 10000, math.MaxInt64} {
			if l := len(npyHeader("<f8", n, p)); l != n0 || l%64 != 0 {
				t.Errorf("header of (%d, %d): %d bytes; of (0, %d): %d", n, p, l, p, n0)
			}
		}
	}
}

// zipMember returns the uncompressed bytes of a member of a zip file.
func zipMember(t *testing.T, file, name string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Contents lists what --npz-x/--npz-y and --mat-fea/--mat-gnd can name,
// read from files NumPy and SciPy wrote; a table format gives nil.
func TestContents(t *testing.T) {
	for file, want := range map[string][]string{
		"testdata/numpy_bytes_labels.npz":     {"X (4×3 <f8)", "target (4 |S3)", "extra (2 <f8)"},
		"testdata/numpy_savez_compressed.npz": {"data (4×3 <f4)", "labels (4 <U4)"},
		"testdata/scipy_v5_col.mat":           {"X (3×4 double)", "y (1×4 int32)"},
		"testdata/numpy_c.npy":                nil,
	} {
		got, err := Contents(file, Options{})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", file, got, err, want)
		}
	}
}

// strNPY encodes strs as a NumPy "<U{width}" vector.
func strNPY(strs []string, width int) []byte {
	cps := make([]uint32, 0, len(strs)*width)
	for _, s := range strs {
		r := []rune(s)
		for k := 0; k < width; k++ {
			c := uint32(0)
			if k < len(r) {
				c = uint32(r[k])
			}
			cps = append(cps, c)
		}
	}
	return rawNPY(fmt.Sprintf("<U%d", width), false, fmt.Sprintf("(%d,)", len(strs)), encodeValues(binary.LittleEndian, cps))
}

// An archive saved from a scikit-learn Bunch (np.savez(f, X=b.data,
// y=b.target, feature_names=b.feature_names, target_names=b.target_names))
// names the features and the classes by those arrays; names that cannot
// (a wrong count, labels past them) are left with a note.
func TestReadNPZBunchNames(t *testing.T) {
	x := rawNPY("<f8", false, "(3, 2)", encodeValues(binary.LittleEndian, []float64{1, 2, 3, 4, 5, 6}))
	y := rawNPY("<i8", false, "(3,)", encodeValues(binary.LittleEndian, []int64{2, 0, 2}))
	fn := member{"feature_names.npy", strNPY([]string{"sepal length", "petal"}, 12)}
	tn := member{"target_names.npy", strNPY([]string{"setosa", "versicolor", "virginica"}, 10)}
	b := npzOf(t, true, member{"X.npy", x}, member{"y.npy", y}, fn, tn)
	d, err := ReadNPZ(bytes.NewReader(b), "bunch.npz", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.FeatureNames, []string{"sepal length", "petal"}) || !slices.Equal(d.ClassNames, []string{"setosa", "versicolor", "virginica"}) || !slices.Equal(d.Y, []int{2, 0, 2}) || len(d.Notes) != 0 {
		t.Errorf("bunch: features %q classes %q y %v notes %q", d.FeatureNames, d.ClassNames, d.Y, d.Notes)
	}
	// Given classes (a model's) match the names.
	d, err = ReadNPZ(bytes.NewReader(b), "bunch.npz", Options{Classes: []string{"virginica", "setosa"}})
	if err != nil || !slices.Equal(d.Y, []int{0, 1, 0}) {
		t.Errorf("bunch with classes: %v %v", d.Y, err)
	}
	// Features alone with their names: unlabelled data, not an error.
	d, err = ReadNPZ(bytes.NewReader(npzOf(t, false, member{"X.npy", x}, fn)), "x.npz", Options{})
	if err != nil || d.Y != nil || d.FeatureNames[0] != "sepal length" {
		t.Errorf("features and names alone: %v", err)
	}
	short := member{"target_names.npy", strNPY([]string{"a", "b"}, 1)}
	wrong := member{"feature_names.npy", strNPY([]string{"a", "b", "c"}, 1)}
	d, err = ReadNPZ(bytes.NewReader(npzOf(t, false, member{"X.npy", x}, member{"y.npy", y}, wrong, short)), "w.npz", Options{})
	if err != nil || len(d.Notes) != 2 || !slices.Equal(d.ClassNames, []string{"0", "2"}) || d.FeatureNames[0] != "x0" ||
		!strings.Contains(strings.Join(d.Notes, "\n"), `array "feature_names" does not name the features: it has 3 names for 2`) ||
		!strings.Contains(strings.Join(d.Notes, "\n"), `array "target_names" does not name the classes: label "2" is not an index 0..1 of its 2 names`) {
		t.Errorf("names that do not fit: %v %q %q", err, d.ClassNames, d.Notes)
	}
	// scikit-learn's semi-supervised mark −1 with --unlabelled -1: the
	// names still name the labelled rows' classes (the review: −1 was
	// taken for a label past the names, and the names were dropped).
	semi := rawNPY("<i8", false, "(3,)", encodeValues(binary.LittleEndian, []int64{1, -1, 0}))
	two := member{"target_names.npy", strNPY([]string{"setosa", "versicolor"}, 10)}
	d, err = ReadNPZ(bytes.NewReader(npzOf(t, false, member{"X.npy", x}, member{"y.npy", semi}, two)), "s.npz", Options{Unlabelled: "-1"})
	if err != nil || !slices.Equal(d.ClassNames, []string{"setosa", "versicolor"}) || !slices.Equal(d.Y, []int{1, Unlabeled, 0}) || len(d.Notes) != 0 {
		t.Errorf("semi-supervised bunch: %v classes %q y %v notes %q", err, d.ClassNames, d.Y, d.Notes)
	}
}
