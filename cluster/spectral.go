package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/linalg"
)

// NormalizedCut is normalized-cut spectral clustering, the "NC" algorithm
// seed 002 (§4.1) clusters reduced data with (Shi and Malik 2000), in the
// form of Ng, Jordan and Weiss (2002):
//
//  1. an affinity graph W on the rows (Affinity; Wᵢᵢ = 0) with degrees
//     D = diag(W·1), connected (Connect);
//  2. the K eigenvectors U of the largest eigenvalues of
//     N = D^{-1/2}·W·D^{-1/2}, the relaxation of min Ncut(A₁,…,A_K):
//     Y = D^{-1/2}·U solves the generalized problem W·y = λ·D·y with
//     YᵀDY = I (Shi and Malik's eigenvectors);
//  3. the rows of U scaled to unit length;
//  4. k-means (KMeans, greedy k-means++, Restarts seeded starts) on those
//     rows, K clusters.
//
// N is handed to the engine's eigen-solvers as an implicit operator: the
// sparse kNN graph to block Lanczos (n > 500; densified only when Lanczos
// fails to converge and n ≤ 5000), a dense affinity to the solver
// linalg.ChooseEigen picks (partial dense up to n = 1500, Lanczos beyond,
// the dense solver when Lanczos fails). Rows of degree 0 (possible only when
// weights underflow) get zero rows in U and are put in a cluster by
// k-means like any other.
//
// The zero value with K set is ready to use: a 10-nearest-neighbour graph
// with heat weights (t the mean squared edge length), joined by the
// minimum spanning connections when it is disconnected — label-free
// choices that
// keep the graph connected; docs/clustering.md gives the reasons and the
// measured sensitivity of the accuracy to each choice.
type NormalizedCut struct {
	// K is the number of clusters (and of eigenvectors), 1 ≤ K ≤ n.
	K int
	// Affinity is the graph: "" means KNN.
	Affinity Affinity
	// Sigma is the RBF width σ in exp(−‖xᵢ − xⱼ‖²/(2σ²)); zero means the
	// median heuristic (the median distance between two rows).
	Sigma float64
	// P is the number of nearest neighbours of the KNN graph. If zero, it
	// is defaulted to 10 (capped at n − 1).
	P int
	// Weights are the KNN graph's weights: graph.Heat ("" means heat) or
	// graph.Constant (0/1).
	Weights graph.WeightKind
	// T is the heat width t in exp(−‖xᵢ − xⱼ‖²/t); zero means the mean
	// squared length of the graph's edges.
	T float64
	// ScaleK is the neighbour whose distance is σᵢ for SelfTune. If zero,
	// it is defaulted to 7 (Zelnik-Manor and Perona).
	ScaleK int
	// Connect is what to do with a disconnected KNN graph: "" means
	// ConnectMST. (The dense affinities are connected unless weights
	// underflow to 0; they are left as they are and GraphInfo reports
	// their components.)
	Connect Connect
	// Eigen is the eigen-solver; nil chooses by size and sparsity (above).
	Eigen linalg.EigenSolver
	// Restarts, MaxIter and Seed configure the k-means step (KMeans).
	Restarts, MaxIter int
	Seed              uint64
	// Context, when not nil, stops Embed, Fit and Score with its error
	// once it is cancelled: in the neighbour searches and the eigen-solver,
	// between the steps and between the k-means runs.
	Context context.Context
}

func (nc NormalizedCut) ctx() context.Context {
	if nc.Context == nil {
		return context.Background()
	}
	return nc.Context
}

// SpectralEmbedding is the spectral embedding of the rows NormalizedCut
// clusters.
type SpectralEmbedding struct {
	// Rows is n×K: the eigenvectors U of N with every row scaled to unit
	// length (zero rows left zero), the input of k-means.
	Rows *mat.Dense
	// Vectors is n×K: Y = D^{-1/2}·U, the eigenvectors of W·y = λ·D·y
	// with YᵀDY = I, signs fixed (linalg.FixSigns on U).
	Vectors *mat.Dense
	// Values are the K largest eigenvalues λ of N (equivalently of the
	// pencil (W, D)), decreasing; λ₁ = 1 on a connected graph.
	Values []float64
	// Graph describes the affinity graph.
	Graph GraphInfo
	// Solver names the eigen-solver used.
	Solver string
	// Degrees are dᵢ = Σⱼ Wᵢⱼ.
	Degrees []float64
}

