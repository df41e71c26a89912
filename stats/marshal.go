package stats

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The binary form of Moments, version 2, all numbers little-endian:
//
//	"DRSM"  magic, 4 bytes
//	2       version, 1 byte
//	d n n_L C                      4 × uint64
//	o (origin of the means)        d × float64
//	μ − o                          d × float64
//	S, upper triangle by rows      d(d+1)/2 × float64
//	μ_L − o                        d × float64          only when 0 < n_L < n
//	S_L, upper triangle by rows    d(d+1)/2 × float64   only when 0 < n_L < n
//	n_c                            C × uint64
//	μ_c − o, by rows               C·d × float64
//
// The labelled block (μ_L, S_L) is left out when every row is labelled
// (n_L = n: it is the total block, μ and S, and decodes as statistics
// sharing it; see Moments) and when none is (n_L = 0: there is none), so
// the form of supervised or unsupervised statistics takes one triangle,
// about half the bytes of version 1.
//
// Version 1, which UnmarshalBinary still reads, is the same but always
// holds the labelled block: zeros when n_L = 0, a copy of the total block
// when n_L = n (decoding refuses a copy that differs from it).
//
// Floats are stored as their IEEE 754 bits, so a round trip is exact.
const (
	magic         = "DRSM"
	formatVersion = 2
	headerLen     = len(magic) + 1 + 4*8
	// maxDim bounds d when decoding, so that a corrupt header cannot ask
	// for an absurd allocation before the length check.
	maxDim = 1 << 24
)

// hasLabeledBlock reports whether the binary form of a version holds the
// labelled block for n rows of which nl are labelled.
func hasLabeledBlock(version byte, n, nl uint64) bool {
	return version == 1 || 0 < nl && nl < n
}

