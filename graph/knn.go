package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/gemm"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/kernel"
)

// Metric gives the squared distances between the n rows a neighbourhood
// graph is built on. SqDist is the canonical value every search path
// (brute force, blocked products, tree) returns, so that all paths give
// identical neighbour lists, ties included; it is exactly symmetric.
type Metric interface {
	Len() int
	SqDist(i, j int) float64
}

// Euclidean is the input space: SqDist(i, j) = Σₖ (X[i][k] − X[j][k])²,
// summed over k in increasing order.
type Euclidean struct{ X *mat.Dense }

// Len implements Metric.
func (e Euclidean) Len() int { n, _ := e.X.Dims(); return n }

// SqDist implements Metric.
func (e Euclidean) SqDist(i, j int) float64 {
	return sqDist(e.X.RawRowView(i), e.X.RawRowView(j))
}

// SqDist returns Σₖ (a[k] − b[k])², summed in increasing k: the canonical
// squared distance of Euclidean, for vectors that are not rows of one
// matrix (a row and a k-means centre, for example).
func SqDist(a, b []float64) float64 { return sqDist(a, b) }

func sqDist(a, b []float64) float64 {
	s := 0.0
	for k, v := range a {
		d := v - b[k]
		s += d * d
	}
	return s
}

// FeatureSpace is the kernel feature space of seed 004 eq. 13: with K the
// Gram matrix of the training rows,
//
//	‖φ(xᵢ) − φ(xⱼ)‖² = K[i][i] + K[j][j] − 2·K[i][j]   (clamped at 0).
//
// Distances are invariant to centring K in feature space.
type FeatureSpace struct{ K *mat.Dense }

// NewFeatureSpace computes the Gram matrix of x under k.
func NewFeatureSpace(k kernel.Kernel, x *mat.Dense) (FeatureSpace, error) {
	g, err := k.Gram(x, nil)
	if err != nil {
		return FeatureSpace{}, err
	}
	return FeatureSpace{K: g}, nil
}

// Len implements Metric.
func (f FeatureSpace) Len() int { n, _ := f.K.Dims(); return n }

// SqDist implements Metric.
func (f FeatureSpace) SqDist(i, j int) float64 {
	if i == j {
		return 0
	}
	return math.Max(0, f.K.At(i, i)+f.K.At(j, j)-2*f.K.At(i, j))
}

// Search names the neighbour-search algorithm.
type Search string

const (
	// SearchAuto uses a k-d tree for Euclidean rows of low dimension
	// (d ≤ 8 and n ≥ 256) and blocked brute force otherwise.
	SearchAuto Search = ""
	// SearchBrute computes all distances, blockwise from matrix products
	// for Euclidean rows (screened with a rounding bound, then confirmed
	// with the canonical distance), directly from K in feature space.
	SearchBrute Search = "brute"
	// SearchTree uses a k-d tree (Euclidean rows only).
	SearchTree Search = "kdtree"
)

// Pairs restricts which rows may be neighbours of which.
type Pairs int

const (
	// AllPairs: any two distinct rows.
	AllPairs Pairs = iota
	// SameClass: rows with the same label (≥ 0).
	SameClass
	// OtherClass: rows with different labels (both ≥ 0).
	OtherClass
)

func (p Pairs) String() string {
	switch p {
	case SameClass:
		return "same-class"
	case OtherClass:
		return "other-class"
	}
	return "all"
}

// SearchOptions configure KNN and Ball.
type SearchOptions struct {
	// Pairs restricts candidates using Labels (required unless AllPairs;
	// rows labelled −1 then have no neighbours and are nobody's neighbour).
	Pairs  Pairs
	Labels []int
	Search Search
	// Context, when not nil, stops the search with its error once it is
	// cancelled: no block of query rows starts after it.
	Context context.Context
}

// Neighbours holds, for every row i, its neighbours Index[i] (never i
// itself) ordered by increasing distance, ties by increasing index, and the
// Euclidean distances Dist[i] (the square roots of the canonical squared
// distances).
type Neighbours struct {
	Index [][]int
	Dist  [][]float64
}

// KNN returns the k nearest neighbours of every row under the metric,
// exactly. Ties are broken by the lower row index, so the result is
// deterministic; every algorithm gives the same lists. A row with fewer
// than k allowed candidates (for example a class of n_c ≤ k rows under
// SameClass) gets all of them: k is capped per row, and a row with no
// candidate gets an empty list. k must be ≥ 1.
func KNN(m Metric, k int, opt SearchOptions) (*Neighbours, error) {
	if k < 1 {
		return nil, fmt.Errorf("graph: k = %d nearest neighbours requested; k must be ≥ 1", k)
	}
	return search(m, query{k: k}, opt)
}

