package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// MAT-file level 5 data types (the type field of a data element tag).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

// miSize is the byte size of the numeric data types (0 for the others).
var miSize = [...]int{miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
	miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8, miUTF8: 0}

// MATLAB array classes (the low byte of the array flags) that are numeric
// run from mxDOUBLE to mxUINT64; the others (cell, struct, char, sparse,
// ...) are only named in errors.
const (
	mxDOUBLE = 6
	mxUINT64 = 15
	mxOPAQUE = 17
)

var mxClassName = map[byte]string{
	1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse", 6: "double", 7: "single",
	8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32", 13: "uint32",
	14: "int64", 15: "uint64", 16: "function handle", 17: "MATLAB object (opaque)",
}

func className(c byte) string {
	if s, ok := mxClassName[c]; ok {
		return s
	}
	return "class " + strconv.Itoa(int(c))
}

// matVar is a variable of a MAT-file, with its real data still encoded.
type matVar struct {
	name    string
	class   byte
	complex bool
	dims    []int
	dtype   uint32 // mi type of the real part
	data    []byte // real part (numeric classes only)
	order   binary.ByteOrder
	where   string // where the variable is, e.g. "byte offset 128"
	err     error  // why the data is unusable; reported only if requested
}

func (v *matVar) numeric() bool { return v.class >= mxDOUBLE && v.class <= mxUINT64 }

func (v *matVar) shape() string {
	if v.dims == nil {
		return "no dimensions"
	}
	s := make([]string, len(v.dims))
	for i, d := range v.dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "×")
}

// describe gives "name (400×1024 uint8)".
func (v *matVar) describe() string {
	if v.dims == nil {
		return fmt.Sprintf("%s (%s)", v.name, className(v.class))
	}
	return fmt.Sprintf("%s (%s %s)", v.name, v.shape(), className(v.class))
}

// MatFeatureNames are the variables tried, in order, for the features of
// a .mat file when Options.MatFeatures is empty (fea: the Deng Cai data
// sets' name; X, x, data, features: what scipy.io.savemat users name
// them); MatLabelNames those tried for the labels.
var (
	MatFeatureNames = []string{"fea", "X", "x", "data", "features"}
	MatLabelNames   = []string{"gnd", "y", "Y", "labels", "label", "target", "targets"}
)

