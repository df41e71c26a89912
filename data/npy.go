package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// ReadNPY reads a NumPy .npy array from r as a matrix; name is the file
// name used in errors. The array may hold float64, float32, any signed or
// unsigned integer type, or bool, in either byte order and in C or Fortran
// order; a 2-D array gives rows × columns and a 1-D array one column. The
// values must be finite.
func ReadNPY(r io.Reader, name string) (*mat.Dense, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &FormatError{File: name, Offset: -1, Msg: "read error", Err: err}
	}
	a, err := decodeNPY(b, name)
	if err != nil {
		return nil, err
	}
	return a.matrix(name)
}

// matrix returns the array as a matrix: a 2-D array rows × columns, a 1-D
// array one column; name is the file named in errors.
func (a *npyArray) matrix(name string) (*mat.Dense, error) {
	if a.strs != nil {
		return nil, offsetErr(name, 8, "the array holds strings (dtype %q); features must be numbers", a.dtype)
	}
	shape := a.shape
	var rows, cols int
	switch len(shape) {
	case 1:
		rows, cols = shape[0], 1
	case 2:
		rows, cols = shape[0], shape[1]
	default:
		return nil, offsetErr(name, 0, "array has shape %v; want a 1-D or 2-D array", shape)
	}
	if rows == 0 || cols == 0 {
		return nil, offsetErr(name, 0, "array of shape %v is empty", shape)
	}
	for k, v := range a.vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			i, j := k/cols, k%cols
			if a.fortran {
				i, j = k%rows, k/rows
			}
			return nil, offsetErr(name, a.offset(k), "row %d, column %d is %v; values must be finite", i+1, j+1, v)
		}
	}
	if !a.fortran {
		return mat.NewDense(rows, cols, a.vals), nil // the values are the matrix's, in row order
	}
	x := mat.NewDense(rows, cols, nil)
	for k, v := range a.vals {
		x.Set(k%rows, k/rows, v)
	}
	return x, nil
}

// npyArray is a decoded .npy file.
type npyArray struct {
	vals     []float64 // values in file order (numeric dtypes)
	strs     []string  // values in file order (string dtypes)
	dtype    string
	shape    []int
	fortran  bool  // column-major order
	dataOff  int64 // file offset of the first value
	itemSize int64
}

// offset returns the file offset of value k.
func (a *npyArray) offset(k int) int64 { return a.dataOff + int64(k)*a.itemSize }

// npyHead is the header of a .npy file.
type npyHead struct {
	typ     string // the dtype, as "<f8"
	fortran bool
	shape   []int
	dataOff int64 // the file offset of the first value
}

// npyHeaderEnd returns the offset where the header of a .npy file ends,
// read from its first bytes b (12 suffice; fewer when the file is
// shorter).
func npyHeaderEnd(b []byte, name string) (int64, error) {
	if !bytes.HasPrefix(b, npy.Magic[:]) {
		return 0, offsetErr(name, 0, "not a NumPy .npy file: it does not start with \"\\x93NUMPY\"")
	}
	// Check the header length before npyio allocates it.
	if len(b) < 10 {
		return 0, offsetErr(name, int64(len(b)), "truncated .npy header (%d bytes)", len(b))
	}
	switch b[6] {
	case 1:
		return 10 + int64(binary.LittleEndian.Uint16(b[8:])), nil
	case 2, 3:
		if len(b) < 12 {
			return 0, offsetErr(name, int64(len(b)), "truncated .npy header (%d bytes)", len(b))
		}
		return 12 + int64(binary.LittleEndian.Uint32(b[8:])), nil
	}
	return 0, offsetErr(name, 6, "unsupported .npy format version %d.%d; want 1.0, 2.0 or 3.0", b[6], b[7])
}

