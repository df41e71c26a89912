package embed

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Norm is how the directions of a solution are scaled. The generalized
// eigenproblems fix a direction only up to scale; the scale does not
// change a one-dimensional embedding's ordering, but it weights the
// output coordinates against each other, and so changes every distance
// — k-NN, nearest class centroid, an RBF SVM — computed on a
// multi-dimensional embedding.
type Norm string

const (
	// NormConstraint (the default, also "") scales the directions to
	// Vᵀ·B·V = I, the constraint of the problem (for LDA wᵀS_w w = 1, for
	// LPP wᵀX̄ᵀDX̄w = 1): the problem's own normalisation.
	NormConstraint Norm = "constraint"
	// NormUnit scales every direction to unit length in the space it lives
	// in: ‖w‖ = 1 in the input (or explicit feature) space, αᵀK̃α = 1 in a
	// kernel space — the convention of Cai, He and Han's MATLAB codes
	// (LGE.m, KGE.m, LDA.m), widely used for these baselines, and of seed
	// 000's Algorithm 2 (LQMI).
	NormUnit Norm = "unit"
)

func (n Norm) check() error {
	switch n {
	case "", NormConstraint, NormUnit:
		return nil
	}
	return fmt.Errorf("embed: norm %q; allowed: %s, %s", n, NormConstraint, NormUnit)
}

// UnitColumns scales every nonzero column v of coef to unit length in the
// symmetric positive semi-definite metric M (vᵀ·M·v = 1; M nil: the
// identity). Columns of zero length are
// left as they are.
func UnitColumns(coef *mat.Dense, metric mat.Matrix) {
	r, c := coef.Dims()
	var mv mat.VecDense
	for j := 0; j < c; j++ {
		col := coef.ColView(j)
		s := 0.0
		if metric == nil {
			s = mat.Dot(col, col)
		} else {
			mv.MulVec(metric, col)
			s = mat.Dot(col, &mv)
		}
		if s > 0 {
			s = 1 / math.Sqrt(s)
			for i := 0; i < r; i++ {
				coef.Set(i, j, coef.At(i, j)*s)
			}
		}
	}
}

// Apply scales the p×k coefficients of a solution on prep as n says (in
// place): in a kernel space (Dual) the feature-space length is αᵀ·K̃·α.
func (n Norm) Apply(prep *Prepared, coef *mat.Dense) {
	if n != NormUnit {
		return
	}
	if prep.Dual {
		UnitColumns(coef, prep.Phi)
		return
	}
	UnitColumns(coef, nil)
}