// ReadMAT reads a MATLAB level-5 MAT-file (the format of save -v6 and -v7,
// compressed or not, little- or big-endian) from r; name is the file name
// used in errors and for Dataset.Name. The features are the variable
// opt.MatFeatures (default: the first of MatFeatureNames the file holds), a
// 2-D numeric array of any class, and the labels the integer vector
// opt.MatLabels (default: the first of MatLabelNames), unless
// opt.NoLabels. opt.MatSamples gives the orientation (see Options). The
// classes are the distinct label values in increasing order (ClassNames
// holds them as text) unless opt.Classes is set; a NaN label is an
// unlabelled row. When the file also holds a char matrix named "classes"
// with one distinct name per row and every label is a row number of it
// (1..C), as WriteMAT writes string class names, the rows name the
// classes, in that order. Variables of other classes (cell, struct,
// sparse, ...) are skipped unless requested.
// MATLAB v7.3 files (HDF5) and v4 files are not supported.
func ReadMAT(r io.Reader, name string, opt Options) (*Dataset, error) {
	if err := checkOptions(name, opt); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &FormatError{File: name, Offset: -1, Msg: "read error", Err: err}
	}
	vars, err := parseMAT(b, name)
	if err != nil {
		return nil, err
	}

	pick := func(given string, names []string) (string, string) {
		if given != "" {
			return given, strconv.Quote(given)
		}
		for _, n := range names {
			for i := range vars {
				if vars[i].name == n {
					return n, ""
				}
			}
		}
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = strconv.Quote(n)
		}
		return names[0], strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
	featName, featWant := pick(opt.MatFeatures, MatFeatureNames)
	labelName, labelWant := pick(opt.MatLabels, MatLabelNames)
	find := func(want, role string) (*matVar, error) {
		for i := range vars {
			if vars[i].name == want {
				v := &vars[i]
				if v.err != nil {
					return nil, v.err
				}
				if !v.numeric() {
					return nil, fmt.Errorf("%s: %s: %s variable %q is a %s array (%s); want a full numeric array", name, v.where, role, want, className(v.class), v.shape())
				}
				if v.complex {
					return nil, fmt.Errorf("%s: %s: %s variable %q is complex; want a real array", name, v.where, role, want)
				}
				return v, nil
			}
		}
		list := make([]string, len(vars))
		for i := range vars {
			list[i] = vars[i].describe()
		}
		has := "no variables"
		if len(list) > 0 {
			has = "variables " + strings.Join(list, ", ")
		}
		wanted := featWant
		if role == "label" {
			wanted = labelWant
		}
		return nil, fmt.Errorf("%s: no %s variable %s; the file has %s (choose others with --mat-fea and --mat-gnd: Options.MatFeatures, Options.MatLabels)", name, role, wanted, has)
	}

	fv, err := find(featName, "feature")
	if err != nil {
		return nil, err
	}
	fr, fc, err := matrixDims(fv)
	if err != nil {
		return nil, fmt.Errorf("%s: feature variable %s", name, err)
	}
	if fr == 0 || fc == 0 {
		return nil, fmt.Errorf("%s: feature variable %q is empty (%s)", name, fv.name, fv.shape())
	}
	fvals := fv.values()

	var (
		texts   []string
		samples = opt.MatSamples
		classes = opt.Classes
	)
	if !opt.NoLabels {
		lv, err := find(labelName, "label")
		if err != nil {
			return nil, err
		}
		nl := 1
		long := 0
		for _, d := range lv.dims {
			nl *= d
			if d > 1 {
				long++
			}
		}
		if long > 1 {
			return nil, fmt.Errorf("%s: label variable %q is %s; want a vector", name, lv.name, lv.shape())
		}
		lvals := lv.values()
		texts = make([]string, nl)
		for i, v := range lvals {
			switch {
			case math.IsNaN(v):
				texts[i] = "" // unlabelled
			case v != math.Trunc(v) || math.Abs(v) > 1<<53:
				return nil, fmt.Errorf("%s: label variable %q: entry %d is %v; labels must be integers (NaN: unlabelled)", name, lv.name, i+1, v)
			default:
				texts[i] = strconv.FormatInt(int64(v), 10)
			}
		}
		if names := matClassNames(vars, lvals); names != nil {
			for i, v := range lvals {
				if !math.IsNaN(v) {
					texts[i] = names[int(v)-1]
				}
			}
			if classes == nil {
				classes = names
			}
		}
		switch samples {
		case "":
			switch {
			case nl == fr:
				samples = "rows"
			case nl == fc:
				samples = "columns"
			default:
				return nil, fmt.Errorf("%s: label variable %q has %d entries but feature variable %q is %d×%d: neither its rows nor its columns match", name, lv.name, nl, fv.name, fr, fc)
			}
		case "rows":
			if nl != fr {
				return nil, fmt.Errorf("%s: label variable %q has %d entries but feature variable %q has %d rows (samples are rows)", name, lv.name, nl, fv.name, fr)
			}
		case "columns":
			if nl != fc {
				return nil, fmt.Errorf("%s: label variable %q has %d entries but feature variable %q has %d columns (samples are columns)", name, lv.name, nl, fv.name, fc)
			}
		}
	}
	if samples == "" {
		samples = "rows"
	}

	var x *mat.Dense
	if samples == "columns" {
		// Column-major fr×fc data is row-major fc×fr: one sample per row.
		x = mat.NewDense(fc, fr, fvals)
	} else {
		x = mat.NewDense(fr, fc, nil)
		for j := 0; j < fc; j++ {
			for i := 0; i < fr; i++ {
				x.Set(i, j, fvals[i+j*fr])
			}
		}
	}
	if err := CheckFinite(name+": feature variable "+strconv.Quote(fv.name), x); err != nil {
		return nil, err
	}
	_, p := x.Dims()
	d := &Dataset{Name: datasetName(name), X: x, FeatureNames: defaultNames(p)}
	if texts != nil {
		y, cn, err := encodeLabels(texts, classes, opt.Unlabelled)
		if err != nil {
			var le *labelError
			if errors.As(err, &le) {
				return nil, fmt.Errorf("%s: label variable %q, entry %d: %s", name, labelName, le.Row+1, le.Msg)
			}
			return nil, err
		}
		d.Y, d.ClassNames = y, cn
	}
	return d, nil
}

