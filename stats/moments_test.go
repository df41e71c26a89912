package stats

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// reference holds the statistics computed by the textbook two-pass
// formulas, row by row, with no BLAS and no merging.
type reference struct {
	n, nl                 int
	mean, meanL           *mat.VecDense
	scatter, scatterL     *mat.Dense
	between, within       *mat.Dense
	counts                []int
	classMeans, classSums *mat.Dense
}

// outer adds w·(a−b)(a−b)ᵀ to s.
func outer(s *mat.Dense, w float64, a, b []float64) {
	for i := range a {
		for j := range a {
			s.Set(i, j, s.At(i, j)+w*(a[i]-b[i])*(a[j]-b[j]))
		}
	}
}

// meanOf returns the mean of the rows i of x with keep(i), summed in
// 200-bit floating point and correctly rounded, so that the reference's
// centred rows are accurate whatever the offset of the data.
func meanOf(x *mat.Dense, keep func(i int) bool) ([]float64, int) {
	r, d := x.Dims()
	sums := make([]*big.Float, d)
	for j := range sums {
		sums[j] = new(big.Float).SetPrec(200)
	}
	k := 0
	for i := 0; i < r; i++ {
		if keep(i) {
			k++
			for j, s := range sums {
				s.Add(s, big.NewFloat(x.At(i, j)))
			}
		}
	}
	mu := make([]float64, d)
	if k == 0 {
		return mu, 0
	}
	for j, s := range sums {
		mu[j], _ = s.Quo(s, big.NewFloat(float64(k))).Float64()
	}
	return mu, k
}

// brute returns the statistics of x and y by the two-pass formulas. They
// are computed for the rows shifted by the first one, z = x − x₁ (exact for
// data far from the origin, by Sterbenz's lemma), with x₁ added back to
// the means, so that differences of means do not lose the digits of the
// offset.
func brute(x *mat.Dense, y []int) reference {
	r, d := x.Dims()
	x0 := mat.Row(nil, 0, x)
	z := mat.NewDense(r, d, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < d; j++ {
			z.Set(i, j, x.At(i, j)-x0[j])
		}
	}
	ref := bruteShifted(z, y)
	ref.mean.AddVec(ref.mean, mat.NewVecDense(d, x0))
	if ref.meanL != nil {
		ref.meanL.AddVec(ref.meanL, mat.NewVecDense(d, x0))
	}
	for c, nc := range ref.counts {
		if nc > 0 {
			floats.Add(ref.classMeans.RawRowView(c), x0)
		}
	}
	return ref
}

func bruteShifted(x *mat.Dense, y []int) reference {
	r, d := x.Dims()
	label := func(i int) int {
		if y == nil {
			return -1
		}
		return y[i]
	}
	C := 0
	for i := 0; i < r; i++ {
		C = max(C, label(i)+1)
	}
	mu, _ := meanOf(x, func(int) bool { return true })
	muL, nl := meanOf(x, func(i int) bool { return label(i) >= 0 })
	ref := reference{
		n: r, nl: nl, mean: mat.NewVecDense(d, mu),
		scatter: mat.NewDense(d, d, nil), scatterL: mat.NewDense(d, d, nil),
		between: mat.NewDense(d, d, nil), within: mat.NewDense(d, d, nil),
		counts: make([]int, C),
	}
	if nl > 0 {
		ref.meanL = mat.NewVecDense(d, muL)
	}
	if C > 0 {
		ref.classMeans = mat.NewDense(C, d, nil)
		ref.classSums = mat.NewDense(d, C, nil)
	}
	for c := 0; c < C; c++ {
		muc, nc := meanOf(x, func(i int) bool { return label(i) == c })
		ref.counts[c] = nc
		if nc == 0 {
			continue
		}
		ref.classMeans.SetRow(c, muc)
		outer(ref.between, float64(nc), muc, muL)
		for i := 0; i < r; i++ {
			if label(i) == c {
				outer(ref.within, 1, x.RawRowView(i), muc)
				for j := 0; j < d; j++ {
					ref.classSums.Set(j, c, ref.classSums.At(j, c)+x.At(i, j)-mu[j])
				}
			}
		}
	}
	for i := 0; i < r; i++ {
		outer(ref.scatter, 1, x.RawRowView(i), mu)
		if label(i) >= 0 {
			outer(ref.scatterL, 1, x.RawRowView(i), muL)
		}
	}
	return ref
}

