package linalg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pencilWithSpectrum returns A = Mᵀ·diag(vals)·M and B = Mᵀ·M for a
// random well-conditioned M: the pencil (A, B) has eigenvalues vals.
func pencilWithSpectrum(rng *rand.Rand, vals []float64) (*mat.SymDense, *mat.SymDense) {
	n := len(vals)
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m.Set(i, j, 0.3*rng.NormFloat64()/math.Sqrt(float64(n)))
		}
		m.Set(i, i, m.At(i, i)+1)
	}
	dm := mat.DenseCopyOf(m)
	for i, v := range vals {
		for j := 0; j < n; j++ {
			dm.Set(i, j, dm.At(i, j)*v)
		}
	}
	var a, b mat.Dense
	a.Mul(m.T(), dm)
	b.Mul(m.T(), m)
	return Symmetrize(&a), Symmetrize(&b)
}

func randSym(rng *rand.Rand, n int) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, rng.NormFloat64())
		}
	}
	return a
}

// refPairs are the k pairs at the end order of the pencil (a, b) by the
// full reference solvers: EigenSym (b nil) or GenSymEig.
func refPairs(t *testing.T, a, b *mat.SymDense, k int, order Order) ([]float64, *mat.Dense) {
	t.Helper()
	if b == nil {
		var es mat.EigenSym
		if !es.Factorize(a, true) {
			t.Fatal("EigenSym failed")
		}
		vals := es.Values(nil)
		var q mat.Dense
		es.VectorsTo(&q)
		return selectPairs(vals, &q, k, order), selectVecs(vals, &q, k, order)
	}
	vals, vecs, err := GenSymEig(a, b, k, GenOptions{Order: order})
	if err != nil {
		t.Fatal(err)
	}
	return vals, vecs
}

// comparePairs checks eigenvalues to tol·max|λ| and, for every group of
// eigenvalues closer than groupGap·max|λ| (and for the whole set), the
// principal angles between the spanned subspaces against angTol. It also
// checks the residuals and the B-orthonormality of got.
func comparePairs(t *testing.T, name string, a, b *mat.SymDense, gotVals []float64, gotVecs *mat.Dense, wantVals []float64, wantVecs *mat.Dense, tol, groupGap, angTol float64) {
	t.Helper()
	if len(gotVals) != len(wantVals) {
		t.Fatalf("%s: %d values, want %d", name, len(gotVals), len(wantVals))
	}
	scale := 0.0
	for _, v := range wantVals {
		scale = max(scale, math.Abs(v))
	}
	if na := mat.Norm(a, math.Inf(1)); b == nil && na > scale {
		scale = na
	}
	worst := 0.0
	for i := range gotVals {
		worst = max(worst, math.Abs(gotVals[i]-wantVals[i]))
	}
	if worst > tol*scale {
		t.Errorf("%s: eigenvalues differ by %.2e (scale %.2e)", name, worst, scale)
	}
	// Groups of close eigenvalues (in the reference).
	k := len(wantVals)
	maxAng := 0.0
	for lo := 0; lo < k; {
		hi := lo + 1
		for hi < k && math.Abs(wantVals[hi]-wantVals[hi-1]) <= groupGap*scale {
			hi++
		}
		ang, err := PrincipalAngles(gotVecs.Slice(0, gotVecs.RawMatrix().Rows, lo, hi), wantVecs.Slice(0, wantVecs.RawMatrix().Rows, lo, hi))
		if err != nil {
			t.Fatal(err)
		}
		maxAng = max(maxAng, ang[len(ang)-1])
		lo = hi
	}
	all, err := PrincipalAngles(gotVecs, wantVecs)
	if err != nil {
		t.Fatal(err)
	}
	maxAng = max(maxAng, all[len(all)-1])
	if maxAng > angTol {
		t.Errorf("%s: principal angle %.2e", name, maxAng)
	}
	// A backward-stable dense solver leaves relative residuals of order
	// n·ε: 1e-12, or 40·n·ε for larger n (OpenBLAS's LAPACK reaches
	// 1.15e-12 on the full generalized problem at n = 250).
	n := gotVecs.RawMatrix().Rows
	if r := pairResidual(a, b, gotVals, gotVecs); r > max(1e-12, 40*float64(n)*0x1p-52) {
		t.Errorf("%s: relative residual %.2e", name, r)
	}
	var g mat.Dense
	if b == nil {
		g.Mul(gotVecs.T(), gotVecs)
	} else {
		var bv mat.Dense
		bv.Mul(b, gotVecs)
		g.Mul(gotVecs.T(), &bv)
	}
	for i := 0; i < k; i++ {
		g.Set(i, i, g.At(i, i)-1)
	}
	if e := mat.Norm(&g, math.Inf(1)); e > 1e-11 {
		t.Errorf("%s: ‖VᵀBV − I‖ = %.2e", name, e)
	}
	t.Logf("%s: Δλ %.1e (rel. %.1e), max angle %.1e", name, worst, worst/scale, maxAng)
}

