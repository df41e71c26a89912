package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"math"

	"github.com/dimred/dimred/internal/par"
)

// sytrdPanel is the number of columns reduced between two trailing
// updates of sytrdLower (LAPACK's nb for dsytrd is 32).
const sytrdPanel = 32

// sytrdLower reduces the symmetric n×n matrix whose lower triangle is
// stored row-major in a (leading dimension lda) to tridiagonal form
// T = Qᵀ·A·Q. On return d and e hold the diagonal and off-diagonal of T,
// and the reflectors H_i = I − τ_i·v·vᵀ with Q = H_0·…·H_{n−2}, v[i+1] = 1
// implied and v[i+2:] stored in a[i+2:n, i], exactly as gonum's (and
// LAPACK's) Dsytrd with uplo = Lower leaves them, so Dormqr/Dorgtr apply Q.
// Unlike Dsytrd, a[i+1, i] is not overwritten with e[i] and the strict
// upper triangle is used as scratch.
//
// The algorithm is LAPACK's blocked reduction (dsytrd/dlatrd; Dongarra,
// Hammarling & Sorensen 1989): panels of 32 columns are reduced one column
// at a time against the not yet updated trailing matrix, accumulating
// W such that the trailing update is A ← A − V·Wᵀ − W·Vᵀ, which is then
// applied once per panel. It differs from gonum's Dsytrd in how the two
// kernels that hold all the n³ flops are computed, both in parallel and
// deterministically:
//   - the matrix–vector product A₂₂·v of every column (half the flops,
//     memory bound) reads the lower triangle once, row by row, in blocks of
//     rows each adding its row and transposed contributions to a private
//     vector; the private vectors are then summed in block order (symv);
//   - the rank-2·32 trailing update (the other half) runs as tile products
//     [V W]·[W V]ᵀ in the A·Bᵀ form of gonum's dgemm, spread over tiles
//     like the Cholesky update.
//
// st (nil: none) is told the fraction of the flops done after each panel,
// 1 − ((n − c)/n)³ with c columns reduced, and stops the reduction when
// its context is cancelled (the output is then incomplete; st.halted).
func sytrdLower(n int, a []float64, lda int, d, e, tau []float64, st *stage) {
	impl := lapackgo.Implementation{}
	bi := blas64.Implementation()
	nb := sytrdPanel
	// Panel buffers, row-major n×nb: column j of vp is the reflector vector
	// of the panel's column j (zero above its unit entry), of wp its w.
	vp := make([]float64, n*nb)
	wp := make([]float64, n*nb)
	y := make([]float64, n)
	v := make([]float64, n)
	sym := newSymv(n)
	for k0 := 0; k0 < n; k0 += nb {
		kb := min(nb, n-k0)
		clear(vp)
		clear(wp)
		for j := 0; j < kb; j++ {
			c := k0 + j
			// 1. Bring column c (rows c..n−1) up to date with the panel's
			//    earlier reflectors: a[i,c] −= V[i,:j]·W[c,:j] + W[i,:j]·V[c,:j].
			if j > 0 {
				vc, wc := vp[c*nb:c*nb+j], wp[c*nb:c*nb+j]
				for i := c; i < n; i++ {
					a[i*lda+c] -= floats.Dot(vp[i*nb:i*nb+j], wc) + floats.Dot(wp[i*nb:i*nb+j], vc)
				}
			}
			d[c] = a[c*lda+c]
			if c == n-1 {
				break
			}
			// 2. Reflector annihilating a[c+2:, c].
			m := n - c - 1
			x := v[:m]
			for i := 0; i < m; i++ {
				x[i] = a[(c+1+i)*lda+c]
			}
			beta, t := impl.Dlarfg(m, x[0], x[1:], 1)
			e[c], tau[c] = beta, t
			x[0] = 1
			for i := 1; i < m; i++ {
				a[(c+1+i)*lda+c] = x[i]
			}
			if t == 0 {
				// H = I: w = 0, v still recorded for the panel update.
				for i := 0; i < m; i++ {
					vp[(c+1+i)*nb+j] = x[i]
				}
				continue
			}
			// 3. w = τ·(A₂₂·v − V·(Wᵀv) − W·(Vᵀv)), then
			//    w −= (τ/2)·(wᵀv)·v, A₂₂ = a[c+1:, c+1:] not yet updated.
			w := y[:m]
			sym.mul(a, lda, c+1, x, w)
			if j > 0 {
				var t1, t2 [sytrdPanel]float64
				for i := 0; i < m; i++ {
					r := (c + 1 + i) * nb
					floats.AddScaled(t1[:j], x[i], wp[r:r+j])
					floats.AddScaled(t2[:j], x[i], vp[r:r+j])
				}
				for i := 0; i < m; i++ {
					r := (c + 1 + i) * nb
					w[i] -= floats.Dot(vp[r:r+j], t1[:j]) + floats.Dot(wp[r:r+j], t2[:j])
				}
			}
			floats.Scale(t, w)
			alpha := -0.5 * t * floats.Dot(w, x)
			floats.AddScaled(w, alpha, x)
			for i := 0; i < m; i++ {
				r := (c+1+i)*nb + j
				vp[r], wp[r] = x[i], w[i]
			}
		}
		// Trailing update A[k1:, k1:] −= V·Wᵀ + W·Vᵀ on lower tiles.
		k1 := k0 + kb
		rest := n - k1
		if rest <= 0 {
			break
		}
		if left := float64(rest) / float64(n); !st.done(1 - left*left*left) {
			return
		}
		// xw = [V W], wv = [W V] for rows k1..n−1, each row 2·kb long.
		xw := make([]float64, rest*2*kb)
		wv := make([]float64, rest*2*kb)
		for i := 0; i < rest; i++ {
			r := (k1 + i) * nb
			o := i * 2 * kb
			copy(xw[o:o+kb], vp[r:r+kb])
			copy(xw[o+kb:o+2*kb], wp[r:r+kb])
			copy(wv[o:o+kb], wp[r:r+kb])
			copy(wv[o+kb:o+2*kb], vp[r:r+kb])
		}
		nt := (rest + denseTile - 1) / denseTile
		par.Blocks(nt*(nt+1)/2, 1, func(t, _ int) {
			p, q := triIndex(t)
			r0, c0 := p*denseTile, q*denseTile
			mr, mc := min(denseTile, rest-r0), min(denseTile, rest-c0)
			bi.Dgemm(blas.NoTrans, blas.Trans, mr, mc, 2*kb, -1,
				xw[r0*2*kb:], 2*kb, wv[c0*2*kb:], 2*kb, 1, a[(k1+r0)*lda+k1+c0:], lda)
		})
	}
}

