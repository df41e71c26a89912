package linalg

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"

	"github.com/dimred/dimred/internal/par"
)

// Every eigenpair of a symmetric tridiagonal matrix by divide and conquer:
// Cuppen's method (Numer. Math. 36, 1981) with the deflation of Dongarra &
// Sorensen (SIAM J. Sci. Stat. Comput. 8, 1987), the secular-equation
// solver of R.-C. Li ("Solving secular equations stably and efficiently",
// LAPACK Working Note 89, 1993) and the eigenvectors of Gu & Eisenstat
// (SIAM J. Matrix Anal. Appl. 16, 1995), which are orthogonal to working
// precision however close the eigenvalues are. The organisation follows
// LAPACK's dstedc/dlaed0–dlaed4 (studied, not transcribed); the code is
// dimred's own, row-major, deterministic and parallel.

var (
	// dcLeaf is the largest subproblem solved directly, by the implicit QR
	// algorithm (gonum's Dsteqr), at the leaves of the divide-and-conquer
	// tree (LAPACK's smlsiz = 25). A variable so that tests can build deep
	// trees on small matrices.
	dcLeaf = 25
	// dcMinSize: symEigK keeps gonum's EigenSym for full decompositions of
	// n ≤ dcMinSize, where it is as fast and the outputs stay as they were.
	dcMinSize = 64
	// dcCheckFactor: the final checks accept residuals
	// ‖T·z − λ·z‖ ≤ dcCheckFactor·n·ε·‖T‖ and orthogonality probes
	// ‖(ZᵀZ − I)·x‖ ≤ dcCheckFactor·n·ε·‖x‖ (a variable so that a test
	// can make every check fail and exercise the fallback).
	dcCheckFactor = 64.0
)

const (
	// secularMaxIter bounds the iterations of one root of the secular
	// equation (LAPACK: 30). Every step is kept inside a bracket of the
	// root and the bracket at least halves on a bisection step, so the
	// bound is only reached by a broken input.
	secularMaxIter = 100
)

// dcMaxIter records the largest number of iterations a secular root took
// (for tests).
var dcMaxIter atomic.Int64

// recordIter raises dcMaxIter to it.
func recordIter(it int) {
	for old := dcMaxIter.Load(); int64(it) > old; old = dcMaxIter.Load() {
		if dcMaxIter.CompareAndSwap(old, int64(it)) {
			return
		}
	}
}

