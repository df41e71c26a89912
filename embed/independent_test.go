package embed

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// independentColumns keeps a column exactly when it raises the rank of the
// kept columns before it: checked against the rank of each candidate set
// computed from singular values (a second, independent computation), on
// columns with planted dependencies, a null column and a nearly (but not)
// dependent one.
func TestIndependentColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 30
	col := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	a, b, c, e := col(), col(), col(), col()
	comb := func(ws []float64, vs ...[]float64) []float64 {
		out := make([]float64, n)
		for k, v := range vs {
			for i := range out {
				out[i] += ws[k] * v[i]
			}
		}
		return out
	}
	cols := [][]float64{
		a, b,
		comb([]float64{1, 1}, a, b), // a + b: dependent
		make([]float64, n),          // null
		c,
		comb([]float64{2, -1}, c, a),       // in span{a, c}: dependent
		comb([]float64{1, 1e-3}, a, e),     // a + 10⁻³·e: independent
		comb([]float64{3, -2, 1}, a, b, c), // dependent
	}
	z := mat.NewDense(n, len(cols), nil)
	for j, v := range cols {
		z.SetCol(j, v)
	}
	g := mat.NewSymDense(len(cols), nil)
	g.SymOuterK(1, z.T())
	got := independentColumns(g, 1e-10)
	// Brute force: keep j when the SVD rank of the kept columns plus j grows.
	rank := func(idx []int) int {
		if len(idx) == 0 {
			return 0
		}
		m := mat.NewDense(n, len(idx), nil)
		for k, j := range idx {
			m.SetCol(k, cols[j])
		}
		var svd mat.SVD
		if !svd.Factorize(m, mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		s := svd.Values(nil)
		r := 0
		for _, v := range s {
			if v > 1e-8*s[0] {
				r++
			}
		}
		return r
	}
	var want []int
	for j := range cols {
		if rank(append(slices.Clone(want), j)) > len(want) {
			want = append(want, j)
		}
	}
	if !slices.Equal(got, want) || !slices.Equal(want, []int{0, 1, 4, 6}) {
		t.Errorf("kept %v, brute force %v (planted: [0 1 4 6])", got, want)
	}
}
