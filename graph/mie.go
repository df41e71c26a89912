package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/progress"
)

// The graphs of variational graph embedding (seed 003, Yang, Zha, Zhou &
// Hu 2009): a class-level coefficient cᵢⱼ (the γ-graph of mutual
// information, Theorem 1, or the r-graph of the Bayes error rate, §4)
// times a Gaussian kernel of a distance,
//
//	J(Z) = (1/N²)·Σᵢⱼ cᵢⱼ·exp(−‖zᵢ − zⱼ‖²/δᵢⱼ²)        (eq. 5; §4 for r)
//
// is the criterion that MIE/BERE maximise, and its tangent at Z₀ gives the
// graph wᵢⱼ = cᵢⱼ·exp(−‖z⁰ᵢ − z⁰ⱼ‖²/δᵢⱼ²)/δᵢⱼ² whose embedding
// (min Σᵢⱼ wᵢⱼ·‖zᵢ − zⱼ‖²) is one EM step (eq. 6-8); at Z₀ = X it is the
// initial graph of §3.3. The bandwidth is one δ for every pair or the
// local scaling of Zelnik-Manor and Perona that seed 003 §5 adopts,
// δᵢⱼ² = σᵢ·σⱼ with σᵢ the distance to the k-th nearest neighbour.

// Gamma returns the γ-graph of seed 003 Theorem 1 (eq. 5) for labels y
// (0..C−1, all labelled) as a class block:
//
//	γᵢⱼ = I(yᵢ = yⱼ) + Σ_c N_c²/N² − P̂_yᵢ − P̂_yⱼ,   P̂_c = N_c/N.
//
// It is N² times the symmetrised QMI graph M' of seed 000 (QMI): the two
// papers use the same quadratic-MI estimator, so the block is QMIBlock's
// scaled by N² (tested against the formula). Theorem 2: γ > 0 on
// same-class pairs, and its mean over different-class pairs is negative.
func Gamma(y []int) (*ClassBlock, error) {
	y, counts, err := allLabelled("γ-graph", y)
	if err != nil {
		return nil, err
	}
	b, err := QMIBlock(counts)
	if err != nil {
		return nil, err
	}
	n := float64(len(y))
	b.ScaleSym(n*n, b)
	return &ClassBlock{Labels: y, Block: b}, nil
}

// BER returns the r-graph of seed 003 §4 (Bayes error rate) for labels y
// as a class block:
//
//	rᵢⱼ = 2·P̂_yᵢ            if yᵢ = yⱼ,
//	rᵢⱼ = P̂_yᵢ + P̂_yⱼ − 2   otherwise.
//
// The paper writes the BER estimate as Σᵢⱼ rᵢⱼ·k(zᵢ, zⱼ) under "min", but
// its graph wᵢⱼ = −rᵢⱼ·λᵢⱼ = rᵢⱼ·exp(…) (positive on same-class pairs)
// pulls same-class rows together only if Σᵢⱼ rᵢⱼ·k(zᵢ, zⱼ) is maximised,
// as eq. 5 is for MI; dimred maximises it (the sign of the printed "min"
// is a slip: the estimate is of 1 − error up to constants).
func BER(y []int) (*ClassBlock, error) {
	y, counts, err := allLabelled("r-graph", y)
	if err != nil {
		return nil, err
	}
	n := float64(len(y))
	c := len(counts)
	b := mat.NewSymDense(c, nil)
	for i := 0; i < c; i++ {
		pi := float64(counts[i]) / n
		b.SetSym(i, i, 2*pi)
		for j := i + 1; j < c; j++ {
			b.SetSym(i, j, pi+float64(counts[j])/n-2)
		}
	}
	return &ClassBlock{Labels: y, Block: b}, nil
}

// allLabelled checks that every row is labelled and returns the labels
// (renumbered densely when their values exceed the rows: data.DenseLabels)
// and the rows of each class.
func allLabelled(what string, y []int) ([]int, []int, error) {
	for i, v := range y {
		if v < 0 {
			return nil, nil, fmt.Errorf("labels: row %d is unlabeled (%d); the %s needs every row labelled", i+1, v, what)
		}
	}
	if len(y) == 0 {
		return nil, nil, fmt.Errorf("labels: none given; the %s needs labelled rows", what)
	}
	y, _ = data.DenseLabels(y)
	return y, data.ClassCounts(y), nil
}

// Bandwidth is the δ of the Gaussian kernel exp(−d²/δᵢⱼ²) of seed 003:
// Delta > 0 gives one δ for every pair (δ² = 2σ² for a Parzen window of
// width σ, §3.3); otherwise δᵢⱼ² = Sigma[i]·Sigma[j] (local scaling,
// LocalScales).
type Bandwidth struct {
	Delta float64
	Sigma []float64
}

// LocalBandwidth returns the local-scaling bandwidth of the rows of m:
// σᵢ the distance to the k-th nearest neighbour (k = 0: DefaultScaleK).
func LocalBandwidth(m Metric, k int, s Search) (Bandwidth, error) {
	return LocalBandwidthContext(context.Background(), m, k, s)
}

