package classify

import (
	"context"
	"math"
)

// This file is the two-class C-SVC solver of SVM: sequential minimal
// optimisation as in LIBSVM (Chang & Lin, "LIBSVM: a library for support
// vector machines", ACM TIST 2011, §4), written from the papers and from
// reading LIBSVM's svm.cpp, not translated from it.
//
// The dual problem, for rows xᵢ with yᵢ ∈ {+1, −1}:
//
//	min  f(α) = ½·αᵀQα − eᵀα,   Qᵢⱼ = yᵢ·yⱼ·k(xᵢ, xⱼ)
//	s.t. 0 ≤ αᵢ ≤ C,  yᵀα = 0
//
// Each iteration changes two variables. The working set is chosen with
// second-order information (Fan, Chen & Lin, JMLR 6, 2005, WSS 3): with
// G = ∇f(α) = Qα − e,
//
//	i = argmax { −yₜ·Gₜ : t ∈ I_up(α) }
//	j = argmin { −bᵢₜ²/aᵢₜ : t ∈ I_low(α), −yₜ·Gₜ < −yᵢ·Gᵢ }
//	    bᵢₜ = −yᵢGᵢ + yₜGₜ > 0,  aᵢₜ = Qᵢᵢ + Qₜₜ − 2·yᵢ·yₜ·Qᵢₜ (τ = 1e-12 if ≤ 0)
//
// with I_up = {t : αₜ < C, yₜ = +1, or αₜ > 0, yₜ = −1} and I_low the
// mirror; the solver stops when m(α) − M(α) = max_{I_up} −yG + max_{I_low} yG
// < tol (LIBSVM's eps, default 1e-3). The two-variable subproblem is solved
// exactly and clipped to the box.
//
// Shrinking (Joachims 1999; LIBSVM §5.1): every min(l, 1000) iterations the
// variables at a bound whose gradient says they will stay there are moved
// out of the active set (to the end of the arrays, by swaps), so selection
// and gradient updates cost O(active) instead of O(l). The gradient of the
// inactive variables is rebuilt from Ḡ (the part of G due to the variables
// at the upper bound, kept up to date) once the active problem is solved to
// 10·tol and again at the end, and the optimality test is then repeated on
// the whole set.
//
// Columns of Q are kept in an LRU cache (kernelCache) with a memory bound;
// like LIBSVM, the cached values are float32 (LIBSVM's Qfloat), which
// halves the memory and the traffic of the gradient updates, while α, G
// and Ḡ are float64.

// svmTau replaces a non-positive curvature aᵢⱼ (LIBSVM's TAU).
const svmTau = 1e-12

// Status of a variable: one of atLower, atUpper, free, plus the flags
// inUp (t ∈ I_up: αₜ can move so that −yₜGₜ grows) and inLow (t ∈ I_low).
const (
	atLower uint8 = iota
	atUpper
	free

	boundMask uint8 = 3
	inUp      uint8 = 4
	inLow     uint8 = 8
)

// svmKernel evaluates the kernel on rows of a row-major matrix.
type svmKernel struct {
	d     int
	x     []float64 // rows, d values each
	sq    []float64 // ‖xᵢ‖² of each row
	rbf   bool
	gamma float64
}