// relErr is ‖a − b‖_F / ‖b‖_F (‖a − b‖_F when b = 0).
func relErr(a, b mat.Matrix) float64 {
	var diff mat.Dense
	diff.Sub(a, b)
	nb := mat.Norm(b, 2)
	if nb == 0 {
		nb = 1
	}
	return mat.Norm(&diff, 2) / nb
}

// compare returns the relative error of each statistic of m against ref,
// and an error for a count that differs.
func compare(m *Moments, ref reference) (map[string]float64, error) {
	if m.N() != ref.n || m.LabeledN() != ref.nl || !slices.Equal(m.ClassCounts(), ref.counts) || m.Classes() != len(ref.counts) {
		return nil, fmt.Errorf("counts: n %d n_L %d n_c %v; want %d %d %v", m.N(), m.LabeledN(), m.ClassCounts(), ref.n, ref.nl, ref.counts)
	}
	d := m.Dim()
	errs := map[string]float64{
		"mean":    relErr(mat.NewVecDense(d, m.Mean()), ref.mean),
		"scatter": relErr(m.Scatter(), ref.scatter),
	}
	if ref.nl == 0 {
		if m.LabeledMean() != nil || m.ClassMeans() != nil || m.CentredClassSums() != nil ||
			mat.Norm(m.BetweenScatter(), 1) != 0 || mat.Norm(m.WithinScatter(), 1) != 0 || mat.Norm(m.LabeledScatter(), 1) != 0 {
			return nil, fmt.Errorf("statistics of labelled rows without any")
		}
		return errs, nil
	}
	errs["labelled mean"] = relErr(mat.NewVecDense(d, m.LabeledMean()), ref.meanL)
	errs["labelled scatter"] = relErr(m.LabeledScatter(), ref.scatterL)
	errs["between"] = relErr(m.BetweenScatter(), ref.between)
	errs["within"] = relErr(m.WithinScatter(), ref.within)
	errs["class means"] = relErr(m.ClassMeans(), ref.classMeans)
	errs["centred class sums"] = relErr(m.CentredClassSums(), ref.classSums)
	return errs, nil
}

// accumulate adds x and y to a new Moments in chunks of k rows.
func accumulate(t *testing.T, x *mat.Dense, y []int, k int) *Moments {
	t.Helper()
	var m Moments
	r, _ := x.Dims()
	for lo := 0; lo < r; lo += k {
		hi := min(lo+k, r)
		var yc []int
		if y != nil {
			yc = y[lo:hi]
		}
		if err := m.Add(x.Slice(lo, hi, 0, x.RawMatrix().Cols).(*mat.Dense), yc); err != nil {
			t.Fatal(err)
		}
	}
	return &m
}

// randomData returns n rows of d columns around offset, in C classes of
// different means, with labels (a fraction unlabeled, class absent in
// the first half of the rows, class gap if gap) and spread.
func randomData(seed uint64, n, d, C int, offset, unlabeled float64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := mat.NewDense(C, d, nil)
	for c := 0; c < C; c++ {
		for j := 0; j < d; j++ {
			centres.Set(c, j, offset+3*rng.NormFloat64())
		}
	}
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := range y {
		c := rng.IntN(C)
		if c == C-1 && i < n/2 {
			c = 0 // the last class appears only in the second half
		}
		y[i] = c
		for j := 0; j < d; j++ {
			x.Set(i, j, centres.At(c, j)+rng.NormFloat64()*(1+float64(j)))
		}
		if rng.Float64() < unlabeled {
			y[i] = -1
		}
	}
	return x, y
}

