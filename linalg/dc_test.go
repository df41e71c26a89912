package linalg

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// withLeaf runs f with the divide-and-conquer leaf size set to leaf, so
// that small matrices build deep trees.
func withLeaf(leaf int, f func()) {
	old := dcLeaf
	dcLeaf = leaf
	defer func() { dcLeaf = old }()
	f()
}

// tridiagErrors returns, for eigenpairs (vals, z) of the tridiagonal T
// (d, e), the largest eigenvalue error against Dsteqr relative to ‖T‖₁,
// the largest residual ‖T·z_j − λ_j·z_j‖/‖T‖₁ and max|ZᵀZ − I|.
func tridiagErrors(t *testing.T, d, e, vals, z []float64) (dval, res, orth float64) {
	t.Helper()
	n := len(d)
	ref := append([]float64(nil), d...)
	re := append([]float64(nil), e...)
	if !(lapackgo.Implementation{}).Dsteqr(lapack.EVCompNone, n, ref, re, nil, 1, nil) {
		t.Fatal("Dsteqr failed")
	}
	tn := tridiagNorm(d, e)
	if tn == 0 {
		tn = 1
	}
	for i := range vals {
		dval = max(dval, math.Abs(vals[i]-ref[i])/tn)
	}
	for j := 0; j < n; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			r := (d[i] - vals[j]) * z[i*n+j]
			if i > 0 {
				r += e[i-1] * z[(i-1)*n+j]
			}
			if i < n-1 {
				r += e[i] * z[(i+1)*n+j]
			}
			s += r * r
		}
		res = max(res, math.Sqrt(s)/tn)
	}
	zm := mat.NewDense(n, n, z)
	var g mat.Dense
	g.Mul(zm.T(), zm)
	for i := 0; i < n; i++ {
		g.Set(i, i, g.At(i, i)-1)
	}
	orth = mat.Norm(&g, math.Inf(1))
	return dval, res, orth
}

// tridiagCase is a named symmetric tridiagonal matrix.
type tridiagCase struct {
	name string
	d, e []float64
}

func tridiagCases(rng *rand.Rand) []tridiagCase {
	var cs []tridiagCase
	for _, n := range []int{1, 2, 3, 25, 26, 100, 257} {
		d, e := make([]float64, n), make([]float64, max(n-1, 0))
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		cs = append(cs, tridiagCase{"random " + itoa(n), d, e})
	}
	// Wilkinson's W21+ and a larger W+ (pairs equal to ~1e-14 and beyond).
	for _, m := range []int{10, 60} {
		n := 2*m + 1
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = math.Abs(float64(i - m))
		}
		for i := range e {
			e[i] = 1
		}
		cs = append(cs, tridiagCase{"W" + itoa(n) + "+", d, e})
	}
	// The (1, 2, 1) Toeplitz matrix: every z component of every merge is
	// small at the ends; and the constant diagonal with e = 1 (−2, 1).
	for _, n := range []int{200} {
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = 2
		}
		for i := range e {
			e[i] = 1
		}
		cs = append(cs, tridiagCase{"toeplitz " + itoa(n), d, e})
	}
	// Graded: d_i = 10^(−12·i/n), e_i = √(d_i·d_{i+1})/2.
	{
		n := 150
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = math.Pow(10, -12*float64(i)/float64(n))
		}
		for i := range e {
			e[i] = math.Sqrt(d[i]*d[i+1]) / 2
		}
		cs = append(cs, tridiagCase{"graded 150", d, e})
	}
	// Splits: zero off-diagonals at irregular places, including blocks of
	// size 1 and a block larger than the leaf size.
	{
		n := 120
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		for i := range e {
			if i%37 != 5 && i != 70 && i != 71 {
				e[i] = rng.NormFloat64()
			}
		}
		cs = append(cs, tridiagCase{"split 120", d, e})
	}
	// Glued identical blocks: a tridiagonal with many equal eigenvalues.
	{
		n := 160
		d, e := make([]float64, n), make([]float64, n-1)
		blk := []float64{1, 2, 3, 4, 5, 4, 3, 2, 1, 0.5}
		for i := range d {
			d[i] = blk[i%len(blk)]
		}
		for i := range e {
			e[i] = 1
			if i%len(blk) == len(blk)-1 {
				e[i] = 1e-9
			}
		}
		cs = append(cs, tridiagCase{"glued 160", d, e})
	}
	// The zero matrix.
	cs = append(cs, tridiagCase{"zero 40", make([]float64, 40), make([]float64, 39)})
	return cs
}

