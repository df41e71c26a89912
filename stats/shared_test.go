package stats

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The labelled statistics share the storage of the total ones while every
// row is labelled (see Moments). These tests check that the sharing holds
// through Add, Merge, Clone and decoding, ends when an unlabeled row
// arrives, changes no bit of any statistic, and never lets one Moments
// change another.

// checkSharing returns an error unless m shares its labelled statistics
// with the total ones exactly when every row is labelled, and holds them
// in storage of their own otherwise.
func checkSharing(m *Moments) error {
	all := m.n > 0 && m.nl == m.n
	if m.shared() != all {
		return fmt.Errorf("%d of %d rows labelled, labelled statistics shared: %v", m.nl, m.n, m.shared())
	}
	if all && &m.scatterL[0] != &m.scatter[0] {
		return fmt.Errorf("every row labelled, but the labelled scatter has its own storage")
	}
	if !all && m.nl > 0 && (&m.meanL[0] == &m.mean[0] || &m.scatterL[0] == &m.scatter[0]) {
		return fmt.Errorf("%d of %d rows labelled, but the labelled statistics share the total ones'", m.nl, m.n)
	}
	return nil
}

// snapshot is a deep copy of every field of m, each in storage of its own
// (written apart from Clone, whose copies it checks): the labelled
// statistics are a copy even where m shares them.
func snapshot(m *Moments) *Moments {
	c := &Moments{d: m.d, n: m.n, nl: m.nl, origin: clone(m.origin)}
	c.mean, c.scatter = clone(m.mean), clone(m.scatter)
	c.meanL, c.scatterL = clone(m.meanL), clone(m.scatterL)
	c.cmeans = clone(m.cmeans)
	if m.counts != nil {
		c.counts = append([]int(nil), m.counts...)
	}
	return c
}

// The two-set scheme, the reference of the bit-for-bit checks: the
// labelled statistics always in their own storage (as before the sharing),
// so that Merge merges them apart from the total ones.

func cloneTwoSets(m *Moments) *Moments { return snapshot(m) }

func mergeTwoSets(m, o *Moments) {
	m.unshare()
	if err := m.Merge(o); err != nil {
		panic(err)
	}
	m.unshare()
}

// sameFields returns an error naming the first field of a whose bits
// differ from b's (the labelled statistics compared as values, shared or
// not).
func sameFields(a, b *Moments) error {
	if a.d != b.d || a.n != b.n || a.nl != b.nl || !slices.Equal(a.counts, b.counts) {
		return fmt.Errorf("counts: d %d n %d n_L %d n_c %v; want %d %d %d %v", a.d, a.n, a.nl, a.counts, b.d, b.n, b.nl, b.counts)
	}
	for _, f := range []struct {
		name string
		a, b []float64
	}{
		{"origin", a.origin, b.origin}, {"mean", a.mean, b.mean}, {"scatter", a.scatter, b.scatter},
		{"labelled mean", a.meanL, b.meanL}, {"labelled scatter", a.scatterL, b.scatterL},
		{"class means", a.cmeans, b.cmeans},
	} {
		if (f.a == nil) != (f.b == nil) || !equalBits(f.a, f.b) {
			return fmt.Errorf("%s differs", f.name)
		}
	}
	return nil
}

// chunkData returns the rows of x from lo to hi.
func chunkData(x *mat.Dense, lo, hi int) *mat.Dense {
	return x.Slice(lo, hi, 0, x.RawMatrix().Cols).(*mat.Dense)
}

// mixedChunks splits 240 random rows into six chunks: all labelled, all
// labelled, some unlabeled, all labelled, unlabeled (nil labels), all
// labelled. It returns the chunks' bounds and labels and the labels of
// all the rows (−1 for the nil-label chunk).
func mixedChunks() (x *mat.Dense, bounds [][2]int, labels [][]int, all []int) {
	x, y := randomData(11, 240, 5, 3, 20, 0)
	bounds = [][2]int{{0, 30}, {30, 70}, {70, 120}, {120, 150}, {150, 190}, {190, 240}}
	for k, b := range bounds {
		yc := slices.Clone(y[b[0]:b[1]])
		switch k {
		case 2:
			for i := range yc {
				if i%3 == 1 {
					yc[i] = -1
				}
			}
		case 4:
			yc = nil
		}
		labels = append(labels, yc)
		if yc == nil {
			all = append(all, slices.Repeat([]int{-1}, b[1]-b[0])...)
		} else {
			all = append(all, yc...)
		}
	}
	return x, bounds, labels, all
}