// parseNPYHead parses the header at the start of b; b holds the whole
// header at least (the file, or its first bytes when it is streamed).
func parseNPYHead(b []byte, name string) (h *npyHead, err error) {
	hdrEnd, err := npyHeaderEnd(b, name)
	if err != nil {
		return nil, err
	}
	if hdrEnd > int64(len(b)) {
		return nil, offsetErr(name, int64(len(b)), "truncated .npy header: it claims to end at byte %d, the file has %d bytes", hdrEnd, len(b))
	}
	br := bytes.NewReader(b[:hdrEnd])
	var rr *npy.Reader
	func() {
		// npyio slices the header without checking its syntax; a malformed
		// header must give an error, not a panic.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("malformed header (%v)", p)
			}
		}()
		rr, err = npy.NewReader(br)
	}()
	if err != nil {
		return nil, &FormatError{File: name, Offset: 0, Msg: "invalid .npy header", Err: err}
	}
	d := rr.Header.Descr
	return &npyHead{typ: d.Type, fortran: d.Fortran, shape: d.Shape, dataOff: hdrEnd - int64(br.Len())}, nil
}

// decodeNPY parses a whole .npy file.
func decodeNPY(b []byte, name string) (*npyArray, error) {
	h, err := parseNPYHead(b, name)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range h.shape {
		if d < 0 || (d > 0 && n > math.MaxInt32/d) {
			return nil, offsetErr(name, 8, "invalid shape %v", h.shape)
		}
		n *= d
	}
	str, isStr := parseStringDescr(h.typ)
	var num npyNumeric
	size := int64(0)
	if isStr {
		size = int64(str.width)
		if str.unicode {
			size *= 4
		}
	} else {
		if num, err = numericDescr(h.typ, name); err != nil {
			return nil, err
		}
		size = int64(num.size)
	}
	data := b[h.dataOff:]
	if need := int64(n) * size; int64(len(data)) < need {
		return nil, offsetErr(name, int64(len(b)), "truncated file: shape %v of %s needs %d data bytes from offset %d, the file has %d after it (%d bytes in all)", h.shape, h.typ, need, h.dataOff, len(data), len(b))
	} else if extra := int64(len(data)) - need; extra > 0 {
		return nil, afterDataErr(name, extra, h, h.dataOff+need, int64(len(b)))
	}
	a := &npyArray{shape: h.shape, fortran: h.fortran, dataOff: h.dataOff, itemSize: size, dtype: h.typ}
	if isStr {
		a.strs = str.decode(data, n)
		return a, nil
	}
	a.vals = make([]float64, n)
	num.conv(a.vals, data)
	return a, nil
}

// afterDataErr is the error of extra bytes after the data of a .npy file
// of total bytes (-1: unknown, streamed), the data ending at end.
func afterDataErr(name string, extra int64, h *npyHead, end, total int64) error {
	// np.save writes nothing after the data; bytes there mean a header
	// whose shape does not match the data, or several arrays saved into
	// one file, of which only the first would be read.
	of := ""
	if total >= 0 {
		of = fmt.Sprintf(" of %d", total)
	}
	many := fmt.Sprintf("%d bytes", extra)
	if total < 0 {
		many = "bytes"
	}
	return offsetErr(name, end, "%s after the data: shape %v of %s ends at byte %d%s (a wrong shape in the header, or several arrays saved into one file? dimred reads one array per .npy file)", many, h.shape, h.typ, end, of)
}

// stringDescr is a fixed-width string dtype: NumPy's bytes ("S", "|S5")
// or unicode ("U", "<U5": UTF-32 code units in the given byte order).
type stringDescr struct {
	unicode   bool
	bigEndian bool
	width     int // characters (unicode) or bytes
}

var stringDescrRE = regexp.MustCompile(`^([<>|=]?)([SUa])(\d+)$`)

// parseStringDescr reads a fixed-width string dtype such as "<U7" or
// "|S3".
func parseStringDescr(t string) (stringDescr, bool) {
	m := stringDescrRE.FindStringSubmatch(t)
	if m == nil {
		return stringDescr{}, false
	}
	w, err := strconv.Atoi(m[3])
	if err != nil || w < 1 || w > 1<<20 {
		return stringDescr{}, false
	}
	return stringDescr{unicode: m[2] == "U", bigEndian: m[1] == ">", width: w}, true
}

