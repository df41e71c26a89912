package graph

import (
	"container/heap"
	"context"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/gemm"
	"github.com/dimred/dimred/internal/par"
)

// symTile is the tile size of symmetricKNN.
const symTile = 256

// symmetricKNN answers the k-nearest-neighbour query for every row of x
// with half the distance computations of bruteSearch: the n×n matrix of
// squared distances is symmetric, so each tile (I, J), I ≤ J, of inner
// products is computed once (one matrix product) and serves the rows of I
// as candidates from J and the rows of J as candidates from I.
//
// Every row keeps the k smallest upper bounds approx + bound seen so far
// (a max-heap; its top thr only decreases) and every candidate whose lower
// bound approx − bound was at most thr when it was seen. A true neighbour
// has lower bound ≤ exact distance ≤ the k-th smallest exact distance ≤
// thr at any time, so it is never dropped; at the end the candidates with
// lower bound ≤ the final thr are confirmed with the canonical distance and
// sorted (ties by index). The answer is therefore exactly that of the
// definition and does not depend on the order in which tiles ran (tiles run
// in parallel, rows updated under a lock per row block).
//
// Once ctx is cancelled no tile starts and nil is returned (the caller
// returns ctx's error).
func symmetricKNN(ctx context.Context, x *mat.Dense, k int, norms []float64, c float64) [][]cand {
	n, d := x.Dims()
	nb := (n + symTile - 1) / symTile
	type rowState struct {
		ub    upperHeap
		cands []symCand
	}
	rows := make([]rowState, n)
	locks := make([]sync.Mutex, nb)
	type tile struct{ i, j int }
	var tiles []tile
	for i := 0; i < nb; i++ {
		for j := i; j < nb; j++ {
			tiles = append(tiles, tile{i, j})
		}
	}
	raw := x.RawMatrix()
	update := func(r int, j int, lo, hi float64) {
		st := &rows[r]
		if st.ub.Len() < k {
			heap.Push(&st.ub, hi)
		} else if hi < st.ub[0] {
			st.ub[0] = hi
			heap.Fix(&st.ub, 0)
		}
		if st.ub.Len() < k || lo <= st.ub[0] {
			st.cands = append(st.cands, symCand{lo: lo, j: j})
			if len(st.cands) > 8*k+64 { // prune against the current threshold
				thr := st.ub[0]
				keep := st.cands[:0]
				for _, cd := range st.cands {
					if cd.lo <= thr {
						keep = append(keep, cd)
					}
				}
				st.cands = keep
			}
		}
	}
	par.Tasks(len(tiles), func(t int) {
		if ctx.Err() != nil {
			return
		}
		ti := tiles[t]
		i0, i1 := ti.i*symTile, min((ti.i+1)*symTile, n)
		j0, j1 := ti.j*symTile, min((ti.j+1)*symTile, n)
		dots := make([]float64, (i1-i0)*(j1-j0))
		gemm.DgemmTile(blas.NoTrans, blas.Trans, i1-i0, j1-j0, d, 1,
			raw.Data[i0*raw.Stride:], raw.Stride, raw.Data[j0*raw.Stride:], raw.Stride, 0, dots, j1-j0)
		w := j1 - j0
		locks[ti.i].Lock()
		for p := i0; p < i1; p++ {
			for q := j0; q < j1; q++ {
				if p == q {
					continue
				}
				ap := norms[p] + norms[q] - 2*dots[(p-i0)*w+q-j0]
				bd := c * (norms[p] + norms[q])
				update(p, q, ap-bd, ap+bd)
			}
		}
		locks[ti.i].Unlock()
		if ti.i == ti.j {
			return
		}
		locks[ti.j].Lock()
		for q := j0; q < j1; q++ {
			for p := i0; p < i1; p++ {
				ap := norms[p] + norms[q] - 2*dots[(p-i0)*w+q-j0]
				bd := c * (norms[p] + norms[q])
				update(q, p, ap-bd, ap+bd)
			}
		}
		locks[ti.j].Unlock()
	})
	if ctx.Err() != nil {
		return nil
	}
	res := make([][]cand, n)
	par.Blocks(n, queryBlock, func(lo, hi int) {
		buf := make([]cand, 0, 4*k)
		for i := lo; i < hi; i++ {
			st := &rows[i]
			thr := st.ub[0]
			buf = buf[:0]
			for _, cd := range st.cands {
				if cd.lo <= thr {
					buf = append(buf, cand{sqDist(x.RawRowView(i), x.RawRowView(cd.j)), cd.j})
				}
			}
			res[i] = pick(buf, query{k: k})
		}
	})
	return res
}

type symCand struct {
	lo float64
	j  int
}

// upperHeap is a max-heap of upper bounds.
type upperHeap []float64

func (h upperHeap) Len() int           { return len(h) }
func (h upperHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h upperHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *upperHeap) Push(v any)        { *h = append(*h, v.(float64)) }
func (h *upperHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
