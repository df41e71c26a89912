package data

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// rawNPY builds a version 1.0 .npy file by hand.
func rawNPY(descr string, fortran bool, shape string, data []byte) []byte {
	f := "False"
	if fortran {
		f = "True"
	}
	hdr := "{'descr': '" + descr + "', 'fortran_order': " + f + ", 'shape': " + shape + ", }"
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	var b bytes.Buffer
	b.Write(npy.Magic[:])
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	b.Write(data)
	return b.Bytes()
}

func encodeValues(order binary.ByteOrder, v any) []byte {
	var b bytes.Buffer
	binary.Write(&b, order, v)
	return b.Bytes()
}

// float16: the bytes NumPy 1.24 wrote for
// np.array([1, -2.5, 65504, 2**-24, 1/3, -0.0, 6.1e-5], dtype='<f2')
// and the values it reads back (float(x)), subnormals and the largest
// half included.
func TestReadNPYFloat16(t *testing.T) {
	raw, err := hex.DecodeString("003c00c1ff7b010055350080ff03")
	if err != nil {
		t.Fatal(err)
	}
	x, err := ReadNPY(bytes.NewReader(rawNPY("<f2", false, "(7,)", raw)), "h.npy")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -2.5, 65504, 5.960464477539063e-08, 0.333251953125, math.Copysign(0, -1), 6.097555160522461e-05}
	for i, w := range want {
		if g := x.At(i, 0); math.Float64bits(g) != math.Float64bits(w) {
			t.Errorf("half %d: %v, NumPy reads %v", i, g, w)
		}
	}
	for _, c := range []struct {
		h    uint16
		want float64
	}{{0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)}, {0x0000, 0}, {0x0400, math.Ldexp(1, -14)}, {0x03ff, math.Ldexp(1023, -24)}} {
		if g := halfToFloat64(c.h); g != c.want {
			t.Errorf("half %#04x: %v, want %v", c.h, g, c.want)
		}
	}
	if !math.IsNaN(halfToFloat64(0x7e00)) {
		t.Errorf("half 0x7e00 is not NaN")
	}
}

func TestReadNPY(t *testing.T) {
	want := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	c := []float64{1, 2, 3, 4, 5, 6}
	f := []float64{1, 4, 2, 5, 3, 6} // Fortran order
	cases := []struct {
		name string
		b    []byte
	}{
		{"<f8 C", rawNPY("<f8", false, "(2, 3)", encodeValues(binary.LittleEndian, c))},
		{">f8 C", rawNPY(">f8", false, "(2, 3)", encodeValues(binary.BigEndian, c))},
		{"<f8 F", rawNPY("<f8", true, "(2, 3)", encodeValues(binary.LittleEndian, f))},
		{"<f4 F", rawNPY("<f4", true, "(2, 3)", encodeValues(binary.LittleEndian, []float32{1, 4, 2, 5, 3, 6}))},
		{"|u1", rawNPY("|u1", false, "(2, 3)", []byte{1, 2, 3, 4, 5, 6})},
		{"|i1", rawNPY("|i1", false, "(2, 3)", []byte{1, 2, 3, 4, 5, 6})},
		{"<i2", rawNPY("<i2", false, "(2, 3)", encodeValues(binary.LittleEndian, []int16{1, 2, 3, 4, 5, 6}))},
		{">i4", rawNPY(">i4", false, "(2, 3)", encodeValues(binary.BigEndian, []int32{1, 2, 3, 4, 5, 6}))},
		{"<i8", rawNPY("<i8", false, "(2, 3)", encodeValues(binary.LittleEndian, []int64{1, 2, 3, 4, 5, 6}))},
		{"<u2", rawNPY("<u2", false, "(2, 3)", encodeValues(binary.LittleEndian, []uint16{1, 2, 3, 4, 5, 6}))},
		{"<u4", rawNPY("<u4", false, "(2, 3)", encodeValues(binary.LittleEndian, []uint32{1, 2, 3, 4, 5, 6}))},
		{"<u8", rawNPY("<u8", false, "(2, 3)", encodeValues(binary.LittleEndian, []uint64{1, 2, 3, 4, 5, 6}))},
		{"<f2", rawNPY("<f2", false, "(2, 3)", encodeValues(binary.LittleEndian, []uint16{0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600}))},
		{">f2 F", rawNPY(">f2", true, "(2, 3)", encodeValues(binary.BigEndian, []uint16{0x3c00, 0x4400, 0x4000, 0x4500, 0x4200, 0x4600}))},
	}
	for _, c := range cases {
		x, err := ReadNPY(bytes.NewReader(c.b), "x.npy")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !mat.Equal(x, want) {
			t.Errorf("%s: X = %v", c.name, mat.Formatted(x))
		}
	}

	// 1-D: one feature column; bool.
	x, err := ReadNPY(bytes.NewReader(rawNPY("|b1", false, "(3,)", []byte{1, 0, 1})), "b.npy")
	if err != nil || !mat.Equal(x, mat.NewDense(3, 1, []float64{1, 0, 1})) {
		t.Errorf("1-D bool: %v", err)
	}
	// Negative integers.
	x, err = ReadNPY(bytes.NewReader(rawNPY("<i2", false, "(2,)", encodeValues(binary.LittleEndian, []int16{-7, 300}))), "n.npy")
	if err != nil || x.At(0, 0) != -7 || x.At(1, 0) != 300 {
		t.Errorf("negative int16: %v", err)
	}
}