// TestMomentsBruteForce compares chunked accumulation with the two-pass
// formulas on random data: supervised, semi-supervised, unsupervised, a
// class present only in late chunks, a label without rows, chunks of one
// row.
func TestMomentsBruteForce(t *testing.T) {
	const tol = 1e-12
	for _, c := range []struct {
		name      string
		offset    float64
		unlabeled float64
		nilY, gap bool
	}{
		{"labelled", 0, 0, false, false},
		{"semi-supervised", 5, 0.3, false, false},
		{"unsupervised", 5, 0, true, false},
		{"class gap", -2, 0.1, false, true},
		{"offset 1e3", 1e3, 0.2, false, false},
		{"offset 1e6", 1e6, 0.2, false, false}, // ‖μ‖/spread ≈ 10⁵: the shifted means matter
		{"offset 1e9", 1e9, 0.2, false, false},
	} {
		x, y := randomData(1, 300, 6, 4, c.offset, c.unlabeled)
		if c.gap {
			for i := range y {
				if y[i] == 2 {
					y[i] = 5 // classes 2 and 3 have no rows, 5 is the last
				}
			}
		}
		if c.nilY {
			y = nil
		}
		ref := brute(x, y)
		worst := map[string]float64{}
		for _, k := range []int{1, 7, 64, 150, 300} {
			m := accumulate(t, x, y, k)
			errs, err := compare(m, ref)
			if err != nil {
				t.Fatalf("%s, chunks of %d: %v", c.name, k, err)
			}
			for s, e := range errs {
				worst[s] = max(worst[s], e)
				if e > tol {
					t.Errorf("%s, chunks of %d: %s relative error %.3g > %g", c.name, k, s, e, tol)
				}
			}
		}
		t.Logf("%-16s worst relative errors over chunk sizes 1, 7, 64, 150, 300: %s", c.name, fmtErrs(worst))
	}
}

func fmtErrs(errs map[string]float64) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %.1e; ", k, errs[k])
	}
	return b.String()
}

// TestMomentsSklearn checks the statistics of the scikit-learn tables,
// whole and in chunks, against the two-pass formulas.
func TestMomentsSklearn(t *testing.T) {
	const tol = 1e-12
	for _, name := range []string{"iris", "wine", "breast_cancer", "digits"} {
		x, y := testdata.Sklearn(t, name)
		ref := brute(x, y)
		whole := accumulate(t, x, y, 1<<30)
		worst, worstChunk := map[string]float64{}, 0.0
		for _, k := range []int{1, 10, 97, 1 << 30} {
			m := accumulate(t, x, y, k)
			errs, err := compare(m, ref)
			if err != nil {
				t.Fatalf("%s, chunks of %d: %v", name, k, err)
			}
			for s, e := range errs {
				worst[s] = max(worst[s], e)
				if e > tol {
					t.Errorf("%s, chunks of %d: %s relative error %.3g > %g", name, k, s, e, tol)
				}
			}
			// Chunked against whole.
			wErrs, _ := compare(m, brute0(whole))
			for s, e := range wErrs {
				worstChunk = max(worstChunk, e)
				if e > tol {
					t.Errorf("%s, chunks of %d vs whole: %s relative difference %.3g > %g", name, k, s, e, tol)
				}
			}
		}
		t.Logf("%-13s vs two-pass: %s chunked vs whole: %.1e", name, fmtErrs(worst), worstChunk)
	}
}