// tridiagDC returns every eigenvalue (ascending) of the symmetric
// tridiagonal matrix T with diagonal d and off-diagonal e
// (len(e) = len(d) − 1; neither is modified) and the n×n row-major matrix
// z whose columns are the matching unit eigenvectors. ok is false when an
// internal check failed (a secular root did not converge, a recomputed
// ẑ_i² was not positive, or the final residual or orthogonality check
// failed); the caller then uses the QR algorithm instead.
//
// Algorithm:
//  1. T is split into unreduced blocks where |e_i| ≤ ε·√|d_i·d_{i+1}|;
//     blocks are independent (and solved in parallel). A block of at most
//     dcLeaf rows goes to Dsteqr; a larger one is scaled by a power of two
//     (exact) to max-entry in [½, 1) and solved by dcTree.solve.
//  2. solve(lo, hi) tears T at mid = lo + ⌊m/2⌋ by a rank-one term:
//     with β = e[mid−1], T = diag(T₁ − |β|·e_last·e_lastᵀ,
//     T₂ − |β|·e₁·e₁ᵀ) + |β|·u·uᵀ, u = (…0, 1 | sign β, 0…). The two
//     halves are solved recursively (in parallel; each is computed the
//     same way whatever the number of workers), giving
//     T = Q·(D + ρ·z·zᵀ)·Qᵀ with Q = diag(Q₁, Q₂), D = diag(D₁, D₂),
//     z = (last row of Q₁, sign β·first row of Q₂)/√2 (‖z‖ = 1) and
//     ρ = 2|β|; merge then solves the rank-one problem.
//  3. merge, deflation (Dongarra & Sorensen; dlaed2): with
//     tol = 64·ε·max(max|d_i|, max|z_i|), an index with ρ·|z_i| ≤ tol is
//     deflated (its eigenpair is d_i, Q·e_i); in ascending order of d, two
//     consecutive surviving indices p, j with Givens rotation G (c = z_j/τ,
//     s = −z_p/τ, τ = hypot(z_p, z_j)) such that |(d_j − d_p)·c·s| ≤ tol
//     are rotated (columns p, j of Q; z_p ← 0, z_j ← τ, d_p and d_j take
//     the diagonal of GᵀDG) and p is deflated. The K survivors then have
//     poles at least 2·tol apart and ρ·|z_i| > tol; z is renormalised
//     (ρ ← ρ·‖z‖², z ← z/‖z‖).
//  4. The K roots λ_j of the secular equation
//     f(λ) = 1/ρ + Σ z_i²/(d_i − λ) = 0, d_j < λ_j < d_{j+1}
//     (λ_K < d_K + ρ), by secularEq.root, in parallel, each with its
//     differences δ_i = d_i − λ_j computed from the nearer pole.
//  5. Gu–Eisenstat: the z for which the computed λ are the exact
//     eigenvalues (Löwner's formula),
//     ẑ_i² = −(d_i − λ_i)·∏_{j≠i} (d_i − λ_j)/(d_i − d_j) / ρ,
//     sign ẑ_i = sign z_i, and the eigenvectors of D + ρ·ẑ·ẑᵀ,
//     u_j = (ẑ_i/(d_i − λ_j))_i / ‖·‖, which are orthogonal to working
//     precision because every entry has a small relative error.
//  6. The new vectors Q·U by two matrix products (gemmNT: gonum's dgemm
//     on tiles, in parallel) that skip the zero blocks of Q (dlaed3): the
//     columns of Q are grouped as non-zero in the top half only, in both
//     halves (mixed by a rotation), or in the bottom half only, so the
//     top rows cost n₁·(c₁+c₂)·K and the bottom rows n₂·(c₂+c₃)·K
//     multiply-adds. Deflated columns are copied, and the m pairs are
//     written back sorted by eigenvalue.
//  7. Checks on the whole of T: every ‖T·z_j − λ_j·z_j‖ ≤ 64·n·ε·‖T‖,
//     and ‖(ZᵀZ − I)·x‖ ≤ 64·n·ε·‖x‖ for two pseudo-random probes x
//     (O(n²) in all).
//
// The cost is that of the matrix products: 4n³/3 flops without
// deflation (random matrices deflate little), less as deflation grows
// (clustered, graded or low-rank spectra). Block boundaries, the order of
// every sum and the split of parallel work depend only on n, so the
// result is bit-identical whatever GOMAXPROCS is.
//
// st (nil: none) hears the fraction of the merges' work done, counting a
// merge of order m as m³ (the products of step 6 without deflation) and
// crediting it tile by tile, and stops the recursion and the products'
// tiles when its context is cancelled: ok is then false and st.err says
// why.
func tridiagDC(d, e []float64, st *stage) (vals, z []float64, ok bool) {
	n := len(d)
	if n == 0 || len(e) < n-1 {
		return nil, nil, false
	}
	for i := 0; i < n; i++ {
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) || (i < n-1 && (math.IsNaN(e[i]) || math.IsInf(e[i], 0))) {
			return nil, nil, false
		}
	}
	t := &dcTree{n: n, d: append([]float64(nil), d...), e: make([]float64, max(n-1, 1)), q: make([]float64, n*n)}
	copy(t.e, e[:n-1])
	// Unreduced blocks.
	starts := []int{0}
	for i := 0; i < n-1; i++ {
		if math.Abs(t.e[i]) <= machEps*math.Sqrt(math.Abs(t.d[i]))*math.Sqrt(math.Abs(t.d[i+1])) {
			t.e[i] = 0
			starts = append(starts, i+1)
		}
	}
	starts = append(starts, n)
	nblk := len(starts) - 1
	work := 0.0
	for b := 0; b < nblk; b++ {
		work += dcWork(starts[b+1] - starts[b])
	}
	st.begin("eigenpairs of the tridiagonal matrix (divide and conquer)")
	t.sh = st.share(0, 1, work)
	fails := make([]bool, nblk)
	par.Tasks(nblk, func(b int) {
		fails[b] = !t.block(starts[b], starts[b+1])
	})
	for _, f := range fails {
		if f {
			return nil, nil, false
		}
	}
	vals = t.d
	z = t.q
	if nblk > 1 {
		vals, z = sortPairs(n, vals, z)
	}
	if !dcCheck(d, e, vals, z) {
		return nil, nil, false
	}
	return vals, z, true
}

