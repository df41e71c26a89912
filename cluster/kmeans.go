package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/par"
)

// KMeans partitions rows into K clusters by minimising the inertia
//
//	J = Σᵢ ‖xᵢ − c_{ℓ(i)}‖²,   c_j = mean of the rows with ℓ(i) = j,
//
// with Lloyd's algorithm (assign every row to its nearest centre, move every
// centre to the mean of its rows) started from greedy k-means++ seeds
// (Arthur and Vassilvitskii 2007; the greedy variant of scikit-learn: each
// new centre is the best of 2 + ⌊ln K⌋ candidates drawn with probability
// proportional to the squared distance to the nearest centre so far). The
// iteration stops when no assignment changes (J then stops decreasing; it
// never increases) or after MaxIter iterations. Of Restarts independent
// starts the one with the lowest inertia is kept (ties: the earlier start).
//
// Determinism: start r draws from a PCG source seeded with (Seed, r); a row
// equally near two centres goes to the lower-numbered one; starts run in
// parallel but each is computed serially, so the result is the same
// whatever GOMAXPROCS is. An empty cluster (possible when rows coincide) is
// given the row farthest from its centre (ties: the lowest row index) and
// the iteration goes on; so with fewer distinct rows than K, identical
// rows can end in different clusters (every cluster keeps a row, as K
// asks).
//
// The zero value with K set is ready to use.
type KMeans struct {
	// K is the number of clusters, 1 ≤ K ≤ n.
	K int
	// Restarts is the number of seeded starts. If zero, it is defaulted
	// to 10 (scikit-learn's n_init).
	Restarts int
	// MaxIter bounds the Lloyd iterations of each start. If zero, it is
	// defaulted to 300 (scikit-learn's max_iter).
	MaxIter int
	// Seed seeds every start.
	Seed uint64
}

// KMeansResult is a fitted k-means partition.
type KMeansResult struct {
	// Labels are the cluster of every row, 0..K−1.
	Labels []int
	// Centers is K×d, row j the mean of cluster j.
	Centers *mat.Dense
	// Inertia is Σᵢ ‖xᵢ − c_{ℓ(i)}‖².
	Inertia float64
	// Iterations is the number of Lloyd iterations of the start kept;
	// Converged says whether it ended because no assignment changed.
	Iterations int
	Converged  bool
	// Start is the index of the start kept.
	Start int
}

// Fit clusters the rows of x. It returns an error for K < 1, K larger than
// the number of rows, negative Restarts or MaxIter, and a value that is not
// finite (naming its row and column).
func (km KMeans) Fit(x *mat.Dense) (*KMeansResult, error) {
	if x == nil {
		return nil, fmt.Errorf("cluster: k-means: no rows")
	}
	n, d := x.Dims()
	switch {
	case km.K < 1:
		return nil, fmt.Errorf("cluster: k-means: K must be ≥ 1, got %d", km.K)
	case km.K > n:
		return nil, fmt.Errorf("cluster: k-means: K = %d is larger than the number of rows (%d)", km.K, n)
	case km.Restarts < 0:
		return nil, fmt.Errorf("cluster: k-means: Restarts must be ≥ 0 (0: 10), got %d", km.Restarts)
	case km.MaxIter < 0:
		return nil, fmt.Errorf("cluster: k-means: MaxIter must be ≥ 0 (0: 300), got %d", km.MaxIter)
	}
	if err := data.CheckFinite("cluster: k-means", x); err != nil {
		return nil, err
	}
	if err := data.CheckDistanceRange("cluster: k-means", x); err != nil {
		return nil, err
	}
	if km.Restarts == 0 {
		km.Restarts = 10
	}
	if km.MaxIter == 0 {
		km.MaxIter = 300
	}
	rows := make([][]float64, n)
	raw := x.RawMatrix()
	for i := range rows {
		rows[i] = raw.Data[i*raw.Stride : i*raw.Stride+d]
	}
	results := make([]*KMeansResult, km.Restarts)
	par.Tasks(km.Restarts, func(r int) {
		rng := rand.New(rand.NewPCG(km.Seed, uint64(r)))
		results[r] = km.lloyd(rows, d, seedPlusPlus(rows, km.K, rng))
		results[r].Start = r
	})
	best := results[0]
	for _, r := range results[1:] {
		if r.Inertia < best.Inertia {
			best = r
		}
	}
	return best, nil
}

