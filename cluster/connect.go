package cluster

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/par"
)

// Connect says what NormalizedCut does when the p-nearest-neighbour graph
// is disconnected. On a graph with c components the eigenvalue 1 of
// D^{-1/2}·W·D^{-1/2} has multiplicity c and its eigenvectors are component
// indicators: a small component then takes a whole cluster (the accuracy
// falls towards chance), whatever its rows are.
type Connect string

const (
	// ConnectMST adds the minimum spanning connections: while the graph
	// has several components, each component is joined to its nearest
	// other component by the shortest edge between them (Borůvka's rounds
	// on the complete graph of components, exact), with the weight the
	// affinity gives that edge, raised to the smallest weight among the
	// graph's edges when it is smaller (a heat weight exp(−d²/t) is 0 in
	// floating point beyond d² ≈ 745·t, which would leave far components
	// unjoined). This adds c − 1 edges and leaves every
	// other edge as it is: groups that the data separates stay separated
	// by a cheap cut. The default.
	ConnectMST Connect = "mst"
	// ConnectGrow raises p to the smallest value for which the graph is
	// connected (doubling, then a binary search; at most n − 1, the
	// complete graph). Every row keeps at least p edges, so no group of
	// rows hangs on a single edge.
	ConnectGrow Connect = "grow"
	// ConnectNone keeps the graph as built; GraphInfo.Connected reports the
	// number of components.
	ConnectNone Connect = "none"
)

// Connects lists the accepted values.
var Connects = []Connect{ConnectMST, ConnectGrow, ConnectNone}

// connectMST joins the components of the sparse graph a by Borůvka's
// rounds: in each round every component gets the shortest edge from one
// of its rows to a row of another component (ties: the lowest row, then
// the lowest neighbour), and these edges are added. Each round at least
// halves the number of components; a round costs n² distances. weight
// maps a squared distance to the edge weight.
func connectMST(a *affinity, x *mat.Dense, weight func(d2 float64) float64) error {
	comp, c := a.componentsOf()
	if c == 1 {
		return nil
	}
	n := len(comp)
	m := graph.Euclidean{X: x}
	uf := newUnionFind(n)
	first := make([]int, c) // the lowest row of every component
	for i := n - 1; i >= 0; i-- {
		first[comp[i]] = i
	}
	for i, l := range comp {
		uf.union(i, first[l])
	}
	type edge struct {
		i, j int
		d2   float64
	}
	var added []edge
	nearJ := make([]int, n)
	nearD := make([]float64, n)
	for c > 1 {
		root := make([]int, n)
		for i := range root {
			root[i] = uf.find(i)
		}
		// For every row, its nearest row in another component.
		par.Blocks(n, 32, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				bj, bd := -1, math.Inf(1)
				for j := 0; j < n; j++ {
					if root[j] == root[i] {
						continue
					}
					if d := m.SqDist(i, j); d < bd {
						bj, bd = j, d
					}
				}
				nearJ[i], nearD[i] = bj, bd
			}
		})
		// For every component, the shortest of its rows' edges.
		best := map[int]int{}
		var order []int
		for i := 0; i < n; i++ {
			r := root[i]
			b, ok := best[r]
			if !ok {
				order = append(order, r)
			}
			if !ok || nearD[i] < nearD[b] {
				best[r] = i
			}
		}
		for _, r := range order {
			i := best[r]
			j := nearJ[i]
			if uf.find(i) == uf.find(j) {
				continue // the other component already chose this edge
			}
			uf.union(i, j)
			added = append(added, edge{i, j, nearD[i]})
			c--
		}
	}
	entries := make([]graph.Entry, 0, a.sparse.NNZ()+2*len(added))
	for i := 0; i < n; i++ {
		cols, vals := a.sparse.Row(i)
		for t, j := range cols {
			entries = append(entries, graph.Entry{I: i, J: j, V: vals[t]})
		}
	}
	floor := math.Inf(1)
	for _, v := range a.sparse.Val {
		if v > 0 {
			floor = min(floor, v)
		}
	}
	for _, e := range added {
		w := max(weight(e.d2), floor)
		entries = append(entries, graph.Entry{I: e.i, J: e.j, V: w}, graph.Entry{I: e.j, J: e.i, V: w})
	}
	g, err := graph.NewCSR(n, entries, false)
	if err != nil {
		return err
	}
	a.sparse = g
	a.info.Added = len(added)
	return nil
}
