package graph

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/progress"
)

// The graphs of quadratic mutual information (QMI).
//
// Parzen conventions (seed 000, eq. 10-14). The densities are Parzen
// estimates with the isotropic Gaussian window N(x; xᵢ, σ²I), where
// N(x; m, Σ) = (2π)^{-d/2}|Σ|^{-1/2}·exp(−½(x−m)ᵀΣ⁻¹(x−m)) is the normal
// density (the paper's printed normaliser 1/√(2π|Σ|) is a typo):
//
//	p(x) = (1/n)·Σᵢ N(x; xᵢ, σ²I),   P(c) = J_c/n,
//	p(x, c) = (1/n)·Σ_{i: yᵢ=c} N(x; xᵢ, σ²I).
//
// Two windows integrate to one Gaussian of twice the variance,
// ∫N(x; xᵢ, σ²I)·N(x; xⱼ, σ²I)dx = N(xᵢ − xⱼ; 0, 2σ²I), so with the
// pairwise matrix Kᵢⱼ = N(xᵢ − xⱼ; 0, 2σ²I) every term of QMI is a class-
// weighted sum of K:
//
//	I_Q = V_IN + V_ALL − 2·V_BTW = Σᵢⱼ Mᵢⱼ·Kᵢⱼ = tr(Φᵀ·M·Φ)   (eq. 11-18)
//
// with K = Φ·Φᵀ and M the QMI graph of eq. 19 below. Seed 001 writes the
// same estimator with a window of variance σ²/2, so its σ is √2 times the
// σ used here (its pairwise term G(yₙ − yₘ, σ²) is our N(·; 0, 2σ²)).
//
// Package qmi evaluates I_Q of an embedding; this file holds the graphs.

// QMIConstants are the constants of seed 000 §III-A for labels y over the n
// labelled rows with J_c rows in class c:
//
//	C_ALL = Σ_c J_c² / n⁴,   C_IN = 1/n²,   C_BTW,c = J_c / n³.
type QMIConstants struct {
	N      int       // labelled rows n
	Counts []int     // J_c
	All    float64   // C_ALL
	In     float64   // C_IN
	Btw    []float64 // C_BTW,c
}

// NewQMIConstants computes the constants for labels y (−1: unlabeled, not
// counted). It fails when no row is labelled.
func NewQMIConstants(y []int) (QMIConstants, error) {
	// Indexed by the labels themselves (M, Alpha and Beta take them), so
	// not renumbered; a label far beyond the rows costs a table of its
	// size (the methods compact their labels first).
	return QMIConstantsFromCounts(data.ClassCounts(y))
}

// QMIConstantsFromCounts computes the constants from the class counts J_c.
func QMIConstantsFromCounts(counts []int) (QMIConstants, error) {
	n := 0
	for c, k := range counts {
		if k < 0 {
			return QMIConstants{}, fmt.Errorf("graph: QMI class %d has count %d; counts must be ≥ 0", c, k)
		}
		n += k
	}
	if n == 0 {
		return QMIConstants{}, errors.New("graph: QMI needs labelled rows")
	}
	fn := float64(n)
	q := QMIConstants{N: n, Counts: counts, In: 1 / (fn * fn), Btw: make([]float64, len(counts))}
	for c, k := range counts {
		q.All += float64(k) * float64(k)
		q.Btw[c] = float64(k) / (fn * fn * fn)
	}
	q.All /= fn * fn * fn * fn
	return q, nil
}

// Alpha is α_c = C_IN + C_ALL − 2·C_BTW,c, the value of M' on the block of
// class c (eq. 30).
func (q QMIConstants) Alpha(c int) float64 { return q.In + q.All - 2*q.Btw[c] }

// Beta is β_{c,c'} = C_ALL − C_BTW,c − C_BTW,c', the value of M' on the
// block of classes c ≠ c' (eq. 30).
func (q QMIConstants) Beta(c, d int) float64 { return q.All - q.Btw[c] - q.Btw[d] }

// M is the entry Mᵢⱼ of the (non-symmetric) matrix of eq. 19 for rows of
// classes yi and yj:
//
//	M = C_ALL·11ᵀ + C_IN·Σ_c 1_c1_cᵀ − 2·1·(Σ_c C_BTW,c·1_c)ᵀ,
//	Mᵢⱼ = C_ALL + C_IN·[yᵢ = yⱼ] − 2·C_BTW,yⱼ.
func (q QMIConstants) M(yi, yj int) float64 {
	v := q.All - 2*q.Btw[yj]
	if yi == yj {
		v += q.In
	}
	return v
}