// dcTree holds the working copy of T and the eigenvector matrix: the
// subproblem on rows [lo, hi) keeps its vectors in the diagonal block
// q[lo:hi, lo:hi] (row-major, leading dimension n) and its eigenvalues,
// ascending, in d[lo:hi].
type dcTree struct {
	n    int
	d, e []float64
	q    []float64
	sh   *share // progress and cancellation (nil: none)
}

// dcWork is the work dcTree.solve counts for a block of order m: m³ per
// merge, over the tree of halvings down to the leaves.
func dcWork(m int) float64 {
	if m <= dcLeaf {
		return 0
	}
	return float64(m)*float64(m)*float64(m) + dcWork(m/2) + dcWork(m-m/2)
}

// block solves the unreduced block [b0, b1).
func (t *dcTree) block(b0, b1 int) bool {
	m := b1 - b0
	if m <= dcLeaf {
		return t.leaf(b0, b1)
	}
	anorm := 0.0
	for i := b0; i < b1; i++ {
		anorm = max(anorm, math.Abs(t.d[i]))
		if i < b1-1 {
			anorm = max(anorm, math.Abs(t.e[i]))
		}
	}
	_, exp := math.Frexp(anorm)
	s := math.Ldexp(1, -exp) // power of two: the scaling is exact
	for i := b0; i < b1; i++ {
		t.d[i] *= s
		if i < b1-1 {
			t.e[i] *= s
		}
	}
	if !t.solve(b0, b1) {
		return false
	}
	for i := b0; i < b1; i++ {
		t.d[i] /= s
	}
	return true
}

// leaf solves [lo, hi) by the implicit QR algorithm.
func (t *dcTree) leaf(lo, hi int) bool {
	m := hi - lo
	e := append([]float64(nil), t.e[lo:lo+max(m-1, 0)]...)
	work := make([]float64, max(1, 2*m-2))
	return lapackgo.Implementation{}.Dsteqr(lapack.EVTridiag, m, t.d[lo:hi], e, t.q[lo*t.n+lo:], t.n, work)
}

// solve computes the eigenpairs of the unreduced part [lo, hi).
func (t *dcTree) solve(lo, hi int) bool {
	m := hi - lo
	if m <= dcLeaf {
		return t.leaf(lo, hi)
	}
	if !t.sh.ok() {
		return false
	}
	mid := lo + m/2
	beta := t.e[mid-1]
	t.d[mid-1] -= math.Abs(beta)
	t.d[mid] -= math.Abs(beta)
	var ok [2]bool
	par.Tasks(2, func(i int) {
		if i == 0 {
			ok[0] = t.solve(lo, mid)
		} else {
			ok[1] = t.solve(mid, hi)
		}
	})
	if !ok[0] || !ok[1] {
		return false
	}
	return t.merge(lo, mid, hi, beta)
}

// Column kinds of the merge (dlaed2's coltyp): where a column of
// diag(Q₁, Q₂) is non-zero, or that it is deflated.
const (
	colTop = iota
	colBoth
	colBottom
	colDeflated
)

