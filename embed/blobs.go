package embed

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Fast reading of large models. A model file of version 4 keeps a large
// matrix as one base64 string (MatrixJSON.Float64LE); a kernel model of
// 10 000 rows holds a gigabyte of them. encoding/json reads such a string
// a byte at a time, several times over (validity check, skip into a
// RawMessage, the decode proper): 28 s for a 1.15 GB file. LiftBlobs takes
// the strings out of the JSON before encoding/json sees it, with a scan
// that looks only at quotes, backslashes and brackets and decodes the
// base64 straight into the matrices' values, in parallel; the rest, small,
// goes through encoding/json as before, with a reference in place of each
// string: 2.75 s for that file. Writing is the mirror (MarshalModelLifted):
// the model is marshalled with references, and WriteOriginal makes the
// base64 as the file is written.
//
// The fast route must give what encoding/json gives on the whole file, or
// nothing: every lifted string must be read back, once, as the Float64LE
// of a matrix (Blobs.Complete). A file where it is not so — a float64le key
// where no matrix is, a duplicate key, an escaped string that happens to
// decode to a reference — and any error on the fast route send the caller
// to encoding/json on the untouched bytes, whose result and messages are
// then the only ones seen.

// liftMin is the shortest float64le string lifted (shorter ones, which
// Save never writes, stay for encoding/json).
var liftMin = 1 << 12 // a variable so that tests can lift short strings

// refLen is the length of a reference's bytes: a magic, a nonce drawn for
// each LiftBlobs (a file cannot guess it) and the blob's index.
const refLen = 16

var refMagic = [4]byte{0, 'd', 'r', 0xb1}

// Blobs holds the float64le strings lifted from one JSON document (by
// LiftBlobs, reading) or to be written into it (by MarshalModelLifted).
type Blobs struct {
	nonce   uint64
	prefix  string // base64 of the reference's first 12 bytes: the text every reference starts with
	entries []blob
}

type blob struct {
	text []byte     // the string's base64 text, in the original document (reading)
	raw  []byte     // the bytes it encodes (writing a Float64LE made by ToJSONMat)
	src  *mat.Dense // the matrix whose values it encodes (writing a model's matrix)
	vals []float64  // its values (reading)
	used int        // times read back
}

func newBlobs() *Blobs {
	bl := &Blobs{nonce: rand.Uint64()}
	bl.prefix = base64.StdEncoding.EncodeToString(bl.refBytes(0)[:12])
	return bl
}

// LiftBlobs returns b with every long float64le string value replaced by a
// reference, and the values of those strings. It returns nil, nil when
// there is nothing to lift or when b is not JSON the scan understands, or
// a string is not the base64 of whole doubles: the caller then reads b as
// it is.
func LiftBlobs(b []byte) ([]byte, *Blobs) {
	spans, ok := floatStrings(b)
	if !ok || len(spans) == 0 {
		return nil, nil
	}
	bl := newBlobs()
	out := make([]byte, 0, len(b)-totalLen(spans)+len(spans)*32)
	last := 0
	for i, s := range spans {
		text := b[s[0]:s[1]]
		if bytes.IndexByte(text, '\r') >= 0 || bytes.IndexByte(text, '\n') >= 0 {
			// base64 skips them, JSON forbids them raw.
			return nil, nil
		}
		bl.entries = append(bl.entries, blob{text: text})
		out = append(out, b[last:s[0]]...)
		out = append(out, base64.StdEncoding.EncodeToString(bl.refBytes(i))...)
		last = s[1]
	}
	out = append(out, b[last:]...)
	if !bl.decode() {
		return nil, nil
	}
	return out, bl
}

func totalLen(spans [][2]int) int {
	n := 0
	for _, s := range spans {
		n += s[1] - s[0]
	}
	return n
}

// refBytes returns the bytes of reference i.
func (bl *Blobs) refBytes(i int) []byte {
	r := make([]byte, refLen)
	copy(r, refMagic[:])
	binary.LittleEndian.PutUint64(r[4:], bl.nonce)
	binary.LittleEndian.PutUint32(r[12:], uint32(i))
	return r
}

// index returns the blob a decoded Float64LE refers to, or -1.
func (bl *Blobs) index(b []byte) int {
	if len(b) != refLen || !bytes.Equal(b[:4], refMagic[:]) || binary.LittleEndian.Uint64(b[4:]) != bl.nonce {
		return -1
	}
	i := int(binary.LittleEndian.Uint32(b[12:]))
	if i >= len(bl.entries) {
		return -1
	}
	return i
}