func TestReadNPYErrors(t *testing.T) {
	good := rawNPY("<f8", false, "(2, 3)", encodeValues(binary.LittleEndian, []float64{1, 2, 3, 4, 5, 6}))
	cases := []struct {
		name  string
		b     []byte
		wants []string
	}{
		{"empty", nil, []string{"bad.npy", "not a NumPy .npy file"}},
		{"not npy", []byte("label,a\n1,2\n"), []string{"bad.npy", "byte offset 0", "not a NumPy"}},
		{"truncated data", good[:len(good)-3], []string{"bad.npy", "truncated", "needs 48 data bytes"}},
		{"truncated header", good[:30], []string{"bad.npy", "truncated .npy header"}},
		{"trailing bytes", append(slices.Clone(good), 1, 2, 3), []string{"bad.npy", "byte offset 176", "3 bytes after the data: shape [2 3] of <f8 ends at byte 176 of 179"}},
		{"garbage header", rawNPY("<f8", false, "(2, x)", nil), []string{"bad.npy", "invalid .npy header"}},
		{"no newline header", append(append(slices.Clone(npy.Magic[:]), 1, 0, 4, 0), "{}  "...), []string{"bad.npy", "header"}},
		{"3-D", rawNPY("<f8", false, "(1, 1, 1)", make([]byte, 8)), []string{"bad.npy", "shape [1 1 1]", "1-D or 2-D"}},
		{"complex", rawNPY("<c16", false, "(1,)", make([]byte, 16)), []string{"bad.npy", "unsupported dtype"}},
		{"string", rawNPY("|S3", false, "(1,)", make([]byte, 3)), []string{"bad.npy", "byte offset 8", `holds strings (dtype "|S3"); features must be numbers`}},
		{"unicode truncated", rawNPY("<U3", false, "(2,)", make([]byte, 20)), []string{"bad.npy", "truncated", "needs 24 data bytes"}},
		{"object", rawNPY("|O", false, "(1,)", make([]byte, 8)), []string{"bad.npy", `dtype "|O" is an array of Python objects (pickled)`, ".astype(str)"}},
		{"empty array", rawNPY("<f8", false, "(0, 3)", nil), []string{"bad.npy", "empty"}},
		{"NaN", rawNPY("<f8", false, "(2,)", encodeValues(binary.LittleEndian, []float64{1, math.NaN()})), []string{"bad.npy", "row 2, column 1 is NaN", "byte offset 136"}},
	}
	for _, c := range cases {
		_, err := ReadNPY(bytes.NewReader(c.b), "bad.npy")
		wantErr(t, c.name, err, c.wants...)
	}
}

