package qmi

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
)

// parzen evaluates p(x) and p(x, c) for all c at the point x, with the
// window N(x; zᵢ, σ²I) written out from the normal density.
func parzen(z *mat.Dense, y []int, nc int, sigma float64, x []float64) (float64, []float64) {
	n, d := z.Dims()
	joint := make([]float64, nc)
	tot := 0.0
	norm := math.Pow(2*math.Pi*sigma*sigma, -float64(d)/2)
	for i := 0; i < n; i++ {
		r2 := 0.0
		for j := 0; j < d; j++ {
			r := x[j] - z.At(i, j)
			r2 += r * r
		}
		v := norm * math.Exp(-r2/(2*sigma*sigma)) / float64(n)
		joint[y[i]] += v
		tot += v
	}
	return tot, joint
}

// integrate returns V_IN, V_ALL, V_BTW of eq. 12-14 by the trapezoid rule
// on a uniform grid (spectrally accurate for these Gaussian integrands:
// with step h ≤ σ/6 and a margin of 9σ the error is far below 1e-12).
func integrate(z *mat.Dense, y []int, nc int, sigma float64) (in, all, btw float64) {
	n, d := z.Dims()
	counts := make([]float64, nc)
	for _, v := range y {
		counts[v]++
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			lo, hi = math.Min(lo, z.At(i, j)), math.Max(hi, z.At(i, j))
		}
	}
	lo, hi = lo-9*sigma, hi+9*sigma
	h := sigma / 6
	m := int(math.Ceil((hi-lo)/h)) + 1
	h = (hi - lo) / float64(m-1)
	vol := math.Pow(h, float64(d))
	idx := make([]int, d)
	x := make([]float64, d)
	for {
		for j := range x {
			x[j] = lo + float64(idx[j])*h
		}
		p, pc := parzen(z, y, nc, sigma, x)
		for c := 0; c < nc; c++ {
			pr := counts[c] / float64(n)
			in += pc[c] * pc[c] * vol
			all += p * p * pr * pr * vol
			btw += pc[c] * p * pr * vol
		}
		k := 0
		for k < d {
			idx[k]++
			if idx[k] < m {
				break
			}
			idx[k] = 0
			k++
		}
		if k == d {
			break
		}
	}
	return
}

func sample(rng *rand.Rand, n, d, nc int) (*mat.Dense, []int) {
	z := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % nc
		if i == n-1 {
			y[i] = 0 // unbalanced
		}
		for j := 0; j < d; j++ {
			z.Set(i, j, float64(y[i])*0.8+rng.NormFloat64())
		}
	}
	return z, y
}

// The closed forms of eq. 12-14 equal a direct numerical integration of
// the Parzen densities of eq. 10 in one and two dimensions.
func TestScoreMatchesNumericalIntegration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		d, n, nc int
		sigma    float64
	}{{1, 9, 3, 0.3}, {1, 7, 2, 1.1}, {2, 8, 3, 0.5}, {2, 6, 2, 0.9}} {
		z, y := sample(rng, tc.n, tc.d, tc.nc)
		got, err := Score(z, y, tc.sigma)
		if err != nil {
			t.Fatal(err)
		}
		in, all, btw := integrate(z, y, tc.nc, tc.sigma)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"V_IN", got.In, in}, {"V_ALL", got.All, all}, {"V_BTW", got.Btw, btw}, {"I_Q", got.QMI, in + all - 2*btw}} {
			if math.Abs(c.got-c.want) > 1e-10*math.Abs(in) {
				t.Errorf("d=%d σ=%g: %s closed form %.15g, integral %.15g", tc.d, tc.sigma, c.name, c.got, c.want)
			}
		}
		if got.QMI <= 0 {
			t.Errorf("d=%d: I_Q = %g, want > 0 for class-dependent data", tc.d, got.QMI)
		}
	}
}

// I_Q = Σᵢⱼ M'ᵢⱼ·N(zᵢ − zⱼ; 0, 2σ²I) with the QMI graph of package graph
// (eq. 18), on higher-dimensional data with unlabeled rows (which Score
// leaves out, as the graph does).
func TestScoreIsQMIGraphQuadraticForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	z, y := sample(rng, 40, 5, 4)
	y[3], y[17] = -1, -1
	sigma := 0.8
	got, err := Score(z, y, sigma)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.QMI(y)
	if err != nil {
		t.Fatal(err)
	}
	m := g.Dense()
	n, d := z.Dims()
	want := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r2 := 0.0
			for k := 0; k < d; k++ {
				r := z.At(i, k) - z.At(j, k)
				r2 += r * r
			}
			want += m.At(i, j) * math.Pow(4*math.Pi*sigma*sigma, -float64(d)/2) * math.Exp(-r2/(4*sigma*sigma))
		}
	}
	if math.Abs(got.QMI-want) > 1e-12*got.In {
		t.Errorf("Score I_Q = %.15g, Σ M'ᵢⱼKᵢⱼ = %.15g", got.QMI, want)
	}
	// One class: p(z, c) = p(z)·P(c), I_Q = 0.
	one := make([]int, n)
	t0, err := Score(z, one, sigma)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(t0.QMI) > 1e-14*t0.In {
		t.Errorf("one class: I_Q = %g, want 0", t0.QMI)
	}
}

