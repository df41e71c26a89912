package classify

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/dimred/dimred/graph"
)

// blockElems bounds the size of one block of the distance matrix
// (2²⁰ float64 = 8 MiB); a variable so tests can force many blocks.
var blockElems = 1 << 20

// rowNorms returns ‖xᵢ‖² for each row of X.
func rowNorms(X *mat.Dense) []float64 {
	r, _ := X.Dims()
	out := make([]float64, r)
	for i := range out {
		out[i] = sqNorm(X.RawRowView(i))
	}
	return out
}

// forEachDistBlock calls fn for consecutive blocks of rows of A with the
// squared Euclidean distances from those rows to every row of B,
//
//	D[i,j] = max(0, ‖aᵢ‖² + ‖bⱼ‖² − 2·aᵢ·bⱼ),
//
// computed with one matrix product per block. start is the index in A of
// the block's first row; an holds those rows' ‖aᵢ‖² (sqNorm's sum); d and
// an are reused between calls.
func forEachDistBlock(A, B *mat.Dense, bNorm []float64, fn func(start int, an []float64, d *mat.Dense)) {
	na, _ := A.Dims()
	nb, p := B.Dims()
	bs := max(1, min(na, blockElems/max(nb, 1)))
	buf := make([]float64, bs*nb)
	anBuf := make([]float64, bs)
	for start := 0; start < na; start += bs {
		end := min(start+bs, na)
		a := A.Slice(start, end, 0, p).(*mat.Dense)
		d := mat.NewDense(end-start, nb, buf[:(end-start)*nb])
		d.Mul(a, B.T())
		an := anBuf[:end-start]
		for i := range an {
			an[i] = sqNorm(a.RawRowView(i))
			row := d.RawRowView(i)
			for j := range row {
				row[j] = math.Max(0, an[i]+bNorm[j]-2*row[j])
			}
		}
		fn(start, an, d)
	}
}

// TieTolerance is the relative size below which two distances count as
// equal. A query's distances d and d' to two reference points are tied
// when |d − d'| ≤ TieTolerance·R, with R² = ‖x‖² + the mean of ‖b‖² over
// the reference points b (the training rows for k-NN, the class centroids
// for NCC): the size of the coordinates, which sets the rounding of the
// embedding that produced them. A distance is 1-Lipschitz in the
// coordinates, so coordinates off by δ move it by at most ‖δ‖ whatever
// its size, and the tolerance is absolute in distance, not relative to
// it (nor to the squared distance, where it would swallow the structure
// of points far closer together than the data's size: Soy's LDA has
// classes 1e-3 apart at coordinates of 20-360).
//
// Exact equality is not enough: points that coincide in theory (a class
// collapsed onto one point inside a zero eigenspace, a grid's equidistant
// neighbours) come out of an eigensolver equal to 12-15 digits, not bit
// for bit, and which of them counts as nearer then follows the rounding
// of the build (pure Go against OpenBLAS) or the row order. 1e-9 leaves
// three orders of magnitude above that rounding and is far below any
// difference in distance that an eigensolver resolves.
const TieTolerance = 1e-9

// tie is one query's tie tolerance in distance, TieTolerance·R.
type tie struct{ r float64 }

// newTie returns the tolerance of a query with squared norm xn against
// reference points of mean squared norm refMean.
func newTie(xn, refMean float64) tie { return tie{TieTolerance * math.Sqrt(xn+refMean)} }

// limit returns the largest squared distance tied with d2: (√d2 + r)²,
// and never less than d2 (which the rounding of √d2 squared can be).
func (t tie) limit(d2 float64) float64 {
	d := math.Sqrt(d2) + t.r
	return max(d2, d*d)
}

// prefixMeanSqNorms returns, for d = 1..maxDim, the mean over the rows of
// B of the squared norm of their first d columns (out[d-1]): the sweeps'
// reference scale of the tie tolerance at each dimension, summed in the
// order Predict sums it (rowNorms, then stat.Mean) so the two agree.
func prefixMeanSqNorms(B *mat.Dense, maxDim int) []float64 {
	r, _ := B.Dims()
	out := make([]float64, maxDim)
	norm := make([]float64, r)
	for d := range out {
		for i := range norm {
			v := B.At(i, d)
			norm[i] += v * v
		}
		out[d] = stat.Mean(norm, nil)
	}
	return out
}

