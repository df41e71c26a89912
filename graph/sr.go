package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// SRGraph is the affinity graph of spectral regression (seed 002, Liu, Xia
// & Zhou 2013, §2.1, Steps 1–2) for labelled, unlabeled (−1) or partly
// labelled rows:
//
//	edge i–j when i is among the P nearest neighbours of j or j among those
//	of i, or when i and j carry the same label; no edge between rows of
//	different labels;
//	Wᵢⱼ = 1/l_k            if i and j both belong to class k (l_k its
//	                        labelled rows),
//	Wᵢⱼ = δ·s(i, j)        for the other edges (at least one row unlabeled),
//	s(i, j) = 1 (Heat false) or exp(−‖xᵢ − xⱼ‖²/(2σ²)) (eq. 1).
//
// With every row labelled it is the class graph W_c of LDA (D = I); with
// none, the symmetrised P-NN graph. It is returned as an operator: the
// class part as a class block (O(C) storage), the neighbour part as CSR.
type SRGraph struct {
	// P is the number of nearest neighbours (0: DefaultSRNeighbours).
	P int
	// Delta δ ∈ (0, 1] weighs the neighbour edges against the class edges
	// (0: 1).
	Delta float64
	// Heat selects s = exp(−d²/(2σ²)); Sigma σ (0: the root of half the
	// mean squared edge length, so that the mean exponent is −1).
	Heat  bool
	Sigma float64
	// Connect raises P (doubling) until the neighbour part, with the class
	// edges, joins every row into one component: a disconnected graph
	// gives a response that is a component indicator, which carries no
	// information about the classes (the failure the issue measured on
	// Letter A-B and Digits 1279). On by default (the zero value); set
	// KeepDisconnected to build exactly P neighbours.
	KeepDisconnected bool
	Search           Search
}

// DefaultSRNeighbours is the default P of SRGraph (seed 002 §4.3 uses 7).
const DefaultSRNeighbours = 7

// SRResult is a built SR graph: W = Class + Near (either may be nil) and
// its degrees.
type SRResult struct {
	W      Operator
	Degree Diagonal
	// Class is set when every row is labelled: W is then the class graph
	// W_c (ClassMeans) alone and D = I, whose eigenproblem has the C×C
	// closed form.
	Class *ClassBlock
	// Responses is set with Class: the n×(C−1) responses of SR in the
	// canonical basis of ClassResponses (every class present; the classes
	// in label order).
	Responses *mat.Dense
	// P is the number of neighbours used (larger than asked when Connect
	// raised it); Sigma the heat width used (0: constant weights);
	// Components the number of connected components.
	P          int
	Sigma      float64
	Components int
}

// Build builds the graph on the rows behind metric m with labels y (nil or
// all −1: unsupervised).
func (s SRGraph) Build(m Metric, y []int) (*SRResult, error) {
	n := m.Len()
	if n < 2 {
		return nil, fmt.Errorf("sr graph: %d rows; need at least 2", n)
	}
	if y != nil && len(y) != n {
		return nil, fmt.Errorf("sr graph: %d labels for %d rows", len(y), n)
	}
	p := s.P
	if p == 0 {
		p = DefaultSRNeighbours
	}
	delta := s.Delta
	if delta == 0 {
		delta = 1
	}
	if p < 1 || !(delta > 0 && delta <= 1) || s.Sigma < 0 || math.IsNaN(s.Sigma) || math.IsInf(s.Sigma, 0) {
		return nil, fmt.Errorf("sr graph: p = %d (want ≥ 1), delta = %v (want in (0, 1]), sigma = %v (want ≥ 0)", p, delta, s.Sigma)
	}
	labels := make([]int, n)
	labelled := 0
	for i := range labels {
		labels[i] = -1
		if y != nil {
			if y[i] < -1 {
				return nil, fmt.Errorf("sr graph: row %d has label %d; labels must be ≥ 0 (or −1 for unlabeled)", i+1, y[i])
			}
			labels[i] = y[i]
		}
		if labels[i] >= 0 {
			labelled++
		}
	}
	if labelled == n { // supervised: class edges only, D = I
		class := ClassMeans(labels)
		deg := make(Diagonal, n)
		for i := range deg {
			deg[i] = 1
		}
		return &SRResult{W: class, Degree: deg, Class: class, Responses: ClassResponseRows(labels), Components: classesPresent(labels)}, nil
	}
	p = min(p, n-1)
	for {
		res, err := s.build(m, labels, labelled, p, delta)
		if err != nil {
			return nil, err
		}
		if res.Components == 1 || s.KeepDisconnected || p >= n-1 {
			return res, nil
		}
		p = min(2*p, n-1)
	}
}