// matrixDims returns the rows and columns of a 2-D variable (trailing
// singleton dimensions allowed).
func matrixDims(v *matVar) (int, int, error) {
	for _, d := range v.dims[2:] {
		if d != 1 {
			return 0, 0, fmt.Errorf("%q is %s; want a 2-D array", v.name, v.shape())
		}
	}
	return v.dims[0], v.dims[1], nil
}

// parseMAT parses the header and the top-level data elements of a MAT-file
// and returns its named variables.
func parseMAT(b []byte, name string) ([]matVar, error) {
	if matV4(b) {
		return nil, offsetErr(name, 0, "a MATLAB v4 MAT-file (save -v4, scipy's format='4'), which is not supported; save it with -v6 or -v7 (scipy.io.savemat's default)")
	}
	if len(b) < 128 {
		return nil, offsetErr(name, int64(len(b)), "truncated MAT-file: %d bytes, the header alone has 128", len(b))
	}
	text := string(b[:116])
	if !strings.HasPrefix(text, "MATLAB") {
		return nil, offsetErr(name, 0, "not a MATLAB level-5 MAT-file: the header text starts %q, want \"MATLAB 5.0 MAT-file\" (v4 files are not supported)", truncate(strings.TrimRight(text, " \x00"), 20))
	}
	var order binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		return nil, offsetErr(name, 126, "bad endian indicator %q; want \"IM\" or \"MI\"", b[126:128])
	}
	if v := order.Uint16(b[124:126]); v != 0x0100 {
		if v == 0x0200 {
			return nil, offsetErr(name, 124, "MATLAB v7.3 (HDF5) MAT-files are not supported; save with -v7 or -v6")
		}
		return nil, offsetErr(name, 124, "unsupported MAT-file version 0x%04x; want 0x0100", v)
	}
	p := &matParser{file: name, order: order}
	var vars []matVar
	off := 128
	for off < len(b) {
		tag, err := p.tag(b, off, fileLoc(off))
		if err != nil {
			return nil, err
		}
		switch tag.typ {
		case miCOMPRESSED:
			inner, err := p.inflate(b[tag.start:tag.end], off)
			if err != nil {
				return nil, err
			}
			vs, err := p.elements(inner, func(o int) string {
				return fmt.Sprintf("byte offset %d of the data decompressed from the element at byte offset %d", o, off)
			})
			if err != nil {
				return nil, err
			}
			vars = append(vars, vs...)
		case miMATRIX:
			v, err := p.matrix(b[tag.start:tag.end], tag.start, fileLoc)
			if err != nil {
				return nil, err
			}
			if v != nil && v.name != "" {
				vars = append(vars, *v)
			}
		}
		off = tag.next
	}
	return vars, nil
}

func fileLoc(o int) string { return "byte offset " + strconv.Itoa(o) }

// matParser holds what the element readers need: the file name for errors
// and the byte order.
type matParser struct {
	file  string
	order binary.ByteOrder
}

// locErr is a FormatError at the place described by loc.
func (p *matParser) locErr(loc string, format string, args ...any) error {
	return &FormatError{File: p.file, Offset: -1, Msg: loc + ": " + fmt.Sprintf(format, args...)}
}

// matTag is a decoded data element tag: the data is buf[start:end] and the
// next element starts at next.
type matTag struct {
	typ        uint32
	start, end int
	next       int
}

