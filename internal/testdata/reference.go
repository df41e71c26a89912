package testdata

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Reference computations for tests: textbook formulas written out with
// gonum only (no dimred package), to check the engine against.

// ClassScatters returns S_b = Σ_c n_c(μ_c−μ)(μ_c−μ)ᵀ and
// S_w = Σ_c Σ_{yᵢ=c} (xᵢ−μ_c)(xᵢ−μ_c)ᵀ over the labelled rows, by the
// textbook sums.
func ClassScatters(x *mat.Dense, y []int) (sb, sw *mat.SymDense) {
	n, d := x.Dims()
	c := 0
	for _, v := range y {
		c = max(c, v+1)
	}
	mu := make([]float64, d)
	muc := make([][]float64, c)
	cnt := make([]float64, c)
	for k := range muc {
		muc[k] = make([]float64, d)
	}
	nl := 0.0
	for i := 0; i < n; i++ {
		if y[i] < 0 {
			continue
		}
		nl++
		cnt[y[i]]++
		for j := 0; j < d; j++ {
			mu[j] += x.At(i, j)
			muc[y[i]][j] += x.At(i, j)
		}
	}
	for j := range mu {
		mu[j] /= nl
		for k := 0; k < c; k++ {
			if cnt[k] > 0 {
				muc[k][j] /= cnt[k]
			}
		}
	}
	sb = mat.NewSymDense(d, nil)
	sw = mat.NewSymDense(d, nil)
	for k := 0; k < c; k++ {
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				sb.SetSym(a, b, sb.At(a, b)+cnt[k]*(muc[k][a]-mu[a])*(muc[k][b]-mu[b]))
			}
		}
	}
	for i := 0; i < n; i++ {
		if y[i] < 0 {
			continue
		}
		m := muc[y[i]]
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				sw.SetSym(a, b, sw.At(a, b)+(x.At(i, a)-m[a])*(x.At(i, b)-m[b]))
			}
		}
	}
	return sb, sw
}

// CholGenEig solves S_b·v = λ·S_w·v (S_w positive definite) by the
// textbook reduction: S_w = L·Lᵀ, C = L⁻¹·S_b·L⁻ᵀ, C·z = λ·z, v = L⁻ᵀ·z.
// Values are returned in decreasing order.
func CholGenEig(t testing.TB, sb, sw *mat.SymDense) ([]float64, *mat.Dense) {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(sw) {
		t.Fatal("S_w is not positive definite")
	}
	var l, li mat.TriDense
	ch.LTo(&l)
	if err := li.InverseTri(&l); err != nil {
		t.Fatal(err)
	}
	var tmp, c mat.Dense
	tmp.Mul(&li, sb)
	c.Mul(&tmp, li.T())
	var es mat.EigenSym
	cs := mat.NewSymDense(c.RawMatrix().Rows, nil)
	for a := 0; a < cs.SymmetricDim(); a++ {
		for b := a; b < cs.SymmetricDim(); b++ {
			cs.SetSym(a, b, (c.At(a, b)+c.At(b, a))/2)
		}
	}
	if !es.Factorize(cs, true) {
		t.Fatal("EigenSym failed")
	}
	vals := es.Values(nil)
	var z mat.Dense
	es.VectorsTo(&z)
	d := len(vals)
	idx := make([]int, d)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return vals[idx[a]] > vals[idx[b]] })
	outVals := make([]float64, d)
	zs := mat.NewDense(d, d, nil)
	for j, k := range idx {
		outVals[j] = vals[k]
		zs.SetCol(j, mat.Col(nil, k, &z))
	}
	var v mat.Dense
	v.Mul(li.T(), zs)
	return outVals, &v
}

// CentredRBF returns the centred Gram matrix H·K·H of exp(−‖xᵢ−xⱼ‖²/(2σ²)),
// written out (no package kernel), and the raw Gram matrix.
func CentredRBF(x *mat.Dense, sigma float64) (kc, k *mat.Dense) {
	n, d := x.Dims()
	k = mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r2 := 0.0
			for l := 0; l < d; l++ {
				r := x.At(i, l) - x.At(j, l)
				r2 += r * r
			}
			k.Set(i, j, math.Exp(-r2/(2*sigma*sigma)))
		}
	}
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -1 / float64(n)
			if i == j {
				v++
			}
			h.Set(i, j, v)
		}
	}
	kc = new(mat.Dense)
	kc.Mul(h, k)
	kc.Mul(kc, h)
	return kc, k
}

// CentreColumns returns x with each column's mean subtracted, by the
// textbook sums.
func CentreColumns(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	xc := mat.DenseCopyOf(x)
	for j := 0; j < d; j++ {
		mu := 0.0
		for i := 0; i < n; i++ {
			mu += x.At(i, j) / float64(n)
		}
		for i := 0; i < n; i++ {
			xc.Set(i, j, x.At(i, j)-mu)
		}
	}
	return xc
}