// seedPlusPlus returns K initial centres (copies of rows) by greedy
// k-means++.
func seedPlusPlus(rows [][]float64, k int, rng *rand.Rand) [][]float64 {
	n := len(rows)
	trials := 2 + int(math.Log(float64(k)))
	centers := make([][]float64, 0, k)
	chosen := make([]bool, n)
	first := rng.IntN(n)
	centers = append(centers, slices.Clone(rows[first]))
	chosen[first] = true
	near := make([]float64, n) // squared distance to the nearest centre
	for i, r := range rows {
		near[i] = graph.SqDist(r, centers[0])
	}
	cand := make([]float64, n)
	bestNear := make([]float64, n)
	for len(centers) < k {
		total := 0.0
		for _, v := range near {
			total += v
		}
		if total == 0 {
			// Every row coincides with a centre: take the first row not
			// chosen yet (the clusters beyond the distinct rows stay
			// empty and are handled by Lloyd's empty-cluster rule).
			i := slices.Index(chosen, false)
			centers = append(centers, slices.Clone(rows[i]))
			chosen[i] = true
			for j, r := range rows {
				near[j] = min(near[j], graph.SqDist(r, rows[i]))
			}
			continue
		}
		best, bestPot := -1, math.Inf(1)
		for t := 0; t < trials; t++ {
			i := sampleD2(near, total, rng.Float64())
			pot := 0.0
			for j, r := range rows {
				cand[j] = min(near[j], graph.SqDist(r, rows[i]))
				pot += cand[j]
			}
			if pot < bestPot {
				best, bestPot = i, pot
				copy(bestNear, cand)
			}
		}
		centers = append(centers, slices.Clone(rows[best]))
		chosen[best] = true
		copy(near, bestNear)
	}
	return centers
}

// sampleD2 returns the row i with Σ_{j<i} w_j ≤ u·total < Σ_{j≤i} w_j,
// skipping rows of weight 0.
func sampleD2(w []float64, total, u float64) int {
	target := u * total
	acc := 0.0
	last := -1
	for i, v := range w {
		if v <= 0 {
			continue
		}
		last = i
		acc += v
		if acc > target {
			return i
		}
	}
	return last // rounding: u·total at the very end
}

// lloyd runs Lloyd's iterations from the given centres.
func (km KMeans) lloyd(rows [][]float64, d int, centers [][]float64) *KMeansResult {
	n, k := len(rows), km.K
	labels := make([]int, n)
	dist := make([]float64, n)
	assign := func(dst []int) {
		for i, r := range rows {
			bj, bd := 0, graph.SqDist(r, centers[0])
			for j := 1; j < k; j++ {
				if v := graph.SqDist(r, centers[j]); v < bd {
					bj, bd = j, v
				}
			}
			dst[i], dist[i] = bj, bd
		}
	}
	assign(labels)
	next := make([]int, n)
	res := &KMeansResult{}
	for res.Iterations < km.MaxIter {
		updateCenters(rows, labels, dist, centers)
		assign(next)
		res.Iterations++
		if slices.Equal(next, labels) {
			res.Converged = true
			break
		}
		labels, next = next, labels
	}
	if !res.Converged {
		// The cap was reached: the centres of the last assignment.
		updateCenters(rows, labels, dist, centers)
	}
	res.Labels = labels
	res.Centers = mat.NewDense(k, d, nil)
	for j, c := range centers {
		res.Centers.SetRow(j, c)
	}
	for i, r := range rows {
		res.Inertia += graph.SqDist(r, centers[labels[i]])
	}
	return res
}

// updateCenters moves every centre to the mean of its rows. A cluster left
// empty takes the row farthest from its centre (dist holds each row's
// squared distance to its centre; ties: the lowest index) among clusters
// with more than one row; labels are updated in place.
func updateCenters(rows [][]float64, labels []int, dist []float64, centers [][]float64) {
	k := len(centers)
	count := make([]int, k)
	for _, l := range labels {
		count[l]++
	}
	for j := 0; j < k; j++ {
		if count[j] > 0 {
			continue
		}
		far := -1
		for i, l := range labels {
			if count[l] > 1 && (far < 0 || dist[i] > dist[far]) {
				far = i
			}
		}
		if far < 0 {
			continue // fewer rows than clusters: cannot happen for K ≤ n
		}
		count[labels[far]]--
		labels[far] = j
		count[j] = 1
		dist[far] = 0
	}
	for j := range centers {
		clear(centers[j])
	}
	for i, r := range rows {
		c := centers[labels[i]]
		for t, v := range r {
			c[t] += v
		}
	}
	for j, c := range centers {
		inv := 1 / float64(count[j])
		for t := range c {
			c[t] *= inv
		}
	}
}
