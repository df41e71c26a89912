package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A small MAT-file level 5 writer for the tests: it writes what MATLAB
// writes (128-byte header, miMATRIX elements with flags, dimensions, name
// and real part, small data elements where they fit, optional zlib
// compression) in either byte order.

// testVar is a variable to write. For numeric classes vals holds the
// column-major values, encoded as dtype; for other classes raw holds the
// elements after the name (may be nil).
type testVar struct {
	name    string
	class   byte // mx class: 6 double, 7 single, 8 int8, ... 15 uint64; 1 cell, 4 char, ...
	dims    []int
	dtype   uint32 // mi type of the stored values
	vals    []float64
	raw     []byte
	complex bool
	flags   uint32 // extra flag bits
}

type matWriter struct {
	order binary.ByteOrder
}

// element encodes a data element; small elements (≤ 4 bytes) use the
// packed tag format when small is true.
func (w matWriter) element(typ uint32, payload []byte, small bool) []byte {
	var b bytes.Buffer
	if small && len(payload) <= 4 {
		binary.Write(&b, w.order, uint32(len(payload))<<16|typ)
		b.Write(payload)
		b.Write(make([]byte, 4-len(payload)))
		return b.Bytes()
	}
	binary.Write(&b, w.order, typ)
	binary.Write(&b, w.order, uint32(len(payload)))
	b.Write(payload)
	if pad := (8 - len(payload)%8) % 8; pad > 0 {
		b.Write(make([]byte, pad))
	}
	return b.Bytes()
}

// encode stores vals as mi type dtype.
func (w matWriter) encode(dtype uint32, vals []float64) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		switch dtype {
		case miINT8:
			binary.Write(&b, w.order, int8(v))
		case miUINT8:
			binary.Write(&b, w.order, uint8(v))
		case miINT16:
			binary.Write(&b, w.order, int16(v))
		case miUINT16:
			binary.Write(&b, w.order, uint16(v))
		case miINT32:
			binary.Write(&b, w.order, int32(v))
		case miUINT32:
			binary.Write(&b, w.order, uint32(v))
		case miINT64:
			binary.Write(&b, w.order, int64(v))
		case miUINT64:
			binary.Write(&b, w.order, uint64(v))
		case miSINGLE:
			binary.Write(&b, w.order, float32(v))
		case miDOUBLE:
			binary.Write(&b, w.order, v)
		default:
			panic("bad dtype")
		}
	}
	return b.Bytes()
}

// matrix encodes v as a complete miMATRIX element.
func (w matWriter) matrix(v testVar) []byte {
	var body bytes.Buffer
	flags := make([]byte, 8)
	f := uint32(v.class) | v.flags
	if v.complex {
		f |= 0x0800
	}
	w.order.PutUint32(flags, f)
	body.Write(w.element(miUINT32, flags, false))
	dims := make([]byte, 4*len(v.dims))
	for i, d := range v.dims {
		w.order.PutUint32(dims[4*i:], uint32(int32(d)))
	}
	body.Write(w.element(miINT32, dims, false))
	body.Write(w.element(miINT8, []byte(v.name), true))
	if v.class >= mxDOUBLE && v.class <= mxUINT64 {
		body.Write(w.element(v.dtype, w.encode(v.dtype, v.vals), true))
		if v.complex {
			body.Write(w.element(v.dtype, w.encode(v.dtype, v.vals), true))
		}
	} else {
		body.Write(v.raw)
	}
	return w.element(miMATRIX, body.Bytes(), false)
}

