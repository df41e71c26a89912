package embed

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Describe says in one line what m computes from an input row: the kind
// of map, what it keeps of the training data (rows, landmarks), its
// kernels and its input and output dimensions. 'dimred info' prints it.
func Describe(m Model) string {
	switch t := m.(type) {
	case *LinearModel:
		return fmt.Sprintf("linear projection (rows centred on the training mean), %d → %d", t.InDims(), t.Dims())
	case *AffineModel:
		return fmt.Sprintf("affine map, %d → %d", t.InDims(), t.Dims())
	case *KernelModel:
		n, _ := t.Train.Dims()
		return fmt.Sprintf("kernel expansion over %d training rows (centred in feature space), kernel %s, %d → %d", n, t.Kernel, t.InDims(), t.Dims())
	case *PrecomputedModel:
		if t.Cols != nil {
			return fmt.Sprintf("expansion over %d training points of a precomputed kernel (centred in feature space): an input row is its kernel values with the %d points given at the fit, of which those %d are read, %d → %d", len(t.Cols), t.In, len(t.Cols), t.InDims(), t.Dims())
		}
		return fmt.Sprintf("expansion over %d training points of a precomputed kernel (centred in feature space): an input row is its kernel values with them, %d → %d", t.InDims(), t.InDims(), t.Dims())
	case *NystromModel:
		l, _ := t.Landmarks.Dims()
		return fmt.Sprintf("Nyström features on %d landmarks, kernel %s, %d → %d", l, t.Kernel, t.InDims(), t.Dims())
	case *MultiNystromModel:
		l, _ := t.Landmarks.Dims()
		ks := make([]string, len(t.Kernels))
		for i, k := range t.Kernels {
			ks[i] = k.String()
			if t.Weights != nil {
				ks[i] = fmt.Sprintf("%.4g×%s", t.Weights[i], ks[i])
			}
		}
		return fmt.Sprintf("Nyström features on %d landmarks of %d combined kernels (%s), %d → %d", l, len(t.Kernels), strings.Join(ks, ", "), t.InDims(), t.Dims())
	case Chain:
		parts := make([]string, len(t))
		for i, s := range t {
			parts[i] = Describe(s)
		}
		return "chain: " + strings.Join(parts, "; then ")
	}
	return fmt.Sprintf("%T, %d → %d", m, m.InDims(), m.Dims())
}

// Numbers returns how many float64 values m holds (its matrices and
// vectors): the memory it takes once loaded is 8 bytes each, about.
func Numbers(m Model) int {
	size := func(ms ...*mat.Dense) int {
		n := 0
		for _, x := range ms {
			if x != nil {
				r, c := x.Dims()
				n += r * c
			}
		}
		return n
	}
	switch t := m.(type) {
	case *LinearModel:
		return len(t.Mean) + size(t.W)
	case *AffineModel:
		return len(t.Mean) + size(t.W) + len(t.Bias)
	case *KernelModel:
		return size(t.Train, t.A) + len(t.Center.ColMeans) + 1
	case *PrecomputedModel:
		return size(t.A) + len(t.Center.ColMeans) + 1
	case *NystromModel:
		return size(t.Landmarks, t.A) + len(t.Offset)
	case *MultiNystromModel:
		return size(append([]*mat.Dense{t.Landmarks}, t.A...)...) + len(t.Offset)
	case Chain:
		n := 0
		for _, s := range t {
			n += Numbers(s)
		}
		return n
	}
	return 0
}
