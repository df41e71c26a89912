package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCSROperator(t *testing.T) {
	ents := []Entry{{0, 1, 2}, {1, 0, 2}, {2, 2, 5}, {0, 3, -1}, {3, 0, -1}, {0, 1, 1}, {1, 0, 1}}
	g, err := NewCSR(4, ents, true)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewSymDense(4, []float64{
		0, 3, 0, -1,
		3, 0, 0, 0,
		0, 0, 5, 0,
		-1, 0, 0, 0,
	})
	if !mat.Equal(g.Dense(), want) {
		t.Fatalf("dense\n%v\nwant\n%v", mat.Formatted(g.Dense()), mat.Formatted(want))
	}
	m := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	var ref mat.Dense
	ref.Mul(want, m)
	if !mat.EqualApprox(g.Apply(m), &ref, 1e-14) {
		t.Error("Apply differs from the dense product")
	}
	if d := g.Degrees(); d[0] != 2 || d[1] != 3 || d[2] != 5 || d[3] != -1 {
		t.Errorf("degrees %v", d)
	}
	if _, err := NewCSR(3, []Entry{{0, 1, 1}}, true); err == nil {
		t.Error("asymmetric matrix accepted")
	}
	if _, err := NewCSR(3, []Entry{{0, 3, 1}}, false); err == nil {
		t.Error("out-of-range entry accepted")
	}
	if _, err := NewCSR(3, []Entry{{0, 1, math.NaN()}}, false); err == nil {
		t.Error("NaN entry accepted")
	}
	// Laplacian: D − W, rows sum to zero, matches the dense formula.
	l := g.Laplacian()
	ld := l.Dense()
	for i := 0; i < 4; i++ {
		s := 0.0
		for j := 0; j < 4; j++ {
			w := want.At(i, j)
			s += ld.At(i, j)
			exp := -w
			if i == j {
				exp = g.Degrees()[i] - w
			}
			if ld.At(i, j) != exp {
				t.Errorf("L[%d][%d] = %v, want %v", i, j, ld.At(i, j), exp)
			}
		}
		if math.Abs(s) > 1e-14 {
			t.Errorf("Laplacian row %d sums to %v", i, s)
		}
	}
	if !l.IsSymmetric(0) {
		t.Error("Laplacian not symmetric")
	}
	dg := Diagonal{1, 2, 3, 4}
	if !mat.Equal(dg.Apply(m), func() *mat.Dense { var r mat.Dense; r.Mul(dg.Dense(), m); return &r }()) {
		t.Error("Diagonal.Apply differs from the dense product")
	}
}

func blobs(n int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, 3, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 3
		for j := 0; j < 3; j++ {
			x.Set(i, j, float64(y[i])*0.8+rng.NormFloat64())
		}
	}
	return x, y
}

// Symmetrisation "i in kNN(j) or j in kNN(i)" (and the mutual variant),
// constant, heat and local-scaling weights, checked entry by entry
// against the definitions from the raw neighbour lists.
func TestNeighbourhoodWeights(t *testing.T) {
	x, _ := blobs(120, 1)
	m := Euclidean{x}
	nn, _ := KNN(m, 6, SearchOptions{})
	in := func(i, j int) bool {
		for _, v := range nn.Index[i] {
			if v == j {
				return true
			}
		}
		return false
	}
	sigmaNN, _ := KNN(m, 7, SearchOptions{})
	for _, mutual := range []bool{false, true} {
		for _, wk := range []Weights{{Kind: Constant}, {Kind: Heat, T: 0.7}, {Kind: Heat}, {Kind: LocalScaling}} {
			g, err := Neighbourhood{K: 6, Mutual: mutual, Weights: wk}.Build(m)
			if err != nil {
				t.Fatal(err)
			}
			if !g.W.IsSymmetric(0) {
				t.Fatal("W not symmetric")
			}
			// Automatic t = mean squared edge length.
			if wk.Kind == Heat && wk.T == 0 {
				s, c := 0.0, 0
				for i := 0; i < 120; i++ {
					for j := i + 1; j < 120; j++ {
						if in(i, j) || in(j, i) {
							if !mutual || (in(i, j) && in(j, i)) {
								s += m.SqDist(i, j)
								c++
							}
						}
					}
				}
				if math.Abs(g.T-s/float64(c)) > 1e-12*g.T {
					t.Errorf("automatic t = %v, want %v", g.T, s/float64(c))
				}
			}
			for i := 0; i < 120; i++ {
				for j := 0; j < 120; j++ {
					edge := in(i, j) || in(j, i)
					if mutual {
						edge = in(i, j) && in(j, i)
					}
					want := 0.0
					if edge && i != j {
						d2 := m.SqDist(i, j)
						switch wk.Kind {
						case Constant:
							want = 1
						case Heat:
							want = math.Exp(-d2 / g.T)
						case LocalScaling:
							si := sigmaNN.Dist[i][6]
							sj := sigmaNN.Dist[j][6]
							want = math.Exp(-d2 / (si * sj))
						}
					}
					if got := g.W.At(i, j); math.Abs(got-want) > 1e-14 {
						t.Fatalf("%v mutual=%v W[%d][%d] = %v, want %v", wk, mutual, i, j, got, want)
					}
				}
			}
		}
	}
}