// merge combines the solved halves [lo, mid) and [mid, hi), coupled by
// beta, into the eigenpairs of [lo, hi) (steps 3–6 of tridiagDC).
func (t *dcTree) merge(lo, mid, hi int, beta float64) bool {
	n, q := t.n, t.q
	m, n1 := hi-lo, mid-lo
	d := t.d[lo:hi]
	// z = (last row of Q₁, sign β·first row of Q₂)/√2, ρ = 2|β|.
	z := make([]float64, m)
	s1, s2 := 1/math.Sqrt2, 1/math.Sqrt2
	if beta < 0 {
		s2 = -s2
	}
	for i := 0; i < n1; i++ {
		z[i] = s1 * q[(mid-1)*n+lo+i]
	}
	for i := n1; i < m; i++ {
		z[i] = s2 * q[mid*n+lo+i]
	}
	rho := 2 * math.Abs(beta)

	// Ascending order of d (merging the two sorted halves).
	order := make([]int, m)
	for k, i, j := 0, 0, n1; k < m; k++ {
		if j >= m || (i < n1 && d[i] <= d[j]) {
			order[k], i = i, i+1
		} else {
			order[k], j = j, j+1
		}
	}
	kind := make([]int8, m)
	for i := n1; i < m; i++ {
		kind[i] = colBottom
	}
	dmax, zmax := 0.0, 0.0
	for i := 0; i < m; i++ {
		dmax, zmax = max(dmax, math.Abs(d[i])), max(zmax, math.Abs(z[i]))
	}
	tol := 64 * machEps * max(dmax, zmax)

	// Deflation.
	var keep, defl []int // surviving columns in ascending order; deflated
	if rho*zmax <= tol {
		defl = order
	} else {
		p := -1
		for _, j := range order {
			if rho*math.Abs(z[j]) <= tol {
				kind[j] = colDeflated
				defl = append(defl, j)
				continue
			}
			if p < 0 {
				p = j
				continue
			}
			tau := math.Hypot(z[p], z[j])
			c, s := z[j]/tau, -z[p]/tau
			if math.Abs((d[j]-d[p])*c*s) > tol {
				keep = append(keep, p)
				p = j
				continue
			}
			// Rotate columns p and j: q_p ← c·q_p + s·q_j,
			// q_j ← c·q_j − s·q_p; then z_p = 0, z_j = τ.
			for r := lo; r < hi; r++ {
				x, y := q[r*n+lo+p], q[r*n+lo+j]
				q[r*n+lo+p], q[r*n+lo+j] = c*x+s*y, c*y-s*x
			}
			z[p], z[j] = 0, tau
			dp := d[p]*c*c + d[j]*s*s
			d[j] = d[p]*s*s + d[j]*c*c
			d[p] = dp
			if kind[p] != kind[j] {
				kind[j] = colBoth
			}
			kind[p] = colDeflated
			defl = append(defl, p)
			p = j
		}
		if p >= 0 {
			keep = append(keep, p)
		}
	}
	k := len(keep)
	// Deflated pairs, ascending (stable: ties keep the order above).
	sort.SliceStable(defl, func(a, b int) bool { return d[defl[a]] < d[defl[b]] })
	nd := len(defl)
	dfl := make([]float64, m*nd)
	for r := 0; r < m; r++ {
		row := q[(lo+r)*n+lo:]
		for c, j := range defl {
			dfl[r*nd+c] = row[j]
		}
	}
	dvals := make([]float64, nd)
	for c, j := range defl {
		dvals[c] = d[j]
	}
	lam := make([]float64, k)
	credit := float64(m) * float64(m) * float64(m)
	if k > 0 {
		left, ok := t.secularMerge(lo, mid, hi, keep, kind, z, rho, lam, credit)
		if !ok {
			return false
		}
		credit = left
	}
	t.sh.add(credit)
	// Write the m pairs back, sorted: roots (now in q[:, lo:lo+k]) and
	// deflated columns (dfl), merged by value; ties put the root first.
	src := make([]int, m) // ≥ 0: root column; < 0: −1 − deflated column
	for c, i, j := 0, 0, 0; c < m; c++ {
		if j >= nd || (i < k && lam[i] <= dvals[j]) {
			d[c], src[c], i = lam[i], i, i+1
		} else {
			d[c], src[c], j = dvals[j], -1-j, j+1
		}
	}
	par.Blocks(m, 64, func(r0, r1 int) {
		tmp := make([]float64, k)
		for r := r0; r < r1; r++ {
			row := q[(lo+r)*n+lo : (lo+r)*n+hi]
			copy(tmp, row[:k])
			for c, s := range src {
				if s >= 0 {
					row[c] = tmp[s]
				} else {
					row[c] = dfl[r*nd-1-s]
				}
			}
		}
	})
	return true
}