// Ball returns, for every row, all other allowed rows within distance eps
// (canonical squared distance ≤ eps²), ordered as in KNN. eps must be
// finite and ≥ 0.
func Ball(m Metric, eps float64, opt SearchOptions) (*Neighbours, error) {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("graph: ε = %v; the radius must be finite and ≥ 0", eps)
	}
	return search(m, query{r2: eps * eps, ball: true}, opt)
}

type query struct {
	k    int
	r2   float64
	ball bool
}

// cand is a candidate neighbour: canonical squared distance and index.
type cand struct {
	d2 float64
	j  int
}

func less(a, b cand) bool { return a.d2 < b.d2 || (a.d2 == b.d2 && a.j < b.j) }

func sortCands(c []cand) { sort.Slice(c, func(a, b int) bool { return less(c[a], c[b]) }) }

// queryBlock is the number of query rows per parallel block (a constant:
// results never depend on GOMAXPROCS).
const queryBlock = 128

func search(m Metric, q query, opt SearchOptions) (*Neighbours, error) {
	n := m.Len()
	if n == 0 {
		return nil, errors.New("graph: no rows")
	}
	if opt.Pairs != AllPairs {
		if len(opt.Labels) != n {
			return nil, fmt.Errorf("graph: %s neighbours need one label per row; got %d labels for %d rows", opt.Pairs, len(opt.Labels), n)
		}
	}
	eu, isEu := m.(Euclidean)
	alg := opt.Search
	switch alg {
	case SearchAuto:
		alg = SearchBrute
		if isEu {
			if _, d := eu.X.Dims(); d <= 8 && n >= 256 {
				alg = SearchTree
			}
		}
	case SearchBrute:
	case SearchTree:
		if !isEu {
			return nil, errors.New("graph: the k-d tree searches Euclidean rows only (use brute force in feature space)")
		}
	default:
		return nil, fmt.Errorf("graph: unknown search %q (want brute or kdtree)", opt.Search)
	}
	if isEu {
		if err := data.CheckFinite("neighbour search rows", eu.X); err != nil {
			return nil, err
		}
		if err := data.CheckDistanceRange("neighbour search rows", eu.X); err != nil {
			return nil, err
		}
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	out := &Neighbours{Index: make([][]int, n), Dist: make([][]float64, n)}
	// Same-class searches run on each class separately (identical lists,
	// far fewer distances).
	groups := [][]int{nil} // nil: all rows
	if opt.Pairs == SameClass {
		groups = classGroups(opt.Labels)
	}
	for _, rows := range groups {
		var sub Metric = m
		if rows != nil {
			sub = subset(m, rows)
		}
		var allow func(i, j int) bool
		if opt.Pairs == OtherClass {
			y := opt.Labels
			allow = func(i, j int) bool { return y[i] >= 0 && y[j] >= 0 && y[i] != y[j] }
		}
		var res [][]cand
		if alg == SearchTree {
			res = treeSearch(ctx, sub.(Euclidean).X, q, allow)
		} else {
			res = bruteSearch(ctx, sub, q, allow)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, cs := range res {
			gi := i
			if rows != nil {
				gi = rows[i]
			}
			idx := make([]int, len(cs))
			dist := make([]float64, len(cs))
			for p, c := range cs {
				idx[p] = c.j
				if rows != nil {
					idx[p] = rows[c.j]
				}
				dist[p] = math.Sqrt(c.d2)
			}
			out.Index[gi], out.Dist[gi] = idx, dist
		}
	}
	for i := range out.Index {
		if out.Index[i] == nil {
			out.Index[i], out.Dist[i] = []int{}, []float64{}
		}
	}
	return out, nil
}

// classGroups returns the rows of each class (label ≥ 0), in increasing
// row order, classes in increasing label order.
func classGroups(y []int) [][]int {
	byClass := map[int][]int{}
	var labels []int
	for i, v := range y {
		if v < 0 {
			continue
		}
		if _, ok := byClass[v]; !ok {
			labels = append(labels, v)
		}
		byClass[v] = append(byClass[v], i)
	}
	sort.Ints(labels)
	out := make([][]int, len(labels))
	for c, l := range labels {
		out[c] = byClass[l]
	}
	return out
}

// subset restricts a metric to some rows (index order preserved, so ties
// still break by the original lower index).
func subset(m Metric, rows []int) Metric {
	switch t := m.(type) {
	case Euclidean:
		_, d := t.X.Dims()
		x := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			copy(x.RawRowView(i), t.X.RawRowView(r))
		}
		return Euclidean{X: x}
	case FeatureSpace:
		k := mat.NewDense(len(rows), len(rows), nil)
		for i, r := range rows {
			for j, c := range rows {
				k.Set(i, j, t.K.At(r, c))
			}
		}
		return FeatureSpace{K: k}
	}
	return subMetric{m, rows}
}

type subMetric struct {
	m    Metric
	rows []int
}

func (s subMetric) Len() int                { return len(s.rows) }
func (s subMetric) SqDist(i, j int) float64 { return s.m.SqDist(s.rows[i], s.rows[j]) }

// bruteSearch answers the query for every row by computing all distances.
// For Euclidean rows, squared distances come blockwise from one matrix
// product per block of rows (‖xᵢ‖² + ‖xⱼ‖² − 2xᵢᵀxⱼ) together with a
// bound on their rounding error; only rows that can be among the answers
// are then confirmed with the canonical distance, so the answer is exactly
// that of the direct definition.
//
// Once ctx is cancelled no block of rows starts; the result is then
// incomplete and the caller returns ctx's error.
func bruteSearch(ctx context.Context, m Metric, q query, allow func(i, j int) bool) [][]cand {
	n := m.Len()
	res := make([][]cand, n)
	eu, isEu := m.(Euclidean)
	if !isEu {
		par.Blocks(n, queryBlock, func(lo, hi int) {
			if ctx.Err() != nil {
				return
			}
			buf := make([]cand, 0, n)
			for i := lo; i < hi; i++ {
				buf = buf[:0]
				for j := 0; j < n; j++ {
					if j == i || (allow != nil && !allow(i, j)) {
						continue
					}
					buf = append(buf, cand{m.SqDist(i, j), j})
				}
				res[i] = pick(buf, q)
			}
		})
		return res
	}
	x := eu.X
	_, d := x.Dims()
	norms := make([]float64, n)
	for i := range norms {
		r := x.RawRowView(i)
		for _, v := range r {
			norms[i] += v * v
		}
	}
	// |computed − exact| ≤ c·(‖xᵢ‖² + ‖xⱼ‖²) for the expansion (dot
	// product and norms with d terms each, plus three additions); c is a
	// generous multiple of the textbook bound (2d + 6)·u, which also covers
	// the rounding of the canonical distance itself.
	const u = 0x1p-53
	c := 8 * float64(d+4) * u
	if !q.ball && allow == nil && n >= 2*symTile {
		return symmetricKNN(ctx, x, min(q.k, n-1), norms, c)
	}
	par.Blocks(n, queryBlock, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		var dots mat.Dense
		gemm.MulTile(&dots, x.Slice(lo, hi, 0, d), x.T())
		approx := make([]float64, n)
		bound := make([]float64, n)
		scratch := make([]float64, 0, n)
		buf := make([]cand, 0, 64)
		for i := lo; i < hi; i++ {
			row := dots.RawRowView(i - lo)
			scratch = scratch[:0]
			for j := 0; j < n; j++ {
				approx[j] = norms[i] + norms[j] - 2*row[j]
				bound[j] = c * (norms[i] + norms[j])
				if j != i && (allow == nil || allow(i, j)) && !q.ball {
					scratch = append(scratch, approx[j]+bound[j])
				}
			}
			// Threshold: every answer has a canonical distance ≤ thr.
			var thr float64
			if q.ball {
				thr = q.r2
			} else {
				if len(scratch) == 0 {
					res[i] = []cand{}
					continue
				}
				kk := min(q.k, len(scratch))
				thr = KthSmallest(scratch, kk-1)
			}
			buf = buf[:0]
			for j := 0; j < n; j++ {
				if j == i || (allow != nil && !allow(i, j)) {
					continue
				}
				if approx[j]-bound[j] <= thr {
					buf = append(buf, cand{sqDist(x.RawRowView(i), x.RawRowView(j)), j})
				}
			}
			res[i] = pick(buf, q)
		}
	})
	return res
}

// pick sorts the candidates and keeps the answer of the query.
func pick(buf []cand, q query) []cand {
	sortCands(buf)
	if q.ball {
		k := sort.Search(len(buf), func(p int) bool { return buf[p].d2 > q.r2 })
		return append([]cand(nil), buf[:k]...)
	}
	return append([]cand(nil), buf[:min(q.k, len(buf))]...)
}

// KthSmallest returns the k-th smallest (0-based) value of a, by Hoare's
// quickselect: O(len(a)) on average against a sort's O(len(a)·log len(a)).
// It reorders a so that a[k] is that value, every value before it ≤ a[k]
// and every value after it ≥ a[k]; the value is the one sorting gives.
func KthSmallest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}
