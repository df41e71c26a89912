package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
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

// decodeNPY parses a whole .npy file.
func decodeNPY(b []byte, name string) (a *npyArray, err error) {
	if !bytes.HasPrefix(b, npy.Magic[:]) {
		return nil, offsetErr(name, 0, "not a NumPy .npy file: it does not start with \"\\x93NUMPY\"")
	}
	// Check the header length before npyio allocates it.
	if len(b) < 10 {
		return nil, offsetErr(name, int64(len(b)), "truncated .npy header (%d bytes)", len(b))
	}
	var hdrEnd uint64
	switch b[6] {
	case 1:
		hdrEnd = 10 + uint64(binary.LittleEndian.Uint16(b[8:]))
	case 2, 3:
		if len(b) < 12 {
			return nil, offsetErr(name, int64(len(b)), "truncated .npy header (%d bytes)", len(b))
		}
		hdrEnd = 12 + uint64(binary.LittleEndian.Uint32(b[8:]))
	default:
		return nil, offsetErr(name, 6, "unsupported .npy format version %d.%d; want 1.0, 2.0 or 3.0", b[6], b[7])
	}
	if hdrEnd > uint64(len(b)) {
		return nil, offsetErr(name, int64(len(b)), "truncated .npy header: it claims to end at byte %d, the file has %d bytes", hdrEnd, len(b))
	}
	br := bytes.NewReader(b)
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
	dataOff := int64(len(b)) - int64(br.Len())
	hdr := rr.Header.Descr
	n := 1
	for _, d := range hdr.Shape {
		if d < 0 || (d > 0 && n > math.MaxInt32/d) {
			return nil, offsetErr(name, 8, "invalid shape %v", hdr.Shape)
		}
		n *= d
	}
	str, isStr := parseStringDescr(hdr.Type)
	var (
		rt   reflect.Type
		size int64
	)
	switch {
	case isStr:
		size = int64(str.width)
		if str.unicode {
			size *= 4
		}
	case strings.Contains(hdr.Type, "O"):
		return nil, offsetErr(name, 8, "dtype %q is an array of Python objects (pickled), which dimred does not read; save numbers as a numeric dtype and class names as fixed-width strings (.astype(str))", hdr.Type)
	default:
		rt = npy.TypeFrom(hdr.Type)
		if rt == nil || rt.Kind() == reflect.Complex64 || rt.Kind() == reflect.Complex128 || rt.Kind() == reflect.String {
			return nil, offsetErr(name, 8, "unsupported dtype %q; want a float, integer, bool or fixed-width string array", hdr.Type)
		}
		size = int64(rt.Size())
	}
	if need := int64(n) * size; int64(br.Len()) < need {
		return nil, offsetErr(name, int64(len(b)), "truncated file: shape %v of %s needs %d data bytes from offset %d, the file has %d", hdr.Shape, hdr.Type, need, dataOff, br.Len())
	} else if extra := int64(br.Len()) - need; extra > 0 {
		// np.save writes nothing after the data; bytes there mean a header
		// whose shape does not match the data, or several arrays saved into
		// one file, of which only the first would be read.
		return nil, offsetErr(name, dataOff+need, "%d bytes after the data: shape %v of %s ends at byte %d of %d (a wrong shape in the header, or several arrays saved into one file? dimred reads one array per .npy file)", extra, hdr.Shape, hdr.Type, dataOff+need, len(b))
	}
	if isStr {
		a := &npyArray{shape: hdr.Shape, fortran: hdr.Fortran, dataOff: dataOff, itemSize: size, dtype: hdr.Type}
		a.strs = str.decode(b[dataOff:], n)
		return a, nil
	}

	vals := make([]float64, n)
	readInto := func(ptr any) error {
		if n == 0 {
			return nil
		}
		if err := rr.Read(ptr); err != nil && err != io.EOF {
			return &FormatError{File: name, Offset: dataOff, Msg: "cannot read the array data", Err: err}
		}
		return nil
	}
	switch rt.Kind() {
	case reflect.Float64:
		err = readInto(&vals)
	case reflect.Float32:
		s := make([]float32, n)
		err = readInto(&s)
		for i, v := range s {
			vals[i] = float64(v)
		}
	case reflect.Int8:
		s := make([]int8, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Int16:
		s := make([]int16, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Int32:
		s := make([]int32, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Int64:
		s := make([]int64, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Uint8:
		s := make([]uint8, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Uint16:
		s := make([]uint16, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Uint32:
		s := make([]uint32, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Uint64:
		s := make([]uint64, n)
		err = readInto(&s)
		convert(vals, s)
	case reflect.Bool:
		s := make([]bool, n)
		err = readInto(&s)
		for i, v := range s {
			if v {
				vals[i] = 1
			}
		}
	default:
		return nil, offsetErr(name, 8, "unsupported dtype %q; want a float, integer, bool or fixed-width string array", hdr.Type)
	}
	if err != nil {
		return nil, err
	}
	return &npyArray{vals: vals, shape: hdr.Shape, fortran: hdr.Fortran, dataOff: dataOff, itemSize: size, dtype: hdr.Type}, nil
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

func convert[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []float64, src []T) {
	for i, v := range src {
		dst[i] = float64(v)
	}
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
	if opt.LabelsFile == "" || opt.NoLabels {
		return d, nil
	}
	lb, err := readFile(opt.LabelsFile)
	if err != nil {
		return nil, err
	}
	d.Y, d.ClassNames, err = ReadLabels(bytes.NewReader(lb), opt.LabelsFile, n, opt.Classes)
	if err != nil {
		return nil, err
	}
	return d, nil
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
	var texts []string
	binary := bytes.HasPrefix(b, npy.Magic[:])
	if binary {
		a, err := decodeNPY(b, name)
		if err != nil {
			return nil, nil, err
		}
		if texts, err = a.labelTexts(name); err != nil {
			return nil, nil, err
		}
	} else {
		s := string(b)
		s = strings.TrimSuffix(s, "\n")
		if s == "" && n != 1 {
			return nil, nil, lineErr(name, 0, "empty labels file; want %d labels, one per line", n)
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
	if len(texts) != n {
		return nil, nil, lineErr(name, 0, "%d labels for %d rows of data", len(texts), n)
	}
	y, cn, err := encodeLabels(texts, classes)
	if err != nil {
		var le *labelError
		if errors.As(err, &le) {
			if binary {
				return nil, nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("label %d: %s", le.Row+1, le.Msg)}
			}
			return nil, nil, lineErr(name, le.Row+1, "%s", le.Msg)
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
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return nil, offsetErr(name, a.offset(i), "label %d is %v; labels must be integers or strings", i+1, v)
		}
		texts[i] = strconv.FormatInt(int64(v), 10)
	}
	return texts, nil
}

// WriteNPY writes m to path as a NumPy .npy file of float64 in C order
// (gzipped if path ends in ".gz").
func WriteNPY(path string, m *mat.Dense) error {
	if m == nil || m.IsEmpty() {
		return fmt.Errorf("WriteNPY %s: empty matrix", path)
	}
	return WriteFile(path, func(w io.Writer) error { return npy.Write(w, m) })
}

// WriteLabelsNPY writes y to path as a 1-D NumPy array of int64 (gzipped
// if path ends in ".gz"), the form Options.LabelsFile reads.
func WriteLabelsNPY(path string, y []int) error {
	v := make([]int64, len(y))
	for i, l := range y {
		v[i] = int64(l)
	}
	return WriteFile(path, func(w io.Writer) error { return npy.Write(w, v) })
}