// secularMerge solves the deflated rank-one problem of the k = len(keep)
// surviving columns (ascending d) and leaves the new eigenvectors, in the
// order of their eigenvalues lam, in q[lo:hi, lo:lo+k] (steps 4–6). The
// products' tiles share credit, the merge's work for t.sh, and stop when
// it is cancelled; left is the credit no tile took.
func (t *dcTree) secularMerge(lo, mid, hi int, keep []int, kind []int8, z []float64, rho float64, lam []float64, credit float64) (left float64, ok bool) {
	n, q := t.n, t.q
	m, n1 := hi-lo, mid-lo
	n2 := m - n1
	k := len(keep)
	d := t.d[lo:hi]
	dl, zl := make([]float64, k), make([]float64, k)
	for i, j := range keep {
		dl[i], zl[i] = d[j], z[j]
	}
	nz := floats.Norm(zl, 2)
	floats.Scale(1/nz, zl)
	rho *= nz * nz

	// Group the surviving columns by kind (top, both, bottom); gpos[i] is
	// the place of survivor i in that grouping, gcol the column there.
	var cnt [3]int
	for _, j := range keep {
		cnt[kind[j]]++
	}
	next := [3]int{0, cnt[0], cnt[0] + cnt[1]}
	gpos, gcol := make([]int, k), make([]int, k)
	for i, j := range keep {
		g := next[kind[j]]
		next[kind[j]]++
		gpos[i], gcol[g] = g, j
	}
	c12, c23 := cnt[0]+cnt[1], cnt[1]+cnt[2]

	// Roots: row j of u is first δ_i = d_i − λ_j.
	u := make([]float64, k*k)
	if k == 1 {
		lam[0] = dl[0] + rho*zl[0]*zl[0]
		u[0] = 1
	} else {
		sec := secularEq{d: dl, z: zl, rho: rho}
		conv := make([]bool, k)
		par.Blocks(k, 8, func(j0, j1 int) {
			for j := j0; j < j1; j++ {
				var it int
				lam[j], it, conv[j] = sec.root(j, u[j*k:(j+1)*k])
				recordIter(it)
			}
		})
		for _, c := range conv {
			if !c {
				return credit, false
			}
		}
		// Löwner: ẑ_i² = −δ_i(λ_i)·∏_{j≠i} δ_i(λ_j)/(d_i − d_j) (times 1/ρ,
		// which the normalisation below removes).
		zh := make([]float64, k)
		bad := make([]bool, k)
		par.Blocks(k, 256, func(i0, i1 int) {
			w := zh[i0:i1]
			for i := i0; i < i1; i++ {
				w[i-i0] = u[i*k+i]
			}
			for j := 0; j < k; j++ {
				row := u[j*k : (j+1)*k]
				for i := i0; i < i1; i++ {
					if i != j {
						w[i-i0] *= row[i] / (dl[i] - dl[j])
					}
				}
			}
			for i := i0; i < i1; i++ {
				v := -w[i-i0]
				if !(v > 0) || math.IsInf(v, 0) {
					bad[i] = true
					continue
				}
				w[i-i0] = math.Copysign(math.Sqrt(v), zl[i])
			}
		})
		for _, b := range bad {
			if b {
				return credit, false
			}
		}
		// Vectors u_j = (ẑ_i/δ_i(λ_j))_i/‖·‖, stored as row j of u with
		// entry i at gpos[i].
		par.Blocks(k, 16, func(j0, j1 int) {
			tmp := make([]float64, k)
			for j := j0; j < j1; j++ {
				row := u[j*k : (j+1)*k]
				for i := range tmp {
					tmp[i] = zh[i] / row[i]
				}
				s := 1 / floats.Norm(tmp, 2)
				for i, v := range tmp {
					row[gpos[i]] = v * s
				}
			}
		})
	}

	// New vectors: top rows Q₁-part·U, bottom rows Q₂-part·U, skipping
	// the columns that are zero there, into q[lo:hi, lo:lo+k].
	tiles := 0
	for _, p := range [][2]int{{n1, c12}, {n2, c23}} {
		if p[1] > 0 {
			tiles += gemmTiles(p[0], k)
		}
	}
	var each float64
	if tiles > 0 {
		each, left = credit/float64(tiles), 0
	} else {
		left = credit
	}
	mul := func(r0, rows, g0, g1 int) {
		inner := g1 - g0
		c := q[r0*n+lo:]
		if inner == 0 {
			for r := 0; r < rows; r++ {
				clear(c[r*n : r*n+k])
			}
			return
		}
		a := make([]float64, rows*inner)
		for r := 0; r < rows; r++ {
			row := q[(r0+r)*n+lo:]
			for g := g0; g < g1; g++ {
				a[r*inner+g-g0] = row[gcol[g]]
			}
		}
		gemmNT(rows, k, inner, a, inner, u[g0:], k, c, n, t.sh, each)
	}
	mul(lo, n1, 0, c12)
	mul(mid, n2, cnt[0], cnt[0]+c23)
	return left, !t.sh.stopped()
}

