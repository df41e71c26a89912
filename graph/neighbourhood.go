package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Supervision says how labels shape a neighbourhood graph.
type Supervision string

const (
	// Unsupervised: neighbours among all rows.
	Unsupervised Supervision = ""
	// InClass: neighbours searched among the rows of the same class
	// only (the intrinsic graph of MFA, the within-class graph of KNDA).
	// With k ≥ n_c, every other row of the class is a neighbour.
	InClass Supervision = "within"
	// CrossClass: neighbours searched among the rows of other classes
	// only (the penalty graph of MFA, the ε-graph of KNDA).
	CrossClass Supervision = "between"
	// SameClassEdges: neighbours searched among all rows, then only the
	// edges joining rows of the same class are kept — the protocol of seed
	// 000 for supervised LPP/KLPP ("connecting with edges the points that
	// belong to the same class and they are among the KNNs of each other").
	// A row whose neighbours all belong to other classes is isolated.
	SameClassEdges Supervision = "filter"
)

// Supervisions lists the accepted values (for option parsing).
var Supervisions = []Supervision{Unsupervised, InClass, CrossClass, SameClassEdges}

// WeightKind names an edge weighting.
type WeightKind string

const (
	// Constant: Wᵢⱼ = 1 on every edge (seed 004 eq. 3, 7, 12).
	Constant WeightKind = "constant"
	// Heat: Wᵢⱼ = exp(−‖xᵢ − xⱼ‖²/t) (seed 004 eq. 2).
	Heat WeightKind = "heat"
	// LocalScaling: Wᵢⱼ = exp(−‖xᵢ − xⱼ‖²/(σᵢσⱼ)) with σᵢ the distance from
	// row i to its ScaleK-th nearest neighbour among all rows (Zelnik-Manor
	// and Perona 2004, the bandwidth rule of seed 003 §4).
	LocalScaling WeightKind = "local"
)

// Weights configures edge weights. The zero value is Constant.
type Weights struct {
	Kind WeightKind
	// T is the heat-kernel width t > 0. Zero: the mean of ‖xᵢ − xⱼ‖² over
	// the edges of the graph (t = 1 if that mean is 0, i.e. every edge
	// joins duplicate rows).
	T float64
	// ScaleK is the neighbour whose distance defines σᵢ for local scaling;
	// zero means 7 (Zelnik-Manor and Perona). σᵢ = 0 (ScaleK duplicates of
	// row i) falls back to the smallest positive distance from i to any of
	// its ScaleK neighbours, then to the mean of the positive σ's, then 1.
	ScaleK int
}

// DefaultScaleK is the local-scaling neighbour of Zelnik-Manor and Perona.
const DefaultScaleK = 7

// Neighbourhood describes a neighbourhood graph: k nearest neighbours
// (K ≥ 1) or an ε-ball (Eps > 0, K = 0), symmetrised, weighted, optionally
// supervised by Labels.
type Neighbourhood struct {
	// K is the number of nearest neighbours of each row.
	K int
	// Eps, if > 0, builds the ε-ball graph instead: an edge wherever the
	// distance is ≤ Eps.
	Eps float64
	// Mutual keeps a kNN edge only when each row is among the other's
	// neighbours; by default an edge joins i and j when i is among the
	// neighbours of j or j among those of i.
	Mutual      bool
	Supervision Supervision
	Labels      []int
	Weights     Weights
	Search      Search
	// Context, when not nil, stops the neighbour search with its error
	// once it is cancelled (SearchOptions.Context).
	Context context.Context
}

// Graph is a built neighbourhood graph.
type Graph struct {
	// W is the symmetric weight matrix (no self-loops).
	W *CSR
	// Neighbours are the raw (unsymmetrised) search results.
	Neighbours *Neighbours
	// T is the heat width used (0 for other weights); Sigma the
	// local-scaling bandwidths σᵢ (nil for other weights).
	T     float64
	Sigma []float64
	// Isolated counts rows without any edge.
	Isolated int
}