// tag decodes the data element tag at buf[off:], in the normal (8-byte tag)
// or small (data packed in the tag) format. Elements other than
// miCOMPRESSED are padded to a multiple of 8 bytes; missing padding at the
// very end of buf is tolerated.
func (p *matParser) tag(buf []byte, off int, loc string) (matTag, error) {
	if len(buf)-off < 8 {
		return matTag{}, p.locErr(loc, "truncated data element: %d bytes left, a tag needs 8", len(buf)-off)
	}
	w := p.order.Uint32(buf[off:])
	if n := w >> 16; n != 0 {
		// Small data element: size in the upper 16 bits, type in the
		// lower, data in the next 4 bytes.
		if n > 4 {
			return matTag{}, p.locErr(loc, "small data element claims %d bytes; at most 4 fit in the tag", n)
		}
		return matTag{typ: w & 0xffff, start: off + 4, end: off + 4 + int(n), next: off + 8}, nil
	}
	size := p.order.Uint32(buf[off+4:])
	start := off + 8
	if uint64(size) > uint64(len(buf)-start) {
		return matTag{}, p.locErr(loc, "truncated data element of type %d: it claims %d bytes, %d are left", w, size, len(buf)-start)
	}
	end := start + int(size)
	next := end
	if w != miCOMPRESSED {
		next = start + (int(size)+7)/8*8
		if next > len(buf) {
			next = len(buf)
		}
	}
	return matTag{typ: w, start: start, end: end, next: next}, nil
}

// inflate decompresses the zlib data of an miCOMPRESSED element found at
// file offset off (the offset of its tag).
func (p *matParser) inflate(z []byte, off int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, offsetErr(p.file, int64(off), "compressed element: invalid zlib data (%v)", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxInputBytes+1))
	if err == nil && int64(len(out)) > MaxInputBytes {
		return nil, offsetErr(p.file, int64(off), "compressed element decompresses to more than %d bytes (data.MaxInputBytes)", MaxInputBytes)
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, offsetErr(p.file, int64(off), "compressed element of %d bytes is truncated (%d bytes decompressed)", len(z), len(out))
		}
		return nil, offsetErr(p.file, int64(off), "compressed element of %d bytes is corrupt after %d decompressed bytes (%v)", len(z), len(out), err)
	}
	return out, nil
}

// elements parses the data elements of buf (the contents of an
// miCOMPRESSED element) and returns its named variables.
func (p *matParser) elements(buf []byte, loc func(int) string) ([]matVar, error) {
	var vars []matVar
	for off := 0; off < len(buf); {
		tag, err := p.tag(buf, off, loc(off))
		if err != nil {
			return nil, err
		}
		switch tag.typ {
		case miMATRIX:
			v, err := p.matrix(buf[tag.start:tag.end], tag.start, loc)
			if err != nil {
				return nil, err
			}
			if v != nil && v.name != "" {
				vars = append(vars, *v)
			}
		case miCOMPRESSED:
			return nil, p.locErr(loc(off), "nested compressed element")
		}
		off = tag.next
	}
	return vars, nil
}

