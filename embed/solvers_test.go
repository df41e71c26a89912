package embed

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
)

// Every eigen-solver gives the engine the same answer: for kernel PCA
// (principal route on K̃), PCA (principal route on the implicit XᵀX) and a
// generalized LPP-type minimisation (dense route, p×p pencil), each of
// dense, Lanczos, LOBPCG, randomized (where it applies) and the automatic
// choice gives the dense solver's eigenvalues to 1e-8 relative and its
// embedding of the training rows to principal angles < 1e-6 rad, on the
// digits table; the automatic choice is an iterative solver when few
// directions of a large problem are wanted.
func TestEngineSolversAgree(t *testing.T) {
	x, _ := testdata.Sklearn(t, "digits")
	x = testdata.MinMax(mat.DenseCopyOf(x.Slice(0, 900, 0, 64))) // the dense reference stays cheap
	n, _ := x.Dims()
	knn, err := graph.Neighbourhood{K: 8, Weights: graph.Weights{Kind: graph.Heat}}.Build(graph.Euclidean{X: x})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		space   Space
		prob    Problem
		solvers []string
		auto    string
	}{
		{"kpca", Kernel{K: kernel.RBF(2)}, Problem{Objective: graph.Identity(n), Dims: 12, DropZero: true},
			[]string{"lanczos", "lobpcg", "randomized"}, "dense"},
		{"pca", Linear{}, Problem{Objective: graph.Identity(n), Dims: 8, DropZero: true},
			[]string{"lanczos", "lobpcg", "randomized"}, "dense"},
		{"lpp", Linear{}, Problem{Objective: knn.Laplacian(), Constraint: knn.Degree(), Minimize: true, Dims: 6, Ridge: 1, ObjectiveRidge: 1},
			[]string{"lobpcg"}, "dense"},
	}
	for _, c := range cases {
		prep, err := c.space.Prepare(t.Context(), x)
		if err != nil {
			t.Fatal(err)
		}
		ref := c.prob
		ref.Eigen, _ = linalg.EigenSolverByName("dense")
		want, err := ref.Solve(prep)
		if err != nil {
			t.Fatalf("%s dense: %v", c.name, err)
		}
		zw := trainZ(prep, want.Model)
		for _, name := range append(c.solvers, "auto") {
			p := c.prob
			if name != "auto" {
				if p.Eigen, err = linalg.EigenSolverByName(name); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			got, err := p.Solve(prep)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, name, err)
			}
			t.Logf("%s %s (%s): %v", c.name, name, got.Eigen, time.Since(start))
			if name == "auto" && got.Eigen != c.auto {
				t.Errorf("%s: auto chose %q, want %q", c.name, got.Eigen, c.auto)
			}
			for j := range want.Values {
				if d := math.Abs(got.Values[j]-want.Values[j]) / math.Abs(want.Values[len(want.Values)-1]+want.Values[0]); d > 1e-8 {
					t.Errorf("%s %s: value %d = %.12g, dense %.12g", c.name, name, j, got.Values[j], want.Values[j])
				}
			}
			if a := engMaxAngle(t, zw, trainZ(prep, got.Model)); a > 1e-6 {
				t.Errorf("%s %s: embedding differs from the dense solver's by %.3g rad", c.name, name, a)
			}
		}
	}
}

// trainZ is the embedding of the training rows: Φ·V.
func trainZ(prep *Prepared, m Model) *mat.Dense {
	var coef *mat.Dense
	switch t := m.(type) {
	case *LinearModel:
		coef = t.W
	case *KernelModel:
		coef = t.A
	}
	var z mat.Dense
	z.Mul(prep.Phi, coef)
	return &z
}

