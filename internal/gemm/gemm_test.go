package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func skipWithoutKernel(t testing.TB) {
	t.Helper()
	if !Available {
		t.Skip("no AVX2/FMA kernel on this machine (or the purego tag): Dgemm is not used")
	}
}

// skipUnlessKernelRuns is skipWithoutKernel, and a skip when DIMRED_GEMM=
// gonum keeps the kernel out of gonum's BLAS and of the tiles.
func skipUnlessKernelRuns(t testing.TB) {
	t.Helper()
	skipWithoutKernel(t)
	if os.Getenv(Env) == "gonum" {
		t.Skip("DIMRED_GEMM=gonum keeps the kernel out")
	}
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// reference is the arithmetic Dgemm promises, element by element: β·C,
// then per block of kc steps a fused multiply-add chain from zero, added
// after rounding α times it. It shares no code with the package.
func reference(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	at := func(i, s int) float64 {
		if transA {
			return a[s*lda+i]
		}
		return a[i*lda+s]
	}
	bt := func(s, j int) float64 {
		if transB {
			return b[j*ldb+s]
		}
		return b[s*ldb+j]
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			v := 0.0
			if beta != 0 {
				v = beta * c[i*ldc+j]
				if beta == 1 {
					v = c[i*ldc+j]
				}
			}
			if alpha != 0 {
				for s0 := 0; s0 < k; s0 += 256 {
					acc := 0.0
					for s := s0; s < min(k, s0+256); s++ {
						acc = math.FMA(at(i, s), bt(s, j), acc)
					}
					v += float64(alpha * acc)
				}
			}
			c[i*ldc+j] = v
		}
	}
}

type gemmCase struct {
	tA, tB        blas.Transpose
	m, n, k       int
	alpha, beta   float64
	lda, ldb, ldc int // 0: the tightest
}

func (g gemmCase) String() string {
	return fmt.Sprintf("%c%c m=%d n=%d k=%d α=%g β=%g", g.tA, g.tB, g.m, g.n, g.k, g.alpha, g.beta)
}

func (g gemmCase) operands(r *rand.Rand) (a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	ar, ac := g.m, g.k
	if g.tA != blas.NoTrans {
		ar, ac = g.k, g.m
	}
	br, bc := g.k, g.n
	if g.tB != blas.NoTrans {
		br, bc = g.n, g.k
	}
	lda, ldb, ldc = max(1, ac)+g.lda, max(1, bc)+g.ldb, max(1, g.n)+g.ldc
	return randSlice(r, ar*lda), lda, randSlice(r, br*ldb), ldb, randSlice(r, g.m*ldc), ldc
}

func cases() []gemmCase {
	var out []gemmCase
	shapes := [][3]int{
		{1, 1, 1}, {1, 7, 3}, {5, 1, 9}, {6, 8, 1}, {7, 9, 2}, {13, 17, 255}, {13, 17, 256}, {13, 17, 257},
		{120, 8, 40}, {121, 3073, 5}, {37, 41, 600}, {300, 20, 513}, {2, 5000, 30}, {250, 250, 250},
		{3, 37, 600}, {4, 9, 513}, {4, 4, 257}, {1, 3, 1000}, // the 4-lane skinny kernel, several k-blocks
		{9, 37, 600}, {12, 13, 257}, {11, 4, 300}, {8, 3, 70}, // the 12-lane one
		{200, 3, 600}, {37, 12, 300}, {50, 5, 257}, {13, 1, 9}, // few columns: the skinny kernels on the transposed product
	}
	tr := []blas.Transpose{blas.NoTrans, blas.Trans}
	for i, s := range shapes {
		for _, ta := range tr {
			for _, tb := range tr {
				alpha, beta := 1.0, 0.0
				switch i % 4 {
				case 1:
					alpha, beta = -0.7, 1
				case 2:
					alpha, beta = 2.5, -1.3
				case 3:
					alpha, beta = 1, 0.5
				}
				out = append(out, gemmCase{tA: ta, tB: tb, m: s[0], n: s[1], k: s[2], alpha: alpha, beta: beta, lda: i % 3, ldb: (i + 1) % 3, ldc: i % 2})
			}
		}
	}
	return out
}