// secularEq is the rank-one eigenproblem diag(d) + ρ·z·zᵀ with d strictly
// increasing, ‖z‖ = 1, every z_i ≠ 0 and ρ > 0, whose eigenvalues are the
// roots of f(λ) = 1/ρ + Σ z_i²/(d_i − λ).
type secularEq struct {
	d, z []float64
	rho  float64
}

// root returns the eigenvalue λ_j (0-based; d_j < λ_j < d_{j+1}, and
// d_{k−1} < λ_{k−1} < d_{k−1} + ρ), the number of iterations, and ok;
// delta receives d_i − λ_j for every i.
//
// The method is that of LAPACK's dlaed4 (R.-C. Li, LAWN 89): the root is
// sought as λ = d_o + τ from the pole d_o nearer to it (chosen by the sign
// of f at the middle of the interval), so that the differences
// δ_i = (d_i − d_o) − τ keep full relative accuracy; the start is the root
// of the two-pole approximation with the other poles frozen at the
// midpoint; each step takes the appropriate root of a rational model
// c + a/(δ_j − η) + b/(δ_{j+1} − η) of f through the two nearest poles
// that matches f and f′ at τ, with either the weight of the origin pole
// fixed at z_o² (the fixed-weight method) or the weights split between
// the poles left and right of the root (the middle way), switching when a
// step fails to shrink |f| tenfold. Steps are safeguarded: a step of the
// wrong sign becomes a Newton step, and one leaving the bracket of the
// root (updated from the sign of f at every iterate) is replaced by the
// geometric mean of the Newton step and half the distance to the bracket
// end, or by the latter. The iteration stops when |f| is below ε times a
// bound on the rounding error of its evaluation, or when the bracket is a
// few ulps wide. (dlaed4's occasional three-pole step, dlaed6, is not
// used: it accelerates a few hard roots, which the bracket already
// bounds.)
func (s *secularEq) root(j int, delta []float64) (lam float64, iters int, ok bool) {
	d, z := s.d, s.z
	k := len(d)
	rinv := 1 / s.rho
	last := j == k-1
	var o int
	var tau, lb, ub float64
	if !last {
		del := d[j+1] - d[j]
		mid := del / 2
		c := rinv
		for i := 0; i < k; i++ {
			if i != j && i != j+1 {
				c += z[i] * z[i] / ((d[i] - d[j]) - mid)
			}
		}
		zj2, zk2 := z[j]*z[j], z[j+1]*z[j+1]
		w := c - zj2/mid + zk2/(del-mid)
		if w > 0 {
			// d_j < λ < midpoint: origin d_j, τ ∈ (0, mid]. The start
			// solves c·τ² − a·τ + b = 0 (a root of the two-pole model).
			o, lb, ub = j, 0, mid
			a, b := c*del+zj2+zk2, zj2*del
			disc := math.Sqrt(math.Abs(a*a - 4*b*c))
			if a > 0 {
				tau = 2 * b / (a + disc)
			} else {
				tau = (a - disc) / (2 * c)
			}
		} else {
			// midpoint ≤ λ < d_{j+1}: origin d_{j+1}, τ ∈ [−mid, 0).
			o, lb, ub = j+1, -mid, 0
			a, b := c*del-zj2-zk2, zk2*del
			disc := math.Sqrt(math.Abs(a*a + 4*b*c))
			if a < 0 {
				tau = 2 * b / (a - disc)
			} else {
				tau = -(a + disc) / (2 * c)
			}
		}
	} else {
		// The last root, in (d_{k−1}, d_{k−1} + ρ): origin d_{k−1}.
		o = k - 1
		mid := s.rho / 2
		c := rinv
		for i := 0; i < k-2; i++ {
			c += z[i] * z[i] / ((d[i] - d[o]) - mid)
		}
		del := d[o] - d[o-1]
		zp2, zo2 := z[o-1]*z[o-1], z[o]*z[o]
		w := c + zp2/(-del-mid) - zo2/mid
		quad := func() float64 {
			a, b := -c*del+zp2+zo2, zo2*del
			disc := math.Sqrt(a*a + 4*b*c)
			if a < 0 {
				return 2 * b / (disc - a)
			}
			return (a + disc) / (2 * c)
		}
		if w <= 0 {
			lb, ub = mid, s.rho
			if c <= zp2/(del+s.rho)+zo2/s.rho {
				tau = s.rho
			} else {
				tau = quad()
			}
		} else {
			lb, ub = 0, mid
			tau = quad()
		}
	}
	// A start outside the bracket, or on the pole itself, is replaced by
	// the bracket's midpoint.
	if !(tau >= lb && tau <= ub) || tau == 0 {
		tau = lb + (ub-lb)/2
	}
	// The two poles around the root.
	p0, p1 := j, j+1
	if last {
		p0, p1 = k-2, k-1
	}
	middle := false // fixed weight first
	prevw := 0.0
	for it := 1; it <= secularMaxIter; it++ {
		// f(d_o + τ) = 1/ρ + ψ + φ + z_o²/δ_o, ψ over i < o, φ over i > o,
		// and the derivative split at the root: left (poles ≤ p0) and
		// right (poles ≥ p1).
		var psi, phi, dleft, dright, erret float64
		for i := 0; i < o; i++ {
			delta[i] = (d[i] - d[o]) - tau
			t := z[i] / delta[i]
			psi += z[i] * t
			dleft += t * t
			erret += math.Abs(psi)
		}
		for i := k - 1; i > o; i-- {
			delta[i] = (d[i] - d[o]) - tau
			t := z[i] / delta[i]
			phi += z[i] * t
			dright += t * t
			erret += math.Abs(phi)
		}
		delta[o] = -tau
		t := z[o] / delta[o]
		to, dto := z[o]*t, t*t
		if o == p0 {
			dleft += dto
		} else {
			dright += dto
		}
		w := rinv + psi + phi + to
		dw := dleft + dright
		erret += 8*(math.Abs(psi)+math.Abs(phi)) + 2*rinv + 3*math.Abs(to) + math.Abs(tau)*dw
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return 0, it, false
		}
		if math.Abs(w) <= machEps*erret {
			return d[o] + tau, it, true
		}
		if w <= 0 {
			lb = max(lb, tau)
		} else {
			ub = min(ub, tau)
		}
		if ub-lb <= 4*machEps*max(math.Abs(lb), math.Abs(ub)) {
			return d[o] + tau, it, true
		}
		if it > 1 && w*prevw > 0 && math.Abs(w) > math.Abs(prevw)/10 {
			middle = !middle
		}
		prevw = w
		// The step η solves C·η² − A·η + B = 0.
		d0, d1 := delta[p0], delta[p1]
		A := (d0+d1)*w - d0*d1*dw
		B := d0 * d1 * w
		var C float64
		switch {
		case middle || last:
			C = w - d0*dleft - d1*dright
		case o == p0:
			C = w - d1*dw - (d[p0]-d[p1])*dto
		default:
			C = w - d0*dw - (d[p1]-d[p0])*dto
		}
		var eta float64
		if last {
			C = math.Abs(C)
			disc := math.Sqrt(math.Abs(A*A - 4*B*C))
			switch {
			case C == 0:
				eta = -w / dw
			case A >= 0:
				eta = (A + disc) / (2 * C)
			default:
				eta = 2 * B / (A - disc)
			}
		} else {
			disc := math.Sqrt(math.Abs(A*A - 4*B*C))
			switch {
			case C == 0 && A != 0:
				eta = B / A
			case C == 0:
				eta = -w / dw
			case A <= 0:
				eta = (A - disc) / (2 * C)
			default:
				eta = 2 * B / (A + disc)
			}
		}
		// Safeguards.
		if w*eta >= 0 || math.IsNaN(eta) {
			eta = -w / dw
		}
		if nt := tau + eta; !(nt >= lb && nt <= ub) {
			newton := -w / dw
			half := (lb - tau) / 2
			if w < 0 {
				half = (ub - tau) / 2
			}
			if nt := tau + newton; nt >= lb && nt <= ub {
				eta = math.Copysign(math.Sqrt(math.Abs(newton))*math.Sqrt(math.Abs(half)), newton)
			} else {
				eta = half
			}
		}
		tau += eta
	}
	return d[o] + tau, secularMaxIter, false
}