func eigs(t *testing.T, s EigenSolver, a, b *mat.SymDense, k int, order Order) *EigenResult {
	t.Helper()
	var bop SymOperator
	if b != nil {
		bop = SymDenseOp{b}
	}
	res, err := s.Eigs(context.Background(), SymDenseOp{a}, bop, k, order)
	if err != nil {
		t.Fatalf("k=%d order=%d: %v", k, order, err)
	}
	return res
}

// partialOK asserts that the partial path (not the EigenSym fallback)
// solves the standard problem.
func partialOK(t *testing.T, name string, a *mat.SymDense, k int, order Order) {
	t.Helper()
	n := a.SymmetricDim()
	il, iu := 0, k-1
	if order == Largest {
		il, iu = n-k, n-1
	}
	if _, _, ok := partialEig(a, il, iu, nil); !ok {
		t.Errorf("%s: partial path failed its checks (fell back to EigenSym)", name)
	}
}

// Random symmetric matrices, both ends, k = 1, k ≤ n/4 (partial path) and
// k = n (full path).
func TestDenseEigenStandardRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 2, 9, 60, 301} {
		a := randSym(rng, n)
		allV, allZ := refPairs(t, a, nil, n, Smallest)
		for _, k := range uniq(1, max(1, n/4), n) {
			for _, order := range []Order{Largest, Smallest} {
				res := eigs(t, DenseEigen{}, a, nil, k, order)
				wv, wz := selectPairs(allV, allZ, k, order), selectVecs(allV, allZ, k, order)
				name := "random n=" + itoa(n) + " k=" + itoa(k) + " " + orderName(order)
				comparePairs(t, name, a, nil, res.Values, res.Vectors, wv, wz, 1e-12, 0, 1e-10)
				if k <= n/4 {
					partialOK(t, name, a, k, order)
				}
			}
		}
	}
}

// Clusters of eigenvalues 1e-8·‖A‖ apart, and exactly repeated eigenvalues,
// whole clusters inside the wanted set.
func TestDenseEigenStandardClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	n := 200
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = -1 + 2*rng.Float64()
	}
	// Top: clusters {5 values 1e-8 apart} at 3, 2.5; an exact triple at 2;
	// bottom: an exact 6-fold −2 and a 4-cluster at −1.5.
	top := []float64{3, 3 + 1e-8, 3 + 2e-8, 3 + 3e-8, 3 + 4e-8, 2.5, 2.5 + 3e-8, 2.5 + 6e-8, 2.5 + 9e-8, 2.5 + 1.2e-7, 2, 2, 2}
	bot := []float64{-2, -2, -2, -2, -2, -2, -1.5, -1.5 - 3e-8, -1.5 - 6e-8, -1.5 - 9e-8}
	copy(vals, top)
	copy(vals[len(top):], bot)
	a := withSpectrum(rng, vals)
	for _, c := range []struct {
		k     int
		order Order
	}{{len(top), Largest}, {5, Largest}, {len(bot), Smallest}, {6, Smallest}, {40, Largest}} {
		res := eigs(t, DenseEigen{}, a, nil, c.k, c.order)
		wv, wz := refPairs(t, a, nil, c.k, c.order)
		name := "clusters k=" + itoa(c.k) + " " + orderName(c.order)
		comparePairs(t, name, a, nil, res.Values, res.Vectors, wv, wz, 1e-10, 1e-6, 1e-8)
		partialOK(t, name, a, c.k, c.order)
	}
	// A diagonal matrix with repeated entries: the tridiagonal splits into
	// 1×1 blocks and equal eigenvalues come from different blocks.
	d := mat.NewSymDense(40, nil)
	for i := 0; i < 40; i++ {
		d.SetSym(i, i, float64(i%4))
	}
	res := eigs(t, DenseEigen{}, d, nil, 10, Largest)
	wv, wz := refPairs(t, d, nil, 10, Largest)
	comparePairs(t, "diagonal repeated", d, nil, res.Values, res.Vectors, wv, wz, 1e-14, 1e-6, 1e-12)
	partialOK(t, "diagonal repeated", d, 10, Largest)
	// A low-rank PSD matrix: the 0 eigenvalue is 190-fold; the 10
	// smallest pairs lie inside it.
	g := randSPD(rng, n, 10, 0)
	res = eigs(t, DenseEigen{}, g, nil, 10, Smallest)
	norm := mat.Norm(g, 2)
	av := MulBlock(SymDenseOp{g}, res.Vectors)
	if r := mat.Norm(av, 2); r > 1e-12*norm {
		t.Errorf("null space of a PSD matrix: ‖A·V‖ = %.2e", r)
	}
	for _, v := range res.Values {
		if math.Abs(v) > 1e-12*norm {
			t.Errorf("null space of a PSD matrix: eigenvalue %.2e", v)
		}
	}
	partialOK(t, "low-rank PSD", g, 10, Smallest)
}