// matrix parses the contents of an miMATRIX element that starts at base in
// its buffer. It reads the array flags, dimensions, name and, for numeric
// classes, locates the real part. An empty element gives nil.
func (p *matParser) matrix(buf []byte, base int, loc func(int) string) (*matVar, error) {
	if len(buf) == 0 {
		return nil, nil
	}
	pos := 0
	sub := func(what string, want ...uint32) (matTag, error) {
		t, err := p.tag(buf, pos, loc(base+pos))
		if err != nil {
			return t, err
		}
		if len(want) > 0 {
			ok := false
			for _, w := range want {
				ok = ok || t.typ == w
			}
			if !ok {
				return t, p.locErr(loc(base+pos), "array %s has data type %d; want %v", what, t.typ, want)
			}
		}
		pos = t.next
		return t, nil
	}

	flags, err := sub("flags", miUINT32)
	if err != nil {
		return nil, err
	}
	if flags.end-flags.start < 8 {
		return nil, p.locErr(loc(base), "array flags have %d bytes; want 8", flags.end-flags.start)
	}
	fw := p.order.Uint32(buf[flags.start:])
	v := &matVar{class: byte(fw & 0xff), complex: fw&0x0800 != 0, order: p.order, where: loc(base)}
	if v.class == mxOPAQUE {
		// MATLAB objects such as string, table or function handles: no
		// dimensions, the name comes right after the flags.
		nameTag, err := sub("name", miINT8, miUINT8, miUTF8)
		if err != nil {
			return nil, err
		}
		v.name = string(buf[nameTag.start:nameTag.end])
		return v, nil
	}

	dimsTag, err := sub("dimensions", miINT32)
	if err != nil {
		return nil, err
	}
	nd := (dimsTag.end - dimsTag.start) / 4
	if nd < 2 || (dimsTag.end-dimsTag.start)%4 != 0 {
		return nil, p.locErr(loc(base+dimsTag.start), "array dimensions take %d bytes; want at least two int32", dimsTag.end-dimsTag.start)
	}
	v.dims = make([]int, nd)
	for i := range v.dims {
		d := int32(p.order.Uint32(buf[dimsTag.start+4*i:]))
		if d < 0 {
			return nil, p.locErr(loc(base+dimsTag.start), "array dimension %d is %d; dimensions cannot be negative", i+1, d)
		}
		v.dims[i] = int(d)
	}

	nameTag, err := sub("name", miINT8, miUINT8, miUTF8)
	if err != nil {
		return nil, err
	}
	v.name = string(buf[nameTag.start:nameTag.end])
	if v.class == mxCHAR {
		if re, err := sub("characters"); err == nil && !v.complex {
			v.dtype, v.data = re.typ, buf[re.start:re.end] // read by charRows if wanted
		}
		return v, nil
	}
	if !v.numeric() {
		return v, nil // skipped unless requested
	}

	// From here on, a problem makes the variable unusable but does not
	// stop the reading of the others.
	realPos := pos
	re, err := sub("real part")
	if err != nil {
		v.err = err
		return v, nil
	}
	if re.typ >= uint32(len(miSize)) || miSize[re.typ] == 0 {
		v.err = p.locErr(loc(base+realPos), "variable %q: real part has data type %d; want a numeric type", v.name, re.typ)
		return v, nil
	}
	size := miSize[re.typ]
	nbytes := re.end - re.start
	count, more := int64(1), false // more: the dimensions need more than count values
	for _, d := range v.dims {
		hi, lo := bits.Mul64(uint64(count), uint64(d))
		if hi != 0 || lo > 1<<62 { // no file holds that many; stop before the product overflows
			more = true
			break
		}
		count = int64(lo)
	}
	if more || nbytes%size != 0 || int64(nbytes/size) != count {
		need := fmt.Sprintf("%d values", count)
		if more {
			need = fmt.Sprintf("more than %d values", count)
		}
		v.err = p.locErr(loc(base+realPos), "variable %q: real part has %d bytes of %d-byte values, but the dimensions %s need %s", v.name, nbytes, size, v.shape(), need)
		return v, nil
	}
	v.dtype = re.typ
	v.data = buf[re.start:re.end]
	return v, nil
}

// values decodes the real part of v as float64, in column-major order.
func (v *matVar) values() []float64 {
	size := miSize[v.dtype]
	out := make([]float64, len(v.data)/size)
	b, o := v.data, v.order
	switch v.dtype {
	case miINT8:
		for i := range out {
			out[i] = float64(int8(b[i]))
		}
	case miUINT8:
		for i := range out {
			out[i] = float64(b[i])
		}
	case miINT16:
		for i := range out {
			out[i] = float64(int16(o.Uint16(b[2*i:])))
		}
	case miUINT16:
		for i := range out {
			out[i] = float64(o.Uint16(b[2*i:]))
		}
	case miINT32:
		for i := range out {
			out[i] = float64(int32(o.Uint32(b[4*i:])))
		}
	case miUINT32:
		for i := range out {
			out[i] = float64(o.Uint32(b[4*i:]))
		}
	case miINT64:
		for i := range out {
			out[i] = float64(int64(o.Uint64(b[8*i:])))
		}
	case miUINT64:
		for i := range out {
			out[i] = float64(o.Uint64(b[8*i:]))
		}
	case miSINGLE:
		for i := range out {
			out[i] = float64(math.Float32frombits(o.Uint32(b[4*i:])))
		}
	case miDOUBLE:
		for i := range out {
			out[i] = math.Float64frombits(o.Uint64(b[8*i:]))
		}
	}
	return out
}

