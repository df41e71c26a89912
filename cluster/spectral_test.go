package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/linalg"
)

// blobs returns k Gaussian blobs of n rows each (unit variance, 2-D,
// centres sep apart on a line), rows interleaved.
func blobs(n, k int, sep float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n*k, 2, nil)
	y := make([]int, n*k)
	for i := range y {
		c := i % k
		y[i] = c
		x.Set(i, 0, sep*float64(c)+rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	return x, y
}

// twoMoons is scikit-learn's make_moons: two interleaved half circles,
// n rows each, Gaussian noise of standard deviation noise.
func twoMoons(n int, noise float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := mat.NewDense(2*n, 2, nil)
	y := make([]int, 2*n)
	for i := 0; i < n; i++ {
		a := math.Pi * float64(i) / float64(n-1)
		x.Set(2*i, 0, math.Cos(a)+noise*rng.NormFloat64())
		x.Set(2*i, 1, math.Sin(a)+noise*rng.NormFloat64())
		x.Set(2*i+1, 0, 1-math.Cos(a)+noise*rng.NormFloat64())
		x.Set(2*i+1, 1, 0.5-math.Sin(a)+noise*rng.NormFloat64())
		y[2*i+1] = 1
	}
	return x, y
}

func accuracyOf(t *testing.T, nc NormalizedCut, x *mat.Dense, y []int) (float64, *SpectralResult) {
	t.Helper()
	r, err := nc.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := Accuracy(r.Labels(), y)
	if err != nil {
		t.Fatal(err)
	}
	return acc, r
}

// Clearly separated blobs are recovered perfectly by every affinity.
func TestNormalizedCutBlobs(t *testing.T) {
	x, y := blobs(50, 4, 12, 3)
	for _, a := range Affinities {
		for _, w := range []graph.WeightKind{graph.Heat, graph.Constant} {
			acc, r := accuracyOf(t, NormalizedCut{K: 4, Affinity: a, Weights: w}, x, y)
			if acc != 1 {
				t.Errorf("%s/%s: accuracy %v on separated blobs", a, w, acc)
			}
			if r.Graph.Connected != 1 {
				t.Errorf("%s: %d components after connection", a, r.Graph.Connected)
			}
		}
	}
}

// Two moons: the kNN graph (the default) and self-tuning separate them
// perfectly; k-means on the raw rows cannot.
func TestNormalizedCutTwoMoons(t *testing.T) {
	x, y := twoMoons(150, 0.06, 4)
	for _, a := range []Affinity{KNN, SelfTune} {
		if acc, _ := accuracyOf(t, NormalizedCut{K: 2, Affinity: a}, x, y); acc != 1 {
			t.Errorf("%s: accuracy %v on two moons", a, acc)
		}
	}
	km, err := KMeans{K: 2}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	if acc, _ := Accuracy(km.Labels, y); acc > 0.95 {
		t.Errorf("k-means alone separates the moons (accuracy %v): the test does not test the graph", acc)
	}
}

// The returned vectors solve W·y = λ·D·y with YᵀDY = I, on the sparse
// graph (Lanczos, n > 500) and on a dense affinity (partial dense solver),
// and λ₁ = 1 with y₁ constant on a connected graph.
func TestNormalizedCutGeneralizedResidual(t *testing.T) {
	x, _ := blobs(130, 5, 3, 5) // 650 rows, overlapping blobs
	for _, nc := range []NormalizedCut{{K: 5}, {K: 5, Affinity: RBF}, {K: 5, Affinity: SelfTune}} {
		e, err := nc.Embed(x)
		if err != nil {
			t.Fatal(err)
		}
		nc.check(650)
		a, err := nc.affinity(x)
		if err != nil {
			t.Fatal(err)
		}
		var w graph.Operator = a.sparse
		if a.sparse == nil {
			w = graph.Dense{M: linalg.SymView(a.dense)}
		}
		d := graph.Diagonal(a.degrees())
		wy, dy := w.Apply(e.Vectors), d.Apply(e.Vectors)
		for j, lam := range e.Values {
			var r, nw, nd float64
			for i := 0; i < 650; i++ {
				v := wy.At(i, j) - lam*dy.At(i, j)
				r += v * v
				nw += wy.At(i, j) * wy.At(i, j)
				nd += dy.At(i, j) * dy.At(i, j)
			}
			if res := math.Sqrt(r) / (math.Sqrt(nw) + math.Abs(lam)*math.Sqrt(nd)); res > 1e-8 {
				t.Errorf("%s (%s): pair %d residual %.3g", e.Graph.Affinity, e.Solver, j, res)
			}
		}
		var ydy mat.Dense
		ydy.Mul(e.Vectors.T(), dy)
		for i := 0; i < 5; i++ {
			for j := 0; j < 5; j++ {
				if want := b2f(i == j); math.Abs(ydy.At(i, j)-want) > 1e-8 {
					t.Fatalf("%s: (YᵀDY)[%d][%d] = %v", e.Graph.Affinity, i, j, ydy.At(i, j))
				}
			}
		}
		if math.Abs(e.Values[0]-1) > 1e-10 || !slices.IsSortedFunc(e.Values, func(a, b float64) int { return -cmpF(a, b) }) {
			t.Errorf("%s: values %v: want decreasing from 1", e.Graph.Affinity, e.Values)
		}
		if want := map[Affinity]string{KNN: "lanczos", RBF: "dense", SelfTune: "dense"}[e.Graph.Affinity]; e.Solver != want {
			t.Errorf("%s: solver %s, want %s", e.Graph.Affinity, e.Solver, want)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A kNN graph of two far groups with p = 5 is disconnected: Connect none
// reports 2 components (eigenvalue 1 twice); grow raises p to the smallest
// value that connects; mst (the default) adds one edge, with a nonzero weight
// although the heat weight of a 1000-long edge underflows.
func TestNormalizedCutDisconnected(t *testing.T) {
	x, y := blobs(40, 2, 1000, 6)
	none, err := NormalizedCut{K: 2, P: 5, Connect: ConnectNone}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	if none.Graph.Components != 2 || none.Graph.Connected != 2 {
		t.Errorf("none: %d components, %d after: want 2 and 2", none.Graph.Components, none.Graph.Connected)
	}
	if math.Abs(none.Values[1]-1) > 1e-10 {
		t.Errorf("none: λ₂ = %v, want 1 (a component indicator)", none.Values[1])
	}
	grow, err := NormalizedCut{K: 2, P: 5, Connect: ConnectGrow}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	if grow.Graph.Components != 2 || grow.Graph.Connected != 1 || grow.Graph.P != 40 {
		t.Errorf("grow: %+v, want 2 components before, 1 after, p = 40 (the smallest p whose neighbourhoods reach the other group)", grow.Graph)
	}
	mst, err := NormalizedCut{K: 2, P: 5}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	if mst.Graph.Components != 2 || mst.Graph.Connected != 1 || mst.Graph.Added != 1 || mst.Graph.Edges != none.Graph.Edges+1 {
		t.Errorf("mst: %+v, want one edge added (none had %d)", mst.Graph, none.Graph.Edges)
	}
	if mst.Values[1] >= 1 {
		t.Errorf("mst: λ₂ = %v, want < 1 on the connected graph", mst.Values[1])
	}
	for _, e := range []*SpectralEmbedding{none, grow, mst} {
		km, _ := KMeans{K: 2}.Fit(e.Rows)
		if acc, _ := Accuracy(km.Labels, y); acc != 1 {
			t.Errorf("connect %v: accuracy %v on two far groups", e.Graph, acc)
		}
	}
}

// Many small components (a chain of far pairs): mst joins them with c − 1
// edges, Borůvka's rounds ending in one component.
func TestConnectMSTChain(t *testing.T) {
	x := mat.NewDense(20, 1, nil)
	for i := 0; i < 20; i++ {
		x.Set(i, 0, float64(100*(i/2))+0.1*float64(i%2))
	}
	e, err := NormalizedCut{K: 2, P: 1, Connect: ConnectMST}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	if e.Graph.Components != 10 || e.Graph.Added != 9 || e.Graph.Connected != 1 {
		t.Errorf("chain: %+v, want 10 components joined by 9 edges", e.Graph)
	}
}

// Same seed, same bits with GOMAXPROCS 1 and 2 (sparse Lanczos and dense).
func TestNormalizedCutDeterministic(t *testing.T) {
	x, _ := blobs(110, 5, 3, 7)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, nc := range []NormalizedCut{{K: 5, Seed: 3}, {K: 5, Affinity: RBF, Seed: 3}} {
		var rs []*SpectralResult
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			r, err := nc.Fit(x)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		if !mat.Equal(rs[0].Rows, rs[1].Rows) || !slices.Equal(rs[0].Labels(), rs[1].Labels()) || !slices.Equal(rs[0].Values, rs[1].Values) {
			t.Errorf("%s: results differ between GOMAXPROCS 1 and 2", rs[0].Graph.Affinity)
		}
	}
}

func TestNormalizedCutErrors(t *testing.T) {
	x, _ := blobs(5, 2, 3, 8)
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.Inf(1))
	for _, c := range []struct {
		nc   NormalizedCut
		x    *mat.Dense
		want string
	}{
		{NormalizedCut{}, x, "K must be ≥ 1"},
		{NormalizedCut{K: 11}, x, "larger than the number of rows"},
		{NormalizedCut{K: 2, Affinity: "cosine"}, x, `unknown affinity "cosine"`},
		{NormalizedCut{K: 2, Connect: "glue"}, x, `unknown connect "glue"`},
		{NormalizedCut{K: 2, Weights: graph.LocalScaling}, x, "unknown weights"},
		{NormalizedCut{K: 2, Sigma: -1}, x, "Sigma must be > 0"},
		{NormalizedCut{K: 2, P: -1}, x, "P must be ≥ 1"},
		{NormalizedCut{K: 2}, nan, "row 4, column 2 is +Inf"},
		{NormalizedCut{K: 2, Affinity: RBF}, mat.NewDense(5, 1, []float64{1, 1, 1, 1, 2}), "median distance between rows is 0"},
	} {
		_, err := c.nc.Fit(c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.nc, err, c.want)
		}
	}
}

// A cancelled context stops Score, Fit and Embed with its error on every
// affinity; a live one gives the same scores as none.
func TestNormalizedCutContext(t *testing.T) {
	x, y := blobs(30, 3, 10, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, a := range Affinities {
		nc := NormalizedCut{K: 3, Affinity: a}
		want, err := nc.Score(x, y, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		live := nc
		live.Context = context.Background()
		if got, err := live.Score(x, y, 3, 1); err != nil || !reflect.DeepEqual(got.Accuracy, want.Accuracy) {
			t.Errorf("%s: live context: %v, %v against %v", a, err, got, want.Accuracy)
		}
		dead := nc
		dead.Context = ctx
		if _, err := dead.Score(x, y, 3, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Score cancelled: %v", a, err)
		}
		if _, err := dead.Fit(x); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Fit cancelled: %v", a, err)
		}
	}
}

// Score keeps the clusters of its first run: those of Fit with the same
// seed, scoring the run's accuracy and NMI.
func TestScoreKeepsFirstRunLabels(t *testing.T) {
	x, y := blobs(30, 4, 3.3, 5)
	nc := NormalizedCut{K: 4}
	sc, err := nc.Score(x, y, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	nc.Seed = 7
	fit, err := nc.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Labels, fit.KMeans.Labels) {
		t.Error("Score's first-run clusters are not Fit's with the same seed")
	}
	acc, _ := Accuracy(sc.Labels, y)
	nmi, _ := NMI(sc.Labels, y)
	if acc != sc.Accuracy[0] || nmi != sc.NMI[0] {
		t.Errorf("first run: accuracy %v and NMI %v from its labels, %v and %v reported", acc, nmi, sc.Accuracy[0], sc.NMI[0])
	}
}

// Without classes Score only clusters: no accuracy or NMI, the inertia of
// every run (those of the scored runs, run for run), and the labels of
// the run of lowest inertia, which are KMeansFor(seed + Run)'s.
func TestScoreWithoutClasses(t *testing.T) {
	x, y := blobs(40, 4, 6, 5)
	nc := NormalizedCut{K: 4, Restarts: 1}
	scored, err := nc.Score(x, y, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := nc.Score(x, nil, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Accuracy != nil || sc.NMI != nil || !reflect.DeepEqual(sc.Inertia, scored.Inertia) || len(sc.Inertia) != 6 {
		t.Fatalf("without classes: accuracy %v, NMI %v, inertia %v (scored %v)", sc.Accuracy, sc.NMI, sc.Inertia, scored.Inertia)
	}
	best := 0
	for r, v := range sc.Inertia {
		if v < sc.Inertia[best] {
			best = r
		}
	}
	km, err := nc.KMeansFor(3 + uint64(best)).Fit(sc.Rows)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Run != best || !reflect.DeepEqual(sc.Labels, km.Labels) {
		t.Errorf("kept run %d (labels of run %d wanted)", sc.Run, best)
	}
}

// Ten rings far apart give a 10-NN graph close to disconnected: ten
// eigenvalues of N packed near 1, on which Lanczos's default basis stalls
// (checked: the same solver alone does not converge). Above the dense
// fallback's size (lowered here to n − 1, as for 10 000 rows), the
// automatic choice retries with a larger basis and returns the dense
// solver's eigenvalues (1e-8) and clusters (the rings).
func TestNormalizedCutTightClusterRetry(t *testing.T) {
	const k, m = 10, 200
	defer func(old int) { denseFallback = old }(denseFallback)
	denseFallback = k*m - 1
	x := mat.NewDense(k*m, 2, nil)
	for c := 0; c < k; c++ {
		for i := 0; i < m; i++ {
			a := 2 * math.Pi * float64(i) / float64(m)
			x.SetRow(c*m+i, []float64{100*float64(c) + math.Cos(a), math.Sin(a)})
		}
	}
	var nce *linalg.NotConvergedError
	if _, err := (NormalizedCut{K: k, Eigen: linalg.Lanczos{Block: k}}).Embed(x); !errors.As(err, &nce) {
		t.Fatalf("the default Lanczos basis converged (%v): the case no longer tests the retry", err)
	}
	auto, err := NormalizedCut{K: k}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := NormalizedCut{K: k, Eigen: linalg.DenseEigen{}}.Embed(x)
	if err != nil {
		t.Fatal(err)
	}
	if auto.Solver != "lanczos" {
		t.Errorf("solver %s, want lanczos (n = %d is sparse)", auto.Solver, k*m)
	}
	for i := range auto.Values {
		if d := math.Abs(auto.Values[i] - dense.Values[i]); d > 1e-8 {
			t.Errorf("eigenvalue %d: %v, dense %v", i, auto.Values[i], dense.Values[i])
		}
	}
	res, err := NormalizedCut{K: k}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < k; c++ {
		for i := 1; i < m; i++ {
			if res.Labels()[c*m+i] != res.Labels()[c*m] {
				t.Fatalf("ring %d split between clusters", c)
			}
		}
	}
}