// A graded spectrum 1e-12 … 1: eigenvalues agree to 1e-10·‖A‖ (no dense
// method resolves the small ones to better than ε·‖A‖ absolute); the
// vectors of the well-separated top are compared by angles, those of the
// bottom by residuals.
func TestDenseEigenStandardGraded(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	n := 120
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.Pow(10, -12*float64(i)/float64(n-1))
	}
	a := withSpectrum(rng, vals)
	res := eigs(t, DenseEigen{}, a, nil, 20, Largest)
	wv, wz := refPairs(t, a, nil, 20, Largest)
	comparePairs(t, "graded top", a, nil, res.Values, res.Vectors, wv, wz, 1e-10, 0, 1e-8)
	partialOK(t, "graded top", a, 20, Largest)
	res = eigs(t, DenseEigen{}, a, nil, 20, Smallest)
	for i, v := range res.Values {
		if d := math.Abs(v - vals[n-1-i]); d > 1e-14 {
			t.Errorf("graded bottom: λ_%d = %.3e, want %.3e", i, v, vals[n-1-i])
		}
	}
	if r := pairResidual(a, nil, res.Values, res.Vectors); r > 1e-3 {
		t.Errorf("graded bottom: residual %.2e", r)
	}
	// Absolute residuals ‖Av − λv‖ ≤ 1e-13·‖A‖.
	av := MulBlock(SymDenseOp{a}, res.Vectors)
	for j := 0; j < 20; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			r := av.At(i, j) - res.Values[j]*res.Vectors.At(i, j)
			s += r * r
		}
		if math.Sqrt(s) > 1e-13 {
			t.Errorf("graded bottom: ‖Av−λv‖ = %.2e for pair %d", math.Sqrt(s), j)
		}
	}
	partialOK(t, "graded bottom", a, 20, Smallest)
	// D·M·D grading (entries scaled by 10^(−6i/n)·10^(−6j/n)).
	m := randSPD(rng, n, n, 1)
	dm := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			dm.SetSym(i, j, m.At(i, j)*math.Pow(10, -6*float64(i+j)/float64(n)))
		}
	}
	for _, order := range []Order{Largest, Smallest} {
		res := eigs(t, DenseEigen{}, dm, nil, 10, order)
		wv, wz := refPairs(t, dm, nil, 10, order)
		if order == Largest {
			comparePairs(t, "DMD top", dm, nil, res.Values, res.Vectors, wv, wz, 1e-10, 1e-6, 1e-8)
		} else {
			for i := range wv {
				if d := math.Abs(res.Values[i] - wv[i]); d > 1e-10*mat.Norm(dm, 2) {
					t.Errorf("DMD bottom: λ differs by %.2e", d)
				}
			}
		}
		partialOK(t, "DMD", dm, 10, order)
	}
}