func newSVMKernel(x []float64, d int, rbf bool, gamma float64) *svmKernel {
	n := len(x) / max(d, 1)
	k := &svmKernel{d: d, x: x, sq: make([]float64, n), rbf: rbf, gamma: gamma}
	for i := range k.sq {
		r := x[i*d : i*d+d]
		k.sq[i] = dot(r, r)
	}
	return k
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// eval returns k(xᵢ, xⱼ) for rows i and j: xᵢᵀxⱼ (linear) or
// exp(−γ·(‖xᵢ‖² + ‖xⱼ‖² − 2·xᵢᵀxⱼ)) (RBF), as LIBSVM computes them.
func (k *svmKernel) eval(i, j int) float64 {
	d := k.d
	v := dot(k.x[i*d:i*d+d], k.x[j*d:j*d+d])
	if !k.rbf {
		return v
	}
	return math.Exp(-k.gamma * (k.sq[i] + k.sq[j] - 2*v))
}

// kernelCache is an LRU cache of columns of Q with a memory bound. Column i
// holds Q[0:n) for its n ≤ l and is extended on demand (an active set only
// needs its first active rows). Every column has capacity l, so at most
// cols columns are held (at least two, for the working pair).
type kernelCache struct {
	l     int
	cols  int // columns that may be held
	held  int
	data  [][]float32 // data[i][:filled[i]] is column i
	fill  []int
	prev  []int32 // LRU list over columns with fill > 0; sentinel l
	next  []int32
	spare [][]float32 // storage of evicted columns, reused
}

func newKernelCache(l int, bytes int64) *kernelCache {
	cols := int(min(int64(l), max(2, bytes/int64(4*max(l, 1)))))
	c := &kernelCache{l: l, cols: cols, data: make([][]float32, l), fill: make([]int, l),
		prev: make([]int32, l+1), next: make([]int32, l+1)}
	c.prev[l], c.next[l] = int32(l), int32(l)
	return c
}

func (c *kernelCache) unlink(i int) {
	p, n := c.prev[i], c.next[i]
	c.next[p], c.prev[n] = n, p
}

func (c *kernelCache) pushBack(i int) {
	last := c.prev[c.l]
	c.prev[i], c.next[i] = last, int32(c.l)
	c.next[last], c.prev[c.l] = int32(i), int32(i)
}

// get returns column i's storage with at least n entries and the index
// from which entries must still be computed (n if none).
func (c *kernelCache) get(i, n int) ([]float32, int) {
	if c.fill[i] > 0 {
		c.unlink(i)
	} else {
		if c.held == c.cols {
			old := int(c.next[c.l]) // least recently used
			c.unlink(old)
			c.spare = append(c.spare, c.data[old])
			c.data[old], c.fill[old] = nil, 0
			c.held--
		}
		if k := len(c.spare); k > 0 {
			c.data[i] = c.spare[k-1]
			c.spare = c.spare[:k-1]
		} else {
			c.data[i] = make([]float32, c.l)
		}
		c.held++
	}
	start := c.fill[i]
	if n > start {
		c.fill[i] = n
	} else {
		start = n
	}
	c.pushBack(i)
	return c.data[i], start
}

// swap exchanges the roles of indices i and j in every held column (the
// solver swapped variables i and j). A column that holds i but not j can
// no longer be kept consistent and is dropped.
func (c *kernelCache) swap(i, j int) {
	if i == j {
		return
	}
	if c.fill[i] > 0 {
		c.unlink(i)
	}
	if c.fill[j] > 0 {
		c.unlink(j)
	}
	c.data[i], c.data[j] = c.data[j], c.data[i]
	c.fill[i], c.fill[j] = c.fill[j], c.fill[i]
	if c.fill[i] > 0 {
		c.pushBack(i)
	}
	if c.fill[j] > 0 {
		c.pushBack(j)
	}
	if i > j {
		i, j = j, i
	}
	for h := int(c.next[c.l]); h != c.l; {
		nx := int(c.next[h])
		if c.fill[h] > i {
			if c.fill[h] > j {
				col := c.data[h]
				col[i], col[j] = col[j], col[i]
			} else {
				c.unlink(h)
				c.spare = append(c.spare, c.data[h])
				c.data[h], c.fill[h] = nil, 0
				c.held--
			}
		}
		h = nx
	}
}

// smo is the state of one two-class solve. Arrays are indexed by position;
// shrinking permutes positions (swap), and perm maps a position to its row.
type smo struct {
	l, active int
	c, tol    float64
	shrink    bool
	unshrunk  bool

	k      *svmKernel
	cache  *kernelCache
	perm   []int32
	y      []float64 // ±1
	qd     []float64 // Qᵢᵢ
	alpha  []float64
	g      []float64 // ∇f
	gbar   []float64 // C·Σ_{αⱼ = C} Qᵢⱼ
	status []uint8
	iter   int
	// done, when not nil, stops the run when closed (checked with the
	// shrinking, every min(l, 1000) iterations); stopped says it did.
	done    <-chan struct{}
	stopped bool
}

// smoResult is the solution of a two-class problem: the coefficients
// yᵢ·αᵢ in row order, ρ (the decision value is Σ yᵢαᵢ·k(xᵢ, x) − ρ), the
// objective value and the number of iterations.
type smoResult struct {
	coef    []float64
	rho     float64
	obj     float64
	iter    int
	stopped bool // the context was cancelled first: no solution
}

// solveSMO solves the C-SVC dual for the rows of k with labels y (±1).
//
// A cancelled ctx stops it within min(l, 1000) iterations; the result then
// has stopped set and is not a solution.
func solveSMO(ctx context.Context, k *svmKernel, y []float64, c, tol float64, cacheBytes int64, shrink bool) smoResult {
	l := len(y)
	s := &smo{l: l, active: l, c: c, tol: tol, shrink: shrink, k: k, cache: newKernelCache(l, cacheBytes), done: ctx.Done(),
		perm: make([]int32, l), y: append([]float64(nil), y...), qd: make([]float64, l),
		alpha: make([]float64, l), g: make([]float64, l), gbar: make([]float64, l), status: make([]uint8, l)}
	for i := range s.perm {
		s.perm[i] = int32(i)
		s.qd[i] = k.eval(i, i)
		s.g[i] = -1 // α = 0: G = Qα − e = −e
		s.setStatus(i)
	}
	s.run()
	if s.stopped {
		return smoResult{stopped: true, iter: s.iter}
	}
	res := smoResult{coef: make([]float64, l), rho: s.rho(), iter: s.iter}
	for t := 0; t < l; t++ {
		res.obj += s.alpha[t] * (s.g[t] - 1)
		res.coef[s.perm[t]] = s.y[t] * s.alpha[t]
	}
	res.obj /= 2
	return res
}

// column returns Q's column i over positions [0, n).
func (s *smo) column(i, n int) []float32 {
	col, start := s.cache.get(i, n)
	if start < n {
		pi, yi := int(s.perm[i]), s.y[i]
		for j := start; j < n; j++ {
			col[j] = float32(yi * s.y[j] * s.k.eval(pi, int(s.perm[j])))
		}
	}
	return col[:n]
}

func (s *smo) setStatus(i int) {
	var st uint8
	switch {
	case s.alpha[i] >= s.c:
		st = atUpper
	case s.alpha[i] <= 0:
		st = atLower
	default:
		st = free
	}
	pos := s.y[i] > 0
	if (pos && st&boundMask != atUpper) || (!pos && st&boundMask != atLower) {
		st |= inUp
	}
	if (pos && st&boundMask != atLower) || (!pos && st&boundMask != atUpper) {
		st |= inLow
	}
	s.status[i] = st
}

// bound returns the bound status of variable t (atLower, atUpper, free).
func (s *smo) bound(t int) uint8 { return s.status[t] & boundMask }

func (s *smo) swap(i, j int) {
	s.cache.swap(i, j)
	s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	s.y[i], s.y[j] = s.y[j], s.y[i]
	s.qd[i], s.qd[j] = s.qd[j], s.qd[i]
	s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
	s.g[i], s.g[j] = s.g[j], s.g[i]
	s.gbar[i], s.gbar[j] = s.gbar[j], s.gbar[i]
	s.status[i], s.status[j] = s.status[j], s.status[i]
}

// maxIter bounds the iterations, as LIBSVM: max(10⁷, 100·l).
func maxIter(l int) int { return max(10_000_000, 100*l) }

func (s *smo) run() {
	limit := maxIter(s.l)
	counter := min(s.l, 1000) + 1
	for s.iter < limit {
		if counter--; counter == 0 {
			counter = min(s.l, 1000)
			if s.cancelled() {
				return
			}
			if s.shrink {
				s.shrinkActive()
			}
		}
		i, j, ok := s.selectPair()
		if !ok {
			// Optimal on the active set: rebuild the whole gradient and
			// test again on every variable.
			s.reconstructGradient()
			s.active = s.l
			if i, j, ok = s.selectPair(); !ok {
				break
			}
			counter = 1 // shrink at the next iteration
		}
		s.iter++
		s.step(i, j)
	}
	if s.active < s.l {
		s.reconstructGradient()
		s.active = s.l
	}
}

// cancelled reports whether the run's context is done, and records it.
func (s *smo) cancelled() bool {
	select {
	case <-s.done:
		s.stopped = true
	default:
	}
	return s.stopped
}

// step solves the subproblem in αᵢ, αⱼ and updates G, the status and Ḡ.
func (s *smo) step(i, j int) {
	n := s.active
	qi := s.column(i, n)
	qj := s.column(j, n)
	c := s.c
	ai, aj := s.alpha[i], s.alpha[j]
	if s.y[i] != s.y[j] {
		a := s.qd[i] + s.qd[j] + 2*float64(qi[j])
		if a <= 0 {
			a = svmTau
		}
		delta := (-s.g[i] - s.g[j]) / a
		diff := ai - aj
		ni, nj := ai+delta, aj+delta
		if diff > 0 {
			if nj < 0 {
				nj, ni = 0, diff
			}
		} else if ni < 0 {
			ni, nj = 0, -diff
		}
		if diff > 0 { // C_i − C_j = 0
			if ni > c {
				ni, nj = c, c-diff
			}
		} else if nj > c {
			nj, ni = c, c+diff
		}
		s.alpha[i], s.alpha[j] = ni, nj
	} else {
		a := s.qd[i] + s.qd[j] - 2*float64(qi[j])
		if a <= 0 {
			a = svmTau
		}
		delta := (s.g[i] - s.g[j]) / a
		sum := ai + aj
		ni, nj := ai-delta, aj+delta
		if sum > c {
			if ni > c {
				ni, nj = c, sum-c
			}
		} else if nj < 0 {
			nj, ni = 0, sum
		}
		if sum > c {
			if nj > c {
				nj, ni = c, sum-c
			}
		} else if ni < 0 {
			ni, nj = 0, sum
		}
		s.alpha[i], s.alpha[j] = ni, nj
	}
	di, dj := s.alpha[i]-ai, s.alpha[j]-aj
	g := s.g[:n]
	qi, qj = qi[:n], qj[:n]
	for t := range g {
		g[t] += float64(qi[t])*di + float64(qj[t])*dj
	}
	ui, uj := s.bound(i) == atUpper, s.bound(j) == atUpper
	s.setStatus(i)
	s.setStatus(j)
	s.updateGbar(i, ui)
	s.updateGbar(j, uj)
}

// updateGbar adds or removes C·Q column i in Ḡ when αᵢ reached or left
// the upper bound (wasUpper is its previous state).
func (s *smo) updateGbar(i int, wasUpper bool) {
	isUpper := s.bound(i) == atUpper
	if wasUpper == isUpper {
		return
	}
	q := s.column(i, s.l)
	f := s.c
	if wasUpper {
		f = -f
	}
	for t, v := range q {
		s.gbar[t] += f * float64(v)
	}
}

// selectPair is WSS 3 on the active set; ok is false when the active
// problem is optimal to tol. (With Qᵢₜ = yᵢyₜKᵢₜ, both of LIBSVM's cases
// read b = −yᵢGᵢ + yₜGₜ and a = Qᵢᵢ + Qₜₜ − 2·yᵢyₜ·Qᵢₜ; the sign flips
// are exact, so the arithmetic is LIBSVM's.)
func (s *smo) selectPair() (int, int, bool) {
	n := s.active
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	imax := -1
	y, g, status := s.y[:n], s.g[:n], s.status[:n]
	for t, st := range status {
		if st&inUp != 0 {
			if v := -y[t] * g[t]; v >= gmax {
				gmax, imax = v, t
			}
		}
	}
	if imax < 0 {
		return 0, 0, false
	}
	i := imax
	qi := s.column(i, n)
	yi, qdi := s.y[i], s.qd[i]
	qd := s.qd[:n]
	jmin, best := -1, math.Inf(1)
	for t, st := range status {
		if st&inLow == 0 {
			continue
		}
		yg := y[t] * g[t]
		if yg >= gmax2 {
			gmax2 = yg
		}
		if b := gmax + yg; b > 0 {
			a := qdi + qd[t] - 2*yi*y[t]*float64(qi[t])
			if a <= 0 {
				a = svmTau
			}
			if obj := -(b * b) / a; obj <= best {
				jmin, best = t, obj
			}
		}
	}
	if gmax+gmax2 < s.tol || jmin < 0 {
		return 0, 0, false
	}
	return i, jmin, true
}

// violations returns m(α) = max_{I_up} −yG and M = max_{I_low} yG over the
// active set.
func (s *smo) violations() (float64, float64) {
	g1, g2 := math.Inf(-1), math.Inf(-1)
	for t := 0; t < s.active; t++ {
		yg := s.y[t] * s.g[t]
		if s.bound(t) != atUpper {
			// t ∈ I_up if y = +1; t ∈ I_low if y = −1.
			if s.y[t] > 0 {
				g1 = max(g1, -yg)
			} else {
				g2 = max(g2, yg)
			}
		}
		if s.bound(t) != atLower {
			if s.y[t] > 0 {
				g2 = max(g2, yg)
			} else {
				g1 = max(g1, -yg)
			}
		}
	}
	return g1, g2
}

// shrinkable reports whether variable t is at a bound and its gradient
// says it will stay there.
func (s *smo) shrinkable(t int, g1, g2 float64) bool {
	switch s.bound(t) {
	case atUpper:
		if s.y[t] > 0 {
			return -s.g[t] > g1
		}
		return -s.g[t] > g2
	case atLower:
		if s.y[t] > 0 {
			return s.g[t] > g2
		}
		return s.g[t] > g1
	}
	return false
}

func (s *smo) shrinkActive() {
	g1, g2 := s.violations()
	if !s.unshrunk && g1+g2 <= 10*s.tol {
		// Close to the end: once, put every variable back.
		s.unshrunk = true
		s.reconstructGradient()
		s.active = s.l
	}
	for t := 0; t < s.active; t++ {
		if !s.shrinkable(t, g1, g2) {
			continue
		}
		s.active--
		for s.active > t {
			if !s.shrinkable(s.active, g1, g2) {
				s.swap(t, s.active)
				break
			}
			s.active--
		}
	}
}

// reconstructGradient recomputes G of the inactive variables from Ḡ and
// the free variables: Gₜ = Ḡₜ − 1 + Σ_{free j} αⱼ·Qₜⱼ.
func (s *smo) reconstructGradient() {
	n, l := s.active, s.l
	if n == l {
		return
	}
	for t := n; t < l; t++ {
		s.g[t] = s.gbar[t] - 1
	}
	nfree := 0
	for t := 0; t < n; t++ {
		if s.bound(t) == free {
			nfree++
		}
	}
	if nfree*l > 2*n*(l-n) {
		for t := n; t < l; t++ {
			q := s.column(t, n)
			for j := 0; j < n; j++ {
				if s.bound(j) == free {
					s.g[t] += s.alpha[j] * float64(q[j])
				}
			}
		}
		return
	}
	for j := 0; j < n; j++ {
		if s.bound(j) != free {
			continue
		}
		q := s.column(j, l)
		a := s.alpha[j]
		for t := n; t < l; t++ {
			s.g[t] += a * float64(q[t])
		}
	}
}

// rho returns ρ: the mean of yₜGₜ over the free variables, or the middle
// of the interval the bounded ones allow.
func (s *smo) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	nfree, sum := 0, 0.0
	for t := 0; t < s.active; t++ {
		yg := s.y[t] * s.g[t]
		switch {
		case s.bound(t) == atUpper:
			if s.y[t] < 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case s.bound(t) == atLower:
			if s.y[t] > 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			nfree++
			sum += yg
		}
	}
	if nfree > 0 {
		return sum / float64(nfree)
	}
	return (ub + lb) / 2
}