// Build searches the neighbours of every row under the metric and returns
// the weighted, symmetrised graph. It returns an error for k < 1 (when no
// ε is given), ε < 0, supervision without one label per row, an unknown
// option, and a graph without any edge (naming the smallest distance an
// edge would need).
func (nb Neighbourhood) Build(m Metric) (*Graph, error) {
	n := m.Len()
	if err := nb.validate(n); err != nil {
		return nil, err
	}
	opt := SearchOptions{Labels: nb.Labels, Search: nb.Search, Context: nb.Context}
	switch nb.Supervision {
	case InClass:
		opt.Pairs = SameClass
	case CrossClass:
		opt.Pairs = OtherClass
	}
	var nbrs *Neighbours
	var err error
	if nb.Eps > 0 {
		nbrs, err = Ball(m, nb.Eps, opt)
	} else {
		nbrs, err = KNN(m, nb.K, opt)
	}
	if err != nil {
		return nil, err
	}
	type pair struct{ i, j int }
	count := map[pair]int{}
	dist := map[pair]float64{}
	for i, idx := range nbrs.Index {
		for p, j := range idx {
			if nb.Supervision == SameClassEdges && (nb.Labels[i] < 0 || nb.Labels[i] != nb.Labels[j]) {
				continue
			}
			e := pair{min(i, j), max(i, j)}
			count[e]++
			dist[e] = nbrs.Dist[i][p]
		}
	}
	var edges []pair
	for e, c := range count {
		if nb.Mutual && nb.Eps == 0 && c < 2 {
			continue
		}
		edges = append(edges, e)
	}
	sort.Slice(edges, func(a, b int) bool {
		return edges[a].i < edges[b].i || (edges[a].i == edges[b].i && edges[a].j < edges[b].j)
	})
	if len(edges) == 0 {
		return nil, nb.emptyError(m)
	}
	g := &Graph{Neighbours: nbrs}
	w := make([]float64, len(edges))
	switch nb.Weights.Kind {
	case Constant, "":
		for k := range w {
			w[k] = 1
		}
	case Heat:
		t := nb.Weights.T
		if t == 0 {
			for _, e := range edges {
				d := dist[e]
				t += d * d
			}
			t /= float64(len(edges))
			if t == 0 {
				t = 1
			}
		}
		g.T = t
		for k, e := range edges {
			d := dist[e]
			w[k] = math.Exp(-d * d / t)
		}
	case LocalScaling:
		sigma, err := localScales(nb.Context, m, nb.Weights.ScaleK, nb.Search)
		if err != nil {
			return nil, err
		}
		g.Sigma = sigma
		for k, e := range edges {
			d := dist[e]
			w[k] = math.Exp(-d * d / (sigma[e.i] * sigma[e.j]))
		}
	}
	ents := make([]Entry, 0, 2*len(edges))
	for k, e := range edges {
		ents = append(ents, Entry{e.i, e.j, w[k]}, Entry{e.j, e.i, w[k]})
	}
	g.W, err = NewCSR(n, ents, false)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if g.W.RowPtr[i+1] == g.W.RowPtr[i] {
			g.Isolated++
		}
	}
	return g, nil
}

func (nb Neighbourhood) validate(n int) error {
	switch {
	case math.IsNaN(nb.Eps) || math.IsInf(nb.Eps, 0) || nb.Eps < 0:
		return fmt.Errorf("graph: ε = %v; the radius must be finite and > 0", nb.Eps)
	case nb.Eps > 0 && nb.K != 0:
		return fmt.Errorf("graph: both k = %d and ε = %g given; a graph is either kNN or ε-ball", nb.K, nb.Eps)
	case nb.Eps == 0 && nb.K < 1:
		return fmt.Errorf("graph: k = %d nearest neighbours; k must be ≥ 1 (or give ε > 0 for an ε-ball graph)", nb.K)
	case n < 2:
		return fmt.Errorf("graph: %d row(s); a neighbourhood graph needs at least 2", n)
	}
	switch nb.Supervision {
	case Unsupervised:
	case InClass, CrossClass, SameClassEdges:
		if len(nb.Labels) != n {
			return fmt.Errorf("graph: %s supervision needs one label per row; got %d labels for %d rows", nb.Supervision, len(nb.Labels), n)
		}
	default:
		return fmt.Errorf("graph: unknown supervision %q (want %s)", nb.Supervision, joinSup())
	}
	switch nb.Weights.Kind {
	case "", Constant, LocalScaling:
	case Heat:
		if nb.Weights.T < 0 || math.IsNaN(nb.Weights.T) || math.IsInf(nb.Weights.T, 0) {
			return fmt.Errorf("graph: heat width t = %v; t must be finite and > 0 (0: automatic)", nb.Weights.T)
		}
	default:
		return fmt.Errorf("graph: unknown weights %q (want constant, heat or local)", nb.Weights.Kind)
	}
	if nb.Weights.ScaleK < 0 {
		return fmt.Errorf("graph: local-scaling neighbour %d; must be ≥ 1 (0: %d)", nb.Weights.ScaleK, DefaultScaleK)
	}
	return nil
}

func joinSup() string {
	var s []string
	for _, v := range Supervisions {
		if v == "" {
			s = append(s, `"" (unsupervised)`)
		} else {
			s = append(s, string(v))
		}
	}
	return strings.Join(s, ", ")
}