// Generalized problems against GenSymEig: random pencils, prescribed
// spectra with clusters and repeats, both ends, k = 1 and k = n.
func TestDenseEigenGeneralized(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	withTiles(32, 16, func() {
		for _, n := range []int{1, 5, 70, 250} {
			a := randSym(rng, n)
			b := randSPD(rng, n, n, float64(n)/10)
			for _, k := range uniq(1, max(1, n/5), n) {
				for _, order := range []Order{Largest, Smallest} {
					res := eigs(t, DenseEigen{}, a, b, k, order)
					wv, wz := refPairs(t, a, b, k, order)
					comparePairs(t, "generalized n="+itoa(n)+" k="+itoa(k)+" "+orderName(order), a, b, res.Values, res.Vectors, wv, wz, 1e-10, 0, 1e-8)
				}
			}
		}
		n := 150
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = 1 + rng.Float64()
		}
		copy(vals, []float64{5, 5 + 5e-8, 5 + 1e-7, 4, 4, 4, 4})
		copy(vals[7:], []float64{0.1, 0.1, 0.1, 0.1, 0.2, 0.2 + 5e-8})
		a, b := pencilWithSpectrum(rng, vals)
		for _, c := range []struct {
			k     int
			order Order
		}{{7, Largest}, {3, Largest}, {6, Smallest}, {4, Smallest}} {
			res := eigs(t, DenseEigen{}, a, b, c.k, c.order)
			wv, wz := refPairs(t, a, b, c.k, c.order)
			comparePairs(t, "generalized clusters k="+itoa(c.k)+" "+orderName(c.order), a, b, res.Values, res.Vectors, wv, wz, 1e-10, 1e-6, 1e-8)
			sorted := append([]float64(nil), vals...)
			sort.Float64s(sorted)
			for i, v := range res.Values {
				want := sorted[i]
				if c.order == Largest {
					want = sorted[n-1-i]
				}
				if math.Abs(v-want) > 1e-10*5 {
					t.Errorf("generalized clusters: λ_%d = %v, want %v", i, v, want)
				}
			}
		}
	})
}

// B = I exactly is solved as the standard problem, by DenseEigen and
// GenSymEig alike: the same pairs to the last bit as with no B (and a B one rounding unit away from I still takes
// the generalized route, with the same pairs to tolerance).
func TestDenseEigenIdentityB(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{1, 7, 120} {
		a := randSym(rng, n)
		id := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			id.SetSym(i, i, 1)
		}
		for _, k := range uniq(1, max(1, n/5), n) {
			std := eigs(t, DenseEigen{}, a, nil, k, Smallest)
			withI := eigs(t, DenseEigen{}, a, id, k, Smallest)
			if !mat.Equal(std.Vectors, withI.Vectors) || !slices.Equal(std.Values, withI.Values) {
				t.Errorf("n=%d k=%d: B = I gives other pairs than no B", n, k)
			}
			gv, gz, err := GenSymEig(a, id, k, GenOptions{Order: Smallest})
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(std.Vectors, gz) || !slices.Equal(std.Values, gv) {
				t.Errorf("n=%d k=%d: GenSymEig with B = I gives other pairs than DenseEigen with no B", n, k)
			}
		}
		if n > 1 {
			near := mat.NewSymDense(n, nil)
			near.CopySym(id)
			near.SetSym(0, 1, 1e-16)
			if isIdentity(near) {
				t.Fatalf("n=%d: a B with an off-diagonal 1e-16 counted as the identity", n)
			}
			k := max(1, n/5)
			res := eigs(t, DenseEigen{}, a, near, k, Smallest)
			wv, wz := refPairs(t, a, near, k, Smallest)
			comparePairs(t, "B = I + 1e-16 n="+itoa(n), a, near, res.Values, res.Vectors, wv, wz, 1e-10, 0, 1e-8)
		}
	}
}