// MarshalBinary encodes m in a versioned, portable binary form (see the
// format above, version 2), for shipping partial statistics between the
// workers of a distributed fit. UnmarshalBinary reads it back bit for bit.
func (m *Moments) MarshalBinary() ([]byte, error) {
	d, C := m.d, len(m.counts)
	tri := d * (d + 1) / 2
	labeled := hasLabeledBlock(formatVersion, uint64(m.n), uint64(m.nl))
	size := headerLen + 8*(2*d+tri+C+C*d)
	if labeled {
		size += 8 * (d + tri)
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = append(b, formatVersion)
	for _, v := range []int{d, m.n, m.nl, C} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = appendFloats(b, m.origin)
	b = appendFloats(b, m.mean)
	b = appendUpper(b, d, m.scatter)
	if labeled {
		b = appendFloats(b, m.meanL)
		b = appendUpper(b, d, m.scatterL)
	}
	for _, v := range m.counts {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return appendFloats(b, m.cmeans), nil
}

func appendFloats(b []byte, s []float64) []byte {
	for _, v := range s {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// appendUpper appends the upper triangle of the d×d row-major s by rows.
func appendUpper(b []byte, d int, s []float64) []byte {
	for i := 0; i < d; i++ {
		b = appendFloats(b, s[i*d+i:(i+1)*d])
	}
	return b
}

// UnmarshalBinary decodes the form written by MarshalBinary (version 2)
// or by earlier builds (version 1) into m. It refuses, with an error
// saying what is wrong, data that is not Moments data, of another version,
// truncated or followed by extra bytes, or whose counts or values are
// inconsistent (n_L > n, class counts not summing to n_L, non-finite
// values, a version-1 labelled block of fully labelled rows that is not
// the total block, ...). On error m is unchanged.
func (m *Moments) UnmarshalBinary(b []byte) error {
	if len(b) < headerLen {
		if len(b) >= len(magic) && string(b[:len(magic)]) != magic {
			return fmt.Errorf("stats: not Moments data: the first bytes are %q, want %q", b[:len(magic)], magic)
		}
		return fmt.Errorf("stats: Moments data truncated: %d bytes, the header alone takes %d", len(b), headerLen)
	}
	if string(b[:len(magic)]) != magic {
		return fmt.Errorf("stats: not Moments data: the first bytes are %q, want %q", b[:len(magic)], magic)
	}
	version := b[len(magic)]
	if version != 1 && version != formatVersion {
		return fmt.Errorf("stats: Moments data of format version %d; this build reads versions 1 and %d", version, formatVersion)
	}
	var hdr [4]uint64
	for k := range hdr {
		hdr[k] = binary.LittleEndian.Uint64(b[len(magic)+1+8*k:])
	}
	ud, un, unl, uC := hdr[0], hdr[1], hdr[2], hdr[3]
	switch {
	case ud > maxDim:
		return fmt.Errorf("stats: Moments data with dimension %d; at most %d is supported", ud, maxDim)
	case uC > MaxClasses:
		return fmt.Errorf("stats: Moments data with %d classes; at most %d are supported", uC, MaxClasses)
	case un > math.MaxInt64:
		return fmt.Errorf("stats: Moments data with %d rows; at most %d are supported", un, int64(math.MaxInt64))
	case unl > un:
		return fmt.Errorf("stats: inconsistent Moments data: %d labelled rows of %d", unl, un)
	case un == 0 && (ud != 0 || uC != 0):
		return fmt.Errorf("stats: inconsistent Moments data: no rows but dimension %d and %d classes", ud, uC)
	case un > 0 && ud == 0:
		return fmt.Errorf("stats: inconsistent Moments data: %d rows of dimension 0", un)
	case (unl == 0) != (uC == 0):
		return fmt.Errorf("stats: inconsistent Moments data: %d labelled rows but %d classes", unl, uC)
	}
	d, C := int(ud), int(uC)
	tri := d * (d + 1) / 2
	labeled := hasLabeledBlock(version, un, unl)
	want := headerLen + 8*(2*d+tri+C+C*d)
	block := "without"
	if labeled {
		want += 8 * (d + tri)
		block = "with"
	}
	if len(b) != want {
		what := "truncated"
		if len(b) > want {
			what = "followed by extra bytes"
		}
		return fmt.Errorf("stats: Moments data %s: %d bytes, want %d for version %d, dimension %d, %d classes, %d of %d rows labelled (%s the labelled block)",
			what, len(b), want, version, d, C, unl, un, block)
	}

	r := &reader{b: b[headerLen:]}
	o := Moments{d: d, n: int(un), nl: int(unl)}
	if o.n > 0 {
		o.origin = r.floats(d)
		o.mean = r.floats(d)
		o.scatter = r.upper(d)
	}
	var meanL, scatterL []float64
	if labeled {
		meanL, scatterL = r.floats(d), r.upper(d)
	}
	switch {
	case o.nl == 0:
	case o.nl == o.n:
		// Every row labelled: the labelled statistics are the total ones
		// (version 1 holds a copy of them, which must be that).
		if labeled && !(equalBits(meanL, o.mean) && equalBits(scatterL, o.scatter)) {
			return fmt.Errorf("stats: inconsistent Moments data: every row is labelled, but the labelled mean and scatter differ from the total ones")
		}
		o.meanL, o.scatterL = o.mean, o.scatter
	default:
		o.meanL, o.scatterL = meanL, scatterL
	}
	if C > 0 {
		o.counts = make([]int, C)
		sum := uint64(0)
		for k := range o.counts {
			v := r.uint64()
			if v > unl {
				return fmt.Errorf("stats: inconsistent Moments data: class %d has %d rows of %d labelled", k, v, unl)
			}
			o.counts[k] = int(v)
			sum += v
		}
		if sum != unl {
			return fmt.Errorf("stats: inconsistent Moments data: the class counts sum to %d, not to the %d labelled rows", sum, unl)
		}
		if o.counts[C-1] == 0 {
			return fmt.Errorf("stats: inconsistent Moments data: the last class (%d) has no rows", C-1)
		}
		o.cmeans = r.floats(C * d)
	}
	for _, s := range [][]float64{o.origin, o.mean, o.scatter, o.meanL, o.scatterL, o.cmeans} {
		if !finite(s) {
			return fmt.Errorf("stats: corrupt Moments data: a statistic holds NaN or Inf")
		}
	}
	*m = o
	return nil
}

// equalBits reports whether a and b hold the same float64 bits.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// reader decodes little-endian numbers from b (whose length is checked).
type reader struct{ b []byte }

func (r *reader) uint64() uint64 {
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) floats(k int) []float64 {
	s := make([]float64, k)
	for i := range s {
		s[i] = math.Float64frombits(r.uint64())
	}
	return s
}

// upper reads an upper triangle by rows into a d×d row-major matrix.
func (r *reader) upper(d int) []float64 {
	s := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s[i*d+j] = math.Float64frombits(r.uint64())
		}
	}
	return s
}