// The regression route of a minimisation (L·y = λ·D·y, LPP-type) keeps
// the eigenvalue-0 responses: on a within-class kNN graph (one component
// per class) they are the centred class indicators, the best directions,
// which an earlier version dropped as "zero" (as it rightly does for a
// maximisation), so that solver=regression gave SKLPP's worst directions
// (an NCC error of 49 % on wine where dense gave 2 %). In a kernel space
// with a full-rank K̃ and a small ridge the regression interpolates the
// responses, so its C−1 leading directions span the dense route's (the
// eigenvalue-0 eigenspace of the pencil restricted to range K̃) to within
// 1e-4 rad, on 200 digits rows of 4 classes.
func TestRegressionMinimisationKeepsZeroResponses(t *testing.T) {
	xa, ya := testdata.Sklearn(t, "digits")
	var rows []int
	var y []int
	for i, c := range ya {
		if c < 4 && len(rows) < 200 {
			rows = append(rows, i)
			y = append(y, c)
		}
	}
	x := mat.NewDense(len(rows), 64, nil)
	for i, r := range rows {
		x.SetRow(i, xa.RawRowView(r))
	}
	x = testdata.MinMax(x)
	g, err := graph.Neighbourhood{K: 10, Supervision: graph.InClass, Labels: y, Weights: graph.Weights{Kind: graph.Heat}}.Build(graph.Euclidean{X: x})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := Kernel{K: kernel.RBF(3)}.Prepare(t.Context(), x)
	if err != nil {
		t.Fatal(err)
	}
	eps := 1e-8 * prep.Scale()
	for _, dims := range []int{3, 0} { // 0: all, the default
		base := Problem{Objective: g.Laplacian(), Constraint: g.Degree(), Minimize: true, Dims: dims, Ridge: eps, ObjectiveRidge: eps}
		dense, reg := base, base
		dense.Solver, reg.Solver = Dense, Regression
		want, err := dense.Solve(prep)
		if err != nil {
			t.Fatal(err)
		}
		got, err := reg.Solve(prep)
		if err != nil {
			t.Fatal(err)
		}
		zw, zg := trainZ(prep, want.Model), trainZ(prep, got.Model)
		if a := engMaxAngle(t, zw.Slice(0, 200, 0, 3).(*mat.Dense), zg.Slice(0, 200, 0, 3).(*mat.Dense)); a > 1e-4 {
			t.Errorf("dims %d: the regression route's first 3 directions differ from the dense route's by %.3g rad (values %.3g…, dense %.3g…)", dims, a, got.Values[:4], want.Values[:3])
		}
	}
}

// dropConstant on a B-orthonormal set (B diagonal) of which two columns
// mix the constant vector into a direction w, and three are B-orthogonal
// to it: the three come back as they are (no Gram–Schmidt over them: the
// O(n³) of a minimisation's n responses), the mixed pair gives ±w and a
// vanishing column, dropped; every column returned is B-orthogonal to 1
// and the set B-orthonormal (1e-12).
func TestDropConstantProjectsOnlyMixedColumns(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(3, 9))
	d := make(graph.Diagonal, n)
	for i := range d {
		d[i] = 0.5 + rng.Float64()
	}
	bdot := func(u, v []float64) float64 {
		s := 0.0
		for i := range u {
			s += u[i] * v[i] * d[i]
		}
		return s
	}
	var basis [][]float64
	add := func(v []float64) []float64 { // B-orthonormalise v against basis
		for _, u := range basis {
			c := bdot(u, v)
			for i := range v {
				v[i] -= c * u[i]
			}
		}
		s := 1 / math.Sqrt(bdot(v, v))
		for i := range v {
			v[i] *= s
		}
		basis = append(basis, v)
		return v
	}
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	u0 := add(one)
	rnd := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return add(v)
	}
	u1, u2, u3, w := rnd(), rnd(), rnd(), rnd()
	a1, a2 := make([]float64, n), make([]float64, n)
	for i := range a1 {
		a1[i] = (u0[i] + w[i]) / math.Sqrt2
		a2[i] = (u0[i] - w[i]) / math.Sqrt2
	}
	y := mat.NewDense(n, 5, nil)
	for j, c := range [][]float64{u1, a1, u2, a2, u3} {
		y.SetCol(j, c)
	}
	_, got, keep := dropConstant([]float64{0, 0, 1, 0, 2}, y, []int{0, 1, 2, 3, 4}, d)
	if !slices.Equal(keep, []int{0, 1, 2, 4}) {
		t.Fatalf("kept %v, want the three unmixed columns and one of the pair", keep)
	}
	for _, j := range []int{0, 2, 4} {
		if !floats.Equal(mat.Col(nil, j, got), mat.Col(nil, j, y)) {
			t.Errorf("column %d, B-orthogonal to 1, was changed", j)
		}
	}
	if c := math.Abs(bdot(mat.Col(nil, 1, got), w)); math.Abs(c-1) > 1e-12 {
		t.Errorf("the mixed pair's column is not ±w: |⟨v, w⟩_B| = %v", c)
	}
	for a, i := range keep {
		vi := mat.Col(nil, i, got)
		if c := bdot(vi, one); math.Abs(c) > 1e-12 {
			t.Errorf("column %d: ⟨v, 1⟩_B = %g", i, c)
		}
		for _, j := range keep[a:] {
			want := 0.0
			if i == j {
				want = 1
			}
			if c := bdot(vi, mat.Col(nil, j, got)); math.Abs(c-want) > 1e-12 {
				t.Errorf("⟨v%d, v%d⟩_B = %g, want %g", i, j, c, want)
			}
		}
	}
}
