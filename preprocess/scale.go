package preprocess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MinMax scales each column linearly so that the training minimum maps to
// -1 and the training maximum to +1 (the protocol of the papers, as LIBSVM's
// svm-scale -l -1 -u 1):
//
//	x' = 2·(x − minⱼ)/(maxⱼ − minⱼ) − 1
//
// New rows are not clipped, so test values outside the training range map
// outside [-1, 1]. A column that is constant on the training rows carries
// no information and maps to 0 for every row (svm-scale drops it, which is
// the same as 0 in its sparse output).
type MinMax struct{}

// Spec returns "minmax".
func (MinMax) Spec() string { return "minmax" }

// Fit records the minimum and maximum of each column of X.
func (MinMax) Fit(X *mat.Dense) (Fitted, error) {
	if err := checkFit("minmax", X); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	f := &MinMaxFitted{Min: make([]float64, c), Max: make([]float64, c)}
	copy(f.Min, X.RawRowView(0))
	copy(f.Max, X.RawRowView(0))
	for i := 1; i < r; i++ {
		for j, v := range X.RawRowView(i) {
			f.Min[j] = math.Min(f.Min[j], v)
			f.Max[j] = math.Max(f.Max[j], v)
		}
	}
	for j := range f.Min {
		if math.IsInf(f.Max[j]-f.Min[j], 0) {
			return nil, fmt.Errorf("minmax: column %d ranges from %g to %g, a width beyond the floating-point range; rescale the column first", j+1, f.Min[j], f.Max[j])
		}
	}
	return f, nil
}

// MinMaxFitted holds the per-column training minimum and maximum.
type MinMaxFitted struct {
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// Kind returns "minmax".
func (f *MinMaxFitted) Kind() string { return "minmax" }

// InDims returns the number of columns.
func (f *MinMaxFitted) InDims() int { return len(f.Min) }

// OutDims returns the number of columns.
func (f *MinMaxFitted) OutDims() int { return len(f.Min) }

// Apply maps each column to 2·(x − min)/(max − min) − 1, constant columns
// to 0.
func (f *MinMaxFitted) Apply(X *mat.Dense) (*mat.Dense, error) {
	if err := checkApply("minmax", X, len(f.Min)); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		src, dst := X.RawRowView(i), out.RawRowView(i)
		for j, v := range src {
			if w := f.Max[j] - f.Min[j]; w > 0 {
				dst[j] = 2*(v-f.Min[j])/w - 1
			}
		}
	}
	return out, nil
}

func (f *MinMaxFitted) validate() error {
	if len(f.Min) == 0 || len(f.Min) != len(f.Max) {
		return fmt.Errorf("minmax: %d minima and %d maxima, want the same positive number", len(f.Min), len(f.Max))
	}
	for j := range f.Min {
		if !finite(f.Min[j]) || !finite(f.Max[j]) || f.Min[j] > f.Max[j] {
			return fmt.Errorf("minmax: column %d has min %v, max %v; want finite min ≤ max", j+1, f.Min[j], f.Max[j])
		}
	}
	return nil
}

// ZScore centres each column on its training mean and divides by its
// training standard deviation (population form, divisor n, as
// scikit-learn's StandardScaler):
//
//	x' = (x − meanⱼ)/sdⱼ
//
// A column that is constant on the training rows (sd = 0) is divided by 1,
// so it maps to 0 on training rows and to the offset from the mean on new
// rows.
type ZScore struct{}

// Spec returns "zscore".
func (ZScore) Spec() string { return "zscore" }

// Fit records the mean and standard deviation of each column of X.
func (ZScore) Fit(X *mat.Dense) (Fitted, error) {
	if err := checkFit("zscore", X); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	f := &ZScoreFitted{Mean: colMeans(X), Scale: make([]float64, c)}
	for i := 0; i < r; i++ {
		for j, v := range X.RawRowView(i) {
			d := v - f.Mean[j]
			f.Scale[j] += d * d
		}
	}
	for j := range f.Scale {
		if math.IsInf(f.Mean[j], 0) {
			return nil, fmt.Errorf("zscore: column %d: its mean is beyond the floating-point range (values up to about %g); rescale the column first", j+1, colMaxAbs(X, j))
		}
		f.Scale[j] = math.Sqrt(f.Scale[j] / float64(r))
		if math.IsInf(f.Scale[j], 0) || f.Scale[j] < 1e-150 {
			// The squares overflowed (values near 1e154 and beyond) or
			// underflowed (deviations near 1e-162 and below, subnormal
			// ones: the column looked constant): the same sum scaled by
			// the largest deviation, as a 2-norm is.
			f.Scale[j] = scaledSD(X, j, f.Mean[j])
		}
		if math.IsInf(f.Scale[j], 0) {
			return nil, fmt.Errorf("zscore: column %d: its standard deviation is beyond the floating-point range; rescale the column first", j+1)
		}
		if f.Scale[j] == 0 {
			f.Scale[j] = 1
		}
	}
	return f, nil
}