// decode returns the n strings at the start of b (whose length the caller
// checked), each without the NUL padding NumPy adds and strips. A code
// unit that is not a Unicode scalar value becomes U+FFFD.
func (d stringDescr) decode(b []byte, n int) []string {
	out := make([]string, n)
	for k := range out {
		if !d.unicode {
			item := b[k*d.width : (k+1)*d.width]
			out[k] = string(bytes.TrimRight(item, "\x00"))
			continue
		}
		item := b[k*d.width*4 : (k+1)*d.width*4]
		var sb strings.Builder
		for i := 0; i < len(item); i += 4 {
			var u uint32
			if d.bigEndian {
				u = binary.BigEndian.Uint32(item[i:])
			} else {
				u = binary.LittleEndian.Uint32(item[i:])
			}
			sb.WriteRune(rune(u)) // invalid values write U+FFFD
		}
		out[k] = strings.TrimRight(sb.String(), "\x00")
	}
	return out
}

// npyNumeric is a numeric dtype of .npy files: its item size and the
// conversion of items to float64.
type npyNumeric struct {
	size int
	conv func(dst []float64, src []byte) // len(src) ≥ size·len(dst)
}

var numericDescrRE = regexp.MustCompile(`^([<>|=]?)([fiub])(\d+)$`)

// numericDescr returns the numeric dtype t ("<f8", ">i2", "|b1", …), or an
// error naming it (Python objects, complex numbers, and other kinds are
// not read).
func numericDescr(t, name string) (npyNumeric, error) {
	if strings.Contains(t, "O") {
		return npyNumeric{}, offsetErr(name, 8, "dtype %q is an array of Python objects (pickled), which dimred does not read; save numbers as a numeric dtype and class names as fixed-width strings (.astype(str))", t)
	}
	unsupported := offsetErr(name, 8, "unsupported dtype %q; want float16, float32 or float64, (unsigned) integers of 1 to 8 bytes, bool, or fixed-width strings", t)
	m := numericDescrRE.FindStringSubmatch(t)
	if m == nil {
		return npyNumeric{}, unsupported
	}
	var order binary.ByteOrder = binary.LittleEndian
	if m[1] == ">" {
		order = binary.BigEndian
	}
	each := func(size int, f func(b []byte) float64) npyNumeric {
		return npyNumeric{size: size, conv: func(dst []float64, src []byte) {
			for i := range dst {
				dst[i] = f(src[i*size:])
			}
		}}
	}
	switch m[2] + m[3] {
	case "f8":
		return each(8, func(b []byte) float64 { return math.Float64frombits(order.Uint64(b)) }), nil
	case "f4":
		return each(4, func(b []byte) float64 { return float64(math.Float32frombits(order.Uint32(b))) }), nil
	case "f2":
		return each(2, func(b []byte) float64 { return halfToFloat64(order.Uint16(b)) }), nil
	case "i1":
		return each(1, func(b []byte) float64 { return float64(int8(b[0])) }), nil
	case "i2":
		return each(2, func(b []byte) float64 { return float64(int16(order.Uint16(b))) }), nil
	case "i4":
		return each(4, func(b []byte) float64 { return float64(int32(order.Uint32(b))) }), nil
	case "i8":
		return each(8, func(b []byte) float64 { return float64(int64(order.Uint64(b))) }), nil
	case "u1":
		return each(1, func(b []byte) float64 { return float64(b[0]) }), nil
	case "u2":
		return each(2, func(b []byte) float64 { return float64(order.Uint16(b)) }), nil
	case "u4":
		return each(4, func(b []byte) float64 { return float64(order.Uint32(b)) }), nil
	case "u8":
		return each(8, func(b []byte) float64 { return float64(order.Uint64(b)) }), nil
	case "b1":
		return each(1, func(b []byte) float64 {
			if b[0] != 0 {
				return 1
			}
			return 0
		}), nil
	}
	return npyNumeric{}, unsupported
}