func TestNPYRoundTripWithLabels(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(3, 2, []float64{0.1, -2, math.Pi, 1e-300, 5, 6})
	for _, name := range []string{"x.npy", "x.npy.gz"} {
		path := filepath.Join(dir, name)
		if err := WriteNPY(path, x); err != nil {
			t.Fatal(err)
		}
		yPath := filepath.Join(dir, "y_"+name)
		if err := WriteLabelsNPY(yPath, []int{4, 2, 4}); err != nil {
			t.Fatal(err)
		}
		d, err := Load(path, Options{LabelsFile: yPath})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(d.X, x) || !slices.Equal(d.Y, []int{1, 0, 1}) || !slices.Equal(d.ClassNames, []string{"2", "4"}) || d.Name != "x" {
			t.Errorf("%s: X %v Y %v ClassNames %q Name %q", name, mat.Formatted(d.X), d.Y, d.ClassNames, d.Name)
		}
		// Without a labels file the data is unlabelled.
		d, err = Load(path, Options{})
		if err != nil || d.Y != nil {
			t.Errorf("%s without labels: %v %v", name, err, d.Y)
		}
	}

	path := filepath.Join(dir, "x.npy")
	txt := writeTemp(t, dir, "y.txt", "cat\n\ndog\n")
	d, err := Load(path, Options{LabelsFile: txt})
	if err != nil || !slices.Equal(d.Y, []int{0, -1, 1}) || !slices.Equal(d.ClassNames, []string{"cat", "dog"}) {
		t.Errorf("text labels: %v %v %q", err, d.Y, d.ClassNames)
	}
	txt = writeTemp(t, dir, "y2.txt", "1\r\n2\r\n?")
	d, err = Load(path, Options{LabelsFile: txt})
	if err != nil || !slices.Equal(d.Y, []int{0, 1, -1}) {
		t.Errorf("CRLF text labels: %v %v", err, d.Y)
	}
	// 2-D column vector of float labels that are integers.
	col := filepath.Join(dir, "ycol.npy")
	os.WriteFile(col, rawNPY("<f8", false, "(3, 1)", encodeValues(binary.LittleEndian, []float64{1, 1, 3})), 0o644)
	d, err = Load(path, Options{LabelsFile: col})
	if err != nil || !slices.Equal(d.Y, []int{0, 0, 1}) {
		t.Errorf("column-vector labels: %v %v", err, d.Y)
	}

	short := writeTemp(t, dir, "short.txt", "a\nb\n")
	_, err = Load(path, Options{LabelsFile: short})
	wantErr(t, "label count", err, "short.txt", "2 labels for 3 rows")
	frac := filepath.Join(dir, "frac.npy")
	os.WriteFile(frac, rawNPY("<f8", false, "(3,)", encodeValues(binary.LittleEndian, []float64{1, 1.5, 3})), 0o644)
	_, err = Load(path, Options{LabelsFile: frac})
	wantErr(t, "fractional labels", err, "frac.npy", "label 2 is 1.5", "byte offset 136")
	mat2 := filepath.Join(dir, "m.npy")
	os.WriteFile(mat2, rawNPY("<i8", false, "(3, 2)", make([]byte, 48)), 0o644)
	_, err = Load(path, Options{LabelsFile: mat2})
	wantErr(t, "matrix labels", err, "m.npy", "want a vector")
	_, err = Load(path, Options{LabelsFile: filepath.Join(dir, "none.npy")})
	wantErr(t, "absent labels", err, "none.npy")
	unknown := writeTemp(t, dir, "u.txt", "a\nb\nc\n")
	_, err = Load(path, Options{LabelsFile: unknown, Classes: []string{"a", "b"}})
	wantErr(t, "unknown class", err, "u.txt:3", `label "c"`)

	if err := WriteNPY(filepath.Join(dir, "no", "such", "dir.npy"), x); err == nil {
		t.Error("WriteNPY to a missing directory: no error")
	}
	if err := WriteNPY(filepath.Join(dir, "e.npy"), &mat.Dense{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("WriteNPY empty: %v", err)
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(rawNPY("<f8", false, "(2, 3)", encodeValues(binary.LittleEndian, []float64{1, 2, 3, 4, 5, 6})))
	f.Add(rawNPY(">i2", true, "(3,)", encodeValues(binary.BigEndian, []int16{1, 2, 3})))
	for _, file := range []string{"numpy_c.npy", "numpy_fortran.npy", "numpy_bigendian.npy", "numpy_labels.npy"} { // written by NumPy
		if b, err := os.ReadFile(filepath.Join("testdata", file)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ReadNPY(bytes.NewReader(b), "fuzz.npy")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.npy") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := CheckFinite("fuzz.npy", x); err != nil {
			t.Fatal(err)
		}
	})
}

// A text labels file with blank lines after the last label (an editor's
// habit) reads as the labels (it was "152 labels for 150 rows"); a blank
// line among the rows is still an unlabeled row.
func TestReadLabelsTrailingBlankLines(t *testing.T) {
	y, names, err := ReadLabels(strings.NewReader("a\nb\n\na\n\n\n"), "l.txt", 4, nil)
	if err != nil || len(y) != 4 || y[2] != Unlabeled || len(names) != 2 {
		t.Fatalf("y %v names %v err %v", y, names, err)
	}
	if _, _, err := ReadLabels(strings.NewReader("a\nb\nc\n"), "l.txt", 2, nil); err == nil || !strings.Contains(err.Error(), "3 labels for 2 rows") {
		t.Errorf("one label too many: %v", err)
	}
}

// Numeric label arrays: NaN is an unlabelled row (as in a .mat file's
// gnd; it was an error), and an int64 beyond 2⁵³ is refused for what it
// is (the library audit: "labels must be integers or strings" for an
// integer).
func TestNPYLabelValues(t *testing.T) {
	f := rawNPY("<f8", false, "(3,)", encodeValues(binary.LittleEndian, []float64{2, math.NaN(), 0}))
	y, names, err := ReadLabels(bytes.NewReader(f), "y.npy", 3, nil)
	if err != nil || !slices.Equal(y, []int{1, -1, 0}) || !slices.Equal(names, []string{"0", "2"}) {
		t.Errorf("NaN label: %v %q %v", y, names, err)
	}
	big := rawNPY("<i8", false, "(2,)", encodeValues(binary.LittleEndian, []int64{1, 1 << 62}))
	_, _, err = ReadLabels(bytes.NewReader(big), "y.npy", 2, nil)
	wantErr(t, "int64 label 2^62", err, "label 2 is 4.611686018427388e+18, beyond 2⁵³", "store them as strings")
}