// SpectralResult is a normalized-cut clustering.
type SpectralResult struct {
	*SpectralEmbedding
	// KMeans is the k-means partition of Rows; KMeans.Labels are the
	// clusters.
	KMeans *KMeansResult
}

// Labels returns the cluster of every row.
func (r *SpectralResult) Labels() []int { return r.KMeans.Labels }

// Fit clusters the rows of x: Embed, then KMeans on the embedding's rows.
func (nc NormalizedCut) Fit(x *mat.Dense) (*SpectralResult, error) {
	e, err := nc.Embed(x)
	if err != nil {
		return nil, err
	}
	if err := nc.ctx().Err(); err != nil {
		return nil, err
	}
	km, err := nc.kmeans().Fit(e.Rows)
	if err != nil {
		return nil, err
	}
	return &SpectralResult{SpectralEmbedding: e, KMeans: km}, nil
}

// KMeansFor returns the k-means step of Fit with another seed, for
// repeated clusterings of one embedding (the embedding does not depend on
// the seed).
func (nc NormalizedCut) KMeansFor(seed uint64) KMeans {
	km := nc.kmeans()
	km.Seed = seed
	return km
}

// Scores are repeated clusterings of one spectral embedding against the
// true classes.
type Scores struct {
	*SpectralEmbedding
	// Accuracy and NMI hold one value per run (fractions in [0, 1]); nil
	// without classes.
	Accuracy, NMI []float64
	// Inertia is each run's k-means inertia on the embedding.
	Inertia []float64
	// Labels are the clusters (0..K−1) of run Run (from 0): the first,
	// seeded seed, against classes; without classes the run of lowest
	// inertia (the first of equals).
	Labels []int
	Run    int
}

// Score embeds x once and clusters the embedding runs times, k-means
// seeded seed, seed+1, …, scoring each partition against the classes y
// by clustering accuracy (seed 002 eq. 30) and NMI — seed 002's protocol
// of 20 runs per reduction. With y nil (data without classes) the runs
// are only clustered, and the one of lowest inertia gives Labels.
func (nc NormalizedCut) Score(x *mat.Dense, y []int, runs int, seed uint64) (*Scores, error) {
	if runs < 1 {
		return nil, fmt.Errorf("cluster: %d runs, want at least 1", runs)
	}
	e, err := nc.Embed(x)
	if err != nil {
		return nil, err
	}
	sc := &Scores{SpectralEmbedding: e}
	for r := 0; r < runs; r++ {
		if err := nc.ctx().Err(); err != nil {
			return nil, err
		}
		km, err := nc.KMeansFor(seed + uint64(r)).Fit(e.Rows)
		if err != nil {
			return nil, err
		}
		sc.Inertia = append(sc.Inertia, km.Inertia)
		if y == nil {
			if r == 0 || km.Inertia < sc.Inertia[sc.Run] {
				sc.Labels, sc.Run = km.Labels, r
			}
			continue
		}
		acc, err := Accuracy(km.Labels, y)
		if err != nil {
			return nil, err
		}
		nmi, err := NMI(km.Labels, y)
		if err != nil {
			return nil, err
		}
		sc.Accuracy = append(sc.Accuracy, acc)
		sc.NMI = append(sc.NMI, nmi)
		if r == 0 {
			sc.Labels = km.Labels
		}
	}
	return sc, nil
}

func (nc NormalizedCut) kmeans() KMeans {
	return KMeans{K: nc.K, Restarts: nc.Restarts, MaxIter: nc.MaxIter, Seed: nc.Seed}
}