// tridiagDC on the tridiagonal test set, with the default leaf size and
// with tiny leaves (deep trees: merges of sizes 2, 3 and secular
// equations with k = 1, 2): eigenvalues against Dsteqr, residuals and
// orthogonality to 1e-13 (relative to ‖T‖).
func TestTridiagDC(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, leaf := range []int{25, 1, 2, 5} {
		withLeaf(leaf, func() {
			for _, c := range tridiagCases(rng) {
				vals, z, ok := tridiagDC(c.d, c.e, nil)
				if !ok {
					t.Errorf("leaf %d, %s: not ok", leaf, c.name)
					continue
				}
				dv, res, orth := tridiagErrors(t, c.d, c.e, vals, z)
				n := float64(len(c.d))
				if dv > 1e-13 || res > 1e-13 || orth > 1e-14*n {
					t.Errorf("leaf %d, %s: Δλ %.1e, residual %.1e, ‖ZᵀZ−I‖∞ %.1e", leaf, c.name, dv, res, orth)
				}
				if leaf == 25 {
					t.Logf("%s: Δλ %.1e, residual %.1e, ‖ZᵀZ−I‖∞ %.1e", c.name, dv, res, orth)
				}
			}
		})
	}
	t.Logf("largest number of secular iterations: %d", dcMaxIter.Load())
}

// symCase is a named dense symmetric test matrix.
type symCase struct {
	name string
	a    *mat.SymDense
}

// wilkinsonPlus is the dense W_{2m+1}+ matrix.
func wilkinsonPlus(m int) *mat.SymDense {
	n := 2*m + 1
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, math.Abs(float64(i-m)))
		if i < n-1 {
			a.SetSym(i, i+1, 1)
		}
	}
	return a
}

// symCases is the accuracy set of the full decomposition; long adds the
// n = 1000 matrices.
func symCases(t *testing.T, long bool) []symCase {
	rng := rand.New(rand.NewPCG(61, 62))
	var cs []symCase
	sizes := []int{1, 2, 25, 26, 100, 257}
	if long {
		sizes = append(sizes, 1000)
	}
	for _, n := range sizes {
		cs = append(cs, symCase{"random " + itoa(n), randSym(rng, n)})
	}
	spd := []int{100, 257}
	if long {
		spd = append(spd, 1000)
	}
	for _, n := range spd {
		cs = append(cs, symCase{"G·Gᵀ+I " + itoa(n), randSPD(rng, n, n, 1)})
	}
	for _, n := range []int{100, 257} {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = math.Pow(10, -12*float64(i)/float64(n-1))
		}
		cs = append(cs, symCase{"graded 1e-12..1 " + itoa(n), withSpectrum(rng, vals)})
	}
	{
		n := 257
		vals := make([]float64, n)
		for i := 0; i < n/2; i++ {
			vals[i] = 1
		}
		cs = append(cs, symCase{"projection rank n/2 " + itoa(n), withSpectrum(rng, vals)})
	}
	for _, n := range []int{100, 257} {
		u := mat.NewDense(n, 3, nil)
		for i := range u.RawMatrix().Data {
			u.RawMatrix().Data[i] = rng.NormFloat64()
		}
		var uu mat.Dense
		uu.Mul(u, u.T())
		a := Symmetrize(&uu)
		for i := 0; i < n; i++ {
			a.SetSym(i, i, a.At(i, i)+1)
		}
		cs = append(cs, symCase{"I + rank 3 " + itoa(n), a})
	}
	// Tight clusters, spacings 1e-10 and 1e-13 (just above the deflation
	// tolerance 64ε·‖T‖ ≈ 1.4e-14): close poles that do not deflate.
	for _, h := range []float64{1e-10, 1e-13} {
		n := 150
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = 1 + h*float64(i%75)
			if i >= 75 {
				vals[i] += 1
			}
		}
		cs = append(cs, symCase{"clusters, gaps " + strconv.FormatFloat(h, 'g', -1, 64), withSpectrum(rng, vals)})
	}
	cs = append(cs, symCase{"W21+", wilkinsonPlus(10)}, symCase{"W121+", wilkinsonPlus(60)})
	// Every eigenvalue equal, all zero, and entries near the ends of the
	// exponent range (the scaling by powers of two is exact).
	id := mat.NewSymDense(100, nil)
	for i := 0; i < 100; i++ {
		id.SetSym(i, i, 1)
	}
	cs = append(cs, symCase{"identity 100", id}, symCase{"zero 100", mat.NewSymDense(100, nil)})
	for _, f := range []float64{1e150, 1e-150} {
		a := randSym(rng, 120)
		a.ScaleSym(f, a)
		cs = append(cs, symCase{"random 120 × " + strconv.FormatFloat(f, 'g', -1, 64), a})
	}
	cs = append(cs, symCase{"digits centred RBF 599", digitsRBF(t, 3)})
	return cs
}