// Supervised variants: within-class search gives only same-class edges
// (every same-class pair when k ≥ n_c − 1), between-class search only
// cross-class edges, and the seed-000 filter keeps exactly the same-class
// edges of the unsupervised graph.
func TestSupervisedGraphs(t *testing.T) {
	x, y := blobs(90, 2)
	m := Euclidean{x}
	check := func(g *Graph, ok func(i, j int) bool, what string) {
		t.Helper()
		for i := 0; i < g.W.N; i++ {
			cols, _ := g.W.Row(i)
			for _, j := range cols {
				if !ok(i, j) {
					t.Fatalf("%s: edge %d-%d (classes %d, %d)", what, i, j, y[i], y[j])
				}
			}
		}
	}
	same := func(i, j int) bool { return y[i] == y[j] }
	within, err := Neighbourhood{K: 5, Supervision: InClass, Labels: y}.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	check(within, same, "within")
	between, err := Neighbourhood{K: 5, Supervision: CrossClass, Labels: y}.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	check(between, func(i, j int) bool { return !same(i, j) }, "between")
	all, _ := Neighbourhood{K: 5}.Build(m)
	filt, err := Neighbourhood{K: 5, Supervision: SameClassEdges, Labels: y}.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 90; i++ {
		for j := 0; j < 90; j++ {
			want := 0.0
			if same(i, j) {
				want = all.W.At(i, j)
			}
			if filt.W.At(i, j) != want {
				t.Fatalf("filter W[%d][%d] = %v, want %v", i, j, filt.W.At(i, j), want)
			}
		}
	}
	// k ≥ class size: documented fall-back, the complete within-class graph.
	full, err := Neighbourhood{K: 100, Supervision: InClass, Labels: y}.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	if e := full.W.Edges(); e != 3*30*29/2 {
		t.Errorf("k ≥ n_c: %d edges, want %d (every same-class pair)", e, 3*30*29/2)
	}
	// ε-ball between classes with the default radius rule.
	eps, err := DefaultBetweenEps(m, y, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	ball, err := Neighbourhood{Eps: eps, Supervision: CrossClass, Labels: y}.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	check(ball, func(i, j int) bool { return !same(i, j) && m.SqDist(i, j) <= eps*eps }, "ε-ball")
	withK := 0
	for i := 0; i < 90; i++ {
		if cols, _ := ball.W.Row(i); len(cols) >= 3 {
			withK++
		}
	}
	// The median rule: at least half the rows have ≥ 3 between-class
	// neighbours inside ε.
	if withK < 45 {
		t.Errorf("default ε = %g: only %d of 90 rows have 3 between-class neighbours", eps, withK)
	}
}

// Bad input: k = 0, ε connecting nothing, singleton classes, duplicate
// points (local scaling with σ = 0 must not give NaN), unknown options.
func TestNeighbourhoodBadInput(t *testing.T) {
	x, y := blobs(30, 3)
	m := Euclidean{x}
	for _, tc := range []struct {
		nb   Neighbourhood
		want string
	}{
		{Neighbourhood{}, "k must be ≥ 1"},
		{Neighbourhood{K: -2}, "k must be ≥ 1"},
		{Neighbourhood{Eps: 1e-9, Supervision: CrossClass, Labels: y}, "increase ε"},
		{Neighbourhood{Eps: -1}, "radius"},
		{Neighbourhood{K: 2, Eps: 1}, "either kNN or ε-ball"},
		{Neighbourhood{K: 2, Supervision: InClass}, "one label per row"},
		{Neighbourhood{K: 2, Supervision: "bogus", Labels: y}, "unknown supervision"},
		{Neighbourhood{K: 2, Weights: Weights{Kind: Heat, T: -1}}, "t must be"},
		{Neighbourhood{K: 2, Supervision: InClass, Labels: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}}, "no such pair"},
	} {
		_, err := tc.nb.Build(m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.nb, err, tc.want)
		}
	}
	// Duplicates: 10 copies of each of 3 points.
	d := mat.NewDense(30, 2, nil)
	for i := 0; i < 30; i++ {
		d.Set(i, 0, float64(i%3))
		d.Set(i, 1, float64(i%3)*2)
	}
	for _, wk := range []WeightKind{Constant, Heat, LocalScaling} {
		g, err := Neighbourhood{K: 5, Weights: Weights{Kind: wk}}.Build(Euclidean{d})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.W.Val {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s weights on duplicate rows: %v", wk, v)
			}
		}
	}
	// Singleton class in a within-class graph: isolated, not an error.
	ys := append([]int(nil), y...)
	ys[0] = 7
	g, err := Neighbourhood{K: 3, Supervision: InClass, Labels: ys}.Build(m)
	if err != nil || g.Isolated != 1 {
		t.Errorf("singleton class: err %v, %d isolated rows (want 1)", err, g.Isolated)
	}
}