// emptyError explains a graph without edges.
func (nb Neighbourhood) emptyError(m Metric) error {
	what := fmt.Sprintf("k = %d", nb.K)
	if nb.Eps > 0 {
		what = fmt.Sprintf("ε = %g", nb.Eps)
	}
	pairs := "rows"
	switch nb.Supervision {
	case InClass, SameClassEdges:
		pairs = "rows of the same class"
	case CrossClass:
		pairs = "rows of different classes"
	}
	opt := SearchOptions{Labels: nb.Labels, Search: nb.Search}
	switch nb.Supervision {
	case InClass, SameClassEdges:
		opt.Pairs = SameClass
	case CrossClass:
		opt.Pairs = OtherClass
	}
	nn, err := KNN(m, 1, opt)
	if err == nil {
		best := math.Inf(1)
		for _, d := range nn.Dist {
			if len(d) > 0 {
				best = min(best, d[0])
			}
		}
		if !math.IsInf(best, 1) {
			if nb.Eps > 0 {
				return fmt.Errorf("graph: %s connects no pair of %s (the closest such pair is at distance %.6g); increase ε", what, pairs, best)
			}
			return fmt.Errorf("graph: %s connects no pair of %s (no row has a neighbour of its own class among its %d nearest; the closest same-class pair is at distance %.6g); increase k or use within-class search", what, pairs, nb.K, best)
		}
	}
	return fmt.Errorf("graph: %s connects no pair of %s: there is no such pair (every class has a single row, or only one class is present)", what, pairs)
}

// LocalScales returns the local-scaling bandwidths of Zelnik-Manor and
// Perona (2004): σᵢ = the distance from row i to its k-th nearest neighbour
// among all rows (k = 0: DefaultScaleK), with the fall-backs documented on
// Weights for σᵢ = 0. Dense self-tuning affinities (package cluster) use
// the same σᵢ as LocalScaling weights.
func LocalScales(m Metric, k int, s Search) ([]float64, error) {
	return localScales(context.Background(), m, k, s)
}

// localScales returns σᵢ = distance from row i to its k-th nearest
// neighbour among all rows, with the fall-backs documented on Weights.
func localScales(ctx context.Context, m Metric, k int, s Search) ([]float64, error) {
	if k == 0 {
		k = DefaultScaleK
	}
	nn, err := KNN(m, k, SearchOptions{Search: s, Context: ctx})
	if err != nil {
		return nil, err
	}
	sigma := make([]float64, m.Len())
	sum, cnt := 0.0, 0
	for i, d := range nn.Dist {
		if len(d) == 0 {
			continue
		}
		sigma[i] = d[len(d)-1]
		if sigma[i] == 0 {
			for _, v := range d {
				if v > 0 {
					sigma[i] = v
					break
				}
			}
		}
		if sigma[i] > 0 {
			sum += sigma[i]
			cnt++
		}
	}
	fill := 1.0
	if cnt > 0 {
		fill = sum / float64(cnt)
	}
	for i := range sigma {
		if sigma[i] == 0 {
			sigma[i] = fill
		}
	}
	return sigma, nil
}

// Laplacian returns the Laplacian L = D − W of the graph.
func (g *Graph) Laplacian() *CSR { return g.W.Laplacian() }

// Degree returns the degree matrix D of the graph as an operator.
func (g *Graph) Degree() Diagonal { return Diagonal(g.W.Degrees()) }

// DefaultBetweenEps returns a default radius for a between-class ε-graph:
// the median, over the rows that have rows of other classes, of the
// distance to their k-th nearest row of another class (k capped by the
// number of such rows). About half the rows then have at least k
// between-class neighbours within ε and the radius does not depend on the
// scale of the data or of the kernel. See docs/neighbourhood.md.
func DefaultBetweenEps(m Metric, labels []int, k int, s Search) (float64, error) {
	return DefaultBetweenEpsContext(context.Background(), m, labels, k, s)
}

// DefaultBetweenEpsContext is DefaultBetweenEps whose search stops with
// ctx's error once ctx is cancelled.
func DefaultBetweenEpsContext(ctx context.Context, m Metric, labels []int, k int, s Search) (float64, error) {
	if k < 1 {
		return 0, fmt.Errorf("graph: ε rule needs k ≥ 1, got %d", k)
	}
	nn, err := KNN(m, k, SearchOptions{Pairs: OtherClass, Labels: labels, Search: s, Context: ctx})
	if err != nil {
		return 0, err
	}
	var d []float64
	for _, row := range nn.Dist {
		if len(row) > 0 {
			d = append(d, row[len(row)-1])
		}
	}
	if len(d) == 0 {
		return 0, errors.New("graph: no pair of rows with different labels; a between-class graph needs two classes")
	}
	sort.Float64s(d)
	eps := d[len(d)/2]
	if len(d)%2 == 0 {
		eps = 0.5 * (d[len(d)/2-1] + d[len(d)/2])
	}
	if eps == 0 {
		// All those neighbours are duplicates across classes: take the
		// smallest positive distance found instead.
		for _, v := range d {
			if v > 0 {
				return v, nil
			}
		}
		return 0, errors.New("graph: every row coincides with rows of other classes (all between-class distances are 0); no ε-graph can separate them")
	}
	return eps, nil
}
