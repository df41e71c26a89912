package embed

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// independentColumns returns, in order, the indices of the columns of a
// matrix Z that are linearly independent of the columns before them,
// given its Gram matrix g = ZᵀZ: a Cholesky factorisation of g that skips
// a column whose residual squared norm (its squared distance to the span
// of the kept columns before it) is at most tol times its own squared
// norm, or whose squared norm is at most tol times the largest. Spectral
// regression's raw directions (one per response, Problem.Raw) are
// independent only while the responses do not outnumber the rank of the
// representation; this is how the regression route finds the ones that
// are (the Rayleigh–Ritz route gets the same from its eigenproblem).
func independentColumns(g mat.Symmetric, tol float64) []int {
	k := g.SymmetricDim()
	big := 0.0
	for j := 0; j < k; j++ {
		big = math.Max(big, g.At(j, j))
	}
	var keep []int
	// l holds, for each kept column, its row of the Cholesky factor
	// restricted to the kept columns: g[i][j] = Σ l[i]·l[j] over kept.
	l := make([][]float64, 0, k)
	for j := 0; j < k; j++ {
		d := g.At(j, j)
		if !(d > tol*big) {
			continue
		}
		row := make([]float64, len(keep)+1)
		res := d
		for a, i := range keep {
			s := g.At(i, j)
			for b := 0; b < a; b++ {
				s -= l[a][b] * row[b]
			}
			row[a] = s / l[a][a]
			res -= row[a] * row[a]
		}
		if !(res > tol*d) {
			continue
		}
		row[len(keep)] = math.Sqrt(res)
		keep = append(keep, j)
		l = append(l, row)
	}
	return keep
}

// dropDependent keeps the raw regression directions (columns of v, with
// their values vals) whose images have Gram matrix g independent, by
// independentColumns with the problem's rank tolerance; kept are their
// indices among the responses.
func dropDependent(vals []float64, v *mat.Dense, g mat.Symmetric, tol float64) (_ []float64, _ *mat.Dense, kept []int, err error) {
	if tol == 0 {
		tol = 1e-10
	}
	kept = independentColumns(g, tol)
	_, k := v.Dims()
	if len(kept) == k {
		return vals, v, kept, nil
	}
	if len(kept) == 0 {
		return nil, nil, nil, errors.New("embed: every regression direction is null on the training rows")
	}
	r, _ := v.Dims()
	out := mat.NewDense(r, len(kept), nil)
	kv := make([]float64, len(kept))
	for a, j := range kept {
		kv[a] = vals[j]
		out.SetCol(a, mat.Col(nil, j, v))
	}
	return kv, out, kept, nil
}