// check validates the options against n rows and fills the defaults.
func (nc *NormalizedCut) check(n int) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("cluster: normalized cut: "+format, a...)
	}
	switch {
	case nc.K < 1:
		return bad("K must be ≥ 1, got %d", nc.K)
	case nc.K > n:
		return bad("K = %d is larger than the number of rows (%d)", nc.K, n)
	case n < 2:
		return bad("need at least 2 rows, got %d", n)
	case nc.Sigma < 0 || math.IsNaN(nc.Sigma) || math.IsInf(nc.Sigma, 0):
		return bad("Sigma must be > 0 (or 0 for the median heuristic), got %g", nc.Sigma)
	case nc.T < 0 || math.IsNaN(nc.T) || math.IsInf(nc.T, 0):
		return bad("T must be > 0 (or 0 for the mean squared edge length), got %g", nc.T)
	case nc.P < 0:
		return bad("P must be ≥ 1 (or 0 for 10), got %d", nc.P)
	case nc.ScaleK < 0:
		return bad("ScaleK must be ≥ 1 (or 0 for 7), got %d", nc.ScaleK)
	case nc.Restarts < 0 || nc.MaxIter < 0:
		return bad("Restarts and MaxIter must be ≥ 0 (0: defaults), got %d and %d", nc.Restarts, nc.MaxIter)
	}
	if nc.Affinity == "" {
		nc.Affinity = KNN
	}
	if !slices.Contains(Affinities, nc.Affinity) {
		return bad("unknown affinity %q (known: %s)", nc.Affinity, joinNames(Affinities))
	}
	if nc.Weights == "" {
		nc.Weights = graph.Heat
	}
	if nc.Weights != graph.Heat && nc.Weights != graph.Constant {
		return bad("unknown weights %q (known: heat, constant)", nc.Weights)
	}
	if nc.Connect == "" {
		nc.Connect = ConnectMST
	}
	if !slices.Contains(Connects, nc.Connect) {
		return bad("unknown connect %q (known: %s)", nc.Connect, joinNames(Connects))
	}
	if nc.P == 0 {
		nc.P = 10
	}
	if nc.ScaleK == 0 {
		nc.ScaleK = graph.DefaultScaleK
	}
	return nil
}

func joinNames[S ~string](v []S) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// Embed builds the affinity graph of the rows of x and returns the
// spectral embedding (steps 1–3 of NormalizedCut).
func (nc NormalizedCut) Embed(x *mat.Dense) (*SpectralEmbedding, error) {
	if x == nil {
		return nil, fmt.Errorf("cluster: normalized cut: no rows")
	}
	n, _ := x.Dims()
	if err := nc.check(n); err != nil {
		return nil, err
	}
	if err := data.CheckFinite("cluster: normalized cut", x); err != nil {
		return nil, err
	}
	if err := data.CheckDistanceRange("cluster: normalized cut", x); err != nil {
		return nil, err
	}
	a, err := nc.affinity(x)
	if err != nil {
		return nil, err
	}
	if err := nc.ctx().Err(); err != nil {
		return nil, err
	}
	a.info.Edges = a.edges()
	_, a.info.Connected = a.componentsOf()
	deg := a.degrees()
	// N = D^{-1/2}·W·D^{-1/2}, with 0 for rows of degree 0.
	s := make([]float64, n)
	for i, d := range deg {
		if d > 0 {
			s[i] = 1 / math.Sqrt(d)
		}
	}
	var op linalg.SymOperator
	solver := nc.Eigen
	auto := solver == nil
	if a.sparse != nil {
		g := a.sparse
		val := make([]float64, len(g.Val))
		for i := 0; i < n; i++ {
			for t := g.RowPtr[i]; t < g.RowPtr[i+1]; t++ {
				val[t] = s[i] * g.Val[t] * s[g.Col[t]]
			}
		}
		op = csrOp{&graph.CSR{N: n, RowPtr: g.RowPtr, Col: g.Col, Val: val}}
		if auto {
			solver = linalg.DenseEigen{}
			if n > 500 {
				solver = linalg.Lanczos{Block: max(4, min(nc.K, 16))}
			}
		}
	} else {
		w := a.dense
		par.Blocks(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := w.RawRowView(i)
				for j := range row {
					row[j] *= s[i] * s[j]
				}
			}
		})
		op = linalg.FullSymOp{M: w}
		if auto {
			solver = linalg.ChooseEigen(n, nc.K, false, 0)
		}
	}
	res, err := solver.Eigs(nc.ctx(), op, nil, nc.K, linalg.Largest)
	if err != nil && nc.ctx().Err() != nil {
		return nil, err
	}
	if err != nil && auto && solver.Name() != "dense" && (a.dense != nil || n <= denseFallback) {
		solver = linalg.DenseEigen{}
		res, err = solver.Eigs(nc.ctx(), op, nil, nc.K, linalg.Largest)
	}
	var nce *linalg.NotConvergedError
	if lz, ok := solver.(linalg.Lanczos); ok && auto && errors.As(err, &nce) {
		// Too large for the dense solver: a tight cluster of eigenvalues
		// near 1 (a graph close to disconnected: MNIST's 10-NN graph of a
		// KSR embedding) stalls restarts of a small basis; once more with
		// a basis four times as large.
		lz.Subspace = max(4*nc.K, nc.K+128)
		solver = lz
		res, err = solver.Eigs(nc.ctx(), op, nil, nc.K, linalg.Largest)
	}
	if err != nil && nc.ctx().Err() != nil {
		return nil, err
	}
	if err != nil {
		hint := ""
		if a.sparse != nil {
			hint = "; a tight cluster of eigenvalues near 1 (a graph close to disconnected) slows Lanczos: more neighbours (NormalizedCut.P; dimred cluster --nn) usually help"
		}
		return nil, fmt.Errorf("cluster: normalized cut: eigenvectors of D^{-1/2}·W·D^{-1/2} (%s): %w%s", solver.Name(), err, hint)
	}
	u := res.Vectors
	y := mat.NewDense(n, nc.K, nil)
	rows := mat.NewDense(n, nc.K, nil)
	for i := 0; i < n; i++ {
		ur := u.RawRowView(i)
		norm := 0.0
		for _, v := range ur {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		yr, rr := y.RawRowView(i), rows.RawRowView(i)
		for j, v := range ur {
			yr[j] = s[i] * v
			if norm > 0 {
				rr[j] = v / norm
			}
		}
	}
	return &SpectralEmbedding{Rows: rows, Vectors: y, Values: res.Values, Graph: a.info, Solver: solver.Name(), Degrees: deg}, nil
}

