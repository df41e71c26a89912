package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// lowerCopy returns the lower triangle of a as a row-major n×n slice.
func lowerCopy(a *mat.SymDense) []float64 {
	n := a.SymmetricDim()
	w := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			w[i*n+j] = a.At(i, j)
		}
	}
	return w
}

// sytrdLower gives gonum's Dsytrd(Lower) tridiagonal and reflectors, to
// rounding, on sizes around the panel and stripe widths; Q·T·Qᵀ = A.
func TestSytrdLowerMatchesDsytrd(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	impl := lapackgo.Implementation{}
	for _, n := range []int{1, 2, 3, 31, 32, 33, 65, 150, 300} {
		a := randSym(rng, n)
		w1, w2 := lowerCopy(a), lowerCopy(a)
		d1, e1, tau1 := make([]float64, n), make([]float64, max(1, n-1)), make([]float64, max(1, n-1))
		d2, e2, tau2 := make([]float64, n), make([]float64, max(1, n-1)), make([]float64, max(1, n-1))
		work := make([]float64, 1)
		impl.Dsytrd(blas.Lower, n, w1, n, d1, e1, tau1, work, -1)
		work = make([]float64, int(work[0]))
		impl.Dsytrd(blas.Lower, n, w1, n, d1, e1, tau1, work, len(work))
		withTiles(cholStep, 16, func() { sytrdLower(n, w2, n, d2, e2, tau2, nil) })
		scale := mat.Norm(a, math.Inf(1))
		worst := 0.0
		for i := 0; i < n; i++ {
			worst = max(worst, math.Abs(d1[i]-d2[i]))
			if i < n-1 {
				worst = max(worst, math.Abs(e1[i]-e2[i]), math.Abs(tau1[i]-tau2[i])*scale)
				for r := i + 2; r < n; r++ {
					worst = max(worst, math.Abs(w1[r*n+i]-w2[r*n+i])*scale)
				}
			}
		}
		if worst > 1e-12*scale {
			t.Errorf("n=%d: differs from Dsytrd by %.2e (scale %.2e)", n, worst, scale)
		}
	}
}

// applyTridiagQ builds its block reflectors with larftForward, which is
// right when a reflector ends in exact zeros: here column 1 of the last
// block of 32 (reflector 33 of 39) ends in a zero and column 0 does not,
// the case that gonum v0.17.0's Dlarft gets wrong. Q must match the
// product of the reflectors applied one at a time, and be orthogonal.
func TestApplyTridiagQTrailingZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	n := 40
	w := make([]float64, n*n)
	tau := make([]float64, n-1)
	for c := 0; c < n-1; c++ {
		vv := 1.0
		for r := c + 2; r < n; r++ {
			x := rng.NormFloat64()
			if c == 33 && r == n-1 {
				x = 0
			}
			w[r*n+c] = x
			vv += x * x
		}
		tau[c] = 2 / vv
	}
	tau[n-2] = 0 // as sytrdLower leaves it (Dlarfg of a 1-vector)
	got := make([]float64, n*n)
	want := make([]float64, n*n)
	for i := 0; i < n; i++ {
		got[i*n+i], want[i*n+i] = 1, 1
	}
	applyTridiagQ(n, w, tau, got, n, nil)
	// want = H_0·…·H_{n−2}·I, applied from the last reflector.
	v, y := make([]float64, n), make([]float64, n)
	for c := n - 2; c >= 0; c-- {
		clear(v)
		v[c+1] = 1
		for r := c + 2; r < n; r++ {
			v[r] = w[r*n+c]
		}
		clear(y)
		for r := 0; r < n; r++ {
			for j := 0; j < n; j++ {
				y[j] += v[r] * want[r*n+j]
			}
		}
		for r := 0; r < n; r++ {
			for j := 0; j < n; j++ {
				want[r*n+j] -= tau[c] * v[r] * y[j]
			}
		}
	}
	worst := 0.0
	for i := range got {
		worst = max(worst, math.Abs(got[i]-want[i]))
	}
	if worst > 1e-14 {
		t.Errorf("applyTridiagQ differs from the product of reflectors by %.1e", worst)
	}
}
