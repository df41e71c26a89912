package data

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MAT-file level 5 array classes written by WriteMAT (mxDOUBLE is shared
// with the reader).
const mxCHAR = 4

// matMaxBytes is the largest variable WriteMAT writes: MATLAB reads
// variables of v6 and v7 MAT-files up to 2 GiB (the format's uint32 sizes
// would allow 4 GiB).
const matMaxBytes = 1<<31 - 1

// WriteMAT writes d as a MATLAB level-5 MAT-file, uncompressed and
// little-endian (what MATLAB's save -v6 writes; MATLAB, Octave and
// scipy.io.loadmat read it), in the layout ReadMAT reads by default, that
// of the data sets of Deng Cai's site the papers use:
//
//   - fea: the rows, an n×p double matrix, one sample per row;
//   - gnd: when d has labels, an n×1 double column. When the class names
//     are integers in increasing order and every class has a row (as the
//     readers give the classes of integer labels) the labels are those
//     integers; otherwise they are the class numbers 1..C and
//   - classes: a C×L char matrix names the classes, one per row, padded
//     with spaces (MATLAB's char(names); cellstr(classes) gives them
//     back), its characters stored as UTF-8 as scipy.io.savemat stores
//     them.
//
// An unlabelled row's gnd is NaN. ReadMAT reads the file back as d: the
// same rows, labels and class names.
//
// WriteMAT refuses NaN and Inf values, labels out of range, class names
// that a char matrix cannot keep (empty, or ending with a space), and a
// variable above the 2 GiB MATLAB reads (write .npy instead).
func WriteMAT(w io.Writer, d *Dataset) error {
	if d == nil || d.X == nil || d.X.IsEmpty() {
		return fmt.Errorf("Write mat: no data")
	}
	if err := CheckFinite("rows", d.X); err != nil {
		return err
	}
	n, p := d.X.Dims()
	var gnd []float64
	var names []string
	if d.Y != nil {
		if len(d.Y) != n {
			return fmt.Errorf("Write mat: %d labels for %d rows", len(d.Y), n)
		}
		if err := checkClassNames("Write mat", d.name(), d.ClassNames, func(s string) string { return strings.TrimRight(s, " ") }); err != nil {
			return err
		}
		var err error
		if gnd, names, err = matLabels(d.Y, d.ClassNames); err != nil {
			return err
		}
	}
	if size := matrixBytes("fea", int64(n)*int64(p)*8); size > matMaxBytes {
		return fmt.Errorf("Write mat: %d×%d doubles make a variable of %d bytes, more than the 2 GiB MATLAB reads from a v6 or v7 MAT-file; write .npy or .npz instead", n, p, size)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	me := &matEncoder{w: bw}
	me.header()
	me.doubles("fea", n, p, func(j int, col []float64) {
		for i := range col {
			col[i] = d.X.At(i, j)
		}
	})
	if gnd != nil {
		me.doubles("gnd", n, 1, func(_ int, col []float64) { copy(col, gnd) })
	}
	if names != nil {
		me.chars("classes", names)
	}
	if me.err != nil {
		return me.err
	}
	return bw.Flush()
}

// matLabels returns the gnd column of labels y with class names names
// (NaN for Unlabeled), and the names to write as the classes variable:
// nil when gnd holds the names' integers, which ReadMAT numbers back in
// the same order (integers in increasing order, every class used).
func matLabels(y []int, names []string) (gnd []float64, classes []string, err error) {
	if len(names) == 0 {
		// No class names: the class indices are the names, as WriteCSV
		// writes them.
		for c := range min(NumClasses(y), len(y)+1) {
			names = append(names, strconv.Itoa(c))
		}
	}
	ints := make([]float64, len(names))
	allInt := len(names) > 0
	used := make([]bool, len(names))
	for _, c := range y {
		if c >= 0 && c < len(names) {
			used[c] = true
		}
	}
	for c, s := range names {
		v, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || strconv.FormatInt(v, 10) != s || math.Abs(float64(v)) > 1<<53 || (c > 0 && float64(v) <= ints[c-1]) || !used[c] {
			allInt = false
			break
		}
		ints[c] = float64(v)
	}
	if !allInt {
		classes = names // checkClassNames refused names a char matrix's space padding would change
	}
	gnd = make([]float64, len(y))
	for i, c := range y {
		switch {
		case c == Unlabeled:
			gnd[i] = math.Float64frombits(0x7FF8000000000000) // NumPy's and MATLAB's NaN
		case c < 0 || c >= len(names):
			return nil, nil, fmt.Errorf("Write mat: row %d has label %d; the data has %d class names", i+1, c, len(names))
		case allInt:
			gnd[i] = ints[c]
		default:
			gnd[i] = float64(c + 1)
		}
	}
	return gnd, classes, nil
}

// matEncoder writes the data elements of a little-endian level-5 MAT-file;
// the first error sticks.
type matEncoder struct {
	w   io.Writer
	err error
	buf []byte
}

func (me *matEncoder) write(b []byte) {
	if me.err == nil {
		_, me.err = me.w.Write(b)
	}
}

// header writes the 128-byte file header: text, no subsystem data,
// version 0x0100, and the endian indicator "IM" (little-endian).
func (me *matEncoder) header() {
	h := []byte("MATLAB 5.0 MAT-file, Platform: GLNXA64, Created by: dimred")
	h = append(h, strings.Repeat(" ", 116-len(h))...)
	h = append(h, make([]byte, 8)...)
	h = binary.LittleEndian.AppendUint16(h, 0x0100)
	h = append(h, 'I', 'M')
	me.write(h)
}

// pad8 rounds n up to a multiple of 8, the alignment of data elements.
func pad8(n int) int { return (n + 7) &^ 7 }

// tag writes the tag of a data element of type typ and n bytes.
func (me *matEncoder) tag(typ uint32, n int) {
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:], typ)
	binary.LittleEndian.PutUint32(t[4:], uint32(n))
	me.write(t[:])
}