// A near-singular B: DenseEigen falls back to GenSymEig (the same bits) and
// the pairs are correct on range(B); too few dimensions give an error.
func TestDenseEigenNearSingularB(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	n, r := 60, 40
	a := randSym(rng, n)
	bvals := make([]float64, n)
	for i := range bvals {
		if i < r {
			bvals[i] = 1 + rng.Float64()
		} else {
			bvals[i] = 1e-14 * rng.Float64() // positive: Cholesky may succeed
		}
	}
	b := withSpectrum(rng, bvals)
	for _, order := range []Order{Largest, Smallest} {
		res := eigs(t, DenseEigen{}, a, b, 5, order)
		wv, wz, err := GenSymEig(a, b, 5, GenOptions{Order: order})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(res.Vectors, wz) {
			t.Errorf("near-singular B, order %d: not the GenSymEig fallback", order)
		}
		for i := range wv {
			if res.Values[i] != wv[i] {
				t.Errorf("near-singular B: value %d differs", i)
			}
		}
		// Correct on range(B): A·v − λ·B·v ⟂ range(B) … here the reduced
		// residual Pᵀ(A·v − λB·v) with P a basis of range(B) is ~0, and
		// Vᵀ·B·V = I.
		var av, bv, rsd mat.Dense
		av.Mul(a, res.Vectors)
		bv.Mul(b, res.Vectors)
		for j := 0; j < 5; j++ {
			for i := 0; i < n; i++ {
				bv.Set(i, j, bv.At(i, j)*res.Values[j])
			}
		}
		rsd.Sub(&av, &bv)
		_, bz := refPairs(t, b, nil, r, Largest) // basis of range(B)
		var proj mat.Dense
		proj.Mul(bz.T(), &rsd)
		if e := mat.Norm(&proj, math.Inf(1)); e > 1e-9*mat.Norm(a, math.Inf(1)) {
			t.Errorf("near-singular B: residual on range(B) %.2e", e)
		}
		var bv1, g mat.Dense
		bv1.Mul(b, res.Vectors)
		g.Mul(res.Vectors.T(), &bv1)
		for i := 0; i < 5; i++ {
			g.Set(i, i, g.At(i, i)-1)
		}
		if e := mat.Norm(&g, math.Inf(1)); e > 1e-10 {
			t.Errorf("near-singular B: ‖VᵀBV − I‖ = %.2e", e)
		}
	}
	if _, err := (DenseEigen{}).Eigs(context.Background(), SymDenseOp{a}, SymDenseOp{b}, r+1, Largest); err == nil {
		t.Error("no error for k > rank(B)")
	}
	// An indefinite B also falls back (Cholesky fails).
	bi := randSPD(rng, n, n, 1)
	bi.SetSym(3, 3, -100)
	if _, err := (DenseEigen{}).Eigs(context.Background(), SymDenseOp{a}, SymDenseOp{bi}, 3, Largest); err != nil {
		t.Logf("indefinite B: %v", err)
	}
}

// Bit-identical results at GOMAXPROCS 1 and 2 for the standard partial
// path and the generalized path.
func TestDenseEigenDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 260
	a := randSym(rng, n)
	b := randSPD(rng, n, n, 10)
	var r1, r2, g1, g2 *EigenResult
	withProcs(1, func() {
		r1 = eigs(t, DenseEigen{}, a, nil, 30, Largest)
		g1 = eigs(t, DenseEigen{}, a, b, 30, Smallest)
	})
	withProcs(2, func() {
		r2 = eigs(t, DenseEigen{}, a, nil, 30, Largest)
		g2 = eigs(t, DenseEigen{}, a, b, 30, Smallest)
	})
	if !mat.Equal(r1.Vectors, r2.Vectors) || !equalBits(r1.Values, r2.Values) {
		t.Error("standard: results differ between GOMAXPROCS 1 and 2")
	}
	if !mat.Equal(g1.Vectors, g2.Vectors) || !equalBits(g1.Values, g2.Values) {
		t.Error("generalized: results differ between GOMAXPROCS 1 and 2")
	}
}

// SymEig's partial path (0 < k ≤ n/4) gives the pairs of the full path.
func TestSymEigPartialMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	a := randSym(rng, 100)
	for _, order := range []Order{Largest, Smallest} {
		vals, vecs, err := SymEig(a, 25, order)
		if err != nil {
			t.Fatal(err)
		}
		allV, allZ, err := SymEig(a, 0, order)
		if err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			if math.Abs(vals[i]-allV[i]) > 1e-12*math.Abs(allV[0]) {
				t.Errorf("value %d: %v vs %v", i, vals[i], allV[i])
			}
			// Same vectors, same signs (FixSigns), to rounding.
			for r := 0; r < 100; r++ {
				if d := math.Abs(vecs.At(r, i) - allZ.At(r, i)); d > 1e-10 {
					t.Fatalf("vector %d differs by %.2e at row %d", i, d, r)
				}
			}
		}
	}
}