// fullErrors compares the full decomposition (vals ascending, v) of a with
// EigenSym's: the largest eigenvalue difference, residual
// max_j ‖A·v_j − λ_j·v_j‖ and principal angle (each group of eigenvalues
// separated by more than 1e-9·‖A‖ from the rest, the angle divided by its
// Davis–Kahan bound 1e-12·‖A‖/gap, so that ≤ 1 passes), all relative to
// ‖A‖₂ = max|λ|, and ‖VᵀV − I‖∞.
func fullErrors(t *testing.T, a *mat.SymDense, vals []float64, v *mat.Dense) (dval, res, angle, orth float64) {
	t.Helper()
	n := a.SymmetricDim()
	want, wv := refPairs(t, a, nil, 0, Smallest)
	norm := math.Max(math.Abs(want[0]), math.Abs(want[n-1]))
	if norm == 0 {
		norm = 1
	}
	for i := range want {
		dval = max(dval, math.Abs(vals[i]-want[i])/norm)
	}
	var av mat.Dense
	av.Mul(a, v)
	for j := 0; j < n; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			r := (av.At(i, j) - vals[j]*v.At(i, j)) / norm
			s += r * r
		}
		res = max(res, math.Sqrt(s))
	}
	var g mat.Dense
	g.Mul(v.T(), v)
	for i := 0; i < n; i++ {
		g.Set(i, i, g.At(i, i)-1)
	}
	orth = mat.Norm(&g, math.Inf(1))
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && want[hi]-want[hi-1] <= 1e-9*norm {
			hi++
		}
		if hi-lo < n {
			gap := math.Inf(1)
			if lo > 0 {
				gap = want[lo] - want[lo-1]
			}
			if hi < n {
				gap = min(gap, want[hi]-want[hi-1])
			}
			ang, err := PrincipalAngles(v.Slice(0, n, lo, hi), wv.Slice(0, n, lo, hi))
			if err != nil {
				t.Fatal(err)
			}
			angle = max(angle, ang[len(ang)-1]/(1e-12*norm/gap))
		}
		lo = hi
	}
	return dval, res, angle, orth
}

// The accuracy table of the full path (fullEig: sytrdLower, tridiagDC,
// applyTridiagQ) against EigenSym: eigenvalues and residuals to 1e-12·‖A‖,
// invariant subspaces within the Davis–Kahan bound of a 1e-12·‖A‖
// residual, ‖VᵀV − I‖∞ ≤ 1e-12·n. The n = 1000 matrices are skipped under
// -short.
func TestFullEigAccuracy(t *testing.T) {
	t.Log("| matrix | n | max|Δλ|/‖A‖ | max‖Av−λv‖/‖A‖ | angle/bound | ‖VᵀV−I‖∞ |")
	for _, c := range symCases(t, !testing.Short()) {
		checkFullEig(t, c, true)
	}
	t.Logf("largest number of secular iterations: %d", dcMaxIter.Load())
}

// checkFullEig runs fullEig on c and checks it with fullErrors; table
// logs the errors as a row of the accuracy table.
func checkFullEig(t *testing.T, c symCase, table bool) {
	t.Helper()
	n := c.a.SymmetricDim()
	vals, v, ok := fullEig(c.a, nil)
	if !ok {
		t.Errorf("%s: divide and conquer failed its checks", c.name)
		return
	}
	dv, res, ang, orth := fullErrors(t, c.a, vals, v)
	if dv > 1e-12 || res > 1e-12 || ang > 1 || orth > 1e-12*float64(n) {
		t.Errorf("%s: Δλ %.1e, residual %.1e, angle/bound %.1e, ‖VᵀV−I‖∞ %.1e", c.name, dv, res, ang, orth)
	}
	if table {
		t.Logf("| %-24s | %5d | %.1e | %.1e | %.1e | %.1e |", c.name, n, dv, res, ang, orth)
	}
}