// sqNorm returns ‖v‖².
func sqNorm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// nearestTied returns the lowest index j whose distance d[j] (squared)
// is tied with the smallest: the nearest reference point, ties going to
// the lowest index. d is not empty.
func nearestTied(d []float64, t tie) int {
	// One pass: m is the smallest value so far and bi the lowest index
	// tied with it. Values before j are ≥ the old minimum, so when a new
	// minimum v arrives only a tie (limit(v) ≥ old minimum) can leave bi
	// before j; then the lowest such index is at or after the old bi,
	// whose tied set {d ≤ limit(m)} holds the new one.
	m, bi := d[0], 0
	for j, v := range d {
		if v >= m {
			continue
		}
		lim := t.limit(v)
		if lim < m {
			m, bi = v, j
			continue
		}
		m = v
		for d[bi] > lim {
			bi++
		}
	}
	return bi
}

// nearest finds the k nearest reference points of a query in the order
// the classifier ranks them: by distance, where distances tied with the
// first of a run count as equal and are ranked by index. Sorting the
// distances, a run starts at the smallest distance not yet ranked, d₀,
// and holds every distance ≤ d₀ + TieTolerance·R; the runs are ranked by
// distance and the points in a run by index. The ranking is the same for
// every k, so the k nearest for a smaller k are the first k.
type nearest struct {
	k   int
	cnt int    // points ranked by the last scan: min(k, len(row))
	c   []cand // the ranked points (may hold more than cnt)
	// rest is scratch space for the candidates of a tie across the k-th
	// place.
	rest []cand
}

// cand is a reference point: its squared distance and index.
type cand struct {
	d2 float64
	i  int
}

func newNearest(k int) *nearest {
	return &nearest{k: k, c: make([]cand, 0, k+1)}
}

// scan ranks the points with squared distances row[j], j = 0, 1, …, and
// keeps the first k (t: the query's tie tolerance). It costs one pass
// over row, and a second one only when the (k+1)-th smallest distance is
// tied with the k-th: the run at the k-th place may then hold any number
// of points (a class collapsed onto one point), all of which compete for
// the last places by index.
func (nb *nearest) scan(row []float64, t tie) {
	k := nb.k
	c := nb.c[:0]
	if k == 1 && len(row) > 0 {
		j := nearestTied(row, t)
		nb.c, nb.cnt = append(c, cand{row[j], j}), 1
		return
	}
	// The k+1 smallest in (distance, index) order; worst is the largest
	// kept once k+1 are kept (+Inf before), the bar for entering.
	worst := math.Inf(1)
	for j, v := range row {
		if v >= worst {
			continue
		}
		pos := len(c)
		if pos <= k {
			c = append(c, cand{v, j})
		} else {
			pos = k
		}
		for pos > 0 && c[pos-1].d2 > v {
			c[pos] = c[pos-1]
			pos--
		}
		c[pos] = cand{v, j}
		if len(c) > k {
			worst = c[k].d2
		}
	}
	if len(c) > k && c[k].d2 <= t.limit(c[k-1].d2) {
		// Every point up to the k-th's tie limit, in index order; then
		// run by run (each anchored at the smallest distance left), its
		// members in index order until k are ranked: O(k·m) for m
		// candidates (sorting them instead made the 3-NN sweep of
		// BenchmarkSweepKNNCollapsed 290 ms against 15 ms).
		limit := t.limit(c[k-1].d2)
		rest := nb.rest[:0]
		for j, v := range row {
			if v <= limit {
				rest = append(rest, cand{v, j})
			}
		}
		c = c[:0]
		for len(c) < k && len(rest) > 0 {
			m0 := rest[0].d2
			for _, r := range rest[1:] {
				m0 = min(m0, r.d2)
			}
			lim, w := t.limit(m0), 0
			for _, r := range rest {
				switch {
				case r.d2 > lim:
					rest[w] = r
					w++
				case len(c) < k:
					c = append(c, r)
				}
			}
			rest = rest[:w]
		}
		nb.rest = rest
		nb.c, nb.cnt = c, len(c)
		return
	}
	// No tie across the k-th place: rank each run among the first k by
	// index.
	for s := 0; s < k && s < len(c); {
		e, lim := s+1, t.limit(c[s].d2)
		for e < len(c) && c[e].d2 <= lim {
			e++
		}
		if e-s > 1 {
			slices.SortFunc(c[s:e], func(a, b cand) int { return a.i - b.i })
		}
		s = e
	}
	nb.c, nb.cnt = c, min(k, len(c))
}

