package reproduce

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// withinShare against sums worked by hand, and leadingTies on simple,
// tied and empty spectra.
func TestWithinShareAndLeadingTies(t *testing.T) {
	// Two classes, each a point: no within-class spread.
	z := mat.NewDense(4, 2, []float64{1, 2, 1, 2, -3, 0, -3, 0})
	if got := withinShare(z, []int{0, 0, 1, 1}); got != 0 {
		t.Errorf("collapsed classes: share %v, want 0", got)
	}
	// 1-D rows 0, 2 (class 0) and 4, 6 (class 1): within 4·1 = 4, total
	// about the mean 3: 9+1+1+9 = 20.
	z = mat.NewDense(4, 1, []float64{0, 2, 4, 6})
	if got := withinShare(z, []int{0, 0, 1, 1}); math.Abs(got-0.2) > 1e-15 {
		t.Errorf("share %v, want 0.2", got)
	}
	// One class: the within-class spread is the total.
	if got := withinShare(z, []int{5, 5, 5, 5}); math.Abs(got-1) > 1e-15 {
		t.Errorf("one class: share %v, want 1", got)
	}
	for _, c := range []struct {
		vals []float64
		want int
	}{
		{nil, 0},
		{[]float64{3, 2, 1}, 1},
		{[]float64{7.8e-5, 7.8e-5 * (1 + 1e-13), 7.8e-5 * (1 - 5e-10), 2e-17}, 3},
		{[]float64{1, 1 - 2e-9}, 1},
	} {
		if got := leadingTies(c.vals); got != c.want {
			t.Errorf("leadingTies(%v) = %d, want %d", c.vals, got, c.want)
		}
	}
}