// Deep trees (leaves of 3 rows) on clustered and graded matrices: many
// merges with heavy deflation and tiny secular equations.
func TestFullEigDeepTree(t *testing.T) {
	withLeaf(3, func() {
		for _, c := range symCases(t, false) {
			if n := c.a.SymmetricDim(); n >= 20 && n <= 260 {
				checkFullEig(t, c, false)
			}
		}
	})
}

// Bit-identical results whatever GOMAXPROCS is.
func TestFullEigDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	a := randSPD(rng, 300, 300, 1)
	var ref *mat.Dense
	var refVals []float64
	for _, p := range []int{1, 2, 3, 8} {
		withProcs(p, func() {
			vals, vecs, err := SymEig(a, 0, Largest)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref, refVals = vecs, vals
				return
			}
			if !equalBits(vals, refVals) || !equalBits(vecs.RawMatrix().Data, ref.RawMatrix().Data) {
				t.Errorf("GOMAXPROCS=%d: result differs from GOMAXPROCS=1", p)
			}
		})
	}
}

// SymEig and DenseEigen (k > n/4) route full decompositions above
// dcMinSize to divide and conquer, and small ones to EigenSym.
func TestSymEigUsesDC(t *testing.T) {
	if fullSymEig == nil {
		t.Skip("the LAPACK backend computes full decompositions")
	}
	rng := rand.New(rand.NewPCG(73, 74))
	for _, n := range []int{dcMinSize, dcMinSize + 1, 200} {
		a := randSym(rng, n)
		// The raw ascending pairs of the expected path.
		var vals []float64
		var vecs *mat.Dense
		if n > dcMinSize {
			var ok bool
			if vals, vecs, ok = fullEig(a, nil); !ok {
				t.Fatal("fullEig failed")
			}
		} else {
			var es mat.EigenSym
			es.Factorize(a, true)
			vals = es.Values(nil)
			vecs = new(mat.Dense)
			es.VectorsTo(vecs)
		}
		gv, gz, err := SymEig(a, 0, Smallest)
		if err != nil {
			t.Fatal(err)
		}
		if !equalBits(gv, selectPairs(vals, vecs, 0, Smallest)) || !mat.Equal(gz, selectVecs(vals, vecs, 0, Smallest)) {
			t.Errorf("n=%d: SymEig did not take the expected path", n)
		}
		res := eigs(t, DenseEigen{}, a, nil, n/2, Largest)
		if !equalBits(res.Values, selectPairs(vals, vecs, n/2, Largest)) || !mat.Equal(res.Vectors, selectVecs(vals, vecs, n/2, Largest)) {
			t.Errorf("n=%d: DenseEigen with k = n/2 did not take the expected path", n)
		}
	}
}

// When divide and conquer fails a check, symEigK falls back to EigenSym:
// with dcCheckFactor = 0 every check fails, and SymEig's answer is exactly
// EigenSym's. dcCheck also rejects a decomposition with one vector
// perturbed.
func TestFullEigFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	n := 150
	a := randSym(rng, n)
	old := dcCheckFactor
	dcCheckFactor = 0
	_, _, ok := fullEig(a, nil)
	vals, vecs, err := SymEig(a, 0, Largest)
	dcCheckFactor = old
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Fatal("fullEig passed its checks with a zero tolerance")
	}
	wv, wz := refPairs(t, a, nil, 0, Largest)
	if !equalBits(vals, wv) || !mat.Equal(vecs, wz) {
		t.Error("the fallback did not return EigenSym's decomposition")
	}

	// A corrupted tridiagonal decomposition is rejected.
	d, e := make([]float64, n), make([]float64, n-1)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	tv, z, ok := tridiagDC(d, e, nil)
	if !ok || !dcCheck(d, e, tv, z) {
		t.Fatal("tridiagDC failed on a random matrix")
	}
	// Column 7 rotated by 1e-9 towards column 8: residual and
	// orthogonality errors of about 1e-9.
	for i := 0; i < n; i++ {
		z[i*n+7] += 1e-9 * z[i*n+8]
	}
	if dcCheck(d, e, tv, z) {
		t.Error("dcCheck accepted a perturbed eigenvector")
	}
}

