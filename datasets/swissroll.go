package datasets

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// SwissRollOptions are the parameters of [SwissRoll].
type SwissRollOptions struct {
	// N is the number of samples, at least 1.
	N int
	// Classes is the number of classes (consecutive segments along the
	// roll), 1 ≤ Classes ≤ N.
	Classes int
	// Height is the extent of the roll along its axis (the y coordinate);
	// 0 means the customary 21.
	Height float64
	// Noise is the standard deviation of isotropic Gaussian noise added to
	// every coordinate (0: points lie exactly on the surface).
	Noise float64
	// Seed selects the random stream; the same seed gives the same data.
	Seed uint64
}

// DefaultSwissRollOptions returns the parameters of `builtin:swissroll`:
// 1000 points (the size of the MNIST subset the same paper plots), 4
// classes, height 21, no noise, seed 1.
func DefaultSwissRollOptions() SwissRollOptions {
	return SwissRollOptions{N: 1000, Classes: 4, Height: 21, Seed: 1}
}

// Swiss roll parameter range: t in [tMin, tMax] = [1.5π, 4.5π].
const (
	rollTMin = 1.5 * math.Pi
	rollTMax = 4.5 * math.Pi
)

// SwissRoll generates the labelled Swiss roll used for the 2-D
// visualisations of Bouzas, Arvanitopoulos and Tefas, "Graph embedded
// nonparametric mutual information for supervised dimensionality
// reduction", IEEE TNNLS 26(5), 2015, Figs. 1-2 (seed paper 000).
//
// The paper describes the set only as points created in R² and mapped to R³
// by a smooth function, with classes to be separated in the 2-D projection;
// it gives neither the function, the size nor the labelling. We use the
// standard construction of Roweis and Saul (Science 2000) and Tenenbaum et
// al. (Science 2000), its references [27] and [32], as in scikit-learn's
// make_swiss_roll: a point (t, h) of the rectangle [1.5π, 4.5π] × [0,
// Height] is mapped to
//
//	x = t·cos t,  y = h,  z = t·sin t,
//
// so sqrt(x²+z²) = t is the roll's (Archimedean spiral's) parameter. Classes
// are consecutive segments along the roll: class c (0-based) holds the
// points with t in [1.5π + 3π·c/C, 1.5π + 3π·(c+1)/C), that is u = (t-1.5π)/3π
// uniform in [c/C, (c+1)/C) and h uniform in [0, Height). Class sizes differ
// by at most one (the first N mod C classes get one more point); rows come in
// random order. Such labels wrap around the roll, so linear projections mix
// classes while nonlinear (kernel) ones can separate them, which is what the
// paper's figures show.
func SwissRoll(opt SwissRollOptions) (*data.Dataset, error) {
	const what = "datasets: swiss roll"
	if opt.N < 1 {
		return nil, fmt.Errorf("%s: N = %d, want at least 1", what, opt.N)
	}
	if opt.Classes < 1 || opt.Classes > opt.N {
		return nil, fmt.Errorf("%s: Classes = %d, want 1..N (N = %d)", what, opt.Classes, opt.N)
	}
	if err := checkSize(what, "N", opt.N, 3); err != nil {
		return nil, err
	}
	height := opt.Height
	if height == 0 {
		height = 21
	}
	if err := checkPositive(what, "Height", height); err != nil {
		return nil, err
	}
	if err := checkNonNegative(what, "Noise", opt.Noise); err != nil {
		return nil, err
	}

	g := newRNG(opt.Seed)
	y := balancedLabels(opt.N, opt.Classes)
	g.shuffle(y)
	x := mat.NewDense(opt.N, 3, nil)
	width := float64(opt.Classes)
	for i, c := range y {
		u := g.uniform(float64(c)/width, float64(c+1)/width)
		t := rollTMin + float64((rollTMax-rollTMin)*u)
		h := g.uniform(0, height)
		sin, cos := detSinCos(t)
		row := x.RawRowView(i)
		row[0], row[1], row[2] = float64(t*cos), h, float64(t*sin)
		if opt.Noise > 0 {
			for j := range row {
				row[j] += float64(opt.Noise * g.normal())
			}
		}
	}
	return &data.Dataset{
		Name:         "swissroll",
		X:            x,
		Y:            y,
		FeatureNames: []string{"x", "y", "z"},
		ClassNames:   intNames(opt.Classes),
	}, nil
}

// balancedLabels returns n labels 0..c-1 in order, class k repeated
// n/c times plus one for k < n mod c.
func balancedLabels(n, c int) []int {
	y := make([]int, 0, n)
	for k := 0; k < c; k++ {
		m := n / c
		if k < n%c {
			m++
		}
		for range m {
			y = append(y, k)
		}
	}
	return y
}

// intNames returns "0", "1", ..., strconv.Itoa(c-1).
func intNames(c int) []string {
	names := make([]string, c)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}

// maxElements bounds the size of a generated matrix (2^28 float64 values,
// 2 GiB) so that absurd parameters fail with an error instead of an
// out-of-memory crash.
const maxElements = 1 << 28

// checkSize reports an error naming param if n rows of p columns exceed
// maxElements.
func checkSize(what, param string, n, p int) error {
	if p > 0 && n > maxElements/p {
		return fmt.Errorf("%s: %s = %d gives %d×%d values, more than the limit of %d", what, param, n, n, p, maxElements)
	}
	return nil
}

// checkPositive reports an error naming param unless v is finite and > 0.
func checkPositive(what, param string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s = %v, want a finite value > 0", what, param, v)
	}
	return nil
}

// checkNonNegative reports an error naming param unless v is finite and ≥ 0.
func checkNonNegative(what, param string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s = %v, want a finite value ≥ 0", what, param, v)
	}
	return nil
}
