//go:build openblas && cgo

package openblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"

	"github.com/dimred/dimred/internal/gemm"
)

// Every override is checked against the embedded gonum routine on the
// same inputs: transposes, both triangles and sides, leading dimensions
// larger than the column count, negative increments.

var (
	ob  BLAS
	gb  gblas.Implementation
	ol  LAPACK
	gl  glapack.Implementation
	rng = rand.New(rand.NewPCG(7, 11))
)

func randSlice(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// same fails unless got and want agree to tol relative to want's largest
// entry.
func same(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	scale := math.Max(floats.Norm(want, math.Inf(1)), 1)
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > tol*scale || math.IsNaN(got[i]) != math.IsNaN(want[i]) {
			t.Fatalf("%s: element %d is %v, gonum gives %v", what, i, got[i], want[i])
		}
	}
}

func copyOf(x []float64) []float64 { return append([]float64(nil), x...) }

var transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}

const tol = 1e-12

func TestLevel3MatchesGonum(t *testing.T) {
	const m, n, k, pad = 37, 29, 41, 3
	for _, tA := range transposes {
		for _, tB := range transposes {
			ar, ac := stored(tA, m, k)
			br, bc := stored(tB, k, n)
			a, b := randSlice(ar*(ac+pad)), randSlice(br*(bc+pad))
			c := randSlice(m * (n + pad))
			want := copyOf(c)
			gb.Dgemm(tA, tB, m, n, k, 1.5, a, ac+pad, b, bc+pad, -0.5, want, n+pad)
			ob.Dgemm(tA, tB, m, n, k, 1.5, a, ac+pad, b, bc+pad, -0.5, c, n+pad)
			same(t, "Dgemm", c, want, tol)
		}
	}
	// Skinny products (C with at most 12 rows or columns, against a large
	// operand) run on dimred's kernel, which reads the large operand in
	// place (gemm.Skinny): the same numbers to rounding, and exactly the
	// kernel's bits.
	for _, shape := range [][2]int{{9, 500}, {500, 4}, {1, 300}, {12, 13}} {
		m, n := shape[0], shape[1]
		for _, tA := range transposes {
			for _, tB := range transposes {
				ar, ac := stored(tA, m, 300)
				br, bc := stored(tB, 300, n)
				a, b := randSlice(ar*(ac+pad)), randSlice(br*(bc+pad))
				c := randSlice(m * (n + pad))
				want, kern := copyOf(c), copyOf(c)
				gb.Dgemm(tA, tB, m, n, 300, 1.5, a, ac+pad, b, bc+pad, -0.5, want, n+pad)
				ob.Dgemm(tA, tB, m, n, 300, 1.5, a, ac+pad, b, bc+pad, -0.5, c, n+pad)
				same(t, "skinny Dgemm", c, want, tol)
				if !gemm.Skinny(m, n) {
					continue // no kernel on this CPU, or DIMRED_GEMM=gonum
				}
				gemm.Dgemm(tA, tB, m, n, 300, 1.5, a, ac+pad, b, bc+pad, -0.5, kern, n+pad)
				for i := range c {
					if math.Float64bits(c[i]) != math.Float64bits(kern[i]) {
						t.Fatalf("skinny Dgemm %d×%d (%v, %v): element %d is %v, the kernel gives %v", m, n, tA, tB, i, c[i], kern[i])
					}
				}
			}
		}
	}
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		for _, tA := range transposes {
			ar, ac := stored(tA, n, k)
			a, b := randSlice(ar*(ac+pad)), randSlice(ar*(ac+pad))
			c := randSlice(n * (n + pad))
			want := copyOf(c)
			gb.Dsyrk(ul, tA, n, k, 0.7, a, ac+pad, 2, want, n+pad)
			ob.Dsyrk(ul, tA, n, k, 0.7, a, ac+pad, 2, c, n+pad)
			same(t, "Dsyrk", c, want, tol)
			c2, want2 := copyOf(c), copyOf(c)
			gb.Dsyr2k(ul, tA, n, k, 0.7, a, ac+pad, b, ac+pad, 0, want2, n+pad)
			ob.Dsyr2k(ul, tA, n, k, 0.7, a, ac+pad, b, ac+pad, 0, c2, n+pad)
			same(t, "Dsyr2k", c2, want2, tol)
		}
		for _, s := range []blas.Side{blas.Left, blas.Right} {
			ka := m
			if s == blas.Right {
				ka = n
			}
			a := randSlice(ka * (ka + pad))
			// Well-conditioned triangles for Dtrsm.
			for i := 0; i < ka; i++ {
				a[i*(ka+pad)+i] = 4 + math.Abs(a[i*(ka+pad)+i])
			}
			b, c := randSlice(m*(n+pad)), randSlice(m*(n+pad))
			want := copyOf(c)
			gb.Dsymm(s, ul, m, n, -1.25, a, ka+pad, b, n+pad, 0.5, want, n+pad)
			ob.Dsymm(s, ul, m, n, -1.25, a, ka+pad, b, n+pad, 0.5, c, n+pad)
			same(t, "Dsymm", c, want, tol)
			for _, tA := range transposes {
				for _, d := range []blas.Diag{blas.NonUnit, blas.Unit} {
					if d == blas.Unit {
						continue // a unit triangle of random entries is badly conditioned
					}
					x, want := copyOf(b), copyOf(b)
					gb.Dtrsm(s, ul, tA, d, m, n, 2, a, ka+pad, want, n+pad)
					ob.Dtrsm(s, ul, tA, d, m, n, 2, a, ka+pad, x, n+pad)
					same(t, "Dtrsm", x, want, 1e-10)
					x, want = copyOf(b), copyOf(b)
					gb.Dtrmm(s, ul, tA, d, m, n, 2, a, ka+pad, want, n+pad)
					ob.Dtrmm(s, ul, tA, d, m, n, 2, a, ka+pad, x, n+pad)
					same(t, "Dtrmm", x, want, tol)
				}
			}
		}
	}
}