// TestDgemmBitwise checks every element against the promised arithmetic
// exactly, and against gonum's Dgemm to a rounding-size tolerance.
func TestDgemmBitwise(t *testing.T) {
	skipWithoutKernel(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, g := range cases() {
		a, lda, b, ldb, c, ldc := g.operands(r)
		got := append([]float64(nil), c...)
		want := append([]float64(nil), c...)
		gon := append([]float64(nil), c...)
		Dgemm(g.tA, g.tB, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, got, ldc)
		reference(g.tA != blas.NoTrans, g.tB != blas.NoTrans, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, want, ldc)
		gonum.Implementation{}.Dgemm(g.tA, g.tB, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, gon, ldc)
		for i := 0; i < g.m; i++ {
			for j := 0; j < ldc; j++ {
				x := got[i*ldc+j]
				if math.Float64bits(x) != math.Float64bits(want[i*ldc+j]) {
					t.Fatalf("%v: C[%d,%d] = %v, the promised arithmetic gives %v", g, i, j, x, want[i*ldc+j])
				}
				// |error| ≤ k·ε·Σ|a||b| ≲ k·ε·k (normal entries): a loose, size-aware bound.
				tol := 1e-14 * float64(g.k+1) * (math.Abs(g.alpha)*math.Sqrt(float64(g.k)) + math.Abs(g.beta))
				if d := math.Abs(x - gon[i*ldc+j]); d > tol {
					t.Fatalf("%v: C[%d,%d] = %v, gonum %v (diff %g > %g)", g, i, j, x, gon[i*ldc+j], d, tol)
				}
			}
		}
	}
}

// TestDgemmShapeAndThreadIndependence: the rows of a product computed in
// chunks of any size, under any GOMAXPROCS, are the same bits.
func TestDgemmShapeAndThreadIndependence(t *testing.T) {
	skipWithoutKernel(t)
	r := rand.New(rand.NewPCG(5, 6))
	m, n, k := 301, 1100, 700
	a, b := randSlice(r, m*k), randSlice(r, k*n)
	whole := make([]float64, m*n)
	Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, whole, n)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, chunk := range []int{1, 5, 6, 9, 12, 13, 64, 301} {
			part := make([]float64, m*n)
			for r0 := 0; r0 < m; r0 += chunk {
				rows := min(chunk, m-r0)
				Dgemm(blas.NoTrans, blas.NoTrans, rows, n, k, 1, a[r0*k:], k, b, n, 0, part[r0*n:], n)
			}
			for i := range whole {
				if math.Float64bits(part[i]) != math.Float64bits(whole[i]) {
					t.Fatalf("GOMAXPROCS %d, chunks of %d rows: element %d = %v, whole product %v", procs, chunk, i, part[i], whole[i])
				}
			}
		}
		// Columns too (the transposed product's chunks), in blocks of the
		// packed path and of the few-columns one.
		for _, width := range []int{517, 12, 7, 4, 1} {
			part := make([]float64, m*n)
			for c0 := 0; c0 < n; c0 += width {
				c1 := min(n, c0+width)
				Dgemm(blas.NoTrans, blas.NoTrans, m, c1-c0, k, 1, a, k, b[c0:], n, 0, part[c0:], n)
			}
			for i := range whole {
				if math.Float64bits(part[i]) != math.Float64bits(whole[i]) {
					t.Fatalf("GOMAXPROCS %d, column blocks of %d: element %d differs", procs, width, i)
				}
			}
		}
	}
}

// TestDgemmBetaZeroDoesNotReadC: BLAS semantics, NaN in C is overwritten.
func TestDgemmBetaZeroDoesNotReadC(t *testing.T) {
	skipWithoutKernel(t)
	c := []float64{math.NaN(), math.Inf(1), math.NaN(), 7}
	Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 1, 1, []float64{1, 2}, 1, []float64{3, 4}, 2, 0, c, 2)
	want := []float64{3, 4, 6, 8}
	for i := range c {
		if c[i] != want[i] {
			t.Fatalf("C = %v, want %v", c, want)
		}
	}
	// α = 0: only the scaling, and NaN in A does not reach C.
	c = []float64{1, 2}
	Dgemm(blas.NoTrans, blas.NoTrans, 1, 2, 1, 0, []float64{math.NaN()}, 1, []float64{1, 1}, 2, 2, c, 2)
	if c[0] != 2 || c[1] != 4 {
		t.Fatalf("α = 0, β = 2: C = %v, want [2 4]", c)
	}
}

// TestDgemmPanicsAsGonum: the same panic message for each bad argument.
func TestDgemmPanicsAsGonum(t *testing.T) {
	skipWithoutKernel(t)
	catch := func(f func()) (msg any) {
		defer func() { msg = recover() }()
		f()
		return nil
	}
	s := make([]float64, 100)
	bad := []struct {
		name                      string
		tA, tB                    blas.Transpose
		m, n, k                   int
		la, lda, lb, ldb, lc, ldc int
	}{
		{"transpose", 'x', blas.NoTrans, 2, 2, 2, 4, 2, 4, 2, 4, 2},
		{"m<0", blas.NoTrans, blas.NoTrans, -1, 2, 2, 4, 2, 4, 2, 4, 2},
		{"k<0", blas.NoTrans, blas.NoTrans, 2, 2, -1, 4, 2, 4, 2, 4, 2},
		{"lda", blas.NoTrans, blas.NoTrans, 2, 2, 3, 6, 2, 6, 2, 4, 2},
		{"ldb trans", blas.NoTrans, blas.Trans, 2, 2, 3, 6, 3, 6, 2, 4, 2},
		{"ldc", blas.NoTrans, blas.NoTrans, 2, 3, 2, 4, 2, 6, 3, 6, 2},
		{"short a", blas.NoTrans, blas.NoTrans, 2, 2, 2, 3, 2, 4, 2, 4, 2},
		{"short b", blas.Trans, blas.NoTrans, 2, 2, 2, 4, 2, 3, 2, 4, 2},
		{"short c", blas.NoTrans, blas.NoTrans, 2, 2, 2, 4, 2, 4, 2, 3, 2},
	}
	for _, c := range bad {
		ours := catch(func() { Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, s[:c.la], c.lda, s[:c.lb], c.ldb, 0, s[:c.lc], c.ldc) })
		theirs := catch(func() {
			gonum.Implementation{}.Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, s[:c.la], c.lda, s[:c.lb], c.ldb, 0, s[:c.lc], c.ldc)
		})
		if ours == nil || ours != theirs {
			t.Errorf("%s: we panic with %v, gonum with %v", c.name, ours, theirs)
		}
	}
}

func BenchmarkDgemm(b *testing.B) {
	skipWithoutKernel(b)
	for _, sz := range [][3]int{{64, 64, 64}, {500, 500, 500}, {2000, 2000, 2000}, {128, 10000, 784}, {10000, 10, 784}} {
		m, n, k := sz[0], sz[1], sz[2]
		r := rand.New(rand.NewPCG(1, 1))
		a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float64, m*n)
		for _, impl := range []string{"ours", "gonum"} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", impl, m, n, k), func(b *testing.B) {
				for b.Loop() {
					if impl == "ours" {
						Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, bb, k, 0, c, n)
					} else {
						gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, bb, k, 0, c, n)
					}
				}
				b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
