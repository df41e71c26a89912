package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// MulTile and DgemmTile give the kernel's arithmetic, bit for bit (the
// reference above), in every build where the kernel runs: in the pure-Go
// build that is what dst.Mul gives, in the openblas build it is what keeps
// OpenBLAS's threads out of dimred's parallel tiles. Views (a stride
// larger than the columns), transposes and both dst forms (empty, or a
// view of the right shape) are covered.
func TestMulTileIsTheKernel(t *testing.T) {
	skipUnlessKernelRuns(t)
	r := rand.New(rand.NewPCG(3, 5))
	big := mat.NewDense(60, 400, randSlice(r, 60*400))
	x := big.Slice(3, 40, 7, 307).(*mat.Dense)    // 37×300, stride 400
	y := big.Slice(10, 39, 50, 350).(*mat.Dense)  // 29×300
	z := big.Slice(20, 25, 100, 400).(*mat.Dense) // 5×300
	for _, tc := range []struct {
		name   string
		a, b   mat.Matrix
		tA, tB bool
		m, n   int
		ad, bd *mat.Dense
	}{
		{"x·yᵀ (a Gram block)", x, y.T(), false, true, 37, 29, x, y},
		{"yᵀ·… (transposed A)", y.T(), y, true, false, 300, 300, y, y},
		{"few columns (skinny)", x, z.T(), false, true, 37, 5, x, z},
	} {
		bd := tc.bd
		for _, empty := range []bool{true, false} {
			var dst *mat.Dense
			if empty {
				dst = new(mat.Dense)
			} else {
				dst = mat.NewDense(tc.m+2, tc.n+3, nil).Slice(1, tc.m+1, 2, tc.n+2).(*mat.Dense)
			}
			MulTile(dst, tc.a, tc.b)
			ar, br := tc.ad.RawMatrix(), bd.RawMatrix()
			k := ar.Cols
			if tc.tA {
				k = ar.Rows
			}
			want := make([]float64, tc.m*tc.n)
			reference(tc.tA, tc.tB, tc.m, tc.n, k, 1, ar.Data, ar.Stride, br.Data, br.Stride, 0, want, tc.n)
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.n; j++ {
					if got := dst.At(i, j); math.Float64bits(got) != math.Float64bits(want[i*tc.n+j]) {
						t.Fatalf("%s (empty dst %v): element (%d, %d) = %v, the kernel's arithmetic %v", tc.name, empty, i, j, got, want[i*tc.n+j])
					}
				}
			}
		}
	}
	// DgemmTile: C = 0.5·A·Bᵀ − 2·C on raw slices.
	a, b := randSlice(r, 21*40), randSlice(r, 13*40)
	c := randSlice(r, 21*13)
	want := append([]float64(nil), c...)
	DgemmTile(blas.NoTrans, blas.Trans, 21, 13, 40, 0.5, a, 40, b, 40, -2, c, 13)
	reference(false, true, 21, 13, 40, 0.5, a, 40, b, 40, -2, want, 13)
	for i := range c {
		if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
			t.Fatalf("DgemmTile element %d = %v, the kernel's arithmetic %v", i, c[i], want[i])
		}
	}
}

// MulTile keeps dst.Mul's contract where it cannot take the kernel's
// path: other matrix types go to dst.Mul (same numbers), and shapes that
// do not fit panic with mat.ErrShape as dst.Mul does.
func TestMulTileFallbackAndShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	a := mat.NewDense(6, 5, randSlice(r, 30))
	s := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		for j := i; j < 5; j++ {
			s.SetSym(i, j, r.NormFloat64())
		}
	}
	var got, want mat.Dense
	MulTile(&got, a, s)
	want.Mul(a, s)
	if !mat.Equal(&got, &want) {
		t.Fatalf("MulTile(a, SymDense) = %v, dst.Mul %v", mat.Formatted(&got), mat.Formatted(&want))
	}
	// dst one of the operands: dst.Mul's copy, the same numbers.
	sq := mat.NewDense(5, 5, randSlice(r, 25))
	b := mat.NewDense(5, 5, randSlice(r, 25))
	c1, c2 := mat.DenseCopyOf(sq), mat.DenseCopyOf(sq)
	MulTile(c1, c1, b)
	c2.Mul(c2, b)
	if !mat.Equal(c1, c2) {
		t.Errorf("MulTile(c, c, b) = %v, c.Mul(c, b) %v", mat.Formatted(c1), mat.Formatted(c2))
	}
	c1, c2 = mat.DenseCopyOf(sq), mat.DenseCopyOf(sq)
	MulTile(c1, b, c1.T())
	c2.Mul(b, c2.T())
	if !mat.Equal(c1, c2) {
		t.Errorf("MulTile(c, b, cᵀ) = %v, c.Mul(b, cᵀ) %v", mat.Formatted(c1), mat.Formatted(c2))
	}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"inner sizes differ", func() { MulTile(new(mat.Dense), a, a) }},
		{"dst of another shape", func() { MulTile(mat.NewDense(6, 7, nil), a, a.T()) }},
	} {
		func() {
			defer func() {
				if p := recover(); p != mat.ErrShape {
					t.Errorf("%s: panic %v, want mat.ErrShape", tc.name, p)
				}
			}()
			tc.f()
		}()
	}
}
