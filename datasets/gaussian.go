package datasets

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// GaussianMixtureOptions are the parameters of [GaussianMixture].
type GaussianMixtureOptions struct {
	// Dim is the dimension of the samples, at least 1.
	Dim int
	// Counts[c] is the number of samples of class c, at least 1 each; the
	// number of classes C is len(Counts), at least 1.
	Counts []int
	// Separation is the distance between the nearest class means, ≥ 0
	// (0 puts every mean at the origin: classes indistinguishable).
	Separation float64
	// Std is the within-class standard deviation of every coordinate; 0
	// means 1.
	Std float64
	// Seed selects the random stream; the same seed gives the same data.
	Seed uint64
}

// DefaultGaussianMixtureOptions returns the parameters of
// `builtin:gaussians`: 3 classes of 100 samples in 10 dimensions, means 3
// standard deviations apart, seed 1.
func DefaultGaussianMixtureOptions() GaussianMixtureOptions {
	return GaussianMixtureOptions{Dim: 10, Counts: []int{100, 100, 100}, Separation: 3, Std: 1, Seed: 1}
}

// GaussianMixture generates C = len(Counts) classes, class c drawn from the
// isotropic normal N(m_c, Std²·I) in Dim dimensions. The means are placed so
// that the nearest two are exactly Separation apart:
//
//   - C ≤ Dim: m_c = (Separation/√2)·e_c, the corners of a regular simplex
//     (every pair exactly Separation apart);
//   - Dim = 1: m_c = c·Separation on the line;
//   - otherwise (C > Dim ≥ 2): the means are evenly spaced on a circle in
//     the first two coordinates, neighbours Separation apart (radius
//     Separation / (2 sin(π/C))).
//
// Rows come in random order. Features are named x1..xDim.
func GaussianMixture(opt GaussianMixtureOptions) (*data.Dataset, error) {
	const what = "datasets: gaussian mixture"
	if opt.Dim < 1 {
		return nil, fmt.Errorf("%s: Dim = %d, want at least 1", what, opt.Dim)
	}
	if len(opt.Counts) == 0 {
		return nil, fmt.Errorf("%s: Counts is empty (0 classes), want at least one class", what)
	}
	n := 0
	for c, m := range opt.Counts {
		if m < 1 {
			return nil, fmt.Errorf("%s: Counts[%d] = %d, want at least 1", what, c, m)
		}
		if m > maxElements || n > maxElements-m {
			return nil, fmt.Errorf("%s: Counts[%d] = %d makes too many samples (limit %d)", what, c, m, maxElements)
		}
		n += m
	}
	if err := checkSize(what, "Counts (total)", n, opt.Dim); err != nil {
		return nil, err
	}
	if err := checkNonNegative(what, "Separation", opt.Separation); err != nil {
		return nil, err
	}
	std := opt.Std
	if std == 0 {
		std = 1
	}
	if err := checkPositive(what, "Std", std); err != nil {
		return nil, err
	}

	means := mixtureMeans(len(opt.Counts), opt.Dim, opt.Separation)
	g := newRNG(opt.Seed)
	y := make([]int, 0, n)
	for c, m := range opt.Counts {
		for range m {
			y = append(y, c)
		}
	}
	g.shuffle(y)
	x := mat.NewDense(n, opt.Dim, nil)
	for i, c := range y {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = means[c][j] + float64(std*g.normal())
		}
	}
	names := make([]string, opt.Dim)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	return &data.Dataset{
		Name:         "gaussians",
		X:            x,
		Y:            y,
		FeatureNames: names,
		ClassNames:   intNames(len(opt.Counts)),
	}, nil
}

// mixtureMeans returns the C class means of GaussianMixture.
func mixtureMeans(c, dim int, sep float64) [][]float64 {
	means := make([][]float64, c)
	for k := range means {
		means[k] = make([]float64, dim)
	}
	switch {
	case c <= dim:
		a := sep / math.Sqrt2
		for k := range means {
			means[k][k] = a
		}
	case dim == 1:
		for k := range means {
			means[k][0] = float64(float64(k) * sep)
		}
	default:
		s, _ := detSinCos(math.Pi / float64(c))
		r := sep / float64(2*s)
		for k := range means {
			sin, cos := detSinCos(float64(2*math.Pi*float64(k)) / float64(c))
			means[k][0], means[k][1] = float64(r*cos), float64(r*sin)
		}
	}
	return means
}