// LocalBandwidthContext is LocalBandwidth whose neighbour search stops
// with ctx's error once ctx is cancelled.
func LocalBandwidthContext(ctx context.Context, m Metric, k int, s Search) (Bandwidth, error) {
	if k >= m.Len() {
		k = m.Len() - 1
	}
	sig, err := localScales(ctx, m, k, s)
	if err != nil {
		return Bandwidth{}, err
	}
	return Bandwidth{Sigma: sig}, nil
}

// Sq returns δᵢⱼ².
func (b Bandwidth) Sq(i, j int) float64 {
	if b.Delta > 0 {
		return b.Delta * b.Delta
	}
	return b.Sigma[i] * b.Sigma[j]
}

func (b Bandwidth) check(n int) error {
	if b.Delta > 0 && !math.IsInf(b.Delta, 0) {
		return nil
	}
	if b.Delta != 0 || math.IsNaN(b.Delta) {
		return fmt.Errorf("delta: %v; the bandwidth must be finite and > 0 (0: local scaling)", b.Delta)
	}
	if len(b.Sigma) != n {
		return fmt.Errorf("graph: local scaling has %d bandwidths for %d rows", len(b.Sigma), n)
	}
	for i, s := range b.Sigma {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("graph: local-scaling bandwidth of row %d is %v; must be finite and > 0", i+1, s)
		}
	}
	return nil
}

// VariationalWeights returns the dense weight matrix of seed 003's graph
// for the class coefficients c (Gamma or BER) at the rows of m:
//
//	wᵢⱼ = cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²)·sᵢⱼ,   wᵢᵢ = 0,
//
// with sᵢⱼ = 1/δᵢⱼ² when tangent is set (the derivative of the kernel term
// with respect to dᵢⱼ², which is what makes the graph the tangent of J:
// the EM step then moves along the gradient of J) and sᵢⱼ = 1 otherwise
// (the paper's w = −c·λ of eq. 7, which drops 1/δ² — a constant factor
// under one global δ, a per-pair reweighting under local scaling). With m
// the input rows this is the initial graph of §3.3 (MIE₀/BERE₀); with m the
// current embedding it is the E-step graph. Cost O(n²) distances.
func VariationalWeights(c *ClassBlock, m Metric, bw Bandwidth, tangent bool) (*mat.SymDense, error) {
	w, _, err := VariationalGraph(c, m, bw, tangent)
	return w, err
}

// VariationalGraph returns VariationalWeights and, from the same kernel
// terms, the criterion KernelSum(c, m, bw) — bit for bit, at the cost of
// one multiply-add per pair instead of a second pass over the n² distances.
func VariationalGraph(c *ClassBlock, m Metric, bw Bandwidth, tangent bool) (*mat.SymDense, float64, error) {
	return VariationalGraphContext(context.Background(), c, m, bw, tangent)
}

// VariationalGraphContext is VariationalGraph that stops with ctx's error
// once ctx is cancelled (no block of rows starts after it) and reports
// the share of the n² pairs done through ctx's reporter (package
// progress) from progress.MinOrder rows on.
func VariationalGraphContext(ctx context.Context, c *ClassBlock, m Metric, bw Bandwidth, tangent bool) (*mat.SymDense, float64, error) {
	n := m.Len()
	if c.Size() != n {
		return nil, 0, fmt.Errorf("graph: class coefficients for %d rows, metric has %d", c.Size(), n)
	}
	if err := bw.check(n); err != nil {
		return nil, 0, err
	}
	w := mat.NewSymDense(n, nil)
	raw := w.RawSymmetric()
	rows := make([]float64, n) // KernelSum's row sums, in its order
	err := upperPairsContext(ctx, n, fmt.Sprintf("variational graph: weights of the %d×%d pairs", n, n), func(i, j int) {
		d2 := bw.Sq(i, j)
		v := c.at(i, j) * math.Exp(-m.SqDist(i, j)/d2)
		rows[i] += v
		if tangent {
			v /= d2
		}
		raw.Data[i*raw.Stride+j] = v
	})
	if err != nil {
		return nil, 0, err
	}
	return w, kernelTotal(c, rows), nil
}

// KernelSum returns the criterion of seed 003 at the rows of m,
//
//	J = (1/N²)·Σᵢⱼ cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²)   (all i, j, the diagonal included),
//
// eq. 5 for c = Gamma (the quadratic-MI estimate of eq. 4 with
// k(zᵢ, zⱼ) = exp(−‖zᵢ − zⱼ‖²/δ²)) and the BER estimate of §4 for c = BER.
func KernelSum(c *ClassBlock, m Metric, bw Bandwidth) (float64, error) {
	return KernelSumContext(context.Background(), c, m, bw)
}