// floatStrings returns the spans (inside the quotes) of the string values
// of float64le keys (any case, as encoding/json matches keys) at least
// liftMin long and free of escapes. It reads only the document's structure
// and does not check it; ok is false when the scan finds it broken.
func floatStrings(b []byte) (spans [][2]int, ok bool) {
	var stack []byte
	expectKey, floatKey := false, false
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '"':
			end, escaped := stringEnd(b, i)
			if end < 0 {
				return nil, false
			}
			inObject := len(stack) > 0 && stack[len(stack)-1] == '{'
			switch {
			case inObject && expectKey:
				floatKey = isFloatKey(b[i:end], escaped)
				expectKey = false
			case floatKey && !escaped && end-i-2 >= liftMin:
				spans = append(spans, [2]int{i + 1, end - 1})
				floatKey = false
			default:
				floatKey = false
			}
			i = end
			continue
		case '{', '[':
			stack = append(stack, c)
			expectKey, floatKey = c == '{', false
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return nil, false
			}
			stack = stack[:len(stack)-1]
			expectKey, floatKey = false, false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			floatKey = false
		}
		i++
	}
	return spans, len(stack) == 0
}

// stringEnd returns the index after the closing quote of the string that
// starts at b[i] (a quote), and whether it holds a backslash; -1 when it
// does not end.
func stringEnd(b []byte, i int) (int, bool) {
	q := bytes.IndexByte(b[i+1:], '"')
	if q < 0 {
		return -1, false
	}
	q += i + 1
	if bytes.IndexByte(b[i+1:q], '\\') < 0 {
		return q + 1, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return -1, true
}

func isFloatKey(lit []byte, escaped bool) bool {
	if !escaped {
		return bytes.EqualFold(lit[1:len(lit)-1], []byte("float64le"))
	}
	var s string
	return json.Unmarshal(lit, &s) == nil && bytes.EqualFold([]byte(s), []byte("float64le"))
}

// decode turns every lifted string into its doubles, the strings cut into
// pieces decoded in parallel (the values do not depend on the cut). It
// reports false for a string that is not base64 of whole doubles.
func (bl *Blobs) decode() bool {
	// 32 base64 characters are 24 bytes, 3 doubles: pieces of a multiple
	// of 32 characters start on a double.
	const piece = 32 << 13
	type task struct{ blob, from int }
	var tasks []task
	for i := range bl.entries {
		e := &bl.entries[i]
		n, ok := decodedLen(e.text)
		if !ok || n%8 != 0 {
			return false
		}
		e.vals = make([]float64, n/8)
		for from := 0; from < len(e.text); from += piece {
			tasks = append(tasks, task{i, from})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	var (
		next   = make(chan task)
		failed = make([]bool, workers)
		wg     sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, piece/4*3)
			for t := range next {
				e := &bl.entries[t.blob]
				n, err := base64.StdEncoding.Decode(buf, e.text[t.from:min(t.from+piece, len(e.text))])
				if err != nil || n != min(len(buf), 8*len(e.vals)-t.from/4*3) {
					failed[w] = true
					continue
				}
				dst := e.vals[t.from/4*3/8:]
				for k := range n / 8 {
					dst[k] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*k:]))
				}
			}
		}()
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	for _, f := range failed {
		if f {
			return false
		}
	}
	return true
}

// decodedLen returns the number of bytes the padded base64 text s decodes
// to; false when its length or padding cannot be base64.
func decodedLen(s []byte) (int, bool) {
	if len(s)%4 != 0 {
		return 0, false
	}
	n := len(s) / 4 * 3
	if bytes.HasSuffix(s, []byte("==")) {
		n -= 2
	} else if bytes.HasSuffix(s, []byte("=")) {
		n--
	}
	return n, true
}

// Unmarshal decodes b as json.Unmarshal does and then gives every matrix
// in v whose Float64LE is a reference the lifted values (as Data). A nil
// Blobs is json.Unmarshal.
func (bl *Blobs) Unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil || bl == nil {
		return err
	}
	return eachMatrix(reflect.ValueOf(v), bl.fill)
}

var matrixType = reflect.TypeFor[MatrixJSON]()

