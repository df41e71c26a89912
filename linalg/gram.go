package linalg

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/par"
)

const (
	// gramTile is the tile size of CrossProduct: the p×p output is computed
	// in tiles of this many rows and columns, each by matrix products, so
	// the result does not depend on the number of workers.
	gramTile = 128
	// gramChunk is the number of rows of X transposed at a time: the
	// products read contiguous rows of Xᵀ (gonum's fast A·Bᵀ form) while
	// the copy stays O(gramChunk·p) however tall X is.
	gramChunk = 2048
)

// CrossProduct returns XᵀX (p×p) for an n×p matrix X: the scatter matrix
// of centred rows, the normal equations of a ridge regression. Only the
// tiles on and above the diagonal are computed (half the flops of a full
// product), in parallel, accumulating over chunks of rows in a fixed
// order; the lower triangle of the result's storage is zero. Bit-identical
// whatever GOMAXPROCS is; 2.2× gonum's serial Dsyrk at 10000×784
// (measured).
func CrossProduct(x *mat.Dense) *mat.SymDense {
	out, _ := symTransMul(x, x, nil) // a nil stage is never cancelled
	return out
}

// SymTransMul returns Aᵀ·B (p×p) for n×p matrices A and B whose product
// is symmetric, B = G·A for a symmetric G: the matrices Φᵀ·G·Φ of graph
// embedding. Like CrossProduct it computes only the tiles on and above
// the diagonal, half the flops of the full product followed by
// Symmetrize and without their two p×p intermediates; the result is Aᵀ·B's upper
// triangle as computed, not the average of the two triangles. ctx
// (nil: none) reports the product's progress under the name what, once
// per chunk of rows, and stops it between chunks when cancelled (the
// error wraps ctx's). Bit-identical whatever GOMAXPROCS is.
func SymTransMul(ctx context.Context, a, b *mat.Dense, what string) (*mat.SymDense, error) {
	n, p := a.Dims()
	if nb, q := b.Dims(); nb != n || q != p {
		panic(fmt.Sprintf("linalg: SymTransMul of %d×%d and %d×%d", n, p, nb, q))
	}
	st := newStage(ctx, p, what)
	st.begin(fmt.Sprintf("products over %d rows", n))
	out, err := symTransMul(a, b, st)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// symTransMul is the upper triangle of Aᵀ·B in tiles of gramTile,
// accumulated over chunks of gramChunk rows transposed into contiguous
// storage (one buffer when b is a). st reports after each chunk and stops
// the product between chunks when its context is cancelled; the error
// then comes with the sums of the chunks done (only what a test looks at).
func symTransMul(a, b *mat.Dense, st *stage) (*mat.SymDense, error) {
	n, p := a.Dims()
	out := mat.NewSymDense(p, nil)
	raw := out.RawSymmetric()
	nt := (p + gramTile - 1) / gramTile
	type tile struct{ i, j int }
	var tiles []tile
	for i := 0; i < nt; i++ {
		for j := i; j < nt; j++ {
			tiles = append(tiles, tile{i, j})
		}
	}
	at := mat.NewDense(p, min(gramChunk, max(n, 1)), nil)
	bt := at
	if b != a {
		bt = mat.NewDense(p, min(gramChunk, max(n, 1)), nil)
	}
	for lo := 0; lo < n; lo += gramChunk {
		if !st.done(float64(lo) / float64(n)) {
			return out, st.err()
		}
		hi := min(lo+gramChunk, n)
		c := hi - lo
		at.Slice(0, p, 0, c).(*mat.Dense).Copy(a.Slice(lo, hi, 0, p).T())
		if b != a {
			bt.Slice(0, p, 0, c).(*mat.Dense).Copy(b.Slice(lo, hi, 0, p).T())
		}
		ar, br := at.RawMatrix(), bt.RawMatrix()
		par.Tasks(len(tiles), func(k int) {
			t := tiles[k]
			i0, i1 := t.i*gramTile, min((t.i+1)*gramTile, p)
			j0, j1 := t.j*gramTile, min((t.j+1)*gramTile, p)
			x := blas64.General{Rows: i1 - i0, Cols: c, Stride: ar.Stride, Data: ar.Data[i0*ar.Stride:]}
			y := blas64.General{Rows: j1 - j0, Cols: c, Stride: br.Stride, Data: br.Data[j0*br.Stride:]}
			cc := blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: raw.Stride, Data: raw.Data[i0*raw.Stride+j0:]}
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, x, y, 1, cc)
		})
	}
	if err := st.err(); err != nil {
		return out, err
	}
	// Diagonal tiles were computed whole: clear their lower triangles.
	for i := 0; i < p; i++ {
		t0 := (i / gramTile) * gramTile
		for j := t0; j < i; j++ {
			raw.Data[i*raw.Stride+j] = 0
		}
	}
	return out, nil
}