// halfToFloat64 returns the IEEE 754 binary16 number with bits h (NumPy's
// float16, as half-precision features are saved), exactly.
func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0: // zero or subnormal: frac·2⁻²⁴
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// loadNPY builds the Dataset of a .npy file (contents b) and its optional
// labels file.
func loadNPY(b []byte, path string, opt Options) (*Dataset, error) {
	x, err := ReadNPY(bytes.NewReader(b), path)
	if err != nil {
		return nil, err
	}
	n, p := x.Dims()
	d := &Dataset{Name: datasetName(path), X: x, FeatureNames: defaultNames(p)}
	if d.Y, d.ClassNames, err = labelsFile(opt, n); err != nil {
		return nil, err
	}
	return d, nil
}

// labelsFile reads the n labels of opt.LabelsFile (ReadLabels); none
// (nil) without a labels file or with opt.NoLabels.
func labelsFile(opt Options, n int) ([]int, []string, error) {
	if opt.LabelsFile == "" || opt.NoLabels {
		return nil, nil, nil
	}
	lb, err := readFile(opt.LabelsFile)
	if err != nil {
		return nil, nil, err
	}
	return readLabels(lb, opt.LabelsFile, n, opt.Classes, opt.Unlabelled)
}

// labelErr is the error of label number row (from 1) of a labels file:
// by number in a .npy file, by line in a text file.
func labelErr(name string, npyFile bool, row int, msg string) error {
	if npyFile {
		return &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("label %d: %s", row, msg)}
	}
	return lineErr(name, row, "%s", msg)
}

// labelTexts returns the n label texts of a labels file's bytes b (a
// .npy vector, or text with one label per line) and whether it is a .npy
// file.
func labelTexts(b []byte, name string, n int) (texts []string, binary bool, err error) {
	binary = bytes.HasPrefix(b, npy.Magic[:])
	if binary {
		a, err := decodeNPY(b, name)
		if err != nil {
			return nil, false, err
		}
		if texts, err = a.labelTexts(name); err != nil {
			return nil, true, err
		}
	} else {
		s := strings.TrimPrefix(string(b), "\ufeff") // UTF-8 byte order mark
		s = strings.TrimSuffix(s, "\n")
		if s == "" && n != 1 {
			return nil, false, lineErr(name, 0, "empty labels file; want %d labels, one per line", n)
		}
		texts = strings.Split(s, "\n")
		for i, t := range texts {
			texts[i] = strings.TrimSpace(t)
		}
		// Blank lines at the end of the file beyond the rows are not
		// labels (an empty label within the rows is an unlabeled row).
		for len(texts) > n && texts[len(texts)-1] == "" {
			texts = texts[:len(texts)-1]
		}
	}
	if len(texts) == n+1 && !binary {
		return nil, binary, lineErr(name, 0, "%d labels for %d rows of data: if the first line, %q, is a header, remove it (a labels file holds one label per line and nothing else)", len(texts), n, texts[0])
	}
	if len(texts) != n {
		return nil, binary, lineErr(name, 0, "%d labels for %d rows of data", len(texts), n)
	}
	return texts, binary, nil
}

// ReadLabels reads n labels from r, a .npy array of integers (1-D, or 2-D
// with one row or column) or text with one label per line ("" or "?" for
// an unlabelled row, a final newline optional); name is used in errors.
// The classes are ordered as in ReadCSV, or as given by classes when it is
// not nil. It returns the labels 0..C-1 (or Unlabeled) and the class
// names.
func ReadLabels(r io.Reader, name string, n int, classes []string) ([]int, []string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, &FormatError{File: name, Offset: -1, Msg: "read error", Err: err}
	}
	return readLabels(b, name, n, classes, "")
}

// readLabels is ReadLabels of the bytes b, with unl the label text of an
// unlabelled row besides "" and "?" (Options.Unlabelled).
func readLabels(b []byte, name string, n int, classes []string, unl string) ([]int, []string, error) {
	texts, binary, err := labelTexts(b, name, n)
	if err != nil {
		return nil, nil, err
	}
	y, cn, err := encodeLabels(texts, classes, unl)
	if err != nil {
		var le *labelError
		if errors.As(err, &le) {
			return nil, nil, labelErr(name, binary, le.Row+1, le.Msg)
		}
		return nil, nil, err
	}
	return y, cn, nil
}