// sortPairs returns vals sorted ascending (stable) and z with its columns
// permuted alike.
func sortPairs(n int, vals, z []float64) ([]float64, []float64) {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return vals[idx[a]] < vals[idx[b]] })
	sv := make([]float64, n)
	for c, i := range idx {
		sv[c] = vals[i]
	}
	sz := make([]float64, n*n)
	par.Blocks(n, 64, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			for c, i := range idx {
				sz[r*n+c] = z[r*n+i]
			}
		}
	})
	return sv, sz
}

// dcCheck verifies the eigenpairs (vals, z) of the tridiagonal T (d, e):
// every residual ‖T·z_j − λ_j·z_j‖ ≤ dcCheckFactor·n·ε·‖T‖₁ and, for two
// pseudo-random probes x, ‖(ZᵀZ − I)·x‖ ≤ dcCheckFactor·n·ε·‖x‖: O(n²)
// in all, against O(n³) for the decomposition.
func dcCheck(d, e, vals, z []float64) bool {
	n := len(d)
	tnorm := tridiagNorm(d, e)
	tol := dcCheckFactor * float64(n) * machEps
	// Residuals, row by row: row i of T·Z − Z·Λ.
	ss := make([]float64, n)
	r := make([]float64, n)
	for i := 0; i < n; i++ {
		zi := z[i*n : (i+1)*n]
		for j, v := range zi {
			r[j] = (d[i] - vals[j]) * v
		}
		if i > 0 {
			floats.AddScaled(r, e[i-1], z[(i-1)*n:i*n])
		}
		if i < n-1 {
			floats.AddScaled(r, e[i], z[(i+1)*n:(i+2)*n])
		}
		for j, v := range r {
			ss[j] += v * v
		}
	}
	for _, s := range ss {
		if !(math.Sqrt(s) <= tol*tnorm) {
			return false
		}
	}
	// Orthogonality probes.
	rng := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	x, y, u := make([]float64, n), make([]float64, n), make([]float64, n)
	for probe := 0; probe < 2; probe++ {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := 0; i < n; i++ {
			y[i] = floats.Dot(z[i*n:(i+1)*n], x)
		}
		copy(u, x)
		for i := 0; i < n; i++ {
			floats.AddScaled(u, -y[i], z[i*n:(i+1)*n])
		}
		// u = x − Zᵀ·Z·x.
		if !(floats.Norm(u, 2) <= tol*floats.Norm(x, 2)) {
			return false
		}
	}
	return true
}

