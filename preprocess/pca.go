package preprocess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// DefaultPCAFraction is the variance fraction PCA keeps when Fraction is 0:
// 0.99, the protocol of the face-recognition experiments (seeds 002-004).
const DefaultPCAFraction = 0.99

// PCA projects centred rows on the leading principal components of the
// training rows, keeping the fewest components whose explained variance
// reaches Fraction of the total:
//
//	Xc = X − 1·μᵀ = U·Σ·Vᵀ (thin SVD),  keep k = min{k : Σᵢ≤ₖ σᵢ² ≥ F·Σᵢ σᵢ²}
//	x' = Vₖᵀ·(x − μ)
//
// The SVD is taken of Xc when n ≥ p and of Xcᵀ otherwise (the thin factor
// is then min(n, p) wide either way). Each component's sign is fixed so its
// entry of largest absolute value (the first such on ties) is positive, so
// results do not depend on the LAPACK sign convention.
type PCA struct {
	// Fraction of the total variance to keep, 0 < Fraction ≤ 1. Zero means
	// DefaultPCAFraction (0.99). Fraction = 1 keeps every component of
	// non-negligible variance (the numerical rank of Xc).
	Fraction float64
}

// Spec returns "pca:F".
func (p PCA) Spec() string {
	return fmt.Sprintf("pca:%g", p.fraction())
}

func (p PCA) fraction() float64 {
	if p.Fraction == 0 {
		return DefaultPCAFraction
	}
	return p.Fraction
}

func checkFraction(f float64) error {
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("pca fraction %v is outside (0, 1]", f)
	}
	return nil
}

// Fit computes the mean and principal components of the rows of X.
func (p PCA) Fit(X *mat.Dense) (Fitted, error) {
	frac := p.fraction()
	if err := checkFraction(frac); err != nil {
		return nil, fmt.Errorf("preprocess pca: %w", err)
	}
	if err := checkFit("pca", X); err != nil {
		return nil, err
	}
	n, c := X.Dims()
	mean := colMeans(X)
	xc := mat.NewDense(n, c, nil)
	for i := 0; i < n; i++ {
		src, dst := X.RawRowView(i), xc.RawRowView(i)
		for j, v := range src {
			dst[j] = v - mean[j]
		}
	}

	// V (c × r, r = min(n, c)) holds the principal directions as columns.
	var svd mat.SVD
	var v mat.Dense
	if n >= c {
		if !svd.Factorize(xc, mat.SVDThinV) {
			return nil, fmt.Errorf("preprocess pca: SVD of the %d×%d centred training data did not converge", n, c)
		}
		svd.VTo(&v)
	} else {
		if !svd.Factorize(xc.T(), mat.SVDThinU) {
			return nil, fmt.Errorf("preprocess pca: SVD of the %d×%d centred training data did not converge", n, c)
		}
		svd.UTo(&v)
	}
	s := svd.Values(nil)
	for _, sv := range s {
		if math.IsNaN(sv) || math.IsInf(sv, 0) {
			return nil, fmt.Errorf("preprocess pca: the centred training data overflows (values up to %g): scale it first", maxAbs(X))
		}
	}
	if s[0] == 0 || s[0] <= float64(max(n, c))*1e-15*maxAbs(X) {
		return nil, fmt.Errorf("preprocess pca: training data has no variance above rounding (its %d rows agree to 1e-15 of their magnitude %g); nothing to keep", n, maxAbs(X))
	}
	// Variances relative to the largest (σ² itself overflows from
	// σ ≈ 1e154 on).
	total := 0.0
	for _, sv := range s {
		r := sv / s[0]
		total += r * r
	}
	// Components with σ below the numerical noise level are never kept,
	// and the cumulative test allows for rounding in the sum.
	tiny := s[0] * (float64(max(n, c)) * 1e-15) // the factor first: s[0]·n overflows near 1e308
	k, cum := 0, 0.0
	for k < len(s) && s[k] > tiny {
		r := s[k] / s[0]
		cum += r * r
		k++
		if cum >= frac*total*(1-1e-12) {
			break
		}
	}

	f := &PCAFitted{
		Fraction:   frac,
		Mean:       mean,
		Components: make([][]float64, k),
		Ratio:      make([]float64, k),
	}
	for i := 0; i < k; i++ {
		comp := make([]float64, c)
		mat.Col(comp, i, &v)
		big := 0
		for j := range comp {
			if math.Abs(comp[j]) > math.Abs(comp[big]) {
				big = j
			}
		}
		if comp[big] < 0 {
			for j := range comp {
				comp[j] = -comp[j]
			}
		}
		f.Components[i] = comp
		r := s[i] / s[0]
		f.Ratio[i] = r * r / total
	}
	return f, nil
}

func maxAbs(X *mat.Dense) float64 {
	r, _ := X.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for _, v := range X.RawRowView(i) {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// PCAFitted holds a fitted PCA: the training mean and the kept components
// (unit vectors, one per row of Components, in decreasing order of
// variance). Ratio[i] is the fraction of the total training variance along
// component i.
type PCAFitted struct {
	Fraction   float64     `json:"fraction"`
	Mean       []float64   `json:"mean"`
	Components [][]float64 `json:"components"`
	Ratio      []float64   `json:"explained_variance_ratio"`
}

// Kind returns "pca".
func (f *PCAFitted) Kind() string { return "pca" }

// InDims returns the number of input columns.
func (f *PCAFitted) InDims() int { return len(f.Mean) }

// OutDims returns the number of kept components.
func (f *PCAFitted) OutDims() int { return len(f.Components) }

// Apply returns (X − 1·μᵀ)·V, one column per kept component.
func (f *PCAFitted) Apply(X *mat.Dense) (*mat.Dense, error) {
	if err := checkApply("pca", X, len(f.Mean)); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	k := len(f.Components)
	xc := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		src, dst := X.RawRowView(i), xc.RawRowView(i)
		for j, v := range src {
			dst[j] = v - f.Mean[j]
		}
	}
	w := mat.NewDense(k, c, nil)
	for i, comp := range f.Components {
		w.SetRow(i, comp)
	}
	out := mat.NewDense(r, k, nil)
	out.Mul(xc, w.T())
	return out, nil
}

func (f *PCAFitted) validate() error {
	c := len(f.Mean)
	if c == 0 {
		return fmt.Errorf("pca: empty mean")
	}
	if err := checkFraction(f.Fraction); err != nil {
		return fmt.Errorf("pca: %w", err)
	}
	if len(f.Components) == 0 {
		return fmt.Errorf("pca: no components")
	}
	if len(f.Ratio) != len(f.Components) {
		return fmt.Errorf("pca: %d variance ratios for %d components", len(f.Ratio), len(f.Components))
	}
	for j, v := range f.Mean {
		if !finite(v) {
			return fmt.Errorf("pca: mean[%d] is %v", j, v)
		}
	}
	for i, comp := range f.Components {
		if len(comp) != c {
			return fmt.Errorf("pca: component %d has %d entries, want %d (the mean's length)", i+1, len(comp), c)
		}
		for j, v := range comp {
			if !finite(v) {
				return fmt.Errorf("pca: component %d entry %d is %v", i+1, j+1, v)
			}
		}
	}
	return nil
}