// brute0 presents the statistics of m as a reference.
func brute0(m *Moments) reference {
	d := m.Dim()
	ref := reference{
		n: m.N(), nl: m.LabeledN(), mean: mat.NewVecDense(d, m.Mean()),
		scatter: mat.DenseCopyOf(m.Scatter()), scatterL: mat.DenseCopyOf(m.LabeledScatter()),
		between: mat.DenseCopyOf(m.BetweenScatter()), within: mat.DenseCopyOf(m.WithinScatter()),
		counts: m.ClassCounts(), classMeans: m.ClassMeans(), classSums: m.CentredClassSums(),
	}
	if m.LabeledN() > 0 {
		ref.meanL = mat.NewVecDense(d, m.LabeledMean())
	}
	return ref
}

// TestMomentsMergeAssociative merges three parts in both groupings and
// compares them with one chunk.
func TestMomentsMergeAssociative(t *testing.T) {
	const tol = 1e-12
	x, y := randomData(3, 200, 5, 3, 10, 0.25)
	part := func(lo, hi int) *Moments {
		var m Moments
		if err := m.Add(x.Slice(lo, hi, 0, 5).(*mat.Dense), y[lo:hi]); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	ab := part(0, 50)
	ab.Merge(part(50, 120))
	ab.Merge(part(120, 200)) // (a+b)+c
	bc := part(50, 120)
	bc.Merge(part(120, 200))
	a := part(0, 50)
	a.Merge(bc) // a+(b+c)
	one := part(0, 200)
	worst := 0.0
	for _, pair := range [][2]*Moments{{ab, a}, {ab, one}, {a, one}} {
		errs, err := compare(pair[0], brute0(pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		for s, e := range errs {
			worst = max(worst, e)
			if e > tol {
				t.Errorf("%s: relative difference %.3g > %g", s, e, tol)
			}
		}
	}
	t.Logf("(a+b)+c, a+(b+c), one chunk: largest relative difference %.1e", worst)

	// Merging with itself doubles the counts and keeps the mean.
	self := part(0, 200)
	if err := self.Merge(self); err != nil {
		t.Fatal(err)
	}
	twice := part(0, 200)
	twice.Merge(part(0, 200))
	if !sameBits(t, self, twice) {
		t.Error("m.Merge(m) differs from merging a copy")
	}
}

func sameBits(t *testing.T, a, b *Moments) bool {
	t.Helper()
	ba, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	bb, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ba, bb)
}

// TestMomentsEmptyAndEdges: merging empty statistics, empty chunks, nil
// labels after labelled chunks, a single row.
func TestMomentsEmptyAndEdges(t *testing.T) {
	x, y := randomData(4, 40, 3, 2, 1, 0)
	m := accumulate(t, x, y, 9)
	want := m.Clone()
	if err := m.Merge(&Moments{}); err != nil || !sameBits(t, m, want) {
		t.Errorf("merging an empty Moments changed m: %v", err)
	}
	if err := m.Merge(nil); err != nil || !sameBits(t, m, want) {
		t.Errorf("merging nil changed m: %v", err)
	}
	if err := m.Add(&mat.Dense{}, nil); err != nil || !sameBits(t, m, want) {
		t.Errorf("adding an empty chunk changed m: %v", err)
	}
	var e Moments
	if err := e.Merge(m); err != nil || !sameBits(t, &e, m) {
		t.Errorf("empty.Merge(m) is not m: %v", err)
	}
	var z Moments
	if z.N() != 0 || z.Dim() != 0 || z.Mean() != nil || z.Scatter() != nil || z.BetweenScatter() != nil ||
		z.WithinScatter() != nil || z.ClassMeans() != nil || z.CentredClassSums() != nil || z.Classes() != 0 {
		t.Error("accessors of an empty Moments are not empty")
	}
	if err := z.Merge(&Moments{}); err != nil || z.N() != 0 {
		t.Errorf("empty + empty: %v", err)
	}

	// One row: zero scatter, the row as mean and class mean.
	var one Moments
	one.Add(mat.NewDense(1, 3, []float64{1, -2, 3}), []int{1})
	if !slices.Equal(one.Mean(), []float64{1, -2, 3}) || mat.Norm(one.Scatter(), 1) != 0 ||
		!slices.Equal(one.ClassMeans().RawRowView(1), []float64{1, -2, 3}) || one.ClassCounts()[0] != 0 {
		t.Errorf("one row: mean %v scatter %v class means %v", one.Mean(), one.Scatter(), one.ClassMeans())
	}

	// An unlabeled chunk (nil y) after labelled ones counts as unlabeled rows.
	var mixed Moments
	mixed.Add(x.Slice(0, 20, 0, 3).(*mat.Dense), y[:20])
	mixed.Add(x.Slice(20, 40, 0, 3).(*mat.Dense), nil)
	yy := slices.Clone(y)
	for i := 20; i < 40; i++ {
		yy[i] = -1
	}
	errs, err := compare(&mixed, brute(x, yy))
	if err != nil {
		t.Fatal(err)
	}
	for s, e := range errs {
		if e > 1e-12 {
			t.Errorf("labelled then nil-label chunk: %s error %.3g", s, e)
		}
	}
}

// TestMomentsDeterministic: the same chunks in the same order give the
// same bits, whatever GOMAXPROCS is.
func TestMomentsDeterministic(t *testing.T) {
	x, y := randomData(5, 700, 70, 5, 2, 0.1)
	var runs [][]byte
	for _, procs := range []int{1, 2, 1} {
		old := runtime.GOMAXPROCS(procs)
		m := accumulate(t, x, y, 333)
		runtime.GOMAXPROCS(old)
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, b)
	}
	if !bytes.Equal(runs[0], runs[1]) || !bytes.Equal(runs[0], runs[2]) {
		t.Error("the statistics differ between runs or GOMAXPROCS settings")
	}
}

// TestMomentsErrors: bad chunks are refused with an error naming the
// problem, and leave the statistics unchanged.
func TestMomentsErrors(t *testing.T) {
	x, y := randomData(6, 10, 3, 2, 0, 0)
	var m Moments
	if err := m.Add(x, y); err != nil {
		t.Fatal(err)
	}
	before := m.Clone()
	nan := mat.DenseCopyOf(x)
	nan.Set(4, 1, math.NaN())
	inf := mat.DenseCopyOf(x)
	inf.Set(7, 2, math.Inf(-1))
	for _, c := range []struct {
		name string
		x    *mat.Dense
		y    []int
		want []string
	}{
		{"NaN", nan, y, []string{"row 5, column 2", "NaN", "finite"}},
		{"Inf", inf, nil, []string{"row 8, column 3", "-Inf"}},
		{"columns", mat.NewDense(2, 4, nil), nil, []string{"4 columns", "earlier chunks have 3"}},
		{"labels length", x, y[:9], []string{"9 labels for a chunk of 10 rows"}},
		{"label -2", x, append(slices.Clone(y[:9]), -2), []string{"row 10", "label -2"}},
		{"label too large", x, append([]int{MaxClasses}, y[1:]...), []string{"row 1", fmt.Sprintf("label %d", MaxClasses)}},
		{"labels of an empty chunk", &mat.Dense{}, []int{1}, []string{"empty chunk with 1 labels"}},
	} {
		err := m.Add(c.x, c.y)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
		if !sameBits(t, &m, before) {
			t.Errorf("%s: the failed Add changed the statistics", c.name)
		}
	}
	var wide Moments
	wide.Add(mat.NewDense(1, 4, nil), nil)
	if err := m.Merge(&wide); err == nil || !strings.Contains(err.Error(), "4-column rows into statistics of 3-column") {
		t.Errorf("merge of other dimension: %v", err)
	}
	if !sameBits(t, &m, before) {
		t.Error("the failed Merge changed the statistics")
	}
}

// TestMomentsMarshal: the binary form round-trips bit for bit, and
// truncated, extended or inconsistent data is refused.
func TestMomentsMarshal(t *testing.T) {
	x, y := randomData(7, 120, 4, 3, 1, 0.2)
	for _, m := range []*Moments{accumulate(t, x, y, 50), accumulate(t, x, nil, 50), {}} {
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Moments
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if !sameBits(t, &back, m) {
			t.Error("round trip changed the bytes")
		}
		if m.N() > 0 && (!mat.Equal(back.Scatter(), m.Scatter()) || !mat.Equal(back.WithinScatter(), m.WithinScatter())) ||
			m.Classes() > 0 && !mat.Equal(back.CentredClassSums(), m.CentredClassSums()) {
			t.Error("round trip changed a statistic")
		}
		// The decoded statistics keep accumulating like the original.
		if m.N() > 0 {
			more, _ := randomData(8, 30, 4, 3, 1, 0)
			orig := m.Clone()
			orig.Add(more, nil)
			back.Add(more, nil)
			if !sameBits(t, &back, orig) {
				t.Error("decoded statistics accumulate differently")
			}
		}
	}

	m := accumulate(t, x, y, 50)
	b, _ := m.MarshalBinary()
	good := m.Clone()
	refuse := func(name string, data []byte, want string) {
		t.Helper()
		err := m.UnmarshalBinary(data)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		if !sameBits(t, m, good) {
			t.Errorf("%s: the failed decode changed the statistics", name)
		}
	}
	for k := 0; k < len(b); k++ {
		err := m.UnmarshalBinary(b[:k])
		if err == nil || !strings.Contains(err.Error(), "truncated") && !(k >= 4 && k < 5+32 && strings.Contains(err.Error(), "not Moments")) {
			t.Fatalf("truncated to %d bytes: %v", k, err)
		}
	}
	refuse("extra byte", append(slices.Clone(b), 0), "followed by extra bytes")
	refuse("magic", append([]byte("JSON"), b[4:]...), "not Moments data")
	v3 := slices.Clone(b)
	v3[4] = 3
	refuse("version", v3, "format version 3; this build reads versions 1 and 2")
	set := func(field int, v uint64) []byte {
		c := slices.Clone(b)
		for k := 0; k < 8; k++ {
			c[5+8*field+k] = byte(v >> (8 * k))
		}
		return c
	}
	refuse("n_L > n", set(2, 1000), "1000 labelled rows of 120")
	refuse("huge dimension", set(0, 1<<40), "dimension")
	refuse("dimension changed", set(0, 5), "truncated")
	counts := slices.Clone(b)
	off := headerLen + 8*(3*4+2*10)
	counts[off]++
	refuse("class counts", counts, "class counts sum to")
	nanData := slices.Clone(b)
	for k := 0; k < 8; k++ {
		nanData[headerLen+k] = byte(math.Float64bits(math.NaN()) >> (8 * k))
	}
	refuse("NaN", nanData, "NaN or Inf")
}

// TestMomentsScanMatchesLoad streams shared files with data.Scan into
// Moments and compares with the statistics of the file loaded whole.
func TestMomentsScanMatchesLoad(t *testing.T) {
	files := []string{"data/sklearn/digits.csv", "data/sklearn/breast_cancer.csv"}
	if !testing.Short() {
		files = append(files, "data/mnist/mnist10k.csv.gz")
	}
	for _, f := range files {
		path := testdata.Path(t, f)
		d, err := data.Load(path, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var whole Moments
		if err := whole.Add(d.X, d.Y); err != nil {
			t.Fatal(err)
		}
		var streamed Moments
		if err := data.Scan(path, data.Options{}, 1000, streamed.Add); err != nil {
			t.Fatal(err)
		}
		errs, err := compare(&streamed, brute0(&whole))
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for s, e := range errs {
			worst = max(worst, e)
			if e > 1e-12 {
				t.Errorf("%s: streamed %s differs by %.3g relative", f, s, e)
			}
		}
		t.Logf("%s: streamed in chunks of 1000 vs loaded whole: largest relative difference %.1e (%s)", f, worst, fmtErrs(errs))
	}
}