// affinity builds the graph nc asks for, connecting a KNN graph.
func (nc NormalizedCut) affinity(x *mat.Dense) (*affinity, error) {
	switch nc.Affinity {
	case RBF:
		a, err := rbfAffinity(nc.ctx(), x, nc.Sigma)
		if err == nil {
			_, a.info.Components = a.componentsOf()
		}
		return a, err
	case SelfTune:
		a, err := selfTuneAffinity(nc.ctx(), x, nc.ScaleK)
		if err == nil {
			_, a.info.Components = a.componentsOf()
		}
		return a, err
	}
	a, err := knnAffinity(nc.ctx(), x, nc.P, nc.Weights, nc.T)
	if err != nil {
		return nil, err
	}
	_, first := a.componentsOf()
	a.info.Components = first
	switch nc.Connect {
	case ConnectGrow:
		if first > 1 {
			if a, err = growToConnect(x, a, nc); err != nil {
				return nil, err
			}
		}
		a.info.Components = first
	case ConnectMST:
		t := a.info.T
		weight := func(d2 float64) float64 { return 1 }
		if nc.Weights == graph.Heat {
			weight = func(d2 float64) float64 { return math.Exp(-d2 / t) }
		}
		if err := connectMST(a, x, weight); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// growToConnect returns the kNN graph with the smallest p ≥ a.info.P
// that is connected: p doubles until the graph is connected (p = n − 1,
// the complete graph, always is), then a binary search between the last
// disconnected p and the first connected one finds the smallest (the
// graph's edges only grow with p, so connectivity is monotone in p).
func growToConnect(x *mat.Dense, a *affinity, nc NormalizedCut) (*affinity, error) {
	n, _ := x.Dims()
	build := func(p int) (*affinity, bool, error) {
		g, err := knnAffinity(nc.ctx(), x, p, nc.Weights, nc.T)
		if err != nil {
			return nil, false, err
		}
		_, c := g.componentsOf()
		return g, c == 1, nil
	}
	lo, hi := a.info.P, a.info.P // lo disconnected; hi connected once found
	var best *affinity
	for best == nil {
		hi = min(2*hi, n-1)
		g, ok, err := build(hi)
		if err != nil {
			return nil, err
		}
		if ok {
			best = g
		} else {
			lo = hi
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		g, ok, err := build(mid)
		if err != nil {
			return nil, err
		}
		if ok {
			best, hi = g, mid
		} else {
			lo = mid
		}
	}
	return best, nil
}

// denseFallback is the largest n for which an automatically chosen
// iterative solver that fails on a sparse graph is replaced by the dense
// one (4n³/3 flops: about 2 s at n = 2250; Lanczos fails when the graph
// is nearly disconnected, the wanted eigenvalues then lying in a tight
// cluster near 1). Above it, Lanczos is retried with a larger basis. A
// variable for the test of that retry.
var denseFallback = 5000

// csrOp adapts a sparse matrix to the solvers' operator interface.
type csrOp struct{ g *graph.CSR }

func (o csrOp) Dim() int                       { return o.g.N }
func (o csrOp) MulBlockTo(dst, src *mat.Dense) { dst.Copy(o.g.Apply(src)) }
func (o csrOp) SymDense() *mat.SymDense        { return o.g.Dense() }
