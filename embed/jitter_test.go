package embed

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
)

func randPSD(rng *rand.Rand, n, rank int) *mat.SymDense {
	f := mat.NewDense(n, rank, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < rank; j++ {
			f.Set(i, j, rng.NormFloat64())
		}
	}
	var p mat.Dense
	p.Mul(f, f.T())
	return linalg.Symmetrize(&p)
}

// Jitter in the linear space with more columns than rows (p > n): the
// solution equals the direct solve of (ΨᵀAΨ)z = λ(ΨᵀBΨ + jitter·I)z on an
// orthonormal basis Q of the row space of X̄ (Ψ = X̄Q, v = Qz), and no
// direction maps the training rows to zero — whereas the unrestricted
// X̄ᵀAX̄·v = λ(X̄ᵀBX̄ + jitter·I)·v has p − rank(X̄) eigenvalue-0 directions
// that do.
func TestJitterRestrictsToRowSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	n, p := 15, 40
	x := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	a := randPSD(rng, n, n)
	b := randPSD(rng, n, 15)
	prob := &Problem{Space: Linear{}, Objective: graph.Dense{M: a}, Constraint: graph.Dense{M: b},
		Minimize: true, Jitter: 0.1, Solver: Dense}
	res, err := prob.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Model.(*LinearModel).W
	if _, k := w.Dims(); k != n-1 {
		t.Fatalf("%d directions, want rank(X̄) = %d", k, n-1)
	}
	xc := CenterRows(x, ColMeans(x))
	// Direct: Q from the SVD of X̄.
	var svd mat.SVD
	svd.Factorize(xc, mat.SVDThin)
	var vt mat.Dense
	svd.VTo(&vt)
	q := mat.DenseCopyOf(vt.Slice(0, p, 0, n-1))
	var psi mat.Dense
	psi.Mul(xc, q)
	ar := linalg.Congruence(a, &psi)
	br := linalg.Congruence(b, &psi)
	for i := 0; i < n-1; i++ {
		br.SetSym(i, i, br.At(i, i)+0.1)
	}
	vals, z, err := linalg.GenSymEig(ar, br, 0, linalg.GenOptions{Order: linalg.Smallest})
	if err != nil {
		t.Fatal(err)
	}
	var v mat.Dense
	v.Mul(q, z)
	for _, k := range []int{1, 3, 8} {
		ang, _ := linalg.PrincipalAngles(w.Slice(0, p, 0, k), v.Slice(0, p, 0, k))
		if ang[len(ang)-1] > 1e-7 {
			t.Errorf("first %d directions: angle %g", k, ang[len(ang)-1])
		}
	}
	for i, want := range vals {
		if math.Abs(res.Values[i]-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("value %d = %g, direct %g", i, res.Values[i], want)
		}
	}
	var proj mat.Dense
	proj.Mul(xc, w)
	for j := 0; j < n-1; j++ {
		if mat.Norm(proj.ColView(j), 2) < 1e-6 {
			t.Errorf("direction %d maps every training row to 0", j)
		}
	}
	// Unrestricted: spurious eigenvalue-0 directions.
	full := linalg.Congruence(a, xc)
	fb := linalg.Congruence(b, xc)
	for i := 0; i < p; i++ {
		fb.SetSym(i, i, fb.At(i, i)+0.1)
	}
	fv, _, _ := linalg.GenSymEig(full, fb, 0, linalg.GenOptions{Order: linalg.Smallest})
	zeros := 0
	for _, v := range fv {
		if math.Abs(v) < 1e-10*math.Abs(fv[len(fv)-1]) {
			zeros++
		}
	}
	if zeros < p-(n-1) {
		t.Errorf("unrestricted problem: %d zero eigenvalues, expected at least %d", zeros, p-(n-1))
	}

	// Errors: negative jitter, jitter with the regression route.
	prob.Jitter = -1
	if _, err := prob.Fit(x); err == nil {
		t.Error("negative jitter accepted")
	}
	prob.Jitter, prob.Solver = 0.1, Regression
	if _, err := prob.Fit(x); err == nil {
		t.Error("jitter with the regression solver accepted")
	}
}

// TieBreak rotates a degenerate eigenspace to diagonalise the secondary
// objective (decreasing) and leaves non-degenerate directions alone.
func TestTieBreak(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := 12
	x := mat.NewDense(n, 5, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 5; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	// Objective with a 3-dimensional null space in feature space: a
	// projection onto 2 of the 5 centred feature directions.
	xc := CenterRows(x, ColMeans(x))
	var g mat.Dense
	g.Mul(xc.Slice(0, n, 0, 2), xc.Slice(0, n, 0, 2).T())
	obj := graph.Dense{M: linalg.Symmetrize(&g)}
	sec := graph.Dense{M: randPSD(rng, n, n)}
	base := &Problem{Space: Linear{}, Objective: obj, Minimize: true, Solver: Dense}
	r0, err := base.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	tb := *base
	tb.TieBreak = sec
	r1, err := tb.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	w0 := r0.Model.(*LinearModel).W
	w1 := r1.Model.(*LinearModel).W
	// Same degenerate (first 3) subspace, same remaining directions.
	ang, _ := linalg.PrincipalAngles(w0.Slice(0, 5, 0, 3), w1.Slice(0, 5, 0, 3))
	if ang[2] > 1e-7 { // acos resolves angles to ~1e-8
		t.Errorf("degenerate subspace changed: %v", ang)
	}
	for j := 3; j < 5; j++ {
		ang, _ := linalg.PrincipalAngles(w0.Slice(0, 5, j, j+1), w1.Slice(0, 5, j, j+1))
		if ang[0] > 1e-7 {
			t.Errorf("direction %d changed", j)
		}
	}
	var p mat.Dense
	p.Mul(xc, w1.Slice(0, 5, 0, 3))
	s := linalg.Congruence(sec.M, &p)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if i != j && math.Abs(s.At(i, j)) > 1e-9*s.At(0, 0) {
				t.Errorf("secondary not diagonal: %g", s.At(i, j))
			}
		}
		if i > 0 && s.At(i, i) > s.At(i-1, i-1) {
			t.Errorf("secondary not decreasing")
		}
	}
}