func TestLevel2MatchesGonum(t *testing.T) {
	const m, n, pad = 97, 83, 2
	for _, tA := range transposes {
		for _, inc := range [][2]int{{1, 1}, {2, -3}, {-1, 2}} {
			ly, lx := stored(tA, m, n)
			a := randSlice(m * (n + pad))
			x := randSlice(1 + (lx-1)*abs(inc[0]))
			y := randSlice(1 + (ly-1)*abs(inc[1]))
			want := copyOf(y)
			gb.Dgemv(tA, m, n, 0.9, a, n+pad, x, inc[0], 0.3, want, inc[1])
			ob.Dgemv(tA, m, n, 0.9, a, n+pad, x, inc[0], 0.3, y, inc[1])
			same(t, "Dgemv", y, want, tol)
		}
	}
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		a := randSlice(n * (n + pad))
		x, y := randSlice(2*n-1), randSlice(n)
		want := copyOf(y)
		gb.Dsymv(ul, n, 0.9, a, n+pad, x, -2, 1, want, 1)
		ob.Dsymv(ul, n, 0.9, a, n+pad, x, -2, 1, y, 1)
		same(t, "Dsymv", y, want, tol)
	}
	a := randSlice(m * (n + pad))
	x, y := randSlice(m), randSlice(2*n-1)
	want := copyOf(a)
	gb.Dger(m, n, 1.1, x, 1, y, -2, want, n+pad)
	ob.Dger(m, n, 1.1, x, 1, y, -2, a, n+pad)
	same(t, "Dger", a, want, tol)
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// Invalid arguments keep gonum's panics (and never reach C).
func TestInvalidArgumentsPanicLikeGonum(t *testing.T) {
	msg := func(f func()) (s string) {
		defer func() { s, _ = recover().(string) }()
		f()
		return ""
	}
	a := make([]float64, 100*100)
	cases := []struct {
		name     string
		got, exp func()
	}{
		{"short A", func() { ob.Dgemm(blas.NoTrans, blas.NoTrans, 100, 100, 100, 1, a[:50], 100, a, 100, 0, a, 100) },
			func() { gb.Dgemm(blas.NoTrans, blas.NoTrans, 100, 100, 100, 1, a[:50], 100, a, 100, 0, a, 100) }},
		{"bad lda", func() { ob.Dsyrk(blas.Upper, blas.NoTrans, 100, 100, 1, a, 10, 0, a, 100) },
			func() { gb.Dsyrk(blas.Upper, blas.NoTrans, 100, 100, 1, a, 10, 0, a, 100) }},
		{"bad uplo", func() { ol.Dpotrf('X', 100, a, 100) }, func() { gl.Dpotrf('X', 100, a, 100) }},
		{"short work", func() { ol.Dsyev(lapack.EVCompute, blas.Upper, 100, a, 100, a, a[:10], 400) },
			func() { gl.Dsyev(lapack.EVCompute, blas.Upper, 100, a, 100, a, a[:10], 400) }},
	}
	for _, c := range cases {
		got, exp := msg(c.got), msg(c.exp)
		if exp == "" || got != exp {
			t.Errorf("%s: panic %q, gonum panics %q", c.name, got, exp)
		}
	}
}

