package embed

import (
	"strings"
	"testing"

	"github.com/dimred/dimred/kernel"
	"gonum.org/v1/gonum/mat"
)

// Describe names each model kind with its sizes and kernels; Numbers
// counts the values it holds, checked against the sizes written out.
func TestDescribeAndNumbers(t *testing.T) {
	rbf := kernel.RBF(2)
	lin := &LinearModel{Mean: make([]float64, 4), W: mat.NewDense(4, 2, nil)}
	km := &KernelModel{Kernel: rbf, Train: mat.NewDense(10, 4, nil), Center: kernel.Centering{ColMeans: make([]float64, 10)}, A: mat.NewDense(10, 3, nil)}
	ny := &NystromModel{Kernel: rbf, Landmarks: mat.NewDense(5, 4, nil), A: mat.NewDense(5, 2, nil), Offset: make([]float64, 2)}
	mny := &MultiNystromModel{Kernels: []kernel.Kernel{rbf, kernel.Linear()}, Landmarks: mat.NewDense(5, 4, nil), A: []*mat.Dense{mat.NewDense(5, 2, nil), mat.NewDense(5, 2, nil)}, Offset: make([]float64, 2)}
	pre := &PrecomputedModel{Center: kernel.Centering{ColMeans: make([]float64, 10)}, A: mat.NewDense(10, 3, nil)}
	aff := &AffineModel{Mean: make([]float64, 4), W: mat.NewDense(4, 2, nil), Bias: make([]float64, 2)}
	for _, c := range []struct {
		m     Model
		wants []string
		n     int
	}{
		{lin, []string{"linear projection", "4 → 2"}, 4 + 8},
		{aff, []string{"affine map, 4 → 2"}, 4 + 8 + 2},
		{km, []string{"kernel expansion over 10 training rows", rbf.String(), "4 → 3"}, 40 + 30 + 10 + 1},
		{pre, []string{"10 training points of a precomputed kernel", "10 → 3"}, 30 + 10 + 1},
		{ny, []string{"Nyström features on 5 landmarks", rbf.String(), "4 → 2"}, 20 + 10 + 2},
		{mny, []string{"5 landmarks of 2 combined kernels", rbf.String() + ", " + kernel.Linear().String()}, 20 + 20 + 2},
		{Chain{lin, km}, []string{"chain: linear projection", "; then kernel expansion"}, 12 + 81},
	} {
		d := Describe(c.m)
		for _, w := range c.wants {
			if !strings.Contains(d, w) {
				t.Errorf("Describe(%T) = %q, want it to contain %q", c.m, d, w)
			}
		}
		if got := Numbers(c.m); got != c.n {
			t.Errorf("Numbers(%T) = %d, want %d", c.m, got, c.n)
		}
	}
}
