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
		s := 0.0
		for _, v := range X.RawRowView(i) {
			s += v * v
		}
		out[i] = s
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

// nearest keeps the k smallest squared distances seen by scan, ordered by
// (distance, index): among equal distances the lower training index comes
// first and a later index never displaces an earlier one.
type nearest struct {
	k   int
	cnt int
	d2  []float64
	idx []int
}

func newNearest(k int) *nearest {
	return &nearest{k: k, d2: make([]float64, k), idx: make([]int, k)}
}

// scan finds the k nearest among row[j], j = 0, 1, ….
func (nb *nearest) scan(row []float64) {
	if nb.k == 1 && len(row) > 0 {
		best, bi := row[0], 0
		for j, v := range row {
			if v < best {
				best, bi = v, j
			}
		}
		nb.d2[0], nb.idx[0], nb.cnt = best, bi, 1
		return
	}
	nb.cnt = 0
	k := nb.k
	for j, v := range row {
		var pos int
		switch {
		case nb.cnt < k:
			pos = nb.cnt
			nb.cnt++
		case v < nb.d2[k-1]:
			pos = k - 1
		default:
			continue
		}
		for pos > 0 && nb.d2[pos-1] > v {
			nb.d2[pos] = nb.d2[pos-1]
			nb.idx[pos] = nb.idx[pos-1]
			pos--
		}
		nb.d2[pos] = v
		nb.idx[pos] = j
	}
}

// vote returns the majority label among the first k neighbours found by
// the last scan (k ≤ the scan's k; the list is sorted, so its first k
// entries are the k nearest). Ties in the number of votes go to the tied
// class whose neighbours have the smallest summed Euclidean distance, then
// to the lowest label. tally is scratch space reused between calls.
func (nb *nearest) vote(k int, y []int, tally *[]classTally) int {
	k = min(k, nb.cnt)
	if k == 1 {
		return y[nb.idx[0]]
	}
	t := (*tally)[:0]
	for i := 0; i < k; i++ {
		c := y[nb.idx[i]]
		d := math.Sqrt(nb.d2[i])
		found := false
		for m := range t {
			if t[m].class == c {
				t[m].votes++
				t[m].sum += d
				found = true
				break
			}
		}
		if !found {
			t = append(t, classTally{class: c, votes: 1, sum: d})
		}
	}
	best := t[0]
	for _, c := range t[1:] {
		if c.votes > best.votes ||
			(c.votes == best.votes && (c.sum < best.sum || (c.sum == best.sum && c.class < best.class))) {
			best = c
		}
	}
	*tally = t
	return best.class
}

type classTally struct {
	class, votes int
	sum          float64
}

// KNN is the k-nearest-neighbour classifier with Euclidean distance.
//
// The K nearest training rows are found with ties in distance broken by the
// lower training index. The predicted class is the one with most votes
// among them; a tie in votes goes to the tied class whose neighbours have
// the smallest summed distance to the query, then to the lowest class label.
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
	forEachDistBlock(X, m.X, norms, func(start int, d *mat.Dense) {
		r, _ := d.Dims()
		for i := 0; i < r; i++ {
			nb.scan(d.RawRowView(i))
			out[start+i] = nb.vote(m.K, m.Y, &tally)
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
	bs := max(1, min(nte, blockElems/ntr))
	acc := make([]float64, bs*ntr)
	nb := newNearest(kmax)
	var tally []classTally
	for start := 0; start < nte; start += bs {
		end := min(start+bs, nte)
		clear(acc)
		for d := 0; d < maxDim; d++ {
			col := cols[d]
			for i := start; i < end; i++ {
				t := testZ.At(i, d)
				row := acc[(i-start)*ntr : (i-start+1)*ntr]
				for j, v := range col {
					diff := t - v
					row[j] += diff * diff
				}
				nb.scan(row)
				for m, k := range ks {
					if nb.vote(k, ytrain, &tally) != ytest[i] {
						miss[m][d]++
					}
				}
			}
		}
	}
	return miss
}
