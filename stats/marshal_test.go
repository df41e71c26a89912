package stats

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// encodeV1 writes m in format version 1 by its layout: the labelled block
// always present (zeros without labelled rows, the total block again when
// every row is labelled).
func encodeV1(m *Moments) []byte {
	d := m.d
	b := append([]byte(magic), 1)
	for _, v := range []int{d, m.n, m.nl, len(m.counts)} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = appendFloats(b, m.origin)
	b = appendFloats(b, m.mean)
	b = appendUpper(b, d, m.scatter)
	if m.nl > 0 {
		b = appendFloats(b, m.meanL)
		b = appendUpper(b, d, m.scatterL)
	} else {
		b = append(b, make([]byte, 8*(d+d*(d+1)/2))...)
	}
	for _, v := range m.counts {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return appendFloats(b, m.cmeans)
}

// Version-1 bytes written by MarshalBinary before version 2 (commit
// 1240647), for the rows (1, 2), (3, 5) | (4, −1) with labels 0, 1 | 1
// (all labelled), (1, 2), (3, 5) | (4, −1), (0.5, 7) with labels 0, −1 |
// 1, 1 (mixed), and (1, 2), (3, 5) with nil labels; | separates the
// chunks added.
const (
	goldenV1All = "4452534d01020000000000000003000000000000000300000000000000020000000000000000000000000000400000000000000c40555555555555e53f000000000000f8bfaaaaaaaaaaaa124000000000000008c00000000000003240555555555555e53f000000000000f8bfaaaaaaaaaaaa124000000000000008c0000000000000324001000000000000000200000000000000000000000000f0bf000000000000f8bf000000000000f83f000000000000f8bf"
	goldenV1Mix = "4452534d01020000000000000004000000000000000300000000000000020000000000000000000000000000400000000000000c40000000000000c03f000000000000d0bf000000000060204000000000004026c00000000000604240585555555555c5bfabaaaaaaaaaaeabfaaaaaaaaaaaa1c405555555555552ac0555555555555404001000000000000000200000000000000000000000000f0bf000000000000f8bf000000000000d03f000000000000e0bf"
	goldenV1Unl = "4452534d01020000000000000002000000000000000000000000000000000000000000000000000000000000400000000000000c400000000000000000000000000000000000000000000000400000000000000840000000000000124000000000000000000000000000000000000000000000000000000000000000000000000000000000"
)

// goldenMoments returns the statistics of the golden bytes' rows,
// accumulated by this build.
func goldenMoments(t *testing.T) map[string]*Moments {
	t.Helper()
	add := func(chunks ...struct {
		x []float64
		y []int
	}) *Moments {
		var m Moments
		for _, c := range chunks {
			if err := m.Add(mat.NewDense(len(c.x)/2, 2, c.x), c.y); err != nil {
				t.Fatal(err)
			}
		}
		return &m
	}
	type chunk = struct {
		x []float64
		y []int
	}
	return map[string]*Moments{
		goldenV1All: add(chunk{[]float64{1, 2, 3, 5}, []int{0, 1}}, chunk{[]float64{4, -1}, []int{1}}),
		goldenV1Mix: add(chunk{[]float64{1, 2, 3, 5}, []int{0, -1}}, chunk{[]float64{4, -1, 0.5, 7}, []int{1, 1}}),
		goldenV1Unl: add(chunk{[]float64{1, 2, 3, 5}, nil}),
	}
}

// TestMomentsMarshalV1: bytes of format version 1, written by the encoder
// before version 2, decode to the statistics this build accumulates from
// the same rows, bit for bit, with the labelled statistics shared when
// every row is labelled.
func TestMomentsMarshalV1(t *testing.T) {
	for golden, m := range goldenMoments(t) {
		b, err := hex.DecodeString(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(encodeV1(m), b) {
			t.Errorf("the test's version-1 encoder does not write the bytes of the old encoder for %d of %d rows labelled", m.nl, m.n)
		}
		var back Moments
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if err := sameFields(&back, m); err != nil {
			t.Errorf("%d of %d rows labelled: decoded version 1 differs: %v", m.nl, m.n, err)
		}
		if err := checkSharing(&back); err != nil {
			t.Errorf("decoded version 1: %v", err)
		}
	}

	// Larger statistics, by the layout: the same round trip.
	x, y := randomData(21, 150, 6, 4, 100, 0)
	_, ymix := randomData(21, 150, 6, 4, 100, 0.25)
	for name, m := range map[string]*Moments{
		"labelled": accumulate(t, x, y, 40), "mixed": accumulate(t, x, ymix, 40),
		"unlabeled": accumulate(t, x, nil, 40), "empty": {},
	} {
		var back Moments
		if err := back.UnmarshalBinary(encodeV1(m)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sameFields(&back, m); err != nil {
			t.Errorf("%s: decoded version 1 differs: %v", name, err)
		}
		if err := checkSharing(&back); m.n > 0 && err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if v2, _ := m.MarshalBinary(); !slices.Equal(mustMarshal(t, &back), v2) {
			t.Errorf("%s: decoded version 1 does not encode as version 2 of the original", name)
		}
	}
}

func mustMarshal(t *testing.T, m *Moments) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMomentsMarshalSize: version 2 leaves out the labelled block when
// every row is labelled or none is: the encoded statistics of labelled rows
// take one triangle, about half the bytes of version 1.
func TestMomentsMarshalSize(t *testing.T) {
	const d, C = 40, 5
	tri := d * (d + 1) / 2
	x, y := randomData(22, 300, d, C, 1, 0)
	_, ymix := randomData(22, 300, d, C, 1, 0.2)
	for _, c := range []struct {
		name   string
		m      *Moments
		floats int
	}{
		{"labelled, merged", accumulate(t, x, y, 70), 2*d + tri + C + C*d},
		{"mixed", accumulate(t, x, ymix, 70), 3*d + 2*tri + C + C*d},
		{"unlabeled", accumulate(t, x, nil, 70), 2*d + tri},
	} {
		b := mustMarshal(t, c.m)
		if want := headerLen + 8*c.floats; len(b) != want {
			t.Errorf("%s: %d bytes, want %d", c.name, len(b), want)
		}
		t.Logf("%-16s version 2: %6d bytes, version 1: %6d bytes", c.name, len(b), len(encodeV1(c.m)))
	}
	m := accumulate(t, x, y, 70)
	if v1, v2 := len(encodeV1(m)), len(mustMarshal(t, m)); v1-v2 != 8*(d+tri) {
		t.Errorf("labelled statistics: version 2 takes %d bytes, version 1 %d; want %d fewer (μ_L and S_L)", v2, v1, 8*(d+tri))
	}
}

// TestMomentsMarshalRefusals: every refusal of UnmarshalBinary holds for
// both versions and for statistics with and without the labelled block,
// and the header's counts must match the blocks present.
func TestMomentsMarshalRefusals(t *testing.T) {
	const d = 4
	tri := d * (d + 1) / 2
	x, y := randomData(23, 90, d, 3, 1, 0)
	_, ymix := randomData(23, 90, d, 3, 1, 0.3)
	labelled, mixed := accumulate(t, x, y, 40), accumulate(t, x, ymix, 40)

	var m Moments
	m.Add(chunkData(x, 0, 10), y[:10])
	good := snapshot(&m)
	refuse := func(name string, data []byte, want string) {
		t.Helper()
		err := m.UnmarshalBinary(data)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		if err := sameFields(&m, good); err != nil {
			t.Errorf("%s: the failed decode changed the statistics: %v", name, err)
		}
		if err := checkSharing(&m); err != nil {
			t.Errorf("%s: after the failed decode: %v", name, err)
		}
	}
	set := func(b []byte, field int, v uint64) []byte {
		c := slices.Clone(b)
		binary.LittleEndian.PutUint64(c[5+8*field:], v)
		return c
	}

	for _, c := range []struct {
		name  string
		m     *Moments
		bytes []byte
		// the number of floats before the class counts
		before int
	}{
		{"version 1, labelled", labelled, encodeV1(labelled), 3*d + 2*tri},
		{"version 1, mixed", mixed, encodeV1(mixed), 3*d + 2*tri},
		{"version 2, labelled", labelled, mustMarshal(t, labelled), 2*d + tri},
		{"version 2, mixed", mixed, mustMarshal(t, mixed), 3*d + 2*tri},
	} {
		b := c.bytes
		for k := 0; k < len(b); k++ {
			if err := m.UnmarshalBinary(b[:k]); err == nil || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("%s, truncated to %d bytes: %v", c.name, k, err)
			}
		}
		refuse(c.name+", extra byte", append(slices.Clone(b), 0), "followed by extra bytes")
		refuse(c.name+", magic", append([]byte("JSON"), b[4:]...), "not Moments data")
		for _, v := range []byte{0, 3, 255} {
			other := slices.Clone(b)
			other[4] = v
			refuse(c.name+", version", other, fmt.Sprintf("format version %d; this build reads versions 1 and 2", v))
		}
		refuse(c.name+", n_L > n", set(b, 2, 1000), "1000 labelled rows of 90")
		refuse(c.name+", huge dimension", set(b, 0, 1<<40), "dimension")
		refuse(c.name+", dimension changed", set(b, 0, 5), "truncated")
		refuse(c.name+", classes without labels", set(b, 2, 0), "0 labelled rows but 3 classes")
		counts := slices.Clone(b)
		counts[headerLen+8*c.before]++
		refuse(c.name+", class counts", counts, "class counts sum to")
		for _, at := range []int{0, d, 2 * d, c.before - 1} { // origin, mean, scatter, last float before the counts
			inf := slices.Clone(b)
			binary.LittleEndian.PutUint64(inf[headerLen+8*at:], math.Float64bits(math.Inf(1)))
			if c.bytes[4] == 1 && c.m.nl == c.m.n && at >= d {
				// and in the other copy of the total block (μ and S, then
				// μ_L and S_L), to reach the finiteness check
				other := at + d + tri
				if at >= 2*d+tri {
					other = at - d - tri
				}
				binary.LittleEndian.PutUint64(inf[headerLen+8*other:], math.Float64bits(math.Inf(1)))
			}
			refuse(fmt.Sprintf("%s, Inf at float %d", c.name, at), inf, "NaN or Inf")
		}
		nanMean := slices.Clone(b)
		binary.LittleEndian.PutUint64(nanMean[len(b)-8:], math.Float64bits(math.NaN())) // a class mean
		refuse(c.name+", NaN class mean", nanMean, "NaN or Inf")
	}

	// Version 2: the header's n and n_L decide whether the labelled block
	// is there, and the length must agree.
	v2l, v2m := mustMarshal(t, labelled), mustMarshal(t, mixed)
	refuse("version 2, labelled, header claiming an unlabeled row", set(v2l, 2, 89), "truncated")
	refuse("version 2, mixed, header claiming every row labelled", set(v2m, 2, 90), "followed by extra bytes")
	refuse("version 2, labelled, with a labelled block", slices.Concat(v2l[:headerLen+8*(2*d+tri)], v2l[headerLen+8*d:headerLen+8*(2*d+tri)], v2l[headerLen+8*(2*d+tri):]), "followed by extra bytes")
	v1body := slices.Clone(v2l)
	v1body[4] = 1
	refuse("version 1 without the labelled block", v1body, "truncated")

	// Version 1 of labelled rows: the labelled block must be the total one.
	v1 := encodeV1(labelled)
	off := headerLen + 8*(2*d+tri) // μ_L − o
	for _, at := range []int{0, d + tri - 1} {
		bad := slices.Clone(v1)
		bad[off+8*at] ^= 1 // the last bit of a mantissa
		refuse(fmt.Sprintf("version 1, labelled, labelled block differing at float %d", at), bad, "differ from the total ones")
	}
	var back Moments
	if err := back.UnmarshalBinary(v1); err != nil || !back.shared() {
		t.Errorf("version 1 of labelled rows: %v, shared %v", err, back.shared())
	}
}