// labelTexts returns the labels of a vector array (1-D, or 2-D with one
// row or column) as text: integers in decimal, strings as they are.
func (a *npyArray) labelTexts(name string) ([]string, error) {
	shape := a.shape
	vector := len(shape) == 1 || (len(shape) == 2 && (shape[0] == 1 || shape[1] == 1))
	if !vector {
		return nil, offsetErr(name, 0, "labels array has shape %v; want a vector", shape)
	}
	if a.strs != nil {
		return a.strs, nil
	}
	texts := make([]string, len(a.vals))
	for i, v := range a.vals {
		switch {
		case math.IsNaN(v):
			texts[i] = "" // an unlabelled row, as NaN is in a .mat file's gnd
			continue
		case math.Abs(v) > 1<<53 && !math.IsInf(v, 0):
			return nil, offsetErr(name, a.offset(i), "label %d is %v, beyond 2⁵³: numeric labels are read as float64 values, which do not keep such integers exactly; renumber the classes (0..C−1) or store them as strings", i+1, v)
		case v != math.Trunc(v) || math.IsInf(v, 0):
			return nil, offsetErr(name, a.offset(i), "label %d is %v; labels must be integers or strings (NaN: an unlabelled row)", i+1, v)
		}
		texts[i] = strconv.FormatInt(int64(v), 10)
	}
	return texts, nil
}

// WriteNPY writes m to path as a NumPy .npy file of float64 in C order
// (gzipped if path ends in ".gz"), byte for byte what np.save writes.
func WriteNPY(path string, m *mat.Dense) error {
	if m == nil || m.IsEmpty() {
		return fmt.Errorf("WriteNPY %s: empty matrix", path)
	}
	return WriteFile(path, func(w io.Writer) error { return writeNPYMatrix(w, m) })
}

// WriteLabelsNPY writes y to path as a 1-D NumPy array of int64 (gzipped
// if path ends in ".gz"), the form Options.LabelsFile reads.
func WriteLabelsNPY(path string, y []int) error {
	v := make([]int64, len(y))
	for i, l := range y {
		v[i] = int64(l)
	}
	return WriteFile(path, func(w io.Writer) error { return writeNPYInts(w, v) })
}

