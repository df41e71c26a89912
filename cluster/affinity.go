package cluster

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/par"
)

// Affinity names how NormalizedCut weighs pairs of rows. Every affinity
// has Wᵢᵢ = 0 (no self-loops, as in Ng, Jordan and Weiss).
type Affinity string

const (
	// KNN: the p-nearest-neighbour graph of package graph, symmetrised
	// ("i among the p nearest of j, or j among those of i"), with heat
	// weights Wᵢⱼ = exp(−‖xᵢ − xⱼ‖²/t) (t: the mean squared length of the
	// graph's edges unless given) or 0/1 weights. Sparse: O(n·p) memory, and
	// the eigenvectors come from Lanczos on the sparse operator. The
	// default (docs/clustering.md says why).
	KNN Affinity = "knn"
	// RBF: the complete graph Wᵢⱼ = exp(−‖xᵢ − xⱼ‖²/(2σ²)), σ given or,
	// by the median heuristic, the median distance between two rows.
	// Dense: n×n memory.
	RBF Affinity = "rbf"
	// SelfTune: the local scaling of Zelnik-Manor and Perona (2004), Wᵢⱼ =
	// exp(−‖xᵢ − xⱼ‖²/(σᵢσⱼ)) with σᵢ the distance from row i to its
	// ScaleK-th nearest neighbour (7), on the complete graph as in their
	// paper. Dense: n×n memory.
	SelfTune Affinity = "selftune"
)

// Affinities lists the accepted values.
var Affinities = []Affinity{KNN, RBF, SelfTune}

// affinity is a built affinity graph, dense (n×n with both triangles) or
// sparse, and what was chosen while building it.
type affinity struct {
	dense  *mat.Dense
	sparse *graph.CSR
	info   GraphInfo
}

// GraphInfo describes the affinity graph NormalizedCut built.
type GraphInfo struct {
	Affinity Affinity `json:"affinity"`
	// Sigma is the RBF width used (RBF only).
	Sigma float64 `json:"sigma"`
	// P is the number of neighbours used and T the heat width (KNN only;
	// T = 0 for 0/1 weights). With Connect = "grow", P may exceed the one
	// asked for.
	P int     `json:"p"`
	T float64 `json:"t"`
	// Components is the number of connected components of the graph as
	// first built (before any connection); Connected the number after
	// (1 unless Connect is "none" or weights underflowed to 0).
	Components int `json:"components"`
	Connected  int `json:"connected"`
	// Added is the number of edges Connect = "mst" added.
	Added int `json:"added_edges"`
	// Edges is the number of undirected edges with a nonzero weight.
	Edges int `json:"edges"`
}

// pairSqDist returns the n×n matrix of squared distances ‖xᵢ − xⱼ‖² (the
// canonical values of graph.Euclidean), computed in parallel row blocks;
// once ctx is cancelled no block starts and its error is returned.
func pairSqDist(ctx context.Context, x *mat.Dense) (*mat.Dense, error) {
	n, _ := x.Dims()
	m := graph.Euclidean{X: x}
	d2 := mat.NewDense(n, n, nil)
	raw := d2.RawMatrix()
	par.Blocks(n, 32, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		for i := lo; i < hi; i++ {
			for j := i + 1; j < n; j++ {
				v := m.SqDist(i, j)
				raw.Data[i*raw.Stride+j] = v
				raw.Data[j*raw.Stride+i] = v
			}
		}
	})
	return d2, ctx.Err()
}

// medianDistance is the median of the n(n−1)/2 distances between distinct
// rows (the mean of the two middle ones for an even count); 0 when half
// the pairs or more coincide.
func medianDistance(d2 *mat.Dense) float64 {
	n, _ := d2.Dims()
	v := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		v = append(v, d2.RawRowView(i)[i+1:]...)
	}
	m := len(v) / 2
	hi := graph.KthSmallest(v, m)
	if len(v)%2 == 1 {
		return math.Sqrt(hi)
	}
	// KthSmallest leaves the m smaller values in front: the largest of
	// them is the other middle one. (Selection instead of a sort of the
	// 5·10⁷ distances of 10 000 rows.)
	return (math.Sqrt(slices.Max(v[:m])) + math.Sqrt(hi)) / 2
}

// rbfAffinity builds the dense RBF graph; sigma 0 takes the median
// heuristic.
func rbfAffinity(ctx context.Context, x *mat.Dense, sigma float64) (*affinity, error) {
	d2, err := pairSqDist(ctx, x)
	if err != nil {
		return nil, err
	}
	if sigma == 0 {
		sigma = medianDistance(d2)
		if sigma == 0 {
			return nil, fmt.Errorf("cluster: rbf affinity: the median distance between rows is 0 (half the pairs of rows coincide); give a width (--sigma, NormalizedCut.Sigma) > 0 or use the knn affinity")
		}
	}
	f := -1 / (2 * sigma * sigma)
	if err := expInPlace(ctx, d2, func(i, j int, v float64) float64 { return math.Exp(f * v) }); err != nil {
		return nil, err
	}
	return &affinity{dense: d2, info: GraphInfo{Affinity: RBF, Sigma: sigma}}, nil
}