// Operators without Densifier, MatVecs, bad input, cancellation.
func TestDenseEigenInterface(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	x := mat.NewDense(50, 8, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var s EigenSolver = DenseEigen{}
	if s.Name() != "dense" {
		t.Error(s.Name())
	}
	// OuterOp forms XXᵀ itself (Densifier): no products with the identity.
	res, err := s.Eigs(context.Background(), OuterOp{X: x}, nil, 3, Largest)
	if err != nil {
		t.Fatal(err)
	}
	if res.MatVecs != 0 || res.Iterations != 0 {
		t.Errorf("Densifier: MatVecs %d Iterations %d", res.MatVecs, res.Iterations)
	}
	// The same operator known only by its products is densified with 50.
	op := OuterOp{X: x}
	if r2, err := s.Eigs(context.Background(), FuncOp{N: 50, Mul: op.MulBlockTo}, nil, 3, Largest); err != nil || r2.MatVecs != 50 {
		t.Errorf("FuncOp: %v, MatVecs %d", err, r2.MatVecs)
	}
	if res.Residual > 1e-13 {
		t.Errorf("residual %.2e", res.Residual)
	}
	// Eigenvalues of XXᵀ are the squared singular values of X.
	var svd mat.SVD
	svd.Factorize(x, mat.SVDNone)
	sv := svd.Values(nil)
	for i := 0; i < 3; i++ {
		if math.Abs(res.Values[i]-sv[i]*sv[i]) > 1e-10*sv[0]*sv[0] {
			t.Errorf("λ_%d = %v, want %v", i, res.Values[i], sv[i]*sv[i])
		}
	}
	a := SymDenseOp{randSym(rng, 10)}
	ctx := context.Background()
	for _, k := range []int{0, -1, 11} {
		if _, err := s.Eigs(ctx, a, nil, k, Largest); err == nil {
			t.Errorf("k=%d: no error", k)
		}
	}
	if _, err := s.Eigs(ctx, a, SymDenseOp{randSPD(rng, 9, 9, 1)}, 2, Largest); err == nil {
		t.Error("no error for mis-sized B")
	}
	bad := randSym(rng, 10)
	bad.SetSym(2, 3, math.NaN())
	if _, err := s.Eigs(ctx, SymDenseOp{bad}, nil, 2, Largest); err == nil {
		t.Error("no error for NaN")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Eigs(cctx, a, nil, 2, Largest); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The tridiagonal kernel on its own: Wilkinson's W21+ (pairs of nearly
// equal eigenvalues, differences ~1e-14), a matrix with zero off-diagonals
// in the middle, and the zero matrix.
func TestTridiagEig(t *testing.T) {
	n := 21
	d := make([]float64, n)
	e := make([]float64, n-1)
	for i := range d {
		d[i] = math.Abs(float64(i - 10))
	}
	for i := range e {
		e[i] = 1
	}
	check := func(name string, d, e []float64, il, iu int) {
		n := len(d)
		tm := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			tm.SetSym(i, i, d[i])
			if i < n-1 {
				tm.SetSym(i, i+1, e[i])
			}
		}
		vals, z, ok := tridiagEig(d, e, il, iu)
		if !ok {
			t.Fatalf("%s: not ok", name)
		}
		zm := mat.NewDense(n, iu-il+1, z)
		wv, wz := refPairs(t, tm, nil, 0, Smallest)
		comparePairs(t, name, tm, nil, vals, zm, wv[il:iu+1], mat.DenseCopyOf(wz.Slice(0, n, il, iu+1)), 1e-14, 1e-3, 1e-12)
	}
	check("W21+ all", d, e, 0, n-1)
	check("W21+ top pair", d, e, n-2, n-1)
	check("W21+ middle", d, e, 5, 12)
	e[7], e[13] = 0, 0
	check("split", d, e, 0, n-1)
	vals, z, ok := tridiagEig(make([]float64, 5), make([]float64, 4), 1, 3)
	if !ok || vals[0] != 0 || z[1*3+0] != 1 {
		t.Errorf("zero matrix: %v %v %v", vals, z, ok)
	}
}

// uniq returns its arguments without repeats, in order.
func uniq(ks ...int) []int {
	var out []int
	for _, k := range ks {
		if len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// The partialSymEig hook (set by the optional LAPACK backend) is tried
// first; its answer is used when ok, and the pure-Go path takes over when
// it declines.
func TestDenseEigenBackendHook(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	a := randSym(rng, 40)
	defer func(old func(*mat.SymDense, int, int) ([]float64, *mat.Dense, bool)) { partialSymEig = old }(partialSymEig)
	calls := 0
	partialSymEig = func(m *mat.SymDense, il, iu int) ([]float64, *mat.Dense, bool) {
		calls++
		if il != 40-3 || iu != 39 {
			t.Errorf("hook asked for %d..%d, want 37..39", il, iu)
		}
		return nil, nil, false
	}
	want := eigs(t, DenseEigen{}, a, nil, 3, Largest)
	if calls != 1 {
		t.Fatalf("hook called %d times", calls)
	}
	partialSymEig = func(m *mat.SymDense, il, iu int) ([]float64, *mat.Dense, bool) {
		calls++
		return partialEig(m, il, iu, nil)
	}
	got := eigs(t, DenseEigen{}, a, nil, 3, Largest)
	if calls != 2 || !mat.Equal(got.Vectors, want.Vectors) || !equalBits(got.Values, want.Values) {
		t.Errorf("hook result not used as is (calls %d)", calls)
	}
}