// KernelSumContext is KernelSum that stops with ctx's error once ctx is
// cancelled and reports its progress as VariationalGraphContext does.
func KernelSumContext(ctx context.Context, c *ClassBlock, m Metric, bw Bandwidth) (float64, error) {
	n := m.Len()
	if c.Size() != n {
		return 0, fmt.Errorf("graph: class coefficients for %d rows, metric has %d", c.Size(), n)
	}
	if err := bw.check(n); err != nil {
		return 0, err
	}
	rows := make([]float64, n) // Σ_{j>i} in increasing j, row by row
	err := upperPairsContext(ctx, n, fmt.Sprintf("criterion J over the %d×%d pairs", n, n), func(i, j int) {
		rows[i] += c.at(i, j) * math.Exp(-m.SqDist(i, j)/bw.Sq(i, j))
	})
	if err != nil {
		return 0, err
	}
	return kernelTotal(c, rows), nil
}

// kernelTotal is J from the row sums Σ_{j>i} cᵢⱼ·exp(−dᵢⱼ²/δᵢⱼ²): the
// pairs twice, the diagonal (exp(0) = 1) once, over N².
func kernelTotal(c *ClassBlock, rows []float64) float64 {
	s := 0.0
	for i, row := range rows {
		s += 2*row + c.at(i, i)
	}
	fn := float64(len(rows))
	return s / (fn * fn)
}

// LaplacianOf returns L = D − W of a dense symmetric weight matrix W
// (D = diag(W·1)) as an operator; W may have negative weights (the
// Laplacian is then indefinite). The diagonal of W is ignored.
func LaplacianOf(w *mat.SymDense) (Dense, error) {
	if w.SymmetricDim() == 0 {
		return Dense{}, errors.New("graph: empty weight matrix")
	}
	l, _ := laplacianPart(w, func(v float64) float64 { return v })
	return l, nil
}

// SignedLaplacians splits a signed weight matrix W into its positive
// edges W⁺ and the magnitudes of its negative edges W⁻ and returns their
// Laplacians L⁺ = D⁺ − W⁺ and L⁻ = D⁻ − W⁻ (each a positive semidefinite
// graph) with the numbers of edges of each sign, without forming W⁺ or
// W⁻. The diagonal of W is ignored.
func SignedLaplacians(w *mat.SymDense) (pos, neg Dense, npos, nneg int, err error) {
	if w.SymmetricDim() == 0 {
		return Dense{}, Dense{}, 0, 0, errors.New("graph: empty weight matrix")
	}
	pos, npos = laplacianPart(w, func(v float64) float64 { return max(v, 0) })
	neg, nneg = laplacianPart(w, func(v float64) float64 { return max(-v, 0) })
	return pos, neg, npos, nneg, nil
}

// laplacianPart returns D − W' for the weights W'ᵢⱼ = f(Wᵢⱼ), i ≠ j, and
// the number of edges with W'ᵢⱼ ≠ 0.
func laplacianPart(w *mat.SymDense, f func(float64) float64) (Dense, int) {
	n := w.SymmetricDim()
	l := mat.NewSymDense(n, nil)
	deg := make([]float64, n)
	edges := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := f(w.At(i, j))
			if v == 0 {
				continue
			}
			l.SetSym(i, j, -v)
			deg[i] += v
			deg[j] += v
			edges++
		}
	}
	for i, d := range deg {
		l.SetSym(i, i, d)
	}
	return Dense{M: l}, edges
}

// Tiles of the pair loops of VariationalWeights and KernelSum: rows are
// taken pairBlock at a time (a parallel block) and their partners
// pairTile at a time, so that both groups of rows stay in cache while
// their distances are computed (at 10 000 rows of 784 pixels a row-by-row
// loop re-reads the whole data set from memory once per row). Constants:
// the result does not depend on GOMAXPROCS.
const (
	pairBlock = 32
	pairTile  = 64
)

// upperPairsContext calls f(i, j) once for every pair i < j < n, in parallel
// over blocks of i. For each i the calls come in increasing j, and f may
// write freely to what belongs to row i: so a sum over j kept per row is
// accumulated in the same order as by the plain double loop, bit for bit.
//
// Once ctx is cancelled no block starts and ctx's error is returned (the
// pairs are then incomplete). With a reporter in ctx and at least
// progress.MinOrder rows a meter named what reports the share of pairs
// done.
func upperPairsContext(ctx context.Context, n int, what string, f func(i, j int)) error {
	meter := progress.Start(ctx, n, "%s", what)
	total := float64(n) * float64(n-1) / 2
	var done atomic.Int64
	par.Blocks(n, pairBlock, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		for j0 := lo + 1; j0 < n; j0 += pairTile {
			j1 := min(j0+pairTile, n)
			for i := lo; i < hi; i++ {
				for j := max(j0, i+1); j < j1; j++ {
					f(i, j)
				}
			}
		}
		// rows lo..hi−1 own (n−1−i) pairs each
		pairs := int64(hi-lo) * int64(2*n-lo-hi-1) / 2
		meter.Done(float64(done.Add(pairs)) / total)
	})
	return ctx.Err()
}
