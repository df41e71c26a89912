package linalg

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randSPD(rng *rand.Rand, n, rank int, ridge float64) *mat.SymDense {
	g := mat.NewDense(n, rank, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < rank; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var s mat.Dense
	s.Mul(g, g.T())
	out := Symmetrize(&s)
	for i := 0; i < n; i++ {
		out.SetSym(i, i, out.At(i, i)+ridge)
	}
	return out
}

// Residuals ‖A·v − λ·B·v‖ and B-orthonormality (tolerance 1e-9 relative).
func TestGenSymEigResidual(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 12
	a := randSPD(rng, n, n, 0)
	b := randSPD(rng, n, n, 0.5)
	for _, order := range []Order{Largest, Smallest} {
		vals, v, err := GenSymEig(a, b, 0, GenOptions{Order: order})
		if err != nil {
			t.Fatal(err)
		}
		if len(vals) != n {
			t.Fatalf("got %d pairs, want %d", len(vals), n)
		}
		for j := range vals {
			if j > 0 && ((order == Largest && vals[j] > vals[j-1]) || (order == Smallest && vals[j] < vals[j-1])) {
				t.Fatalf("values out of order: %v", vals)
			}
			col := mat.NewVecDense(n, mat.Col(nil, j, v))
			var av, bv mat.VecDense
			av.MulVec(a, col)
			bv.MulVec(b, col)
			bv.ScaleVec(vals[j], &bv)
			av.SubVec(&av, &bv)
			if r := mat.Norm(&av, 2); r > 1e-9*(1+math.Abs(vals[j])) {
				t.Errorf("pair %d: residual %g", j, r)
			}
		}
		var btv, vbv mat.Dense
		btv.Mul(b, v)
		vbv.Mul(v.T(), &btv)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(vbv.At(i, j)-want) > 1e-9 {
					t.Fatalf("VᵀBV[%d][%d] = %g, want %g", i, j, vbv.At(i, j), want)
				}
			}
		}
	}
}

// A rank-deficient B: the problem is solved on range(B), giving rank(B)
// pairs, each satisfying A·v = λ·B·v projected on range(B).
func TestGenSymEigSingularB(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, r := 10, 6
	a := randSPD(rng, n, n, 0)
	b := randSPD(rng, n, r, 0)
	vals, v, err := GenSymEig(a, b, 0, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != r {
		t.Fatalf("got %d pairs on a rank-%d constraint, want %d", len(vals), r, r)
	}
	// The ridge makes B definite: all n pairs exist.
	vals2, _, err := GenSymEig(a, b, 0, GenOptions{Ridge: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals2) != n {
		t.Fatalf("with a ridge got %d pairs, want %d", len(vals2), n)
	}
	_ = v
}

func TestSymEigMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := randSPD(rng, 8, 8, 0)
	vals, v, err := SymEig(a, 3, Largest)
	if err != nil {
		t.Fatal(err)
	}
	if _, c := v.Dims(); c != 3 {
		t.Fatalf("got %d vectors, want 3", c)
	}
	for j := 0; j < 3; j++ {
		col := mat.NewVecDense(8, mat.Col(nil, j, v))
		var av mat.VecDense
		av.MulVec(a, col)
		av.AddScaledVec(&av, -vals[j], col)
		if r := mat.Norm(&av, 2); r > 1e-10*vals[0] {
			t.Errorf("residual %g", r)
		}
		// Sign rule: largest-magnitude entry positive.
		best := 0.0
		for i := 0; i < 8; i++ {
			if math.Abs(col.AtVec(i)) > math.Abs(best) {
				best = col.AtVec(i)
			}
		}
		if best < 0 {
			t.Errorf("column %d: largest entry %g is negative", j, best)
		}
	}
}

func TestPrincipalAngles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := mat.NewDense(9, 3, nil)
	for i := 0; i < 9; i++ {
		for j := 0; j < 3; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	rot := mat.NewDense(3, 3, []float64{2, 1, 0, -1, 3, 1, 0.5, 0, -1})
	var b mat.Dense
	b.Mul(a, rot)
	ang, err := PrincipalAngles(a, &b)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ang {
		if x > 1e-7 {
			t.Fatalf("same subspace: angles %v", ang)
		}
	}
	// e1 vs e2 in ℝ²: angle π/2.
	ang, _ = PrincipalAngles(mat.NewDense(2, 1, []float64{1, 0}), mat.NewDense(2, 1, []float64{1, 1}))
	if math.Abs(ang[0]-math.Pi/4) > 1e-12 {
		t.Fatalf("angle between e1 and (1,1): %v, want π/4", ang[0])
	}
}

func TestGenSymEigBadInput(t *testing.T) {
	a := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	if _, _, err := GenSymEig(a, mat.NewSymDense(3, nil), 0, GenOptions{}); err == nil {
		t.Fatal("size mismatch accepted")
	}
	if _, _, err := GenSymEig(a, mat.NewSymDense(2, nil), 0, GenOptions{}); err == nil {
		t.Fatal("zero constraint accepted")
	}
	if _, _, err := GenSymEig(a, mat.NewSymDense(2, []float64{math.NaN(), 0, 0, 1}), 0, GenOptions{}); err == nil {
		t.Fatal("NaN constraint accepted")
	}
	b := mat.NewSymDense(2, []float64{2, 0, 0, 1})
	for _, c := range []struct {
		name string
		opt  GenOptions
		want string
	}{
		{"rank tolerance -1", GenOptions{RankTol: -1}, "rank tolerance -1; must be in [0, 1)"},
		{"rank tolerance 2", GenOptions{RankTol: 2}, "rank tolerance 2"},
		{"rank tolerance NaN", GenOptions{RankTol: math.NaN()}, "rank tolerance NaN"},
		{"order 7", GenOptions{Order: 7}, "order 7 is neither Largest"},
		{"ridge NaN", GenOptions{Ridge: math.NaN()}, "ridge NaN"},
	} {
		if _, _, err := GenSymEig(a, b, 1, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, _, err := SymEig(a, 1, 7); err == nil || !strings.Contains(err.Error(), "order 7 is neither Largest") {
		t.Errorf("SymEig order 7: error %v", err)
	}
	if _, err := (DenseEigen{RankTol: -1}).Eigs(context.Background(), SymDenseOp{a}, SymDenseOp{b}, 1, Smallest); err == nil || !strings.Contains(err.Error(), "rank tolerance -1") {
		t.Errorf("DenseEigen rank tolerance -1: error %v", err)
	}
	// The default (0) and values inside (0, 1) are taken as given.
	if tol, err := RankTolerance(0); err != nil || tol != 1e-10 {
		t.Errorf("RankTolerance(0) = %v, %v; want 1e-10", tol, err)
	}
	if tol, err := RankTolerance(1e-6); err != nil || tol != 1e-6 {
		t.Errorf("RankTolerance(1e-6) = %v, %v", tol, err)
	}
}