// QMI returns the symmetrised QMI graph M' = (M + Mᵀ)/2 of seed 000
// (eq. 19, 22, 30) as a class-block operator:
//
//	M'ᵢⱼ = α_c           if yᵢ = yⱼ = c,
//	M'ᵢⱼ = β_{c,c'}      if yᵢ = c ≠ c' = yⱼ,
//
// and zero on unlabeled rows (label −1). For any Φ, tr(Φᵀ·M'·Φ) =
// tr(Φᵀ·M·Φ) is the QMI of eq. 18 when Φ·Φᵀ is the Parzen matrix K.
//
// Properties (tested): M'·1 = 0 (Appendix B: M' = D − W is the Laplacian of
// the graph W of QMIWeights); M' is positive semi-definite of rank C − 1
// (on a vector Σ_c a_c·1_c with Σ_c J_c·a_c = 0 its quadratic form is
// Σ_c J_c²a_c²/n²); its eigenvectors of nonzero eigenvalue span the centred
// class indicators, the span of GDA's responses. For balanced classes
// (J_c = n/C) M' = (W_c − 11ᵀ/n)/(n·C), a multiple of BetweenClass; on
// centred X, Xᵀ·M'·X = Σ_c J_c²·m_c·m_cᵀ/n² (m_c the class means) weights
// class c by J_c² where the between-class scatter weights it by J_c.
func QMI(y []int) (*ClassBlock, error) {
	y, _ = data.DenseLabels(y) // the graph depends on which rows share a label only
	b, err := QMIBlock(data.ClassCounts(y))
	if err != nil {
		return nil, err
	}
	return &ClassBlock{Labels: y, Block: b}, nil
}

// QMIBlock returns the C×C block of the QMI graph M' for class counts J_c
// (the graph of QMI restricted to its class structure; fits from
// statistics use it without the labels).
func QMIBlock(counts []int) (*mat.SymDense, error) {
	q, err := QMIConstantsFromCounts(counts)
	if err != nil {
		return nil, err
	}
	c := len(q.Counts)
	b := mat.NewSymDense(max(c, 1), nil)
	for i := 0; i < c; i++ {
		b.SetSym(i, i, q.Alpha(i))
		for j := i + 1; j < c; j++ {
			b.SetSym(i, j, q.Beta(i, j))
		}
	}
	return b, nil
}

// QMIWeights returns the weight matrix W of the QMI graph (seed 000
// eq. 31) and its degrees D, with M' = D − W:
//
//	Wᵢⱼ = −α_c           if yᵢ = yⱼ = c and i ≠ j,   Wᵢᵢ = 0,
//	Wᵢⱼ = −β_{c,c'}      if yᵢ = c ≠ c' = yⱼ,
//	Dᵢᵢ = α_{yᵢ}.
//
// Same-class edges have weight 2·C_BTW,c − C_IN − C_ALL ≤ 0 and
// cross-class edges C_BTW,c + C_BTW,c' − C_ALL. Appendix B shows
// Σⱼ Wᵢⱼ = Dᵢᵢ (tested). W is returned as a class block with
// Block[c][c] = −α_c and Diag[i] = α_{yᵢ}, so that Wᵢᵢ = 0; unlabeled rows
// have zero weights and degree.
func QMIWeights(y []int) (w *ClassBlock, d []float64, err error) {
	m, err := QMI(y)
	if err != nil {
		return nil, nil, err
	}
	q, _ := NewQMIConstants(y)
	m.Block.ScaleSym(-1, m.Block)
	d = make([]float64, len(y))
	for i, v := range y {
		if v >= 0 {
			d[i] = q.Alpha(v)
		}
	}
	m.Diag = d
	return m, append([]float64(nil), d...), nil
}

// SilvermanSigma is Silverman's rule of thumb for the width of a Gaussian
// window in one dimension, σ = (4·s⁵/(3n))^{1/5} for n samples of
// standard deviation s (seed 001 §3, Silverman 1986 eq. 3.28).
func SilvermanSigma(s float64, n int) float64 {
	return math.Pow(4*math.Pow(s, 5)/(3*float64(n)), 0.2)
}