// spd returns a random n×n symmetric positive definite matrix with
// leading dimension lda.
func spd(n, lda int) []float64 {
	g := randSlice(n * n)
	a := make([]float64, n*lda)
	gb.Dsyrk(blas.Upper, blas.NoTrans, n, n, 1, g, n, 0, a, lda)
	for i := 0; i < n; i++ {
		a[i*lda+i] += float64(n)
		for j := 0; j < i; j++ {
			a[i*lda+j] = a[j*lda+i]
		}
	}
	return a
}

func TestCholeskyMatchesGonum(t *testing.T) {
	const n, lda = 70, 73
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		a := spd(n, lda)
		want := copyOf(a)
		if !gl.Dpotrf(ul, n, want, lda) || !ol.Dpotrf(ul, n, a, lda) {
			t.Fatal("Dpotrf failed on a positive definite matrix")
		}
		same(t, "Dpotrf", a, want, tol)
		if !gl.Dpotri(ul, n, want, lda) || !ol.Dpotri(ul, n, a, lda) {
			t.Fatal("Dpotri failed")
		}
		same(t, "Dpotri", a, want, tol)
		bad := spd(n, lda)
		bad[5*lda+5] = -1e6
		if ol.Dpotrf(ul, n, bad, lda) {
			t.Error("Dpotrf succeeded on an indefinite matrix")
		}
	}
}

// The eigenvectors of a matrix with distinct eigenvalues are unique up to
// sign; compare them after fixing each column's sign.
func TestDsyevMatchesGonum(t *testing.T) {
	const n, lda = 60, 64
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		for _, job := range []lapack.EVJob{lapack.EVNone, lapack.EVCompute} {
			a := spd(n, lda)
			want := copyOf(a)
			w, ww := make([]float64, n), make([]float64, n)
			work := make([]float64, 3*n)
			if !gl.Dsyev(job, ul, n, want, lda, ww, work, len(work)) || !ol.Dsyev(job, ul, n, a, lda, w, work, len(work)) {
				t.Fatal("Dsyev failed")
			}
			same(t, "Dsyev values", w, ww, 1e-12)
			if job == lapack.EVCompute {
				signFix(a, n, lda)
				signFix(want, n, lda)
				same(t, "Dsyev vectors", a, want, 1e-9)
			}
		}
	}
}

// signFix makes the largest-magnitude entry of each column positive.
func signFix(a []float64, n, lda int) {
	for j := 0; j < n; j++ {
		big := 0.0
		for i := 0; i < n; i++ {
			if v := a[i*lda+j]; math.Abs(v) > math.Abs(big) {
				big = v
			}
		}
		if big < 0 {
			for i := 0; i < n; i++ {
				a[i*lda+j] = -a[i*lda+j]
			}
		}
	}
}

func TestDsyevrPartial(t *testing.T) {
	const n = 50
	a := spd(n, n)
	full := copyOf(a)
	w := make([]float64, n)
	work := make([]float64, 3*n)
	gl.Dsyev(lapack.EVCompute, blas.Upper, n, full, n, w, work, len(work))
	il, iu := 40, 49
	vals, vecs, ok := Dsyevr(blas.Upper, n, copyOf(a), n, il, iu)
	if !ok {
		t.Fatal("Dsyevr failed")
	}
	m := iu - il + 1
	same(t, "Dsyevr values", vals, w[il:iu+1], 1e-12)
	for j := 0; j < m; j++ {
		dot := 0.0
		for i := 0; i < n; i++ {
			dot += vecs[i*m+j] * full[i*n+il+j]
		}
		if math.Abs(math.Abs(dot)-1) > 1e-9 {
			t.Errorf("eigenvector %d: |cos| = %v", il+j, math.Abs(dot))
		}
	}
	if _, _, ok := Dsyevr(blas.Upper, n, copyOf(a), n, 5, 50); ok {
		t.Error("Dsyevr accepted iu = n")
	}
}