// benchFullEig times every eigenpair of an n×n random symmetric matrix
// (N(0,1) entries) by SymEig: "DC" is the divide-and-conquer path,
// "EigenSym" the path it replaces (gonum's EigenSym, forced by clearing
// fullSymEig). Run with -benchtime 1x: one run of each is enough.
func benchFullEig(b *testing.B, n int) {
	a := benchSym(n, 5)
	run := func(name string, f func() func(*mat.SymDense, *stage) ([]float64, *mat.Dense, bool)) {
		b.Run(name, func(b *testing.B) {
			old := fullSymEig
			fullSymEig = f()
			defer func() { fullSymEig = old }()
			benchLoop(b, func() error { _, _, err := SymEig(a, 0, Largest); return err })
		})
	}
	run("DC", func() func(*mat.SymDense, *stage) ([]float64, *mat.Dense, bool) { return fullEig })
	run("EigenSym", func() func(*mat.SymDense, *stage) ([]float64, *mat.Dense, bool) { return nil })
}

func BenchmarkFullEig1000(b *testing.B) { benchFullEig(b, 1000) }
func BenchmarkFullEig2000(b *testing.B) { benchFullEig(b, 2000) }

// secularEq.root on its own: random problems, poles 1e-12 apart, tiny and
// large weights. Every root must converge and lie between its poles (below
// d_k + ρ for the last), strictly so in its differences δ_i = d_i − λ_j
// (λ itself may round to a pole when its distance is below an ulp of d),
// which must match d_i − λ_j to rounding; the mean number of iterations
// is logged (dlaed4 needs 2–4).
func TestSecularRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	type problem struct {
		name string
		d, z []float64
		rho  float64
	}
	mk := func(name string, k int, gap func(i int) float64, weight func(i int) float64, rho float64) problem {
		d, z := make([]float64, k), make([]float64, k)
		for i := range d {
			if i > 0 {
				d[i] = d[i-1] + gap(i)
			}
			z[i] = weight(i)
		}
		floats.Scale(1/floats.Norm(z, 2), z)
		return problem{name, d, z, rho}
	}
	unif := func(int) float64 { return rng.Float64() }
	signed := func(int) float64 { return rng.NormFloat64() }
	probs := []problem{
		mk("random 500", 500, unif, signed, 1),
		mk("random 500, ρ = 1e-6", 500, unif, signed, 1e-6),
		mk("random 500, ρ = 1e6", 500, unif, signed, 1e6),
		mk("poles 1e-12 apart", 200, func(int) float64 { return 1e-12 }, signed, 1),
		mk("weights 1e-10..1", 300, unif, func(i int) float64 { return math.Pow(10, -10*rng.Float64()) }, 1),
		mk("k = 2", 2, unif, signed, 0.5),
		mk("k = 3", 3, unif, signed, 2),
	}
	for _, p := range probs {
		s := secularEq{d: p.d, z: p.z, rho: p.rho}
		k := len(p.d)
		delta := make([]float64, k)
		total := 0
		for j := 0; j < k; j++ {
			lam, it, ok := s.root(j, delta)
			total += it
			if !ok {
				t.Errorf("%s: root %d did not converge", p.name, j)
				continue
			}
			hi := p.d[k-1] + p.rho
			if j < k-1 {
				hi = p.d[j+1]
			}
			if !(lam >= p.d[j] && lam <= hi) || !(delta[j] < 0) || (j < k-1 && !(delta[j+1] > 0)) || (j == k-1 && !(-delta[j] <= p.rho*(1+4*machEps))) {
				t.Errorf("%s: root %d = %v (δ_j %v) outside (%v, %v)", p.name, j, lam, delta[j], p.d[j], hi)
			}
			for i := 0; i < k; i++ {
				if want := p.d[i] - lam; math.Abs(delta[i]-want) > 4*machEps*(math.Abs(p.d[i])+math.Abs(lam)) {
					t.Errorf("%s: root %d: δ_%d = %v, want %v", p.name, j, i, delta[i], want)
					break
				}
			}
		}
		mean := float64(total) / float64(k)
		if mean > 6 {
			t.Errorf("%s: %.1f iterations per root on average", p.name, mean)
		}
		t.Logf("%s: %.2f iterations per root", p.name, mean)
	}
}
