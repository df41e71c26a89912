package graph

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
)

// loadSklearnCSV reads ../shared/data/sklearn/NAME.csv (testdata.Sklearn).
func loadSklearnCSV(t *testing.T, name string) (*mat.Dense, []int) { return testdata.Sklearn(t, name) }

type knnRef struct {
	Indices   [][]int     `json:"indices_first20"`
	Distances [][]float64 `json:"distances_first20"`
}

// The 5-nearest-neighbour lists of scikit-learn (raw features, the row
// itself excluded) on iris and wine: distances agree to 1e-12 relative at
// every position, and indices agree except between rows at the same
// distance (sklearn: "ties may order differently"), for both search paths.
func TestKNNMatchesSklearn(t *testing.T) {
	b, err := os.ReadFile(testdata.Path(t, "reference/sklearn_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]knnRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"iris", "wine"} {
		x, _ := loadSklearnCSV(t, name)
		r := ref[name+"/knn5"]
		if len(r.Indices) != 20 {
			t.Fatalf("%s: reference has %d rows", name, len(r.Indices))
		}
		for _, alg := range []Search{SearchBrute, SearchTree} {
			nn, err := KNN(Euclidean{x}, 5, SearchOptions{Search: alg})
			if err != nil {
				t.Fatal(err)
			}
			exact := 0
			for i := range r.Indices {
				for p, want := range r.Distances[i] {
					got := nn.Dist[i][p]
					if math.Abs(got-want) > 1e-12*(1+want) {
						t.Errorf("%s/%s row %d pos %d: distance %.17g, sklearn %.17g", name, alg, i, p, got, want)
					}
					if j := r.Indices[i][p]; j != nn.Index[i][p] {
						// Must be a tie: sklearn's neighbour is at our distance.
						if d := math.Sqrt(Euclidean{x}.SqDist(i, j)); math.Abs(d-got) > 1e-12*(1+got) {
							t.Errorf("%s/%s row %d pos %d: index %d (d=%.17g), sklearn %d (d=%.17g) is not a tie", name, alg, i, p, nn.Index[i][p], got, j, d)
						}
					} else {
						exact++
					}
				}
			}
			t.Logf("%s/%s: %d of 100 neighbour indices identical, the rest ties", name, alg, exact)
		}
	}
}

// naiveKNN is the definition: all canonical distances, sorted by
// (distance, index).
func naiveKNN(m Metric, k int, ball bool, r2 float64, allow func(i, j int) bool) ([][]int, [][]float64) {
	n := m.Len()
	idx := make([][]int, n)
	dist := make([][]float64, n)
	for i := 0; i < n; i++ {
		var cs []cand
		for j := 0; j < n; j++ {
			if j != i && (allow == nil || allow(i, j)) {
				cs = append(cs, cand{m.SqDist(i, j), j})
			}
		}
		sort.Slice(cs, func(a, b int) bool { return less(cs[a], cs[b]) })
		for _, c := range cs {
			if (ball && c.d2 > r2) || (!ball && len(idx[i]) == k) {
				break
			}
			idx[i] = append(idx[i], c.j)
			dist[i] = append(dist[i], math.Sqrt(c.d2))
		}
	}
	return idx, dist
}

func sameLists(t *testing.T, what string, nn *Neighbours, idx [][]int, dist [][]float64) {
	t.Helper()
	for i := range idx {
		if len(nn.Index[i]) != len(idx[i]) {
			t.Fatalf("%s row %d: %d neighbours, want %d", what, i, len(nn.Index[i]), len(idx[i]))
		}
		for p := range idx[i] {
			if nn.Index[i][p] != idx[i][p] || nn.Dist[i][p] != dist[i][p] {
				t.Fatalf("%s row %d pos %d: (%d, %v), want (%d, %v)", what, i, p, nn.Index[i][p], nn.Dist[i][p], idx[i][p], dist[i][p])
			}
		}
	}
}

// tiedData has integer coordinates in a small range (many exact ties and
// duplicate rows) and labels in 4 classes.
func tiedData(n, d int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, float64(rng.IntN(5)))
		}
		y[i] = rng.IntN(4)
	}
	return x, y
}