func TestSilvermanAndErrors(t *testing.T) {
	z := mat.NewDense(5, 1, []float64{1, 2, 3, 4, 5})
	y := []int{0, 0, 1, 1, -1}
	// labelled rows 1..4: s = sd(1,2,3,4) = √(5/3); d = 1: (4s⁵/(3n))^{1/5}
	s, err := Silverman(z, y)
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.SilvermanSigma(math.Sqrt(5.0/3), 4); math.Abs(s-want) > 1e-15 {
		t.Errorf("Silverman = %g, want %g", s, want)
	}
	for _, sig := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := Score(z, y, sig); err == nil {
			t.Errorf("sigma = %v: want an error", sig)
		}
	}
	if _, err := Score(z, []int{0, 1}, 1); err == nil {
		t.Error("2 labels for 5 rows: want an error")
	}
	if _, err := Score(z, []int{-1, -1, -1, -1, 0}, 1); err == nil {
		t.Error("one labelled row: want an error")
	}
	if _, err := Silverman(mat.NewDense(3, 2, nil), []int{0, 1, 0}); err == nil {
		t.Error("constant embedding: want an error")
	}
}

// Widths whose window leaves the floating-point range gave NaN, all-zero
// terms or a message about "sigma=auto" (the library audit): now errors
// that name σ; a σ whose windows of distinct rows do not overlap is an
// error (its terms followed from n alone: a 10 000-row user got
// V_ALL = V_BTW); a normaliser outside the range gives the terms
// relative to it, equal to the sums computed here by brute force (1e-12).
func TestScoreWidthsOutOfRange(t *testing.T) {
	z := mat.NewDense(10, 400, nil)
	for i := 0; i < 10; i++ {
		for j := 0; j < 400; j++ {
			z.Set(i, j, float64((i*7+j*3)%11)/11)
		}
	}
	y := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	for _, c := range []struct {
		sigma float64
		want  string
	}{
		{0.01, "σ = 0.01 is too small for these rows"},
		{1e300, "sigma = 1e+300; the window's 1/(4σ²) = 0"},
		{1e-300, "sigma = 1e-300; the window's 1/(4σ²) = +Inf"},
	} {
		if _, err := Score(z, y, c.sigma); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("σ = %g: %v, want %q", c.sigma, err, c.want)
		}
	}
	const sigma = 10 // (4πσ²)^(−200) = 10^-620
	got, err := Score(z, y, sigma)
	if err != nil {
		t.Fatal(err)
	}
	var in, all, btw float64
	for j := 0; j < 10; j++ {
		for k := 0; k < 10; k++ {
			d2 := 0.0
			for c := 0; c < 400; c++ {
				d := z.At(j, c) - z.At(k, c)
				d2 += d * d
			}
			g := math.Exp(-d2 / (4 * sigma * sigma))
			all += g
			if y[j] == y[k] {
				in += g
			}
			btw += 5 * g // J_c = 5 for both classes
		}
	}
	want := Terms{In: in / 100, All: all * 50 / 1e4, Btw: btw / 1e3}
	if !got.Relative || math.Abs(got.Log10Norm-(-200*math.Log10(4*math.Pi*100))) > 1e-9 {
		t.Errorf("σ = 10: Relative %v, log₁₀ normaliser %v; want true, %v", got.Relative, got.Log10Norm, -200*math.Log10(4*math.Pi*100))
	}
	for _, c := range [][2]float64{{got.In, want.In}, {got.All, want.All}, {got.Btw, want.Btw}, {got.QMI, want.In + want.All - 2*want.Btw}, {got.Overlap, (all - 10) / 10}} {
		if math.Abs(c[0]-c[1]) > 1e-12*math.Abs(c[1])+1e-15 {
			t.Errorf("σ = 10, relative terms: %v, brute force %v", c[0], c[1])
		}
	}
}

// The review's two holes: a normaliser near the top of the range
// (10^305) overflowed the products to Inf and NaN; rows that come in
// duplicate pairs counted each other as overlap, so a σ far below their
// distances was neither refused nor noted.
func TestScoreNearOverflowAndDuplicates(t *testing.T) {
	z := mat.NewDense(100, 678, nil)
	for i := 0; i < 100; i++ {
		for j := 0; j < 678; j++ {
			z.Set(i, j, 0.001*float64((i*7919+j*104729)%1009)/1009)
		}
	}
	y := make([]int, 100)
	for i := range y {
		y[i] = i % 2
	}
	got, err := Score(z, y, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Relative || got.Log10Norm < 300 || math.IsInf(got.QMI, 0) || math.IsNaN(got.QMI) || math.IsInf(got.In, 0) {
		t.Errorf("normaliser 10^%.1f: Relative %v, QMI %v, V_IN %v; want finite terms relative to it", got.Log10Norm, got.Relative, got.QMI, got.In)
	}
	dup := mat.NewDense(100, 2, nil)
	ydup := make([]int, 100)
	for i := 0; i < 100; i++ {
		dup.Set(i, 0, 100*float64(i/2)) // rows 2i and 2i+1 coincide
		ydup[i] = (i / 2) % 2
	}
	if _, err := Score(dup, ydup, 1e-4); !errors.Is(err, ErrWindowTooSmall) {
		t.Errorf("duplicate pairs 100 apart, σ = 1e-4: error %v, want ErrWindowTooSmall", err)
	}
	if got, err := Score(dup, ydup, 60); err != nil || got.Overlap < 0.5 {
		t.Errorf("duplicate pairs, σ = 60: overlap %v (%v); want the distinct rows' windows to overlap", got.Overlap, err)
	}
}