// tree is a merge order: a leaf (chunk index) or the merge of r into l.
type tree struct {
	leaf int
	l, r *tree
}

func leaf(i int) *tree      { return &tree{leaf: i} }
func node(l, r *tree) *tree { return &tree{leaf: -1, l: l, r: r} }
func (t *tree) rows() []int {
	if t.l == nil {
		return []int{t.leaf}
	}
	return append(t.l.rows(), t.r.rows()...)
}

// eval merges the leaves' statistics in the order of t with merge (b
// into a).
func (t *tree) eval(tb *testing.T, chunk func(int) *Moments, merge func(a, b *Moments)) *Moments {
	tb.Helper()
	if t.l == nil {
		return chunk(t.leaf)
	}
	a, b := t.l.eval(tb, chunk, merge), t.r.eval(tb, chunk, merge)
	merge(a, b)
	return a
}

// TestMomentsSharedMixedSequences accumulates chunks that are all
// labelled, then partly unlabeled, then all labelled again, by Add and by
// Merge in several orders, and compares the statistics with the two-pass
// formulas and, bit for bit, with the two-set scheme (the labelled
// statistics always stored and merged apart) for the same operations.
// The sharing must hold exactly while every row seen is labelled.
func TestMomentsSharedMixedSequences(t *testing.T) {
	x, bounds, labels, y := mixedChunks()
	rowsOf := func(order []int) (*mat.Dense, []int) {
		var xs mat.Dense
		var ys []int
		for _, k := range order {
			b := bounds[k]
			c := chunkData(x, b[0], b[1])
			if xs.IsEmpty() {
				xs.CloneFrom(c)
			} else {
				var st mat.Dense
				st.Stack(&xs, c)
				xs = st
			}
			ys = append(ys, y[b[0]:b[1]]...)
		}
		return &xs, ys
	}
	chunk := func(k int) *Moments {
		var m Moments
		if err := m.Add(chunkData(x, bounds[k][0], bounds[k][1]), labels[k]); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	chunkTwoSets := func(k int) *Moments { return cloneTwoSets(chunk(k)) }

	// Add, chunk after chunk: shared through the first two chunks, apart
	// from the third on.
	var added, addedTwo Moments
	for k, b := range bounds {
		if err := added.Add(chunkData(x, b[0], b[1]), labels[k]); err != nil {
			t.Fatal(err)
		}
		mergeTwoSets(&addedTwo, chunkTwoSets(k))
		if err := checkSharing(&added); err != nil {
			t.Errorf("after Add of chunk %d: %v", k, err)
		}
		if want := k < 2; added.shared() != want {
			t.Errorf("after Add of chunk %d: shared %v, want %v", k, added.shared(), want)
		}
		if err := sameFields(&added, &addedTwo); err != nil {
			t.Errorf("after Add of chunk %d: not the bits of the two-set scheme: %v", k, err)
		}
	}

	plans := map[string]*tree{
		"left fold":         node(node(node(node(node(leaf(0), leaf(1)), leaf(2)), leaf(3)), leaf(4)), leaf(5)),
		"right fold":        node(leaf(0), node(leaf(1), node(leaf(2), node(leaf(3), node(leaf(4), leaf(5)))))),
		"balanced":          node(node(node(leaf(0), leaf(1)), leaf(2)), node(node(leaf(3), leaf(4)), leaf(5))),
		"labelled first":    node(node(node(leaf(0), leaf(1)), node(leaf(3), leaf(5))), node(leaf(2), leaf(4))),
		"unlabeled first":   node(node(leaf(4), node(leaf(2), leaf(0))), node(node(leaf(5), leaf(3)), leaf(1))),
		"shared into apart": node(node(leaf(2), node(leaf(0), leaf(1))), node(leaf(4), node(leaf(3), leaf(5)))),
	}
	for name, p := range plans {
		got := p.eval(t, chunk, func(a, b *Moments) {
			if err := a.Merge(b); err != nil {
				t.Fatal(err)
			}
			if err := checkSharing(a); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
		two := p.eval(t, chunkTwoSets, mergeTwoSets)
		if err := sameFields(got, two); err != nil {
			t.Errorf("%s: not the bits of the two-set scheme: %v", name, err)
		}
		xs, ys := rowsOf(p.rows())
		errs, err := compare(got, brute(xs, ys))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for s, e := range errs {
			if e > 1e-12 {
				t.Errorf("%s: %s relative error %.3g against the two-pass formulas", name, s, e)
			}
		}
	}

	// Only labelled chunks, merged in any order: shared all along.
	for name, p := range map[string]*tree{
		"labelled, left fold":  node(node(leaf(0), leaf(1)), leaf(3)),
		"labelled, right fold": node(leaf(5), node(leaf(3), leaf(0))),
	} {
		got := p.eval(t, chunk, func(a, b *Moments) { a.Merge(b) })
		if !got.shared() {
			t.Errorf("%s: the labelled statistics of labelled chunks are not shared", name)
		}
		if err := sameFields(got, p.eval(t, chunkTwoSets, mergeTwoSets)); err != nil {
			t.Errorf("%s: not the bits of the two-set scheme: %v", name, err)
		}
	}
}

// TestMomentsSharedAllLabelled: the statistics of labelled chunks keep one
// scatter matrix through Add, Merge, self-Merge, Clone and a binary round
// trip, and give the labelled statistics the values of the total ones.
func TestMomentsSharedAllLabelled(t *testing.T) {
	x, y := randomData(12, 200, 6, 4, 3, 0)
	m := accumulate(t, x, y, 45)
	if !m.shared() {
		t.Fatal("the labelled scatter of labelled chunks added one by one has its own storage")
	}
	var merged Moments
	for lo := 0; lo < 200; lo += 60 {
		hi := min(lo+60, 200)
		var c Moments
		c.Add(chunkData(x, lo, hi), y[lo:hi])
		if err := merged.Merge(&c); err != nil {
			t.Fatal(err)
		}
		if !merged.shared() {
			t.Fatalf("after merging rows %d to %d: the labelled scatter has its own storage", lo, hi)
		}
	}
	self := m.Clone()
	if err := self.Merge(self); err != nil {
		t.Fatal(err)
	}
	b, _ := m.MarshalBinary()
	var back Moments
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Moments{"added": m, "merged": &merged, "clone": m.Clone(), "self-merged": self, "decoded": &back} {
		if err := checkSharing(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !mat.Equal(s.LabeledScatter(), s.Scatter()) || !slices.Equal(s.LabeledMean(), s.Mean()) {
			t.Errorf("%s: the labelled statistics differ from the total ones", name)
		}
		var sum mat.SymDense
		sum.AddSym(s.BetweenScatter(), s.WithinScatter())
		if e := relErr(&sum, s.Scatter()); e > 1e-14 {
			t.Errorf("%s: S_B + S_W differs from S by %.3g", name, e)
		}
		if e := relErr(s.WithinScatter(), brute(x, y).within); name != "self-merged" && e > 1e-12 {
			t.Errorf("%s: within-class scatter relative error %.3g", name, e)
		}
	}
}

// TestMomentsSharedNoAliasing: no Moments changes another — a Clone, the
// operand of a Merge (shared or not, and m.Merge(m)), the statistics an
// empty Moments merged from — whichever of them is changed afterwards.
func TestMomentsSharedNoAliasing(t *testing.T) {
	x, y := randomData(13, 160, 4, 3, 1, 0)
	_, ymix := randomData(13, 160, 4, 3, 1, 0.3)
	part := func(lo, hi int, mixed bool) *Moments {
		var m Moments
		labels := y[lo:hi]
		if mixed {
			labels = ymix[lo:hi]
		}
		if err := m.Add(chunkData(x, lo, hi), labels); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	unlabeled := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	// change applies to m every kind of update: an all-labelled chunk, a
	// merge, a chunk with unlabeled rows (the break of the sharing).
	change := func(m *Moments) {
		t.Helper()
		if err := m.Add(chunkData(x, 100, 120), y[100:120]); err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(part(120, 140, false)); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(unlabeled, []int{0, -1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	unchanged := func(what string, m, before *Moments) {
		t.Helper()
		if err := sameFields(m, before); err != nil {
			t.Errorf("%s changed: %v", what, err)
		}
		if err := checkSharing(m); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}

	// A Clone and its original, each changed in turn.
	for _, mixed := range []bool{false, true} {
		m := part(0, 80, mixed)
		before := snapshot(m)
		c := m.Clone()
		change(c)
		unchanged(fmt.Sprintf("the original of a changed Clone (mixed %v)", mixed), m, before)
		c = m.Clone()
		cBefore := snapshot(c)
		change(m)
		unchanged(fmt.Sprintf("a Clone of a changed original (mixed %v)", mixed), c, cBefore)
	}

	// The operand of a Merge, for every pairing of shared and not, and
	// the result when the operand changes afterwards.
	for _, mm := range []bool{false, true} {
		for _, om := range []bool{false, true} {
			what := fmt.Sprintf("m mixed %v, o mixed %v", mm, om)
			m, o := part(0, 80, mm), part(80, 160, om)
			oBefore := snapshot(o)
			if err := m.Merge(o); err != nil {
				t.Fatal(err)
			}
			unchanged("the operand of Merge ("+what+")", o, oBefore)
			if err := checkSharing(m); err != nil {
				t.Errorf("the result of Merge (%s): %v", what, err)
			}
			mBefore, oBefore := snapshot(m), snapshot(o)
			change(o)
			unchanged("the result of Merge after a change of its operand ("+what+")", m, mBefore)
			m, o = part(0, 80, mm), part(80, 160, om)
			m.Merge(o)
			oBefore = snapshot(o)
			change(m)
			unchanged("the operand of Merge after a change of the result ("+what+")", o, oBefore)
		}
	}

	// Merging into an empty Moments copies the operand.
	for _, mixed := range []bool{false, true} {
		o := part(0, 80, mixed)
		var e Moments
		e.Merge(o)
		oBefore, eBefore := snapshot(o), snapshot(&e)
		change(&e)
		unchanged(fmt.Sprintf("the operand of empty.Merge after a change of the result (mixed %v)", mixed), o, oBefore)
		e = Moments{}
		e.Merge(o)
		eBefore = snapshot(&e)
		change(o)
		unchanged(fmt.Sprintf("empty.Merge(o) after a change of o (mixed %v)", mixed), &e, eBefore)
	}

	// m.Merge(m): the bits of merging a copy, in the two-set scheme too.
	for _, mixed := range []bool{false, true} {
		m := part(0, 80, mixed)
		want := m.Clone()
		want.Merge(m.Clone())
		two := cloneTwoSets(m)
		mergeTwoSets(two, two)
		if err := m.Merge(m); err != nil {
			t.Fatal(err)
		}
		unchanged(fmt.Sprintf("m.Merge(m) against merging a copy (mixed %v)", mixed), m, want)
		if err := sameFields(m, two); err != nil {
			t.Errorf("m.Merge(m) (mixed %v): not the bits of the two-set scheme: %v", mixed, err)
		}
		if m.N() != 160 || (!mixed && m.LabeledN() != 160) {
			t.Errorf("m.Merge(m) (mixed %v): n %d, n_L %d", mixed, m.N(), m.LabeledN())
		}
	}

	// A failed Add or Merge leaves shared statistics shared and unchanged.
	m := part(0, 80, false)
	before := snapshot(m)
	bad := mat.DenseCopyOf(chunkData(x, 80, 90))
	bad.Set(3, 1, math.NaN())
	if err := m.Add(bad, ymix[80:90]); err == nil {
		t.Error("a chunk with NaN was accepted")
	}
	var wide Moments
	wide.Add(mat.NewDense(1, 5, nil), []int{-1})
	if err := m.Merge(&wide); err == nil {
		t.Error("statistics of other dimension were merged")
	}
	unchanged("shared statistics after a failed Add and Merge", m, before)
}

// TestMomentsSharedDeterministic: labelled chunks (shared statistics) give
// the same bits whatever GOMAXPROCS is, by Add and by Merge.
func TestMomentsSharedDeterministic(t *testing.T) {
	x, y := randomData(14, 600, 60, 5, 2, 0)
	var runs []*Moments
	for _, procs := range []int{1, 2, 1} {
		old := runtime.GOMAXPROCS(procs)
		m := accumulate(t, x, y, 250)
		var merged Moments
		for lo := 0; lo < 600; lo += 170 {
			hi := min(lo+170, 600)
			var c Moments
			c.Add(chunkData(x, lo, hi), y[lo:hi])
			merged.Merge(&c)
		}
		m.Merge(&merged)
		runtime.GOMAXPROCS(old)
		runs = append(runs, m)
	}
	for _, r := range runs[1:] {
		if err := sameFields(r, runs[0]); err != nil {
			t.Errorf("the statistics differ between runs or GOMAXPROCS settings: %v", err)
		}
	}
}