// The k-d tree and blocked brute force equal the definition exactly
// (indices and bit-identical distances, ties by lower index) on data full
// of ties and duplicates, for kNN and ε-balls, with and without class
// restrictions; and in high dimension with continuous values and
// duplicated rows, where the blocked products must be confirmed.
func TestFastSearchEqualsDefinition(t *testing.T) {
	x, y := tiedData(700, 3, 1)
	m := Euclidean{x}
	same := func(i, j int) bool { return y[i] == y[j] }
	other := func(i, j int) bool { return y[i] != y[j] }
	for _, tc := range []struct {
		pairs Pairs
		allow func(i, j int) bool
	}{{AllPairs, nil}, {SameClass, same}, {OtherClass, other}} {
		for _, k := range []int{1, 7, 30} {
			idx, dist := naiveKNN(m, k, false, 0, tc.allow)
			for _, alg := range []Search{SearchBrute, SearchTree} {
				nn, err := KNN(m, k, SearchOptions{Pairs: tc.pairs, Labels: y, Search: alg})
				if err != nil {
					t.Fatal(err)
				}
				sameLists(t, string(alg)+" knn "+tc.pairs.String(), nn, idx, dist)
			}
		}
		eps := math.Sqrt(2)
		idx, dist := naiveKNN(m, 0, true, eps*eps, tc.allow)
		for _, alg := range []Search{SearchBrute, SearchTree} {
			nn, err := Ball(m, eps, SearchOptions{Pairs: tc.pairs, Labels: y, Search: alg})
			if err != nil {
				t.Fatal(err)
			}
			sameLists(t, string(alg)+" ball "+tc.pairs.String(), nn, idx, dist)
		}
	}

	// High dimension, continuous values far from the origin (so the
	// expansion ‖a‖²+‖b‖²−2aᵀb loses digits), with exact duplicates.
	rng := rand.New(rand.NewPCG(2, 2))
	n, d := 300, 60
	xh := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			xh.Set(i, j, 100+rng.NormFloat64()*0.01)
		}
		if i%10 == 9 {
			copy(xh.RawRowView(i), xh.RawRowView(i-1))
		}
	}
	mh := Euclidean{xh}
	idx, dist := naiveKNN(mh, 8, false, 0, nil)
	nn, err := KNN(mh, 8, SearchOptions{Search: SearchBrute})
	if err != nil {
		t.Fatal(err)
	}
	sameLists(t, "high-dim brute", nn, idx, dist)
	nn, _ = KNN(mh, 8, SearchOptions{Search: SearchTree})
	sameLists(t, "high-dim tree", nn, idx, dist)

	// Kernel feature space (eq. 13) from the Gram matrix.
	fs, err := NewFeatureSpace(kernel.RBF(2), x)
	if err != nil {
		t.Fatal(err)
	}
	idx, dist = naiveKNN(fs, 6, false, 0, other)
	nn, err = KNN(fs, 6, SearchOptions{Pairs: OtherClass, Labels: y})
	if err != nil {
		t.Fatal(err)
	}
	sameLists(t, "feature space", nn, idx, dist)
	if _, err := KNN(fs, 3, SearchOptions{Search: SearchTree}); err == nil {
		t.Error("k-d tree in feature space: no error")
	}
}

// Seed 004 eq. 13: feature-space distances from the Gram matrix equal the
// direct formula k(x,x) + k(y,y) − 2k(x,y), and with the linear kernel the
// Euclidean distances.
func TestFeatureSpaceDistance(t *testing.T) {
	x, _ := loadSklearnCSV(t, "iris")
	for _, k := range []kernel.Kernel{kernel.RBF(0.7), kernel.Poly(2, 1), kernel.Linear()} {
		fs, err := NewFeatureSpace(k, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][2]int{{0, 1}, {3, 77}, {149, 20}} {
			a, b := x.RawRowView(p[0]), x.RawRowView(p[1])
			want := k.Eval(a, a) + k.Eval(b, b) - 2*k.Eval(a, b)
			got := fs.SqDist(p[0], p[1])
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s d²(%d,%d) = %g, want %g", k, p[0], p[1], got, want)
			}
			if k.Type == "linear" {
				if e := (Euclidean{x}).SqDist(p[0], p[1]); math.Abs(got-e) > 1e-9*(1+e) {
					t.Errorf("linear-kernel distance %g, Euclidean %g", got, e)
				}
			}
		}
	}
}

// Results are bit-identical whatever GOMAXPROCS is.
func TestSearchDeterministicAcrossGOMAXPROCS(t *testing.T) {
	x, y := tiedData(900, 5, 3)
	run := func() (*Neighbours, *Neighbours, *mat.Dense) {
		a, _ := KNN(Euclidean{x}, 9, SearchOptions{Search: SearchBrute})
		b, _ := KNN(Euclidean{x}, 9, SearchOptions{Search: SearchTree, Pairs: OtherClass, Labels: y})
		g, _ := Neighbourhood{K: 9, Weights: Weights{Kind: Heat}}.Build(Euclidean{x})
		return a, b, g.W.Apply(x)
	}
	old := runtime.GOMAXPROCS(1)
	a1, b1, p1 := run()
	runtime.GOMAXPROCS(4)
	a4, b4, p4 := run()
	runtime.GOMAXPROCS(old)
	for i := range a1.Index {
		for p := range a1.Index[i] {
			if a1.Index[i][p] != a4.Index[i][p] || a1.Dist[i][p] != a4.Dist[i][p] {
				t.Fatalf("brute row %d differs between GOMAXPROCS 1 and 4", i)
			}
		}
		for p := range b1.Index[i] {
			if b1.Index[i][p] != b4.Index[i][p] || b1.Dist[i][p] != b4.Dist[i][p] {
				t.Fatalf("tree row %d differs between GOMAXPROCS 1 and 4", i)
			}
		}
	}
	if !mat.Equal(p1, p4) {
		t.Error("CSR product differs between GOMAXPROCS 1 and 4")
	}
}