func (s SRGraph) build(m Metric, labels []int, labelled, p int, delta float64) (*SRResult, error) {
	n := m.Len()
	nb, err := KNN(m, p, SearchOptions{Search: s.Search})
	if err != nil {
		return nil, err
	}
	type pair struct{ i, j int }
	seen := map[pair]bool{}
	var entries []Entry
	var sum2 float64
	var edges []pair
	for i, idx := range nb.Index {
		for _, j := range idx {
			a, b := min(i, j), max(i, j)
			if seen[pair{a, b}] {
				continue
			}
			seen[pair{a, b}] = true
			if labels[a] >= 0 && labels[b] >= 0 {
				continue // same class: the class part; different classes: no edge
			}
			edges = append(edges, pair{a, b})
			sum2 += m.SqDist(a, b)
		}
	}
	sigma := 0.0
	if s.Heat {
		sigma = s.Sigma
		if sigma == 0 {
			sigma = 1
			if len(edges) > 0 && sum2 > 0 {
				sigma = math.Sqrt(sum2 / float64(len(edges)) / 2)
			}
		}
	}
	for _, e := range edges {
		v := delta
		if s.Heat {
			v *= math.Exp(-m.SqDist(e.i, e.j) / (2 * sigma * sigma))
		}
		entries = append(entries, Entry{e.i, e.j, v}, Entry{e.j, e.i, v})
	}
	near, err := NewCSR(n, entries, true)
	if err != nil {
		return nil, err
	}
	deg := Diagonal(near.Degrees())
	var w Operator = near
	if labelled > 0 {
		class := ClassMeans(labels)
		for i, v := range labels {
			if v >= 0 {
				deg[i]++ // Σ_j 1/l_k over the class
			}
		}
		w = Sum{Coef: []float64{1, 1}, Ops: []Operator{class, near}}
	}
	for i, d := range deg {
		if !(d > 0) {
			return nil, fmt.Errorf("sr graph: row %d has no edge (degree %v): the heat weights underflowed; give a larger sigma", i+1, d)
		}
	}
	comp := components(n, near, labels)
	return &SRResult{W: w, Degree: deg, P: p, Sigma: sigma, Components: comp}, nil
}

// components counts the connected components of the neighbour edges plus
// the class cliques (union–find).
func components(n int, near *CSR, labels []int) int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	for i := 0; i < n; i++ {
		cols, _ := near.Row(i)
		for _, j := range cols {
			union(i, j)
		}
	}
	first := map[int]int{}
	for i, v := range labels {
		if v < 0 {
			continue
		}
		if f, ok := first[v]; ok {
			union(f, i)
		} else {
			first[v] = i
		}
	}
	c := 0
	for i := range parent {
		if find(i) == i {
			c++
		}
	}
	return c
}

func classesPresent(labels []int) int {
	seen := map[int]bool{}
	for _, v := range labels {
		if v >= 0 {
			seen[v] = true
		}
	}
	return len(seen)
}

// ClassResponses returns the responses of spectral regression on the
// supervised class graph (Wᵢⱼ = 1/n_c when yᵢ = yⱼ = c, D = I; seed 002
// §2.1 Step 3, eq. 2) in a canonical basis that depends on the class
// counts alone, as coefficients on the class indicators: column k of the
// C×(C'−1) result z_k (C = len(counts), C' the classes with n_c > 0) gives
// the response yₖ = E·z_k in ℝⁿ, E the n×C 0/1 indicator matrix.
//
// Every vector in the span of the indicators is an eigenvector of eq. 2
// with eigenvalue 1, so an eigen-solver returns some basis of that
// (C'−1)-fold degenerate eigenspace (after the trivial y₀ = 1), which
// depends on the solver. Cai, He & Han fix it ("SRDA: an efficient
// algorithm for large-scale discriminant analysis", IEEE TKDE 20(1), 2008,
// §3.2; "Spectral regression for efficient regularized subspace
// learning", ICCV 2007 — seed 002's refs. [6] and [10]): Gram–Schmidt on
// the all-ones vector followed by the class indicators 1_{c₁}, …, 1_{c_C'}
// (classes present, in label order), dropping the ones vector and the
// last indicator, which is then dependent. The result has a closed form:
// with N_k = n_{c_k} + … + n_{c_C'} the rows of class c_k and the classes
// after it, the k-th vector is zero on the classes before c_k, constant on
// c_k and constant on the classes after it (orthogonal to 1, unit norm,
// positive on c_k):
//
//	yₖ = √(N_{k+1}/(n_{c_k}·N_k))·1_{c_k} − √(n_{c_k}/(N_{k+1}·N_k))·1_{c_{k+1}∪…∪c_C'}
//
// (a weighted Helmert basis). Since it needs only the counts, a fit from
// accumulated statistics (Xᵀyₖ = Σ_c z_kc·Σ_{yᵢ=c} xᵢ) and the in-memory
// fit regress on the same responses. Classes with no rows get zero
// coefficients. Fewer than two classes present give a C×0 matrix (nil).
func ClassResponses(counts []int) *mat.Dense {
	var present []int
	for c, n := range counts {
		if n > 0 {
			present = append(present, c)
		}
	}
	if len(present) < 2 {
		return nil
	}
	z := mat.NewDense(len(counts), len(present)-1, nil)
	rest := 0 // N_{k+1}
	for _, c := range present {
		rest += counts[c]
	}
	for k, c := range present[:len(present)-1] {
		nk := float64(counts[c])
		nall := float64(rest) // N_k
		rest -= counts[c]
		after := float64(rest) // N_{k+1}
		z.Set(c, k, math.Sqrt(after/(nk*nall)))
		b := -math.Sqrt(nk / (after * nall))
		for _, d := range present[k+1:] {
			z.Set(d, k, b)
		}
	}
	return z
}

// ClassResponseRows returns the responses of ClassResponses as vectors in
// ℝⁿ for the labels y (every label ≥ 0): the n×(C'−1) matrix E·Z.
func ClassResponseRows(y []int) *mat.Dense {
	y, _ = data.DenseLabels(y) // renumbered in the same order: the same responses
	z := ClassResponses(data.ClassCounts(y))
	if z == nil {
		return nil
	}
	_, r := z.Dims()
	out := mat.NewDense(len(y), r, nil)
	for i, c := range y {
		if c >= 0 {
			out.SetRow(i, z.RawRowView(c))
		}
	}
	return out
}