// eachMatrix calls fn with every MatrixJSON reachable from v through
// pointers, interfaces, exported struct fields, slices and arrays (those
// must be addressable: reached through a pointer).
func eachMatrix(v reflect.Value, fn func(*MatrixJSON) error) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return eachMatrix(v.Elem(), fn)
		}
	case reflect.Struct:
		if v.Type() == matrixType {
			if !v.CanAddr() {
				return errors.New("model: a matrix held by value where it cannot be changed")
			}
			return fn(v.Addr().Interface().(*MatrixJSON))
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := eachMatrix(v.Field(i), fn); err != nil {
					return err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if composite(v.Type().Elem()) {
			for i := range v.Len() {
				if err := eachMatrix(v.Index(i), fn); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if composite(v.Type().Elem()) && v.Len() > 0 {
			// Map values cannot be changed in place; no codec keeps
			// matrices in a map.
			return errors.New("model: matrices inside a map")
		}
	}
	return nil
}

// composite reports whether values of type t can hold a matrix.
func composite(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		return true
	}
	return false
}

func (bl *Blobs) fill(m *MatrixJSON) error {
	i := bl.index(m.Float64LE)
	if i < 0 {
		return nil // a matrix of its own (decimal, or a float64le left in place)
	}
	if len(m.Data) > 0 {
		return errors.New("model: matrix with both data and float64le")
	}
	bl.entries[i].used++
	m.Data, m.Float64LE = bl.entries[i].vals, nil
	return nil
}

// Complete reports an error unless every lifted string was read back
// exactly once; nil Blobs are complete.
func (bl *Blobs) Complete() error {
	if bl == nil {
		return nil
	}
	for i, e := range bl.entries {
		if e.used != 1 {
			return fmt.Errorf("model: lifted matrix %d read %d times", i, e.used)
		}
	}
	return nil
}

// WriteOriginal writes b, a part of the document LiftBlobs or
// MarshalModelLifted returned, with each reference replaced by the string
// it stands for: the bytes of the original document there, or the base64
// of the bytes to write. A nil Blobs writes b.
func (bl *Blobs) WriteOriginal(w io.Writer, b []byte) error {
	if bl == nil {
		_, err := w.Write(b)
		return err
	}
	last := 0
	err := bl.refs(b, func(at, end, i int) error {
		if _, err := w.Write(b[last:at]); err != nil {
			return err
		}
		last = end
		return bl.entries[i].writeText(w)
	})
	if err != nil {
		return err
	}
	_, err = w.Write(b[last:])
	return err
}

// Within reports whether the reference of every lifted string lies in b,
// a part of the lifted document (a nil Blobs: true). The rest of the
// document is then the original's, byte for byte.
func (bl *Blobs) Within(b []byte) bool {
	if bl == nil {
		return true
	}
	seen := make([]bool, len(bl.entries))
	n := 0
	err := bl.refs(b, func(_, _, i int) error {
		if !seen[i] {
			seen[i] = true
			n++
		}
		return nil
	})
	return err == nil && n == len(bl.entries)
}

// refs calls fn for each reference in b, in order, with its span
// b[at:end] (inside the quotes) and the index of the blob it stands for.
func (bl *Blobs) refs(b []byte, fn func(at, end, i int) error) error {
	prefix := []byte(bl.prefix)
	for off := 0; ; {
		at := bytes.Index(b[off:], prefix)
		if at < 0 {
			return nil
		}
		at += off
		end := bytes.IndexByte(b[at:], '"')
		if end < 0 {
			return errors.New("model: reference without its closing quote")
		}
		end += at
		var r [refLen]byte
		if n, err := base64.StdEncoding.Decode(r[:], b[at:end]); err != nil || n != refLen {
			return fmt.Errorf("model: unreadable reference %q", b[at:end])
		}
		i := bl.index(r[:])
		if i < 0 {
			return fmt.Errorf("model: unknown reference %q", b[at:end])
		}
		if err := fn(at, end, i); err != nil {
			return err
		}
		off = end
	}
}

// writeText writes the blob's base64 text: the original's, or the
// encoding of its bytes or of its matrix's values, made a piece at a time
// as it is written.
func (e blob) writeText(w io.Writer) error {
	if e.raw == nil && e.src == nil {
		_, err := w.Write(e.text)
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if e.raw != nil {
		if _, err := enc.Write(e.raw); err != nil {
			return err
		}
		return enc.Close()
	}
	const piece = 1 << 16 // bytes of values encoded at a time
	buf := make([]byte, 0, piece)
	var err error
	eachRow(e.src, func(row []float64) {
		for _, v := range row {
			if err != nil {
				return
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			if len(buf) == piece {
				_, err = enc.Write(buf)
				buf = buf[:0]
			}
		}
	})
	if err != nil {
		return err
	}
	if _, err := enc.Write(buf); err != nil {
		return err
	}
	return enc.Close()
}
