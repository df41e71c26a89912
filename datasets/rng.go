package datasets

import (
	"math"
	"math/rand/v2"
)

// Platform-independent random numbers.
//
// The generators must give bit-identical data for a seed on every platform.
// The PCG stream and its integer and Float64 outputs are exact, but package
// math's Log, Exp, Sin and Cos have assembly versions on some architectures
// and their pure-Go versions may be compiled with fused multiply-add on
// others, so results can differ in the last bit (and rand/v2's NormFloat64
// calls Log and Exp on its slow paths). This file therefore implements the
// few functions needed with +, -, *, / and Sqrt only (all correctly rounded
// by IEEE 754), each product wrapped in an explicit float64 conversion,
// which the Go specification says prevents fusion.

// pcgStream is the fixed second word of the PCG state (the stream
// selector); the first word is the user's seed.
const pcgStream = 0xda3e39cb94b95bdb

// rng draws uniform and standard normal deviates from a PCG source.
type rng struct {
	r        *rand.Rand
	spare    float64
	hasSpare bool
}

func newRNG(seed uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(seed, pcgStream))}
}

// uniform returns a deviate in [a, b).
func (g *rng) uniform(a, b float64) float64 {
	return a + float64((b-a)*g.r.Float64())
}

// normal returns a standard normal deviate (Marsaglia's polar method).
func (g *rng) normal() float64 {
	if g.hasSpare {
		g.hasSpare = false
		return g.spare
	}
	for {
		// 2F-1 is exact for F = k/2^53, so fusion cannot change it.
		u := 2*g.r.Float64() - 1
		v := 2*g.r.Float64() - 1
		s := float64(u*u) + float64(v*v)
		if s >= 1 || s == 0 {
			continue
		}
		f := math.Sqrt(float64(-2*detLog(s)) / s)
		g.spare, g.hasSpare = float64(v*f), true
		return float64(u * f)
	}
}

// shuffle permutes xs in place (integer arithmetic only).
func (g *rng) shuffle(xs []int) {
	g.r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// detLog returns the natural logarithm of a positive finite x, accurate to
// a few ulp and identical on every platform.
func detLog(x float64) float64 {
	m, e := math.Frexp(x) // exact: x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2 // exact
		e--
	}
	// log m = 2 atanh(s) = 2(s + s³/3 + s⁵/5 + ...), s = (m-1)/(m+1),
	// |s| ≤ 0.1716, so s² ≤ 0.0295 and 13 terms reach 1e-20.
	s := (m - 1) / (m + 1)
	z := float64(s * s)
	p := 1.0 / 25
	for k := 11; k >= 0; k-- {
		p = float64(p*z) + 1/float64(2*k+1)
	}
	return float64(float64(e)*math.Ln2) + float64(float64(2*s)*p)
}

// Three-part Cody–Waite split of π/2 (fdlibm's pio2_1, pio2_2, pio2_3: 33
// bits each), so k·pio2_1 and k·pio2_2 are exact for |k| < 2^20.
const (
	pio2a = 1.57079632673412561417e+00
	pio2b = 6.07710050630396597660e-11
	pio2c = 2.02226624871116645580e-21
)

// detSinCos returns sin x and cos x for |x| < 1e6, accurate to a few ulp
// and identical on every platform.
func detSinCos(x float64) (sin, cos float64) {
	k := math.Round(float64(x * (2 / math.Pi))) // exact rounding op
	r := float64(x-float64(k*pio2a)) - float64(k*pio2b)
	r -= float64(k * pio2c)
	z := float64(r * r)
	// Taylor series on |r| ≤ π/4 (+ rounding slack): terms to r^19 / r^18.
	sp := -1.0 / 121645100408832000 // -1/19!
	for _, c := range [...]float64{1.0 / 355687428096000, -1.0 / 1307674368000, 1.0 / 6227020800,
		-1.0 / 39916800, 1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6} {
		sp = float64(sp*z) + c
	}
	s := r + float64(float64(r*z)*sp)
	cp := -1.0 / 6402373705728000 // -1/18!
	for _, c := range [...]float64{1.0 / 20922789888000, -1.0 / 87178291200, 1.0 / 479001600,
		-1.0 / 3628800, 1.0 / 40320, -1.0 / 720, 1.0 / 24} {
		cp = float64(cp*z) + c
	}
	c := 1 - float64(z*0.5) + float64(float64(z*z)*cp)
	switch int64(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	default:
		return -c, s
	}
}