// vote returns the majority label among the first k neighbours found by
// the last scan (k ≤ the scan's k). Ties in the number of votes go to the
// tied class whose neighbours have the smallest summed Euclidean distance,
// sums within the tie tolerance of each of their terms (2·votes·r) counting
// as equal, then to the lowest label. tally is scratch space reused
// between calls.
func (nb *nearest) vote(k int, y []int, t tie, tally *[]classTally) int {
	k = min(k, nb.cnt)
	if k == 1 {
		return y[nb.c[0].i]
	}
	tl := (*tally)[:0]
	for i := 0; i < k; i++ {
		c := y[nb.c[i].i]
		d := math.Sqrt(nb.c[i].d2)
		found := false
		for m := range tl {
			if tl[m].class == c {
				tl[m].votes++
				tl[m].sum += d
				found = true
				break
			}
		}
		if !found {
			tl = append(tl, classTally{class: c, votes: 1, sum: d})
		}
	}
	// The most votes, and among those the smallest sum.
	best := tl[0]
	for _, c := range tl[1:] {
		if c.votes > best.votes || (c.votes == best.votes && c.sum < best.sum) {
			best = c
		}
	}
	// The lowest label with as many votes and a sum tied with the best.
	win, lim := best.class, best.sum+2*float64(best.votes)*t.r
	for _, c := range tl {
		if c.votes == best.votes && c.sum <= lim && c.class < win {
			win = c.class
		}
	}
	*tally = tl
	return win
}

type classTally struct {
	class, votes int
	sum          float64 // summed distance
}

// KNN is the k-nearest-neighbour classifier with Euclidean distance.
//
// The K nearest training rows are found with ties in distance (equal up
// to TieTolerance) broken by the lower training index. The predicted class
// is the one with most votes among them; a tie in votes goes to the tied
// class whose neighbours have the smallest summed distance to the query
// (equal up to its rounding), then to the lowest class label.
type KNN struct {
	// K is the number of neighbours, 1 ≤ K ≤ number of training rows.
	// There is no default: K < 1 is an error.
	K int
}

// Name returns "knnK", for example "knn3".
func (c KNN) Name() string { return fmt.Sprintf("knn%d", c.K) }

func (c KNN) check(n int) error {
	if c.K < 1 {
		return fmt.Errorf("classifier %s: K = %d, want K ≥ 1", c.Name(), c.K)
	}
	if c.K > n {
		return fmt.Errorf("classifier %s: K = %d exceeds the %d training rows", c.Name(), c.K, n)
	}
	return nil
}

// Fit stores a copy of the training rows and labels.
func (c KNN) Fit(X *mat.Dense, y []int) (Predictor, error) {
	if err := checkTrain(c.Name(), X, y); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	if err := c.check(n); err != nil {
		return nil, err
	}
	xc := mat.DenseCopyOf(X)
	return &KNNModel{K: c.K, X: xc, Y: append([]int(nil), y...), norms: rowNorms(xc)}, nil
}

// KNNModel is a fitted KNN: the training rows and their labels. It is safe
// for concurrent use by several goroutines.
type KNNModel struct {
	K     int
	X     *mat.Dense
	Y     []int
	norms []float64
}

// Predict returns the predicted label of each row of X. Distances are
// computed blockwise with matrix products.
func (m *KNNModel) Predict(X *mat.Dense) ([]int, error) {
	name := KNN{K: m.K}.Name()
	if m.X == nil {
		return nil, fmt.Errorf("classifier %s: model has no training rows", name)
	}
	_, p := m.X.Dims()
	if err := checkTest(name, X, p); err != nil {
		return nil, err
	}
	ntr, _ := m.X.Dims()
	if len(m.Y) != ntr {
		return nil, fmt.Errorf("classifier %s: model has %d labels for %d training rows", name, len(m.Y), ntr)
	}
	if err := (KNN{K: m.K}).check(ntr); err != nil {
		return nil, err
	}
	norms := m.norms
	if norms == nil {
		norms = rowNorms(m.X)
	}
	n, _ := X.Dims()
	out := make([]int, n)
	nb, exact := newNearest(m.K), newNearest(m.K)
	var tally []classTally
	refMean, maxNorm := stat.Mean(norms, nil), 0.0
	for _, v := range norms {
		maxNorm = max(maxNorm, v)
	}
	forEachDistBlock(X, m.X, norms, func(start int, an []float64, d *mat.Dense) {
		for i, xn := range an {
			x, row := X.RawRowView(start+i), d.RawRowView(i)
			t := newTie(xn, refMean)
			m.refine(row, x, xn, maxNorm, t, exact)
			nb.scan(row, t)
			out[start+i] = nb.vote(m.K, m.Y, t, &tally)
		}
	})
	return out, nil
}

