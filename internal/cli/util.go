package cli

import "gonum.org/v1/gonum/mat"

func subCols(z *mat.Dense, k int) *mat.Dense {
	r, _ := z.Dims()
	return mat.DenseCopyOf(z.Slice(0, r, 0, k))
}