// WriteLabels writes labels y (class names classes; Unlabeled rows
// empty) to w in the format of the file name: .npy (optionally .gz) a
// vector of int64 when every label is an integer (no unlabelled row),
// else of fixed-width strings ("<U…"); any other name text, one label per
// line. ReadLabels (--labels) reads either back.
func WriteLabels(w io.Writer, name string, y []int, classes []string) error {
	texts := make([]string, len(y))
	for i, c := range y {
		if c < Unlabeled || (len(classes) > 0 && c >= len(classes)) {
			return fmt.Errorf("%s: row %d has label %d; the data has %d class names", name, i+1, c, len(classes))
		}
		texts[i] = LabelText(c, classes)
	}
	if strings.HasSuffix(strings.TrimSuffix(strings.ToLower(name), ".gz"), ".npy") {
		return writeLabelArray(w, texts)
	}
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeNPYMatrix writes m as a .npy array of float64 in C order, the
// bytes np.save writes.
func writeNPYMatrix(w io.Writer, m *mat.Dense) error {
	r, c := m.Dims()
	if _, err := w.Write(npyHeader("<f8", r, c)); err != nil {
		return err
	}
	_, err := writeRowsLE(w, m, nil)
	return err
}

// writeNPYInts writes v as a 1-D .npy array of int64, the bytes np.save
// writes.
func writeNPYInts(w io.Writer, v []int64) error {
	if _, err := w.Write(npyHeader("<i8", len(v))); err != nil {
		return err
	}
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	_, err := w.Write(b)
	return err
}

// writeRowsLE writes the rows of m as little-endian doubles, a row at a
// time through buf (grown as needed and returned for reuse).
func writeRowsLE(w io.Writer, m *mat.Dense, buf []byte) ([]byte, error) {
	r, _ := m.Dims()
	for i := 0; i < r; i++ {
		buf = buf[:0]
		for _, v := range m.RawRowView(i) {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		if _, err := w.Write(buf); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// NPYWriter writes rows of p columns to a .npy file (float64, C order) a
// chunk at a time, for a stream whose length is known only at its end:
// the header goes first with room for any row count, and Flush writes the
// count into it. The writer must be able to seek (a file, as WriteFile
// gives; not standard output or a gzip stream). The file is byte for byte
// what WriteNPY and np.save write for the same array: np.save pads its
// header so that the row count can grow to 21 digits in place, so the
// header's length does not depend on the count.
type NPYWriter struct {
	w     io.WriteSeeker
	name  string
	p     int
	rows  int
	start int64
	buf   []byte

	headerLen int // bytes of the header written first
}

// NewNPYWriter writes the header of a .npy file of rows of p columns to
// w; name names the output in errors.
func NewNPYWriter(w io.Writer, name string, p int) (*NPYWriter, error) {
	ws, ok := w.(io.WriteSeeker)
	var start int64
	var err error
	if ok {
		start, err = ws.Seek(0, io.SeekCurrent)
	}
	if !ok || err != nil {
		return nil, fmt.Errorf("%s: a .npy file written a chunk at a time needs a file to go back to its header for the row count (not standard output, a pipe or a .gz)", name)
	}
	if p < 1 {
		return nil, fmt.Errorf("%s: .npy rows of %d columns", name, p)
	}
	nw := &NPYWriter{w: ws, name: name, p: p, start: start}
	return nw, nw.header()
}

func (nw *NPYWriter) header() error {
	h := npyHeader("<f8", nw.rows, nw.p)
	if nw.headerLen != 0 && len(h) != nw.headerLen {
		return fmt.Errorf("%s: internal error: the .npy header of %d rows is %d bytes, not the %d written first", nw.name, nw.rows, len(h), nw.headerLen)
	}
	nw.headerLen = len(h)
	_, err := nw.w.Write(h)
	return err
}

// npyGrowthDigits is np.save's room for the first dimension: its header
// is padded as if that dimension had 21 digits (NumPy's
// GROWTH_AXIS_MAX_DIGITS), so that the count can change in place.
const npyGrowthDigits = 21

// npyHeader returns the version-1.0 .npy header np.save writes for a
// C-order array of the given dtype and shape: magic, version, length, and
// the dictionary, then spaces for the first dimension to grow to 21
// digits, then spaces and a newline to a multiple of 64 bytes.
func npyHeader(descr string, shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = strconv.Itoa(n)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple + ", }"
	dict += strings.Repeat(" ", max(0, npyGrowthDigits-len(dims[0])))
	size := (len(npy.Magic) + 4 + len(dict) + 1 + 63) / 64 * 64
	h := make([]byte, 0, size)
	h = append(h, npy.Magic[:]...)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(size-len(npy.Magic)-4))
	h = append(h, dict...)
	for len(h) < size-1 {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// Write writes the rows of x (p columns; finite values); labels are not
// part of a .npy file and y is ignored.
func (nw *NPYWriter) Write(x *mat.Dense, _ []int) error {
	n, p := x.Dims()
	if p != nw.p {
		return fmt.Errorf("%s: a chunk of %d columns; the array has %d", nw.name, p, nw.p)
	}
	if err := CheckFinite(fmt.Sprintf("%s: rows %d-%d", nw.name, nw.rows+1, nw.rows+n), x); err != nil {
		return err
	}
	var err error
	if nw.buf, err = writeRowsLE(nw.w, x, nw.buf); err != nil {
		return err
	}
	nw.rows += n
	return nil
}

// Flush writes the row count into the header and leaves the writer at
// the end of the data. Without rows the file is an empty array of shape
// (0, p), which np.load reads (dimred's readers refuse empty data).
func (nw *NPYWriter) Flush() error {
	if _, err := nw.w.Seek(nw.start, io.SeekStart); err != nil {
		return err
	}
	if err := nw.header(); err != nil {
		return err
	}
	_, err := nw.w.Seek(0, io.SeekEnd)
	return err
}