// refine replaces the squared distances of row (from the matrix-product
// expansion, whose rounding is of the order of the squared norms) by
// distances summed coordinate by coordinate (the sweeps' sum, whose
// rounding is of the order of the distance) for every training row that
// can rank among the query's K nearest, and by +Inf for the rest, so that
// ties are decided on accurate distances and Predict agrees with Sweep.
//
// The expansion's error is at most M = 4p·ε·(‖x‖² + max‖b‖²) (each of
// its three terms a p-term sum); with D the K-th smallest expanded value
// the true K-th distance is at most D + M, so a row ranked among the K
// nearest after refining has a true squared distance ≤ limit(D + M) and
// an expanded one ≤ limit(D + M) + M, the threshold kept.
func (m *KNNModel) refine(row, x []float64, xn, maxNorm float64, t tie, exact *nearest) {
	_, p := m.X.Dims()
	bound := 4 * float64(p) * 0x1p-52 * (xn + maxNorm)
	exact.scan(row, tie{})
	lim := t.limit(exact.c[exact.cnt-1].d2+bound) + bound
	for j, v := range row {
		if v <= lim {
			row[j] = graph.SqDist(x, m.X.RawRowView(j))
		} else {
			row[j] = math.Inf(1)
		}
	}
}

// Sweep classifies testZ with the first k columns for every k = 1..maxDim
// in one pass: the squared distances to all training rows are accumulated
// one coordinate at a time, so each dimension costs O(n_test·n_train)
// instead of a fresh distance computation.
func (c KNN) Sweep(trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([]int, error) {
	if err := checkSweep(c.Name(), trainZ, ytrain, testZ, ytest, maxDim); err != nil {
		return nil, err
	}
	ntr, _ := trainZ.Dims()
	if err := c.check(ntr); err != nil {
		return nil, err
	}
	miss := knnSweep([]int{c.K}, trainZ, ytrain, testZ, ytest, maxDim)
	return miss[0], nil
}

// knnSweep is the sweep of k-NN for several values of k at once (validated
// by the caller): the neighbours are found once for the largest k, and the
// k nearest for a smaller k are the first k of them. miss[i][d-1] counts
// the errors of ks[i] at dimension d.
func knnSweep(ks []int, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) [][]int {
	ntr, _ := trainZ.Dims()
	nte, _ := testZ.Dims()
	kmax := 0
	for _, k := range ks {
		kmax = max(kmax, k)
	}
	// Column k of trainZ, contiguous.
	cols := make([][]float64, maxDim)
	for k := range cols {
		cols[k] = mat.Col(nil, k, trainZ)
	}
	miss := make([][]int, len(ks))
	for i := range miss {
		miss[i] = make([]int, maxDim)
	}
	refMean := prefixMeanSqNorms(trainZ, maxDim)
	bs := max(1, min(nte, blockElems/ntr))
	acc := make([]float64, bs*ntr)
	qn := make([]float64, bs)
	nb := newNearest(kmax)
	var tally []classTally
	for start := 0; start < nte; start += bs {
		end := min(start+bs, nte)
		clear(acc)
		clear(qn)
		for d := 0; d < maxDim; d++ {
			col := cols[d]
			for i := start; i < end; i++ {
				q := testZ.At(i, d)
				row := acc[(i-start)*ntr : (i-start+1)*ntr]
				for j, v := range col {
					diff := q - v
					row[j] += diff * diff
				}
				qn[i-start] += q * q
				t := newTie(qn[i-start], refMean[d])
				nb.scan(row, t)
				for m, k := range ks {
					if nb.vote(k, ytrain, t, &tally) != ytest[i] {
						miss[m][d]++
					}
				}
			}
		}
	}
	return miss
}