// selfTuneAffinity builds the dense locally scaled graph.
func selfTuneAffinity(ctx context.Context, x *mat.Dense, scaleK int) (*affinity, error) {
	n, _ := x.Dims()
	if scaleK >= n {
		scaleK = n - 1
	}
	bw, err := graph.LocalBandwidthContext(ctx, graph.Euclidean{X: x}, scaleK, graph.SearchAuto)
	if err != nil {
		return nil, fmt.Errorf("cluster: selftune affinity: %w", err)
	}
	sigma := bw.Sigma
	d2, err := pairSqDist(ctx, x)
	if err != nil {
		return nil, err
	}
	if err := expInPlace(ctx, d2, func(i, j int, v float64) float64 { return math.Exp(-v / (sigma[i] * sigma[j])) }); err != nil {
		return nil, err
	}
	return &affinity{dense: d2, info: GraphInfo{Affinity: SelfTune}}, nil
}

// expInPlace replaces every off-diagonal entry v of the square matrix m by
// f(i, j, v) and sets the diagonal to 0, in parallel row blocks; once ctx
// is cancelled no block starts and its error is returned.
func expInPlace(ctx context.Context, m *mat.Dense, f func(i, j int, v float64) float64) error {
	n, _ := m.Dims()
	par.Blocks(n, 32, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		for i := lo; i < hi; i++ {
			row := m.RawRowView(i)
			for j, v := range row {
				if j == i {
					row[j] = 0
				} else {
					row[j] = f(i, j, v)
				}
			}
		}
	})
	return ctx.Err()
}

// knnAffinity builds the sparse p-nearest-neighbour graph with package
// graph (heat or 0/1 weights).
func knnAffinity(ctx context.Context, x *mat.Dense, p int, w graph.WeightKind, t float64) (*affinity, error) {
	n, _ := x.Dims()
	p = min(p, n-1)
	g, err := graph.Neighbourhood{K: p, Weights: graph.Weights{Kind: w, T: t}, Context: ctx}.Build(graph.Euclidean{X: x})
	if err != nil {
		return nil, fmt.Errorf("cluster: knn affinity: %w", err)
	}
	return &affinity{sparse: g.W, info: GraphInfo{Affinity: KNN, P: p, T: g.T}}, nil
}

// degrees returns dᵢ = Σⱼ Wᵢⱼ.
func (a *affinity) degrees() []float64 {
	if a.sparse != nil {
		return a.sparse.Degrees()
	}
	n, _ := a.dense.Dims()
	d := make([]float64, n)
	par.Blocks(n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := 0.0
			for _, v := range a.dense.RawRowView(i) {
				s += v
			}
			d[i] = s
		}
	})
	return d
}

// componentsOf labels the connected components of the graph (edges: the
// nonzero weights) 0, 1, … in the order of their lowest row, and returns
// the labels and their number.
func (a *affinity) componentsOf() ([]int, int) {
	var n int
	if a.sparse != nil {
		n = a.sparse.N
	} else {
		n, _ = a.dense.Dims()
	}
	uf := newUnionFind(n)
	for i := 0; i < n; i++ {
		if a.sparse != nil {
			cols, vals := a.sparse.Row(i)
			for t, j := range cols {
				if vals[t] != 0 {
					uf.union(i, j)
				}
			}
			continue
		}
		for j, v := range a.dense.RawRowView(i)[i+1:] {
			if v != 0 {
				uf.union(i, i+1+j)
			}
		}
	}
	return uf.labels()
}

// edges counts the undirected edges with a nonzero weight.
func (a *affinity) edges() int {
	if a.sparse != nil {
		return a.sparse.Edges()
	}
	n, _ := a.dense.Dims()
	e := 0
	for i := 0; i < n; i++ {
		for _, v := range a.dense.RawRowView(i)[i+1:] {
			if v != 0 {
				e++
			}
		}
	}
	return e
}

// unionFind is a disjoint-set forest with path halving; the root of a set
// is its lowest element, so labels are deterministic.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(i, j int) {
	a, b := u.find(i), u.find(j)
	if a == b {
		return
	}
	if a > b {
		a, b = b, a
	}
	u[b] = a
}

// labels numbers the sets 0, 1, … by their lowest element.
func (u unionFind) labels() ([]int, int) {
	id := make([]int, len(u))
	next := 0
	for i := range u {
		r := u.find(i)
		if r == i {
			id[i] = next
			next++
		} else {
			id[i] = id[r]
		}
	}
	return id, next
}