// elementBytes is the size of a data element of n bytes: the small
// format (tag and data in 8 bytes) up to 4 bytes, else a tag and the data
// padded to 8 bytes.
func elementBytes(n int64) int64 {
	if n <= 4 {
		return 8
	}
	return 8 + (n+7)&^7
}

// matrixBytes is the size of a miMATRIX element (tag included) named
// name whose data element holds n bytes.
func matrixBytes(name string, n int64) int64 {
	return 8 + 16 + 16 + elementBytes(int64(len(name))) + elementBytes(n)
}

// element writes a data element of type typ holding b, in the small
// format up to 4 bytes.
func (me *matEncoder) element(typ uint32, b []byte) {
	if len(b) <= 4 {
		var s [8]byte
		binary.LittleEndian.PutUint32(s[:], uint32(len(b))<<16|typ)
		copy(s[4:], b)
		me.write(s[:])
		return
	}
	me.tag(typ, len(b))
	me.write(append(b, make([]byte, pad8(len(b))-len(b))...))
}

// arrayHead writes the tag of a miMATRIX element whose data element holds
// dataBytes bytes, its array flags (class), dimensions r×c and name; the
// data element follows.
func (me *matEncoder) arrayHead(name string, class byte, r, c int, dataBytes int) {
	me.tag(miMATRIX, int(matrixBytes(name, int64(dataBytes))-8))
	me.tag(miUINT32, 8)
	var b [8]byte
	b[0] = class
	me.write(b[:])
	me.tag(miINT32, 8)
	binary.LittleEndian.PutUint32(b[:], uint32(r))
	binary.LittleEndian.PutUint32(b[4:], uint32(c))
	me.write(b[:])
	me.element(miINT8, []byte(name))
}

// doubles writes an r×c double matrix, its columns given in turn by fill
// (column j into col).
func (me *matEncoder) doubles(name string, r, c int, fill func(j int, col []float64)) {
	me.arrayHead(name, mxDOUBLE, r, c, 8*r*c)
	me.tag(miDOUBLE, 8*r*c) // whole doubles: no padding, never the small format
	col := make([]float64, r)
	for j := 0; j < c && me.err == nil; j++ {
		fill(j, col)
		me.buf = me.buf[:0]
		for _, v := range col {
			me.buf = binary.LittleEndian.AppendUint64(me.buf, math.Float64bits(v))
		}
		me.write(me.buf)
	}
}

// chars writes names as a char matrix, one name per row padded with
// spaces, column-major, its characters as UTF-8 (miUTF8), as
// scipy.io.savemat writes them and MATLAB reads them.
func (me *matEncoder) chars(name string, names []string) {
	runes := make([][]rune, len(names))
	width := 0
	for i, s := range names {
		runes[i] = []rune(s)
		width = max(width, len(runes[i]))
	}
	var b []byte
	for j := 0; j < width; j++ {
		for i := range names {
			r := ' '
			if j < len(runes[i]) {
				r = runes[i][j]
			}
			b = utf8.AppendRune(b, r)
		}
	}
	me.arrayHead(name, mxCHAR, len(names), width, len(b))
	me.element(miUTF8, b)
}