// matClassNames returns the class names of a char matrix variable
// "classes" when it names the labels lvals (NaN: unlabelled): distinct
// non-empty rows, and every label a row number 1..C; nil otherwise.
func matClassNames(vars []matVar, lvals []float64) []string {
	var names []string
	for i := range vars {
		if vars[i].name == "classes" && vars[i].class == mxCHAR {
			names = vars[i].charRows()
		}
	}
	if names == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, s := range names {
		if s == "" || seen[s] {
			return nil
		}
		seen[s] = true
	}
	for _, v := range lvals {
		if !math.IsNaN(v) && (v < 1 || v > float64(len(names)) || v != math.Trunc(v)) {
			return nil
		}
	}
	return names
}

// charRows returns the rows of a 2-D char matrix, trailing spaces
// removed, or nil when v is not one or its characters cannot be read.
// MATLAB keeps chars as UTF-16 code units (miUINT16 or miUTF16); scipy
// and WriteMAT store UTF-8 (miUTF8), whose dimensions count code points
// (MATLAB's count UTF-16 units: they differ only outside the BMP).
func (v *matVar) charRows() []string {
	if len(v.dims) != 2 || v.err != nil {
		return nil
	}
	r, c := v.dims[0], v.dims[1]
	if r == 0 || c == 0 {
		return nil // (and r, unchecked by an empty data part, could be 2³¹)
	}
	var cells [][]uint16 // the UTF-16 units of each character, column-major
	switch v.dtype {
	case miUINT16, miUTF16:
		if len(v.data) != 2*r*c {
			return nil
		}
		for i := 0; i < r*c; i++ {
			cells = append(cells, []uint16{v.order.Uint16(v.data[2*i:])})
		}
	case miUINT8, miUTF8:
		if !utf8.Valid(v.data) {
			return nil
		}
		runes := []rune(string(v.data))
		if units := utf16.Encode(runes); len(runes) != r*c && len(units) == r*c {
			runes = nil
			for _, u := range units {
				cells = append(cells, []uint16{u})
			}
		}
		for _, x := range runes {
			cells = append(cells, utf16.Encode([]rune{x}))
		}
	}
	if len(cells) != r*c {
		return nil
	}
	rows := make([]string, r)
	for i := range rows {
		var row []uint16
		for j := 0; j < c; j++ {
			row = append(row, cells[i+j*r]...)
		}
		rows[i] = strings.TrimRight(string(utf16.Decode(row)), " ")
	}
	return rows
}

// matV4 reports whether b starts with a MATLAB v4 matrix header: five
// int32 (type MOPT, rows, columns, imaginary flag, name length) in either
// byte order, then the variable's NUL-terminated name.
func matV4(b []byte) bool {
	if len(b) < 21 {
		return false
	}
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		mopt := order.Uint32(b[0:4])
		imag, nameLen := order.Uint32(b[12:16]), order.Uint32(b[16:20])
		m, o, p, t := mopt/1000, mopt/100%10, mopt/10%10, mopt%10
		if mopt < 5000 && m <= 4 && o == 0 && p <= 5 && t <= 2 && imag <= 1 &&
			nameLen >= 2 && nameLen <= 64 && uint64(len(b)) >= 20+uint64(nameLen) && b[20+nameLen-1] == 0 {
			return true
		}
	}
	return false
}
