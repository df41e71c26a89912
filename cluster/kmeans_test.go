package cluster

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
)

// bruteKMeans returns the smallest inertia over every assignment of the
// rows to k non-empty clusters (each cluster at its mean).
func bruteKMeans(x *mat.Dense, k int) float64 {
	n, d := x.Dims()
	lab := make([]int, n)
	best := math.Inf(1)
	for {
		cnt := make([]int, k)
		sum := make([][]float64, k)
		for j := range sum {
			sum[j] = make([]float64, d)
		}
		for i, l := range lab {
			cnt[l]++
			for c := 0; c < d; c++ {
				sum[l][c] += x.At(i, c)
			}
		}
		if !slices.Contains(cnt, 0) {
			in := 0.0
			for i, l := range lab {
				for c := 0; c < d; c++ {
					v := x.At(i, c) - sum[l][c]/float64(cnt[l])
					in += v * v
				}
			}
			best = min(best, in)
		}
		i := 0
		for i < n && lab[i] == k-1 {
			lab[i] = 0
			i++
		}
		if i == n {
			return best
		}
		lab[i]++
	}
}

// On tiny random sets k-means with restarts reaches the global minimum of
// the inertia found by trying every partition (3⁹ = 19683 of them).
func TestKMeansReachesBruteForceOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 10; trial++ {
		x := testdata.Normal(rng, 9, 2)
		for _, k := range []int{2, 3} {
			want := bruteKMeans(x, k)
			r, err := KMeans{K: k, Restarts: 20, Seed: uint64(trial)}.Fit(x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Inertia-want) > 1e-12*max(1, want) {
				t.Errorf("trial %d, K=%d: inertia %.15g, brute-force optimum %.15g", trial, k, r.Inertia, want)
			}
			if !r.Converged {
				t.Errorf("trial %d, K=%d: not converged", trial, k)
			}
			// Labels and centres agree: every row at its nearest centre.
			for i := 0; i < 9; i++ {
				for j := 0; j < k; j++ {
					if graph.SqDist(x.RawRowView(i), r.Centers.RawRowView(j)) < graph.SqDist(x.RawRowView(i), r.Centers.RawRowView(r.Labels[i])) {
						t.Fatalf("row %d is nearer centre %d than its own %d", i, j, r.Labels[i])
					}
				}
			}
		}
	}
}

// Three separated blobs: recovered exactly whatever the seed.
func TestKMeansBlobs(t *testing.T) {
	x, y := blobs(60, 3, 10, 9)
	for seed := uint64(0); seed < 5; seed++ {
		r, err := KMeans{K: 3, Seed: seed}.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		if acc, _ := Accuracy(r.Labels, y); acc != 1 {
			t.Errorf("seed %d: accuracy %v on separated blobs", seed, acc)
		}
	}
}

// Same seed, same bits, with GOMAXPROCS 1 and 2; another seed may differ
// only in the start kept.
func TestKMeansDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := testdata.Normal(rng, 300, 5)
	km := KMeans{K: 6, Restarts: 7, Seed: 42}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var runs []*KMeansResult
	for _, procs := range []int{1, 2, 2} {
		runtime.GOMAXPROCS(procs)
		r, err := km.Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, r := range runs[1:] {
		if !slices.Equal(r.Labels, runs[0].Labels) || math.Float64bits(r.Inertia) != math.Float64bits(runs[0].Inertia) || !mat.Equal(r.Centers, runs[0].Centers) || r.Start != runs[0].Start {
			t.Fatal("k-means with the same seed differs between runs or GOMAXPROCS")
		}
	}
}

// Fewer distinct rows than clusters: the empty-cluster rule keeps every
// cluster non-empty and the inertia is 0.
func TestKMeansDuplicatesAndEmptyClusters(t *testing.T) {
	x := mat.NewDense(6, 1, []float64{1, 1, 1, 5, 5, 5})
	r, err := KMeans{K: 4, Seed: 1}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	if r.Inertia != 0 {
		t.Errorf("inertia %v, want 0", r.Inertia)
	}
	seen := map[int]bool{}
	for _, l := range r.Labels {
		seen[l] = true
	}
	if len(seen) != 4 {
		t.Errorf("labels %v: want all 4 clusters used", r.Labels)
	}
	one, err := KMeans{K: 1}.Fit(x)
	if err != nil || one.Inertia != 6*4 {
		t.Errorf("K=1: inertia %v (%v), want 24", one.Inertia, err)
	}
}

func TestKMeansErrors(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 0, 1, 1, 2, 2})
	nan := mat.NewDense(3, 2, []float64{0, 0, 1, math.NaN(), 2, 2})
	for _, c := range []struct {
		km   KMeans
		x    *mat.Dense
		want string
	}{
		{KMeans{K: 0}, x, "K must be ≥ 1"},
		{KMeans{K: 4}, x, "larger than the number of rows"},
		{KMeans{K: 2, Restarts: -1}, x, "Restarts"},
		{KMeans{K: 2, MaxIter: -1}, x, "MaxIter"},
		{KMeans{K: 2}, nan, "row 2, column 2 is NaN"},
		{KMeans{K: 2}, nil, "no rows"},
	} {
		_, err := c.km.Fit(c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.km, err, c.want)
		}
	}
}

// Finite rows whose squared distances overflow (norm ≈ 1e154) made a
// k-means worker index row −1 and kill the process (the library audit):
// now an error naming the entry.
func TestKMeansRowsBeyondTheDistanceRange(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 0, 1e154, 0, 0, 1e154, 1e154, 1e154})
	_, err := KMeans{K: 2, Seed: 1}.Fit(x)
	if err == nil || !strings.Contains(err.Error(), "cluster: k-means: row 2, column 1 is 1e+154") {
		t.Fatalf("error %v", err)
	}
	x.Scale(1e-4, x) // 1e150: within range, clustered
	if _, err := (KMeans{K: 2, Seed: 1}).Fit(x); err != nil {
		t.Fatal(err)
	}
}
