package graph

import (
	"context"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/par"
)

// kdLeaf is the largest number of rows in a k-d tree leaf.
const kdLeaf = 16

// kdNode is a node of a k-d tree over row indices: a leaf holds rows
// idx[lo:hi]; an inner node splits on dimension dim at value split, with
// every row of left having x[dim] ≤ split and every row of right x[dim] ≥ split.
type kdNode struct {
	lo, hi      int
	dim         int
	split       float64
	left, right *kdNode
}

type kdTree struct {
	x    *mat.Dense
	idx  []int
	root *kdNode
}

func buildKD(x *mat.Dense) *kdTree {
	n, _ := x.Dims()
	t := &kdTree{x: x, idx: make([]int, n)}
	for i := range t.idx {
		t.idx[i] = i
	}
	t.root = t.build(0, n)
	return t
}

// build splits on the dimension of largest spread at the median row
// (ordered by value, then index: deterministic).
func (t *kdTree) build(lo, hi int) *kdNode {
	nd := &kdNode{lo: lo, hi: hi}
	if hi-lo <= kdLeaf {
		return nd
	}
	_, d := t.x.Dims()
	best, bestSpread := 0, -1.0
	for k := 0; k < d; k++ {
		mn, mx := t.x.At(t.idx[lo], k), t.x.At(t.idx[lo], k)
		for _, i := range t.idx[lo:hi] {
			v := t.x.At(i, k)
			mn, mx = min(mn, v), max(mx, v)
		}
		if mx-mn > bestSpread {
			best, bestSpread = k, mx-mn
		}
	}
	if bestSpread == 0 { // all rows identical: keep as a leaf
		return nd
	}
	seg := t.idx[lo:hi]
	sort.Slice(seg, func(a, b int) bool {
		va, vb := t.x.At(seg[a], best), t.x.At(seg[b], best)
		return va < vb || (va == vb && seg[a] < seg[b])
	})
	mid := lo + (hi-lo)/2
	nd.dim = best
	nd.split = t.x.At(t.idx[mid], best)
	nd.left = t.build(lo, mid)
	nd.right = t.build(mid, hi)
	return nd
}

// treeSearch answers the query for every row of x with a k-d tree. Pruning
// is exact for the canonical distance: a subtree across a splitting plane is
// skipped only when the squared distance to the plane is strictly larger
// than the current k-th distance (or ε²), and every row across the plane
// has a canonical distance at least that large (rounding is monotone), so
// equal-distance rows with lower indices are never missed.
func treeSearch(ctx context.Context, x *mat.Dense, q query, allow func(i, j int) bool) [][]cand {
	n, _ := x.Dims()
	t := buildKD(x)
	res := make([][]cand, n)
	par.Blocks(n, queryBlock, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		for i := lo; i < hi; i++ {
			s := &kdSearch{t: t, i: i, q: q, allow: allow, p: x.RawRowView(i)}
			s.visit(t.root)
			if q.ball {
				sortCands(s.found)
				res[i] = s.found
			} else {
				res[i] = s.heap.sorted()
			}
		}
	})
	return res
}

type kdSearch struct {
	t     *kdTree
	i     int
	p     []float64
	q     query
	allow func(i, j int) bool
	heap  candHeap
	found []cand
}

// bound is the current pruning radius (squared); +Inf until k found.
func (s *kdSearch) bound() (float64, bool) {
	if s.q.ball {
		return s.q.r2, true
	}
	if len(s.heap) < s.q.k {
		return 0, false
	}
	return s.heap[0].d2, true
}

func (s *kdSearch) visit(nd *kdNode) {
	if nd.left == nil {
		for _, j := range s.t.idx[nd.lo:nd.hi] {
			if j == s.i || (s.allow != nil && !s.allow(s.i, j)) {
				continue
			}
			c := cand{sqDist(s.p, s.t.x.RawRowView(j)), j}
			if s.q.ball {
				if c.d2 <= s.q.r2 {
					s.found = append(s.found, c)
				}
				continue
			}
			if len(s.heap) < s.q.k {
				s.heap.push(c)
			} else if less(c, s.heap[0]) {
				s.heap.replaceTop(c)
			}
		}
		return
	}
	diff := s.p[nd.dim] - nd.split
	near, far := nd.left, nd.right
	if diff > 0 {
		near, far = nd.right, nd.left
	}
	s.visit(near)
	if b, ok := s.bound(); ok && diff*diff > b {
		return
	}
	s.visit(far)
}

// candHeap is a max-heap of candidates (the worst on top) under less.
type candHeap []cand

func (h *candHeap) push(c cand) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(a[p], a[i]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h candHeap) replaceTop(c cand) {
	h[0] = c
	for i := 0; ; {
		l, r, big := 2*i+1, 2*i+2, i
		if l < len(h) && less(h[big], h[l]) {
			big = l
		}
		if r < len(h) && less(h[big], h[r]) {
			big = r
		}
		if big == i {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

func (h candHeap) sorted() []cand {
	out := append([]cand(nil), h...)
	sortCands(out)
	if out == nil {
		out = []cand{}
	}
	return out
}
