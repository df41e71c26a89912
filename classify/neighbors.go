package classify

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
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
// the block's first row; d is reused between calls.
func forEachDistBlock(A, B *mat.Dense, bNorm []float64, fn func(start int, d *mat.Dense)) {
	na, _ := A.Dims()
	nb, p := B.Dims()
	bs := max(1, min(na, blockElems/max(nb, 1)))
	buf := make([]float64, bs*nb)
	for start := 0; start < na; start += bs {
		end := min(start+bs, na)
		a := A.Slice(start, end, 0, p).(*mat.Dense)
		d := mat.NewDense(end-start, nb, buf[:(end-start)*nb])
		d.Mul(a, B.T())
		for i := 0; i < end-start; i++ {
			an := 0.0
			for _, v := range a.RawRowView(i) {
				an += v * v
			}
			row := d.RawRowView(i)
			for j := range row {
				row[j] = math.Max(0, an+bNorm[j]-2*row[j])
			}
		}
		fn(start, d)
	}
}

// TieTolerance is the relative size below which two squared distances
// count as equal. A query's squared distances d and d' are tied when
// |d − d'| ≤ TieTolerance·s, with s = ‖x‖² + the mean of ‖b‖² over the
// reference points b (the training rows for k-NN, the class centroids
// for NCC), the scale of the rounding in both the distances and the
// embedding that produced them.
//
// Exact equality is not enough: points that coincide in theory (a class
// collapsed onto one point inside a zero eigenspace, a grid's equidistant
// neighbours) come out of an eigensolver equal to 12-15 digits, not bit
// for bit, and which of them counts as nearer then follows the rounding
// of the build (pure Go against OpenBLAS) or the row order. 1e-9 leaves
// three orders of magnitude above that rounding and is far below any
// difference in distance that carries information.
const TieTolerance = 1e-9

// tieTol is the absolute tolerance TieTolerance·(xn + refMean) of one
// query with squared norm xn.
func tieTol(xn, refMean float64) float64 { return TieTolerance * (xn + refMean) }

// mean returns the mean of v (0 for an empty v).
func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// sqNorm returns ‖v‖².
func sqNorm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// nearestTied returns the lowest index j whose d[j] is within tol of the
// smallest value of d: the nearest reference point, ties (TieTolerance)
// going to the lowest index. d is not empty.
func nearestTied(d []float64, tol float64) int {
	// One pass: m is the smallest value so far and bi the lowest index
	// within tol of it. Values before j are ≥ the old minimum, so when a
	// new minimum v arrives only a near tie (v + tol ≥ old minimum) can
	// leave bi before j; then the lowest such index is at or after the
	// old bi, whose set {d ≤ m + tol} holds the new one.
	m, bi := d[0], 0
	for j, v := range d {
		if v >= m {
			continue
		}
		if v+tol < m {
			m, bi = v, j
			continue
		}
		m = v
		for d[bi] > m+tol {
			bi++
		}
	}
	return bi
}

// nearest finds the k nearest reference points of a query in the order
// the classifier ranks them: by squared distance, where distances within
// the tie tolerance of the first of a run count as equal and are ranked
// by index. Sorting the distances, a run starts at the smallest value not
// yet ranked, d₀, and holds every value ≤ d₀ + tol; the runs are ranked by
// distance and the points in a run by index. The ranking is the same for
// every k, so the k nearest for a smaller k are the first k.
type nearest struct {
	k   int
	cnt int
	d2  []float64
	idx []int
}

func newNearest(k int) *nearest {
	return &nearest{k: k, d2: make([]float64, 0, k), idx: make([]int, 0, k)}
}