func TestDgesvdMatchesGonum(t *testing.T) {
	for _, dims := range [][2]int{{70, 40}, {40, 70}} {
		m, n := dims[0], dims[1]
		k := min(m, n)
		jobs := [][2]lapack.SVDJob{
			{lapack.SVDStore, lapack.SVDStore}, {lapack.SVDAll, lapack.SVDAll},
			{lapack.SVDNone, lapack.SVDNone}, {lapack.SVDStore, lapack.SVDNone}, {lapack.SVDNone, lapack.SVDAll},
		}
		for _, job := range jobs {
			lda := n + 1
			a := randSlice(m * lda)
			ucol, vrow := k, k
			if job[0] == lapack.SVDAll {
				ucol = m
			}
			if job[1] == lapack.SVDAll {
				vrow = n
			}
			ldu, ldvt := ucol+2, n+3
			s, u, vt := make([]float64, k), make([]float64, m*ldu), make([]float64, vrow*ldvt)
			ws, wu, wvt := make([]float64, k), make([]float64, m*ldu), make([]float64, vrow*ldvt)
			wa := copyOf(a)
			q := make([]float64, 1)
			gl.Dgesvd(job[0], job[1], m, n, wa, lda, ws, wu, ldu, wvt, ldvt, q, -1)
			work := make([]float64, int(q[0]))
			if !gl.Dgesvd(job[0], job[1], m, n, wa, lda, ws, wu, ldu, wvt, ldvt, work, len(work)) {
				t.Fatal("gonum Dgesvd failed")
			}
			ol.Dgesvd(job[0], job[1], m, n, a, lda, s, u, ldu, vt, ldvt, q, -1)
			work = make([]float64, int(q[0]))
			if !ol.Dgesvd(job[0], job[1], m, n, a, lda, s, u, ldu, vt, ldvt, work, len(work)) {
				t.Fatal("Dgesvd failed")
			}
			same(t, "Dgesvd values", s, ws, 1e-12)
			// Singular vectors of distinct singular values agree up to
			// sign; the trailing columns of a full U (or rows of a full
			// Vᵀ) are any orthonormal basis, so compare the first k.
			if job[0] != lapack.SVDNone {
				for j := 0; j < k; j++ {
					dot := 0.0
					for i := 0; i < m; i++ {
						dot += u[i*ldu+j] * wu[i*ldu+j]
					}
					if math.Abs(math.Abs(dot)-1) > 1e-9 {
						t.Fatalf("%dx%d %c%c: left vector %d: |cos| = %v", m, n, job[0], job[1], j, math.Abs(dot))
					}
				}
			}
			if job[1] != lapack.SVDNone {
				for j := 0; j < k; j++ {
					dot := floats.Dot(vt[j*ldvt:j*ldvt+n], wvt[j*ldvt:j*ldvt+n])
					if math.Abs(math.Abs(dot)-1) > 1e-9 {
						t.Fatalf("%dx%d %c%c: right vector %d: |cos| = %v", m, n, job[0], job[1], j, math.Abs(dot))
					}
				}
			}
		}
	}
}

func TestDgeqrfMatchesGonum(t *testing.T) {
	for _, dims := range [][2]int{{80, 30}, {30, 80}} {
		m, n := dims[0], dims[1]
		lda := n + 2
		a := randSlice(m * lda)
		want := copyOf(a)
		tau, wtau := make([]float64, min(m, n)), make([]float64, min(m, n))
		work := make([]float64, n)
		gl.Dgeqrf(m, n, want, lda, wtau, work, len(work))
		ol.Dgeqrf(m, n, a, lda, tau, work, len(work))
		same(t, "Dgeqrf", a, want, 1e-11)
		same(t, "Dgeqrf tau", tau, wtau, 1e-11)
	}
}