// gemmTile is the tile size of gemmNT.
const gemmTile = 64

// gemmNT sets C = A·Bᵀ for the row-major m×k A, n×k B and m×n C: gonum's
// serial dgemm on 64×64 tiles of C, each with the whole inner dimension
// (long dot products: about 25 % faster than gonum's own parallel
// blocking, which also splits k into blocks of 64), tiles in parallel.
// The tiling depends only on the sizes, so the result does not depend on
// the number of workers. sh (nil: none) is credited each per tile done,
// and the tiles left are skipped once its context is cancelled.
func gemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, sh *share, each float64) {
	bi := blas64.Implementation()
	nt := (n + gemmTile - 1) / gemmTile
	par.Blocks(gemmTiles(m, n), 1, func(t, _ int) {
		if !sh.ok() {
			return
		}
		i, j := (t/nt)*gemmTile, (t%nt)*gemmTile
		bi.Dgemm(blas.NoTrans, blas.Trans, min(gemmTile, m-i), min(gemmTile, n-j), k, 1,
			a[i*lda:], lda, b[j*ldb:], ldb, 0, c[i*ldc+j:], ldc)
		sh.add(each)
	})
}

// gemmTiles is the number of tiles of gemmNT's m×n product.
func gemmTiles(m, n int) int {
	return ((m + gemmTile - 1) / gemmTile) * ((n + gemmTile - 1) / gemmTile)
}