// scan ranks the points with squared distances row[j], j = 0, 1, …, and
// keeps the first k (tol: the query's tie tolerance).
func (nb *nearest) scan(row []float64, tol float64) {
	k := nb.k
	if k == 1 && len(row) > 0 {
		j := nearestTied(row, tol)
		nb.d2, nb.idx, nb.cnt = append(nb.d2[:0], row[j]), append(nb.idx[:0], j), 1
		return
	}
	// Keep, in (distance, index) order, every point that may still end in
	// the first k: all points ≤ the k-th smallest distance + tol.
	d2, idx := nb.d2[:0], nb.idx[:0]
	limit := math.Inf(1)
	for j, v := range row {
		if len(d2) >= k && v > limit {
			continue
		}
		pos := len(d2)
		d2, idx = append(d2, v), append(idx, j)
		for pos > 0 && d2[pos-1] > v {
			d2[pos], idx[pos] = d2[pos-1], idx[pos-1]
			pos--
		}
		d2[pos], idx[pos] = v, j
		if len(d2) >= k {
			limit = d2[k-1] + tol
			n := len(d2)
			for n > k && d2[n-1] > limit {
				n--
			}
			d2, idx = d2[:n], idx[:n]
		}
	}
	// Rank each run of tied distances by index.
	for s := 0; s < len(d2); {
		e := s + 1
		for e < len(d2) && d2[e] <= d2[s]+tol {
			e++
		}
		for i := s + 1; i < e; i++ {
			for m := i; m > s && idx[m-1] > idx[m]; m-- {
				d2[m], d2[m-1] = d2[m-1], d2[m]
				idx[m], idx[m-1] = idx[m-1], idx[m]
			}
		}
		s = e
	}
	nb.d2, nb.idx, nb.cnt = d2, idx, min(k, len(d2))
}

// vote returns the majority label among the first k neighbours found by
// the last scan (k ≤ the scan's k). Ties in the number of votes go to the
// tied class whose neighbours have the smallest summed Euclidean distance,
// sums within their rounding of each other counting as equal, then to the
// lowest label. A neighbour's distance √d carries the rounding
// min(√tol, tol/√d) of its tied squared distance d; a class's sum carries
// the sum of its neighbours'. tally is scratch space reused between calls.
func (nb *nearest) vote(k int, y []int, tol float64, tally *[]classTally) int {
	k = min(k, nb.cnt)
	if k == 1 {
		return y[nb.idx[0]]
	}
	t := (*tally)[:0]
	rt := math.Sqrt(tol)
	for i := 0; i < k; i++ {
		c := y[nb.idx[i]]
		d := math.Sqrt(nb.d2[i])
		e := rt
		if d > rt {
			e = tol / d
		}
		found := false
		for m := range t {
			if t[m].class == c {
				t[m].votes++
				t[m].sum += d
				t[m].err += e
				found = true
				break
			}
		}
		if !found {
			t = append(t, classTally{class: c, votes: 1, sum: d, err: e})
		}
	}
	// The most votes, and among those the smallest sum.
	best := t[0]
	for _, c := range t[1:] {
		if c.votes > best.votes || (c.votes == best.votes && c.sum < best.sum) {
			best = c
		}
	}
	// The lowest label whose votes equal and whose sum is within rounding.
	win := best.class
	for _, c := range t {
		if c.votes == best.votes && c.sum <= best.sum+best.err+c.err && c.class < win {
			win = c.class
		}
	}
	*tally = t
	return win
}

type classTally struct {
	class, votes int
	sum, err     float64 // summed distance and its rounding
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
	nb := newNearest(m.K)
	var tally []classTally
	refMean := mean(norms)
	forEachDistBlock(X, m.X, norms, func(start int, d *mat.Dense) {
		r, _ := d.Dims()
		for i := 0; i < r; i++ {
			tol := tieTol(sqNorm(X.RawRowView(start+i)), refMean)
			nb.scan(d.RawRowView(i), tol)
			out[start+i] = nb.vote(m.K, m.Y, tol, &tally)
		}
	})
	return out, nil
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
	// refMean[d]: the mean squared norm of the training rows' first d+1
	// columns, summed in Predict's order so the tie tolerances agree.
	refMean := make([]float64, maxDim)
	trNorm := make([]float64, ntr)
	for d, col := range cols {
		for j, v := range col {
			trNorm[j] += v * v
		}
		refMean[d] = mean(trNorm)
	}
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
				t := testZ.At(i, d)
				row := acc[(i-start)*ntr : (i-start+1)*ntr]
				for j, v := range col {
					diff := t - v
					row[j] += diff * diff
				}
				qn[i-start] += t * t
				tol := tieTol(qn[i-start], refMean[d])
				nb.scan(row, tol)
				for m, k := range ks {
					if nb.vote(k, ytrain, tol, &tally) != ytest[i] {
						miss[m][d]++
					}
				}
			}
		}
	}
	return miss
}