// symvBlocks is the most row blocks of the parallel symv, and
// symvMinRows the fewest rows a block gets: the blocks depend on the
// order alone, never on the number of CPUs, so the sums are the same
// whatever GOMAXPROCS.
const (
	symvBlocks  = 16
	symvMinRows = 64
)

// symv computes y = S·v for the trailing lower triangle S = a[s:, s:] of a
// row-major matrix, in parallel and deterministically.
//
// It reads S once, row by row: each row i gives y[i] its dot product with
// v and adds v[i] times the row to y[:i] (the upper triangle's share).
// Rows are split into blocks of equal area, each adding into a private
// vector; the private vectors are then summed in block order. Reading
// whole rows is what makes it as fast as the memory: the column stripes
// it replaced read 64 values a row down a column, a new page each time,
// and ran at half the bandwidth (BenchmarkSymv, docs/performance.md).
type symv struct {
	priv   []float64 // private accumulators, one n-vector per block
	bounds []int
}

func newSymv(n int) *symv {
	return &symv{priv: make([]float64, symvBlocks*n), bounds: make([]int, symvBlocks+1)}
}

// mul sets y = S·v, S = a[s:n, s:n] (lower triangle), v and y of length
// m = n − s.
func (sv *symv) mul(a []float64, lda, s int, v, y []float64) {
	m := len(v)
	nb := max(1, min(symvBlocks, m/symvMinRows))
	bounds := sv.bounds[:nb+1]
	for k := 1; k < nb; k++ {
		// Rows 0..r−1 hold r(r+1)/2 values: equal areas at r ≈ m·√(k/nb).
		bounds[k] = int(float64(m) * math.Sqrt(float64(k)/float64(nb)))
	}
	bounds[0], bounds[nb] = 0, m
	par.Blocks(nb, 1, func(b, _ int) {
		r0, r1 := bounds[b], bounds[b+1]
		acc := sv.priv[b*m : b*m+r1]
		clear(acc)
		for i := r0; i < r1; i++ {
			row := a[(s+i)*lda+s : (s+i)*lda+s+i+1]
			acc[i] += floats.Dot(row, v[:i+1])
			floats.AddScaled(acc[:i], v[i], row[:i])
		}
	})
	clear(y)
	for b := 0; b < nb; b++ {
		r1 := bounds[b+1]
		floats.Add(y[:r1], sv.priv[b*m:b*m+r1])
	}
}

// larftForward forms the upper triangular k×k factor T (row-major,
// leading dimension ldt) of the block reflector
// H = H_0·…·H_{k−1} = I − V·T·Vᵀ, where H_i = I − tau_i·v_i·v_iᵀ and v_i
// is column i of the m×k unit lower trapezoidal V (v_i[i] = 1 implied,
// v_i[:i] = 0 implied, v_i[i+1:] stored; nothing on or above the diagonal
// of v is read). It is LAPACK's dlarft for Forward, ColumnWise storage
// without the skipping of trailing zero rows: gonum v0.17.0's Dlarft
// resets that bookkeeping after column 1 instead of column 0 (`i > 1`
// where LAPACK's one-based test I > 1 means i > 0), so that a column 1
// ending in more exact zeros than column 0 truncates the products of the
// later columns and gives a wrong T. It happened in the tridiagonal
// reduction of a rank-n/2 projection. With no trailing zeros the
// operations, and so the results, are those of gonum's Dlarft.
func larftForward(m, k int, v []float64, ldv int, tau, t []float64, ldt int) {
	bi := blas64.Implementation()
	for i := 0; i < k; i++ {
		if tau[i] == 0 {
			for j := 0; j <= i; j++ {
				t[j*ldt+i] = 0
			}
			continue
		}
		// T[:i, i] = −tau_i·V[i:, :i]ᵀ·v_i (v_i[i] = 1), then
		// T[:i, i] ← T[:i, :i]·T[:i, i].
		for j := 0; j < i; j++ {
			t[j*ldt+i] = -tau[i] * v[i*ldv+j]
		}
		if i+1 < m {
			bi.Dgemv(blas.Trans, m-1-i, i, -tau[i], v[(i+1)*ldv:], ldv, v[(i+1)*ldv+i:], ldv, 1, t[i:], ldt)
		}
		bi.Dtrmv(blas.Upper, blas.NoTrans, blas.NonUnit, i, t, ldt, t[i:], ldt)
		t[i*ldt+i] = tau[i]
	}
}
