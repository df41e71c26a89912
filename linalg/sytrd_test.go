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
// rounding, on sizes around the panel width and the symv's row blocks.
// The tridiagonal d, e must agree to 1e-12 relative to ‖A‖∞; the
// reflectors (v and τ, entries of order one) are more sensitive to the
// order of the sums: any two orders differ by up to n·2e-14 (both the
// column-stripe symv before and the row-block one now, 2026-11-24:
// 4.4e-13 at n = 150, 6.1e-13 and 8.6e-13 at 300, 2.4e-12 and 4.1e-12 at
// 600, 2.0e-11 and 2.6e-11 at 1000).
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
		tri, refl := 0.0, 0.0
		for i := 0; i < n; i++ {
			tri = max(tri, math.Abs(d1[i]-d2[i]))
			if i < n-1 {
				tri = max(tri, math.Abs(e1[i]-e2[i]))
				refl = max(refl, math.Abs(tau1[i]-tau2[i]))
				for r := i + 2; r < n; r++ {
					refl = max(refl, math.Abs(w1[r*n+i]-w2[r*n+i]))
				}
			}
		}
		if tri > 1e-12*scale {
			t.Errorf("n=%d: tridiagonal differs from Dsytrd's by %.2e (scale %.2e)", n, tri, scale)
		}
		if tol := 2e-14 * float64(max(n, 50)); refl > tol {
			t.Errorf("n=%d: reflectors differ from Dsytrd's by %.2e, more than %.2e", n, refl, tol)
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

// symv.mul gives S·v of the trailing lower triangle, against the full
// symmetric product summed plainly (to 1e-13 relative), on orders below,
// at and above the row-block sizes, at offsets s > 0; and the same bits
// at GOMAXPROCS 1, 2 and 3.
func TestSymvMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for _, c := range []struct{ n, s int }{{1, 0}, {5, 2}, {64, 0}, {130, 1}, {700, 0}, {1100, 37}, {2500, 1499}} {
		a := make([]float64, c.n*c.n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		m := c.n - c.s
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		want := make([]float64, m)
		norm := 0.0
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				x := a[(c.s+max(i, j))*c.n+c.s+min(i, j)] // the lower triangle, mirrored
				want[i] += x * v[j]
				norm += math.Abs(x * v[j])
			}
		}
		var first []float64
		for _, p := range []int{1, 2, 3} {
			y := make([]float64, m)
			withProcs(p, func() { newSymv(c.n).mul(a, c.n, c.s, v, y) })
			for i := range y {
				if math.Abs(y[i]-want[i]) > 1e-13*norm {
					t.Fatalf("n=%d s=%d: y[%d] = %.17g, want %.17g", c.n, c.s, i, y[i], want[i])
				}
			}
			if first == nil {
				first = y
			} else {
				for i := range y {
					if math.Float64bits(y[i]) != math.Float64bits(first[i]) {
						t.Fatalf("n=%d s=%d: GOMAXPROCS=%d gives other bits than 1 at %d", c.n, c.s, p, i)
					}
				}
			}
		}
	}
}

// BenchmarkSymv: one product with the lower triangle of order 4000 (64 MB
// read), the half of the tridiagonal reduction that is memory bound.
func BenchmarkSymv4000(b *testing.B) {
	n := 4000
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	y := make([]float64, n)
	sv := newSymv(n)
	b.SetBytes(int64(n) * int64(n+1) / 2 * 8)
	for b.Loop() {
		sv.mul(a, n, 0, v, y)
	}
}