// scaledSD is the population standard deviation of column j about mean,
// summed as m²·Σ((x−mean)/m)² with m the largest |x − mean|, which does
// not overflow where the plain sum of squares does.
func scaledSD(X *mat.Dense, j int, mean float64) float64 {
	r, _ := X.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		m = math.Max(m, math.Abs(X.At(i, j)-mean))
	}
	if m == 0 || math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for i := 0; i < r; i++ {
		d := (X.At(i, j) - mean) / m
		s += d * d
	}
	return m * math.Sqrt(s/float64(r))
}

// colMaxAbs is the largest |x| of column j.
func colMaxAbs(X *mat.Dense, j int) float64 {
	r, _ := X.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		m = math.Max(m, math.Abs(X.At(i, j)))
	}
	return m
}

// ZScoreFitted holds the per-column training mean and the divisor (the
// standard deviation, or 1 for a constant column).
type ZScoreFitted struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
}

// Kind returns "zscore".
func (f *ZScoreFitted) Kind() string { return "zscore" }

// InDims returns the number of columns.
func (f *ZScoreFitted) InDims() int { return len(f.Mean) }

// OutDims returns the number of columns.
func (f *ZScoreFitted) OutDims() int { return len(f.Mean) }

// Apply maps each column to (x − mean)/scale.
func (f *ZScoreFitted) Apply(X *mat.Dense) (*mat.Dense, error) {
	if err := checkApply("zscore", X, len(f.Mean)); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		src, dst := X.RawRowView(i), out.RawRowView(i)
		for j, v := range src {
			dst[j] = (v - f.Mean[j]) / f.Scale[j]
		}
	}
	return out, nil
}

func (f *ZScoreFitted) validate() error {
	if len(f.Mean) == 0 || len(f.Mean) != len(f.Scale) {
		return fmt.Errorf("zscore: %d means and %d scales, want the same positive number", len(f.Mean), len(f.Scale))
	}
	for j := range f.Mean {
		if !finite(f.Mean[j]) || !finite(f.Scale[j]) || f.Scale[j] <= 0 {
			return fmt.Errorf("zscore: column %d has mean %v, scale %v; want finite values and scale > 0", j+1, f.Mean[j], f.Scale[j])
		}
	}
	return nil
}

// Unit scales each row to unit Euclidean (L2) length, x' = x/‖x‖₂; a row
// of zeros stays zero. It has no statistics: fitting only records the
// number of columns.
type Unit struct{}

// Spec returns "unit".
func (Unit) Spec() string { return "unit" }

// Fit records the number of columns of X.
func (Unit) Fit(X *mat.Dense) (Fitted, error) {
	if err := checkFit("unit", X); err != nil {
		return nil, err
	}
	_, c := X.Dims()
	return &UnitFitted{Cols: c}, nil
}

// UnitFitted is a fitted Unit step.
type UnitFitted struct {
	Cols int `json:"cols"`
}

// Kind returns "unit".
func (f *UnitFitted) Kind() string { return "unit" }

// InDims returns the number of columns.
func (f *UnitFitted) InDims() int { return f.Cols }

// OutDims returns the number of columns.
func (f *UnitFitted) OutDims() int { return f.Cols }

// Apply divides each row by its L2 norm (zero rows stay zero).
func (f *UnitFitted) Apply(X *mat.Dense) (*mat.Dense, error) {
	if err := checkApply("unit", X, f.Cols); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		src, dst := X.RawRowView(i), out.RawRowView(i)
		// Scale by the largest entry first so the norm cannot overflow.
		m := 0.0
		for _, v := range src {
			m = math.Max(m, math.Abs(v))
		}
		if m == 0 {
			continue
		}
		s := 0.0
		for _, v := range src {
			s += (v / m) * (v / m)
		}
		norm := m * math.Sqrt(s)
		for j, v := range src {
			dst[j] = v / norm
		}
	}
	return out, nil
}

func (f *UnitFitted) validate() error {
	if f.Cols < 1 {
		return fmt.Errorf("unit: cols = %d, want ≥ 1", f.Cols)
	}
	return nil
}

func colMeans(X *mat.Dense) []float64 {
	r, c := X.Dims()
	m := make([]float64, c)
	for i := 0; i < r; i++ {
		for j, v := range X.RawRowView(i) {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(r)
	}
	return m
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