// file encodes a whole MAT-file.
func (w matWriter) file(compress bool, vars ...testVar) []byte {
	var b bytes.Buffer
	text := []byte("MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: test")
	b.Write(text)
	b.Write(bytes.Repeat([]byte{' '}, 116-len(text)))
	b.Write(make([]byte, 8)) // subsystem data offset
	binary.Write(&b, w.order, uint16(0x0100))
	binary.Write(&b, w.order, uint16('M')<<8|uint16('I'))
	for _, v := range vars {
		m := w.matrix(v)
		if !compress {
			b.Write(m)
			continue
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(m)
		zw.Close()
		binary.Write(&b, w.order, uint32(miCOMPRESSED))
		binary.Write(&b, w.order, uint32(z.Len()))
		b.Write(z.Bytes()) // compressed elements are not padded
	}
	return b.Bytes()
}

var (
	le = matWriter{binary.LittleEndian}
	be = matWriter{binary.BigEndian}
)

// charVar is a MATLAB char array (skipped by the reader).
func charVar(w matWriter, name, text string) testVar {
	u := make([]byte, 2*len(text))
	for i := range text {
		w.order.PutUint16(u[2*i:], uint16(text[i]))
	}
	return testVar{name: name, class: 4, dims: []int{1, len(text)}, raw: w.element(miUINT16, u, true)}
}

// cellVar is a 1×1 cell holding a double scalar (skipped by the reader).
func cellVar(w matWriter, name string) testVar {
	inner := w.matrix(testVar{class: mxDOUBLE, dims: []int{1, 1}, dtype: miDOUBLE, vals: []float64{7}})
	return testVar{name: name, class: 1, dims: []int{1, 1}, raw: inner}
}

// opaqueElement is a MATLAB object (class 17, as saved for string, table or
// datetime values): flags, three names and a matrix, without dimensions.
func opaqueElement(w matWriter, name string) []byte {
	var body bytes.Buffer
	flags := make([]byte, 8)
	w.order.PutUint32(flags, 17)
	body.Write(w.element(miUINT32, flags, false))
	body.Write(w.element(miINT8, []byte(name), true))
	body.Write(w.element(miINT8, []byte("MCOS"), true))
	body.Write(w.element(miINT8, []byte("string"), true))
	body.Write(w.matrix(testVar{class: 13, dims: []int{1, 2}, dtype: miUINT32, vals: []float64{1, 2}}))
	return w.element(miMATRIX, body.Bytes(), false)
}

func readMATBytes(t *testing.T, b []byte, opt Options) (*Dataset, error) {
	t.Helper()
	return ReadMAT(bytes.NewReader(b), "test.mat", opt)
}

// feaGnd returns a 3×2 feature matrix (rows are samples) and its labels.
func feaGnd(dtype uint32) (testVar, testVar) {
	// Column-major: column 0 = 1,2,3; column 1 = 4,5,6.
	fea := testVar{name: "fea", class: mxDOUBLE, dims: []int{3, 2}, dtype: dtype, vals: []float64{1, 2, 3, 4, 5, 6}}
	gnd := testVar{name: "gnd", class: mxDOUBLE, dims: []int{3, 1}, dtype: miUINT8, vals: []float64{2, 1, 2}}
	return fea, gnd
}

func TestReadMATBasic(t *testing.T) {
	for _, w := range []matWriter{le, be} {
		for _, compress := range []bool{false, true} {
			fea, gnd := feaGnd(miDOUBLE)
			b := w.file(compress, charVar(w, "note", "hello"), fea, cellVar(w, "c"), gnd)
			d, err := readMATBytes(t, b, Options{})
			if err != nil {
				t.Fatalf("order %v compress %v: %v", w.order, compress, err)
			}
			want := mat.NewDense(3, 2, []float64{1, 4, 2, 5, 3, 6})
			if !mat.Equal(d.X, want) {
				t.Errorf("order %v compress %v: X = %v, want %v", w.order, compress, mat.Formatted(d.X), mat.Formatted(want))
			}
			if !slices.Equal(d.Y, []int{1, 0, 1}) || !slices.Equal(d.ClassNames, []string{"1", "2"}) {
				t.Errorf("Y = %v, ClassNames = %v", d.Y, d.ClassNames)
			}
			if d.Name != "test" || len(d.FeatureNames) != 2 || d.FeatureNames[1] != "x1" {
				t.Errorf("Name %q FeatureNames %v", d.Name, d.FeatureNames)
			}
		}
	}
}

func TestReadMATNumericClasses(t *testing.T) {
	vals := []float64{-3, 0, 5, 100, -128, 127}
	pos := []float64{3, 0, 5, 100, 255, 127}
	cases := []struct {
		class byte
		dtype uint32
		vals  []float64
	}{
		{mxDOUBLE, miDOUBLE, []float64{0.5, -1.25, 3e10, 0, 1e-300, 7}},
		{mxDOUBLE, miUINT8, pos},                                 // MATLAB stores small non-negative doubles as uint8
		{mxDOUBLE, miINT16, vals},                                // and integer-valued ones as int16
		{7, miSINGLE, []float64{0.5, -1.25, 1024.5, 0, 0.25, 7}}, // single
		{8, miINT8, vals},                                        // int8
		{9, miUINT8, pos},                                        // uint8
		{10, miINT16, vals},                                      // int16
		{11, miUINT16, pos},                                      // uint16
		{12, miINT32, vals},                                      // int32
		{13, miUINT32, pos},                                      // uint32
		{14, miINT64, vals},                                      // int64
		{15, miUINT64, pos},                                      // uint64
		{mxDOUBLE, miINT32, vals},                                // any storage type goes
		{mxDOUBLE, miUINT16, pos},
		{mxDOUBLE, miSINGLE, vals},
	}
	for _, w := range []matWriter{le, be} {
		for _, c := range cases {
			fea := testVar{name: "fea", class: c.class, dims: []int{2, 3}, dtype: c.dtype, vals: c.vals}
			gnd := testVar{name: "gnd", class: mxDOUBLE, dims: []int{1, 2}, dtype: miDOUBLE, vals: []float64{0, 1}}
			for _, compress := range []bool{false, true} {
				d, err := readMATBytes(t, w.file(compress, fea, gnd), Options{})
				if err != nil {
					t.Fatalf("class %d dtype %d: %v", c.class, c.dtype, err)
				}
				for j := 0; j < 3; j++ {
					for i := 0; i < 2; i++ {
						if got, want := d.X.At(i, j), c.vals[i+2*j]; got != want {
							t.Errorf("order %v class %d dtype %d compress %v: X[%d,%d] = %v, want %v", w.order, c.class, c.dtype, compress, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// TestReadMATSkips checks that variables that are not requested are
// skipped even when unreadable: MATLAB objects, unnamed workspace data,
// inconsistent numeric data.
func TestReadMATSkips(t *testing.T) {
	fea, gnd := feaGnd(miDOUBLE)
	bad := testVar{name: "bad", class: mxDOUBLE, dims: []int{5, 5}, dtype: miDOUBLE, vals: []float64{1}}
	// Dimensions whose product overflowed the old count: the exact product.
	huge := testVar{name: "huge", class: mxDOUBLE, dims: []int{1 << 30, 1 << 30}, dtype: miDOUBLE, vals: []float64{1}}
	unnamed := testVar{class: mxDOUBLE, dims: []int{1, 3}, dtype: miUINT8, vals: []float64{1, 2, 3}}
	for _, w := range []matWriter{le, be} {
		b := w.file(false, bad, fea, gnd, unnamed, huge)
		b = append(b, opaqueElement(w, "s")...)
		d, err := readMATBytes(t, b, Options{})
		if err != nil {
			t.Fatalf("%v: %v", w.order, err)
		}
		if r, c := d.Dims(); r != 3 || c != 2 {
			t.Errorf("%d×%d", r, c)
		}
		_, err = readMATBytes(t, b, Options{MatFeatures: "bad"})
		wantErr(t, "bad requested", err, "test.mat", "byte offset 176", `variable "bad"`, "dimensions 5×5 need 25 values")
		_, err = readMATBytes(t, b, Options{MatFeatures: "huge"})
		wantErr(t, "huge requested", err, `variable "huge"`, "dimensions 1073741824×1073741824 need 1152921504606846976 values")
		_, err = readMATBytes(t, b, Options{MatFeatures: "s"})
		wantErr(t, "opaque requested", err, "test.mat", `"s" is a MATLAB object (opaque) array`)
		_, err = readMATBytes(t, b, Options{MatFeatures: "x"})
		wantErr(t, "list", err, "bad (5×5 double), fea (3×2 double), gnd (3×1 double), huge (1073741824×1073741824 double), s (MATLAB object (opaque))")
	}
}

func TestReadMATOrientation(t *testing.T) {
	// features 2×3 with 3 labels: samples are columns.
	fea := testVar{name: "features", class: 9, dims: []int{2, 3}, dtype: miUINT8, vals: []float64{1, 2, 3, 4, 5, 6}}
	lab := testVar{name: "Label", class: mxDOUBLE, dims: []int{1, 3}, dtype: miUINT8, vals: []float64{1, 2, 3}}
	b := le.file(true, lab, fea)
	opt := Options{MatFeatures: "features", MatLabels: "Label"}
	d, err := readMATBytes(t, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	if !mat.Equal(d.X, want) {
		t.Errorf("auto columns: X = %v, want %v", mat.Formatted(d.X), mat.Formatted(want))
	}
	opt.MatSamples = "columns"
	if d2, err := readMATBytes(t, b, opt); err != nil || !mat.Equal(d2.X, want) {
		t.Errorf("explicit columns: %v", err)
	}
	opt.MatSamples = "rows"
	if _, err := readMATBytes(t, b, opt); err == nil || !strings.Contains(err.Error(), "has 2 rows") {
		t.Errorf("rows with 3 labels for 2 rows: err = %v", err)
	}
	// Without labels the default is rows.
	d, err = readMATBytes(t, b, Options{MatFeatures: "features", NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := d.Dims(); r != 2 || c != 3 || d.Y != nil {
		t.Errorf("NoLabels: %d×%d, Y %v", r, c, d.Y)
	}
	// Neither dimension matches.
	lab4 := testVar{name: "Label", class: mxDOUBLE, dims: []int{4, 1}, dtype: miDOUBLE, vals: []float64{1, 2, 3, 4}}
	if _, err := readMATBytes(t, le.file(false, lab4, fea), Options{MatFeatures: "features", MatLabels: "Label"}); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("mismatched labels: err = %v", err)
	}
	// A square matrix with matching labels is read as rows.
	sq := testVar{name: "fea", class: mxDOUBLE, dims: []int{2, 2}, dtype: miDOUBLE, vals: []float64{1, 2, 3, 4}}
	g2 := testVar{name: "gnd", class: mxDOUBLE, dims: []int{2, 1}, dtype: miDOUBLE, vals: []float64{5, 6}}
	d, err = readMATBytes(t, le.file(false, sq, g2), Options{})
	if err != nil || d.X.At(0, 1) != 3 {
		t.Errorf("square: err %v X %v", err, mat.Formatted(d.X))
	}
}

func TestReadMATErrors(t *testing.T) {
	fea, gnd := feaGnd(miDOUBLE)
	good := le.file(false, fea, gnd)
	check := func(what string, b []byte, opt Options, wants ...string) {
		t.Helper()
		_, err := readMATBytes(t, b, opt)
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		msg := err.Error()
		if !strings.Contains(msg, "test.mat") {
			t.Errorf("%s: error %q does not name the file", what, msg)
		}
		for _, w := range wants {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not contain %q", what, msg, w)
			}
		}
	}
	check("missing variable", good, Options{MatFeatures: "X"}, `no feature variable "X"`, "fea (3×2 double)", "gnd (3×1 double)")
	check("missing labels", good, Options{MatLabels: "Y"}, `no label variable "Y"`, "fea (3×2 double)")
	check("char requested", le.file(false, charVar(le, "fea", "abc"), gnd), Options{}, `"fea" is a char array`)
	check("cell requested", le.file(true, cellVar(le, "fea"), gnd), Options{}, `"fea" is a cell array`)
	cplx := fea
	cplx.complex = true
	check("complex", le.file(false, cplx, gnd), Options{}, "complex")
	threeD := testVar{name: "fea", class: mxDOUBLE, dims: []int{3, 1, 2}, dtype: miDOUBLE, vals: []float64{1, 2, 3, 4, 5, 6}}
	check("3-D", le.file(false, threeD, gnd), Options{}, "want a 2-D array")
	badLabels := testVar{name: "gnd", class: mxDOUBLE, dims: []int{3, 1}, dtype: miDOUBLE, vals: []float64{1, 1.5, 2}}
	check("fractional label", le.file(false, fea, badLabels), Options{}, "entry 2 is 1.5", "integers")
	nan := testVar{name: "fea", class: mxDOUBLE, dims: []int{3, 2}, dtype: miDOUBLE, vals: []float64{1, 2, 3, math.NaN(), 5, 6}}
	check("NaN", le.file(false, nan, gnd), Options{}, "NaN", "row 1, column 2")
	matrix2 := testVar{name: "gnd", class: mxDOUBLE, dims: []int{3, 2}, dtype: miDOUBLE, vals: []float64{1, 2, 3, 4, 5, 6}}
	check("matrix labels", le.file(false, fea, matrix2), Options{}, "want a vector")

	check("empty", nil, Options{}, "truncated", "0 bytes")
	check("not a MAT-file", bytes.Repeat([]byte("x"), 200), Options{}, "not a MATLAB level-5 MAT-file")
	v73 := bytes.Clone(good)
	binary.LittleEndian.PutUint16(v73[124:], 0x0200)
	check("v7.3", v73, Options{}, "v7.3 (HDF5)")
	badEndian := bytes.Clone(good)
	copy(badEndian[126:], "XX")
	check("endian", badEndian, Options{}, "byte offset 126", "endian indicator")
	check("truncated", good[:len(good)-20], Options{}, "byte offset", "truncated")

	comp := le.file(true, fea, gnd)
	corrupt := bytes.Clone(comp)
	for i := 140; i < 150; i++ {
		corrupt[i] ^= 0xff
	}
	check("corrupt zlib", corrupt, Options{}, "byte offset 128", "compressed element")
	// Truncating the compressed stream but keeping a consistent tag size.
	trunc := bytes.Clone(comp[:128+8+20])
	binary.LittleEndian.PutUint32(trunc[132:], 20)
	check("truncated zlib", trunc, Options{}, "byte offset 128", "truncated")

	// Inconsistent sizes inside a matrix.
	short := fea
	short.vals = short.vals[:5]
	check("short data", le.file(false, short, gnd), Options{}, `variable "fea"`, "need 6 values")
}

// TestReadMATTruncatedEverywhere cuts a valid file at every length: each
// cut must give an error (naming the file), never a panic.
func TestReadMATTruncatedEverywhere(t *testing.T) {
	fea, gnd := feaGnd(miUINT8)
	for _, compress := range []bool{false, true} {
		b := be.file(compress, charVar(be, "s", "ab"), fea, gnd)
		for n := 0; n < len(b); n++ {
			_, err := readMATBytes(t, b[:n], Options{})
			if err == nil {
				t.Fatalf("compress %v: cut at %d of %d: no error", compress, n, len(b))
			}
			if !strings.Contains(err.Error(), "test.mat") {
				t.Fatalf("cut at %d: error %q does not name the file", n, err)
			}
		}
	}
}

func TestLoadMATFile(t *testing.T) {
	dir := t.TempDir()
	fea, gnd := feaGnd(miDOUBLE)
	path := filepath.Join(dir, "small.mat")
	if err := os.WriteFile(path, le.file(true, fea, gnd), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "small" || d.X.At(2, 1) != 6 {
		t.Errorf("Name %q X %v", d.Name, mat.Formatted(d.X))
	}
	d, err = Load(path, Options{Classes: []string{"2", "1"}})
	if err != nil || !slices.Equal(d.Y, []int{0, 1, 0}) {
		t.Errorf("Classes: %v %v", d.Y, err)
	}
	_, err = Load(path, Options{Classes: []string{"1"}})
	if err == nil || !strings.Contains(err.Error(), `label "2" is not one of the given classes`) {
		t.Errorf("unknown class: %v", err)
	}
}

func FuzzReadMAT(f *testing.F) {
	fea, gnd := feaGnd(miUINT8)
	f.Add(le.file(false, fea, gnd))
	f.Add(le.file(true, fea, gnd))
	f.Add(be.file(false, charVar(be, "s", "ab"), fea, gnd))
	f.Add(be.file(true, cellVar(be, "c"), fea, gnd))
	f.Add(append(le.file(false, fea, gnd), opaqueElement(le, "s")...))
	f.Add(sharedBytes(f, "data/faces/mat/Yale_32x32.mat", 1<<20)) // a real file (whole)
	for _, file := range []string{"scipy_v5.mat", "scipy_v5z.mat", "scipy_v5_written.mat"} {
		if b, err := os.ReadFile(filepath.Join("testdata", file)); err == nil {
			f.Add(b)
		}
	}
	var named bytes.Buffer // string class names: the char matrix "classes", a NaN label
	WriteMAT(&named, &Dataset{X: mat.NewDense(3, 1, []float64{1, 2, 3}), Y: []int{1, Unlabeled, 0}, ClassNames: []string{"cat", "dög"}})
	f.Add(named.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadMAT(bytes.NewReader(b), "fuzz.mat", Options{})
		if err != nil {
			var fe *FormatError
			if !strings.Contains(err.Error(), "fuzz.mat") && !errors.As(err, &fe) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ReadMAT returned an invalid dataset: %v", err)
		}
	})
}

// WriteMAT writes the variables scipy.io.savemat writes for the same
// arrays (testdata/scipy_v5_written.mat: fea and gnd as doubles, gnd a
// column), byte for byte after the header, whose text differs; the
// header's version and byte-order mark are MATLAB's.
func TestWriteMATMatchesSciPy(t *testing.T) {
	want, err := os.ReadFile("testdata/scipy_v5_written.mat")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{X: fixtureFea, Y: []int{2, 0, 2, 1}, ClassNames: []string{"1", "2", "3"}}
	var b bytes.Buffer
	if err := WriteMAT(&b, d); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	if len(got) != len(want) || !bytes.Equal(got[124:], want[124:]) {
		t.Errorf("WriteMAT: %d bytes, scipy %d; after the header text:\n%q\n%q", len(got), len(want), got[124:], want[124:])
	}
	if !bytes.HasPrefix(got, []byte("MATLAB 5.0 MAT-file")) {
		t.Errorf("header text %q", got[:40])
	}
}

// ReadMAT reads back what WriteMAT wrote: the rows, the labels and the
// class names in their order (integer names in increasing order, every
// class used, as gnd's values; any other names, integers out of order, a
// class without rows, non-ASCII and outside the BMP included, through the
// char matrix "classes"; unlabelled rows as NaN), and rows without labels.
func TestWriteMATRoundTrip(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{1, -2, 3.5, 4, 5, 6e-300, 7, 8, math.Pi, 10})
	for _, c := range []struct {
		d       *Dataset
		classes bool // written through the char matrix
	}{
		{&Dataset{X: x, Y: []int{0, 1, 0, 2, 1}, ClassNames: []string{"-4", "3", "17"}}, false},
		{&Dataset{X: x, Y: []int{0, 1, 0, 1, 1}, ClassNames: []string{"10", "2", "7"}}, true},
		{&Dataset{X: x, Y: []int{0, 1, Unlabeled, 2, 1}, ClassNames: []string{"cat", "dög", "𝄞 clef"}}, true},
		{&Dataset{X: x, Y: []int{0, 1, Unlabeled, 1, 1}, ClassNames: []string{"1", "2"}}, false},
		{&Dataset{X: x}, false},
	} {
		d := c.d
		var b bytes.Buffer
		if err := WriteMAT(&b, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMAT(bytes.NewReader(b.Bytes()), "rt.mat", Options{NoLabels: d.Y == nil})
		if err != nil {
			t.Fatalf("%v: %v", d.ClassNames, err)
		}
		if !mat.Equal(back.X, d.X) || !slices.Equal(back.Y, d.Y) || !slices.Equal(back.ClassNames, d.ClassNames) {
			t.Errorf("%q: read back X %v, labels %v of %q", d.ClassNames, mat.Formatted(back.X), back.Y, back.ClassNames)
		}
		if has := bytes.Contains(b.Bytes(), []byte("classes")); has != c.classes {
			t.Errorf("%q: a classes variable %v, want %v", d.ClassNames, has, c.classes)
		}
	}
	for _, c := range []struct {
		d    *Dataset
		want string
	}{
		{&Dataset{X: mat.NewDense(1, 1, []float64{math.NaN()})}, "NaN"},
		{&Dataset{X: x, Y: []int{0, 0, 0, 0, 3}, ClassNames: []string{"a", "b"}}, "row 5 has label 3"},
		{&Dataset{X: x, Y: []int{0, 0, 0, 0, 1}, ClassNames: []string{"a", "b "}}, `class 1 is named "b ", which would read back as a different label`},
		{&Dataset{X: x, Y: []int{0, 0, 0, 0, 1}, ClassNames: []string{"a", "b c "}}, `class 1 is named "b c "`},
		{&Dataset{}, "no data"},
	} {
		err := WriteMAT(io.Discard, c.d)
		wantErr(t, c.want, err, c.want)
	}
}

// A char matrix "classes" written by another program (the test's own
// encoder: big-endian, UTF-16 code units, or UTF-8) names the classes when
// gnd holds its row numbers; when a label is not a row number the classes
// stay gnd's values.
func TestReadMATClassNames(t *testing.T) {
	for _, w := range []matWriter{le, be} {
		fea, _ := feaGnd(miDOUBLE)
		gnd := testVar{name: "gnd", class: mxDOUBLE, dims: []int{3, 1}, dtype: miDOUBLE, vals: []float64{2, 1, 2}}
		// A 2×3 char matrix, column-major: rows "ant" and "bee".
		col := "abnete"
		u := make([]byte, 2*len(col))
		for i := range col {
			w.order.PutUint16(u[2*i:], uint16(col[i]))
		}
		utf16Names := testVar{name: "classes", class: 4, dims: []int{2, 3}, raw: w.element(miUINT16, u, true)}
		utf8Names := testVar{name: "classes", class: 4, dims: []int{2, 3}, raw: w.element(miUTF8, []byte(col), true)}
		for _, names := range []testVar{utf16Names, utf8Names} {
			d, err := readMATBytes(t, w.file(false, fea, gnd, names), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.ClassNames, []string{"ant", "bee"}) || !slices.Equal(d.Y, []int{1, 0, 1}) {
				t.Errorf("order %v: classes %q, labels %v; want [ant bee], [1 0 1]", w.order, d.ClassNames, d.Y)
			}
		}
		// MATLAB's UTF-16 units: a character outside the BMP takes two
		// columns of its row (rows "a𝄞" and "bcd").
		units := []uint16{'a', 'b', 0xD834, 'c', 0xDD1E, 'd'}
		u = make([]byte, 2*len(units))
		for i, x := range units {
			w.order.PutUint16(u[2*i:], x)
		}
		pair := testVar{name: "classes", class: 4, dims: []int{2, 3}, raw: w.element(miUTF16, u, true)}
		d, err := readMATBytes(t, w.file(false, fea, gnd, pair), Options{})
		if err != nil || !slices.Equal(d.ClassNames, []string{"a𝄞", "bcd"}) {
			t.Errorf("order %v, a surrogate pair: classes %q, %v", w.order, d.ClassNames, err)
		}
		gnd.vals = []float64{2, 1, 3}
		d, err = readMATBytes(t, w.file(false, fea, gnd, utf16Names), Options{})
		if err != nil || !slices.Equal(d.ClassNames, []string{"1", "2", "3"}) {
			t.Errorf("label 3 of 2 names: classes %q, %v; want gnd's values", d.ClassNames, err)
		}
		// A char matrix of 2²⁴ rows and no column: no names, and no
		// allocation for its rows.
		huge := testVar{name: "classes", class: 4, dims: []int{1 << 24, 0}, raw: w.element(miUINT16, nil, true)}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d, err = readMATBytes(t, w.file(false, fea, gnd, huge), Options{})
		runtime.ReadMemStats(&after)
		if err != nil || !slices.Equal(d.ClassNames, []string{"1", "2", "3"}) || after.TotalAlloc-before.TotalAlloc > 1<<20 {
			t.Errorf("an empty char matrix of 2²⁴ rows: classes %q, %v, %d bytes allocated", d.ClassNames, err, after.TotalAlloc-before.TotalAlloc)
		}
		gnd.vals = []float64{2, math.NaN(), 1}
		d, err = readMATBytes(t, w.file(false, fea, gnd), Options{})
		if err != nil || !slices.Equal(d.Y, []int{1, Unlabeled, 0}) {
			t.Errorf("NaN label: %v, %v; want [1 -1 0]", d.Y, err)
		}
	}
}

// A MATLAB v4 file (scipy's format='4') is named as such, not as a
// truncated level-5 file (the library audit).
func TestMATv4Named(t *testing.T) {
	var b bytes.Buffer
	for _, v := range []uint32{0, 2, 1, 0, 4} { // double, 2×1, real, "fea\x00"
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("fea\x00")
	binary.Write(&b, binary.LittleEndian, []float64{1, 2})
	_, err := ReadMAT(bytes.NewReader(b.Bytes()), "v4.mat", Options{NoLabels: true})
	wantErr(t, "v4", err, "v4.mat", "a MATLAB v4 MAT-file", "save it with -v6 or -v7")
}