func TestSearchErrors(t *testing.T) {
	x, y := tiedData(20, 2, 4)
	if _, err := KNN(Euclidean{x}, 0, SearchOptions{}); err == nil {
		t.Error("k = 0: no error")
	}
	if _, err := Ball(Euclidean{x}, -1, SearchOptions{}); err == nil {
		t.Error("ε < 0: no error")
	}
	if _, err := KNN(Euclidean{x}, 2, SearchOptions{Pairs: SameClass, Labels: y[:3]}); err == nil {
		t.Error("short labels: no error")
	}
	bad := mat.DenseCopyOf(x)
	bad.Set(3, 1, math.NaN())
	if _, err := KNN(Euclidean{bad}, 2, SearchOptions{}); err == nil {
		t.Error("NaN rows: no error")
	}
	// k larger than the candidates: capped, every candidate returned.
	nn, err := KNN(Euclidean{x}, 50, SearchOptions{})
	if err != nil || len(nn.Index[0]) != 19 {
		t.Errorf("k = 50 on 20 rows: %v, %d neighbours (want 19)", err, len(nn.Index[0]))
	}
}

// countingMetric counts its distance evaluations.
type countingMetric struct {
	Euclidean
	calls *atomic.Int64
}

func (c countingMetric) SqDist(i, j int) float64 { c.calls.Add(1); return c.Euclidean.SqDist(i, j) }

// A neighbour search with a cancelled context returns its error, on every
// route (brute force with and without the symmetric tiles, the k-d tree,
// a non-Euclidean metric, the ε-ball, class-restricted pairs, the
// neighbourhood graph, the ε rule and the local-scaling bandwidths), and computes no distance (counted
// on the non-Euclidean route); with a live context the lists are those of
// the search without one.
func TestSearchContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	y := make([]int, 600)
	for i := range y {
		y[i] = i % 3
	}
	for _, c := range []struct {
		name string
		d    int
		opt  SearchOptions
	}{
		{"brute, symmetric tiles", 20, SearchOptions{Search: SearchBrute}},
		{"brute, other class", 20, SearchOptions{Search: SearchBrute, Pairs: OtherClass, Labels: y}},
		{"kdtree", 3, SearchOptions{Search: SearchTree}},
		{"kdtree, same class", 3, SearchOptions{Search: SearchTree, Pairs: SameClass, Labels: y}},
	} {
		x := testdata.Normal(rng, 600, c.d)
		m := Euclidean{X: x}
		want, err := KNN(m, 5, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		live := c.opt
		live.Context = context.Background()
		if got, err := KNN(m, 5, live); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: with a live context the lists differ (%v)", c.name, err)
		}
		dead := c.opt
		dead.Context = ctx
		if _, err := KNN(m, 5, dead); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: KNN cancelled: %v", c.name, err)
		}
		if _, err := Ball(m, 1, dead); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Ball cancelled: %v", c.name, err)
		}
	}
	x := testdata.Normal(rng, 300, 4)
	var calls atomic.Int64
	if _, err := KNN(countingMetric{Euclidean{X: x}, &calls}, 5, SearchOptions{Context: ctx}); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Errorf("non-Euclidean search cancelled: %v after %d distances, want none", err, calls.Load())
	}
	if _, err := (Neighbourhood{K: 5, Context: ctx}).Build(Euclidean{X: x}); !errors.Is(err, context.Canceled) {
		t.Errorf("Neighbourhood.Build cancelled: %v", err)
	}
	if _, err := DefaultBetweenEpsContext(ctx, Euclidean{X: x}, y[:300], 5, SearchBrute); !errors.Is(err, context.Canceled) {
		t.Errorf("DefaultBetweenEpsContext cancelled: %v", err)
	}
	if _, err := LocalBandwidthContext(ctx, Euclidean{X: x}, 7, SearchAuto); !errors.Is(err, context.Canceled) {
		t.Errorf("LocalBandwidthContext cancelled: %v", err)
	}
	if _, err := (Neighbourhood{K: 5, Weights: Weights{Kind: LocalScaling}, Context: ctx}).Build(Euclidean{X: x}); !errors.Is(err, context.Canceled) {
		t.Errorf("Neighbourhood.Build with local scaling cancelled: %v", err)
	}
}

// KthSmallest gives the value sorting gives, with the smaller values in
// front and the larger behind, on odd and even lengths, heavy ties and
// sorted and reversed input.
func TestKthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		v := make([]float64, n)
		for i := range v {
			switch trial % 4 {
			case 0:
				v[i] = rng.NormFloat64()
			case 1:
				v[i] = float64(rng.IntN(4)) // ties
			case 2:
				v[i] = float64(i) // sorted
			default:
				v[i] = float64(n - i) // reversed
			}
		}
		k := rng.IntN(n)
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		got := KthSmallest(v, k)
		if got != sorted[k] || v[k] != got {
			t.Fatalf("trial %d: KthSmallest(%d) = %v, sorted gives %v", trial, k, got, sorted[k])
		}
		for i := range v {
			if (i < k && v[i] > got) || (i > k && v[i] < got) {
				t.Fatalf("trial %d: v[%d] = %v on the wrong side of v[%d] = %v", trial, i, v[i], k, got)
			}
		}
	}
}
