// Package qmi estimates the quadratic mutual information (QMI) between an
// embedding and class labels, the criterion that KQMI/LQMI (seed 000) and
// AQMIDA (seed 001) optimise, so that embeddings can be compared by the
// criterion itself and not only through a classifier.
//
// With rows z₁..zₙ (labelled yᵢ ∈ 0..C−1; rows labelled −1 are ignored),
// J_c rows in class c, and Parzen densities with the Gaussian window
// N(z; zᵢ, σ²I) (seed 000 eq. 10 and the conventions in package graph),
// seed 000 eq. 11-14 give
//
//	I_Q(Z;Y) = V_IN + V_ALL − 2·V_BTW,
//	V_IN  = Σ_c ∫ p(z,c)² dz            = (1/n²)·Σ_c Σ_{yⱼ=c} Σ_{yₖ=c} Gⱼₖ,
//	V_ALL = Σ_c ∫ p(z)²·P(c)² dz        = (1/n²)·Σ_c (J_c/n)²·Σⱼ Σₖ Gⱼₖ,
//	V_BTW = Σ_c ∫ p(z,c)·p(z)·P(c) dz   = (1/n²)·Σ_c (J_c/n)·Σⱼ Σ_{yₖ=c} Gⱼₖ,
//	Gⱼₖ = N(zⱼ − zₖ; 0, 2σ²I) = (4πσ²)^{-d/2}·exp(−‖zⱼ − zₖ‖²/(4σ²)).
//
// (The printed eq. 13 has (J_c/N)²: N is n.) I_Q ≥ 0, with equality when
// p(z,c) = p(z)·P(c). Its value depends on the scale of Z relative to σ:
// compare embeddings at a common scale (for example after whitening each
// one) and a common σ.
package qmi

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/kernel"
)

// ErrWindowTooSmall is wrapped by Score's error for a σ whose windows of
// distinct rows do not overlap (high-dimensional rows with Silverman's
// width, for one).
var ErrWindowTooSmall = errors.New("window narrower than the rows' distances")

// Terms are the parts of the QMI estimate.
type Terms struct {
	In, All, Btw float64 // V_IN, V_ALL, V_BTW
	QMI          float64 // V_IN + V_ALL − 2·V_BTW
	Sigma        float64 // the window width σ used
	// Relative is set when the Parzen normaliser (4πσ²)^(−d/2), a common
	// factor of every term, is outside the floating-point range (σ = 0.9
	// in d = 784: 10^-485): the four values above are then given
	// without it, i.e. relative to it, and Log10Norm is its logarithm.
	// Embeddings of the same d and σ still compare by them.
	Relative  bool
	Log10Norm float64 // log₁₀ (4πσ²)^(−d/2), always set
	// Overlap is the mean over the rows of Σ exp(−‖zⱼ−zₖ‖²/(4σ²)) over
	// the rows k distinct from zⱼ (duplicates of a row left out with
	// itself), how much a row's window overlaps the others' against 1:
	// below 1 the estimate is mostly the rows' self-similarity, a σ
	// small for the rows' distances (Silverman's width on 784
	// standardized MNIST columns: 0.001).
	Overlap float64
}