// ApproxQMI returns the symmetric n×n matrix L for which
//
//	E = Xᵀ·L·X
//
// is the matrix E of AQMIDA (seed 001 eq. 4), whose top eigenvectors are
// the AQMIDA features, for rows x (n×D, usually PCA-whitened), labels y
// (0..K−1, all labelled) and bandwidth sigma > 0. It uses the ρ/τ form of
// eq. 9,
//
//	E = (1/N²)·Σₙₘ ρₙₘ·(xₙ − xₘ)(xₙ − xₘ)ᵀ = (2/N²)·Xᵀ·(diag(ρ·1) − ρ)·X,
//	ρₙₘ = ((N_cₙ + N_cₘ)/N − Σ_c N_c²/N² − [cₙ = cₘ])·τₙₘ,
//	τₙₘ = (1 − exp(−‖xₙ − xₘ‖²/(2σ²))) / (σ·√(2π)·‖xₙ − xₘ‖²),
//
// so L = (2/N²)·(diag(ρ·1) − ρ) is the Laplacian of the weights 2ρ/N²; it
// costs O(N²·D) (squared distances from one Gram product) and never forms
// the N² matrices Eₙₘ. Seed 001 conventions: the Parzen window has
// variance σ²/2 and the pairwise term is
// Gₙₘ = exp(−(yₙ − yₘ)²/(2σ²))/(σ√(2π)); Eₙₘ replaces it by the matrix
// exponential exp(−(xₙ−xₘ)(xₙ−xₘ)ᵀ/(2σ²))/(σ√(2π)), whose identity parts
// cancel in E because the class weights of eq. 4 sum to zero. At
// coincident rows τ takes its limit 1/(2σ³√(2π)); the term is zero there.
func ApproxQMI(x *mat.Dense, y []int, sigma float64) (*mat.SymDense, error) {
	return ApproxQMIContext(context.Background(), x, y, sigma)
}

// approxQMIRows is how many rows of ApproxQMIContext's pair loop run
// between two checks of the context.
const approxQMIRows = 64

// ApproxQMIContext is ApproxQMI that stops with ctx's error once ctx is
// cancelled (in the Gram product and every approxQMIRows rows of the pair
// loop) and reports the share of pairs done through ctx's reporter
// (package progress) from progress.MinOrder rows on. The loop is the same
// serial one, so the result is ApproxQMI's bit for bit.
func ApproxQMIContext(ctx context.Context, x *mat.Dense, y []int, sigma float64) (*mat.SymDense, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("sigma: %v; the bandwidth must be finite and > 0", sigma)
	}
	n, _ := x.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("labels: %d labels for %d rows", len(y), n)
	}
	if err := data.CheckFinite("ApproxQMI rows", x); err != nil {
		return nil, err
	}
	if err := data.CheckDistanceRange("ApproxQMI rows", x); err != nil {
		return nil, err
	}
	y, _ = data.DenseLabels(y) // the weights depend on which rows share a label only
	counts := data.ClassCounts(y)
	for i, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("labels: row %d is unlabeled; AQMIDA needs every row labelled", i+1)
		}
	}
	fn := float64(n)
	s := 0.0
	for _, k := range counts {
		s += float64(k) * float64(k)
	}
	s /= fn * fn
	g, err := kernel.Linear().GramContext(ctx, x, nil)
	if err != nil {
		return nil, err
	}
	sq := make([]float64, n)
	for i := range sq {
		sq[i] = g.At(i, i)
	}
	norm := 1 / (sigma * math.Sqrt(2*math.Pi))
	twoS2 := 2 * sigma * sigma
	tau0 := norm / twoS2
	l := mat.NewSymDense(n, nil)
	scale := 2 / (fn * fn)
	deg := make([]float64, n)
	progress.Step(ctx, n, "AQMIDA pairwise weights of the %d×%d pairs", n, n)
	meter := progress.Start(ctx, n, "AQMIDA pairwise weights of the %d×%d pairs", n, n)
	total := fn * (fn - 1) / 2
	for i := 0; i < n; i++ {
		if i%approxQMIRows == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// rows 0..i−1 own (n−1−r) pairs each
			meter.Done(float64(i) * (2*fn - float64(i) - 1) / 2 / total)
		}
		pi := float64(counts[y[i]]) / fn
		gi := g.RawRowView(i)
		for j := i + 1; j < n; j++ {
			d2 := math.Max(0, sq[i]+sq[j]-2*gi[j])
			tau := tau0
			if d2 > 0 {
				tau = -math.Expm1(-d2/twoS2) / d2 * norm
			}
			w := pi + float64(counts[y[j]])/fn - s
			if y[i] == y[j] {
				w--
			}
			r := w * tau * scale
			l.SetSym(i, j, -r)
			deg[i] += r
			deg[j] += r
		}
	}
	for i := 0; i < n; i++ {
		l.SetSym(i, i, deg[i])
	}
	return l, nil
}