// Score returns I_Q(Z;Y) and its terms for the rows of z with labels y and
// Parzen window width sigma > 0 (window N(·; zᵢ, σ²I)). Rows labelled −1
// are left out; at least two labelled rows and one class are needed. A σ
// so small that distinct rows' windows do not overlap is an error (the
// estimate would not depend on the embedding); a normaliser outside the
// floating-point range gives the terms relative to it (Terms.Relative). It
// costs O(n²·d) time and O(n) memory beyond z (the n×n Gaussian matrix is
// formed in blocks of rows and reduced to per-class sums). The result does
// not depend on GOMAXPROCS.
func Score(z *mat.Dense, y []int, sigma float64) (Terms, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return Terms{}, fmt.Errorf("qmi: sigma = %v; the Parzen window width must be finite and > 0", sigma)
	}
	if g := 1 / (4 * sigma * sigma); g == 0 || math.IsInf(g, 0) {
		return Terms{}, fmt.Errorf("qmi: sigma = %g; the window's 1/(4σ²) = %g is outside the floating-point range: give a width near the embedding's distances", sigma, g)
	}
	z, y, err := labelledRows(z, y)
	if err != nil {
		return Terms{}, err
	}
	n, d := z.Dims()
	y, _ = data.DenseLabels(y) // I_Q does not depend on the label values
	counts := data.ClassCounts(y)
	nc := len(counts)
	// rowSums[i*nc + c] = Σ_{yₖ=c} exp(−‖zᵢ−zₖ‖²/(4σ²)); same[i] sums
	// the pairs of row i with itself and the rows equal to it, which
	// Overlap leaves out (their values are 1 up to the rounding of the
	// blocked distances, which a narrow σ magnifies: compared by the
	// rows, not the values).
	rowSums := make([]float64, n*nc)
	same := make([]float64, n)
	k := kernel.Kernel{Type: "rbf", Gamma: 1 / (4 * sigma * sigma)}
	const block = 128
	var gerr error
	errs := make([]error, (n+block-1)/block)
	par.Blocks(n, block, func(lo, hi int) {
		g, err := k.Gram(z.Slice(lo, hi, 0, d).(*mat.Dense), z)
		if err != nil {
			errs[lo/block] = err
			return
		}
		for i := lo; i < hi; i++ {
			s := rowSums[i*nc : (i+1)*nc]
			for j, v := range g.RawRowView(i - lo) {
				s[y[j]] += v
				if j == i || (v > 0.5 && slices.Equal(z.RawRowView(i), z.RawRowView(j))) {
					same[i] += v
				}
			}
		}
	})
	for _, e := range errs {
		if e != nil && gerr == nil {
			gerr = e
		}
	}
	if gerr != nil {
		return Terms{}, fmt.Errorf("qmi: %w", gerr)
	}
	fn := float64(n)
	var in, all, btw, sq float64
	for _, j := range counts {
		sq += float64(j) * float64(j)
	}
	for i := 0; i < n; i++ {
		s := rowSums[i*nc : (i+1)*nc]
		tot := 0.0
		for _, v := range s {
			tot += v
		}
		in += s[y[i]]
		all += tot
		btw += float64(counts[y[i]]) * tot
	}
	// Σⱼ Σₖ exp(·) holds the n self terms exp(0) = 1 (and those of rows
	// that coincide): when the pairs of distinct rows add almost nothing,
	// σ is too small for the rows' distances: every term follows from n,
	// the duplicates and the class counts, whatever the embedding.
	// (Terms.Overlap says how far from that a σ is.)
	selfSum := 0.0
	for _, v := range same {
		selfSum += v
	}
	off := max(all-selfSum, 0)
	if off <= 1e-9*fn {
		return Terms{}, fmt.Errorf("qmi: σ = %g is too small for these rows: the windows of distinct rows overlap by %.3g in all (exp(−‖zᵢ−zⱼ‖²/(4σ²)) summed over the pairs), against %.3g for the rows with themselves (and their duplicates), so the estimate would not depend on the embedding; give a larger σ (comparable to the distances between rows): %w", sigma, off, selfSum, ErrWindowTooSmall)
	}
	log10Norm := -float64(d) / 2 * math.Log10(4*math.Pi*sigma*sigma)
	norm := math.Pow(4*math.Pi*sigma*sigma, -float64(d)/2)
	t := Terms{Sigma: sigma, Log10Norm: log10Norm, Overlap: off / fn}
	if norm == 0 || math.IsInf(norm, 0) || math.Abs(log10Norm) > 300 {
		// (4πσ²)^(−d/2) leaves the floating-point range (or its
		// products with the sums would, at 10^±300): the terms are
		// given relative to it.
		norm, t.Relative = 1, true
	}
	t.In = norm * in / (fn * fn)
	t.All = norm * all * sq / (fn * fn * fn * fn)
	t.Btw = norm * btw / (fn * fn * fn)
	t.QMI = t.In + t.All - 2*t.Btw
	return t, nil
}

// Silverman returns a default window width for Score: Silverman's rule of
// thumb for a d-dimensional Gaussian kernel,
//
//	σ = s·(4/((d+2)·n))^{1/(d+4)},
//
// with s the root-mean-square of the per-column standard deviations of the
// n labelled rows of z (for d = 1 this is (4s⁵/(3n))^{1/5}, the rule seed
// 001 uses).
func Silverman(z *mat.Dense, y []int) (float64, error) {
	z, _, err := labelledRows(z, y)
	if err != nil {
		return 0, err
	}
	n, d := z.Dims()
	v := 0.0
	for j := 0; j < d; j++ {
		m := 0.0
		for i := 0; i < n; i++ {
			m += z.At(i, j)
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			r := z.At(i, j) - m
			v += r * r
		}
	}
	s := math.Sqrt(v / float64((n-1)*d))
	if s == 0 {
		return 0, fmt.Errorf("qmi: every row of the embedding is the same; no bandwidth")
	}
	return s * math.Pow(4/(float64(d+2)*float64(n)), 1/float64(d+4)), nil
}

func labelledRows(z *mat.Dense, y []int) (*mat.Dense, []int, error) {
	if z == nil {
		return nil, nil, fmt.Errorf("qmi: no rows")
	}
	n, _ := z.Dims()
	if len(y) != n {
		return nil, nil, fmt.Errorf("qmi: %d labels for %d rows", len(y), n)
	}
	if err := data.CheckFinite("qmi: embedding", z); err != nil {
		return nil, nil, err
	}
	if err := data.CheckDistanceRange("qmi: embedding", z); err != nil {
		return nil, nil, err
	}
	var idx []int
	for i, v := range y {
		if v < -1 {
			return nil, nil, fmt.Errorf("qmi: row %d has label %d; labels must be ≥ 0 (or −1 for unlabeled)", i+1, v)
		}
		if v >= 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return nil, nil, fmt.Errorf("qmi: %d labelled row(s); need at least 2", len(idx))
	}
	if len(idx) == n {
		return z, y, nil
	}
	ds := (&data.Dataset{X: z, Y: y}).Subset(idx)
	return ds.X, ds.Y, nil
}
