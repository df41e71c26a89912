package graph

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A label far beyond the rows (1e6) made the class graphs allocate a
// 1e6×1e6 block; the graphs depend only on which rows share a label, so
// they must equal those of the compact labels.
func TestClassGraphsWithLargeLabels(t *testing.T) {
	big := []int{1_000_000, 3, 3, 1_000_000, 500_000}
	small := []int{2, 0, 0, 2, 1}
	x := mat.NewDense(5, 2, []float64{1, 2, 3, 1, 0, 4, 2, 2, 5, 1})
	for name, build := range map[string]func([]int) (*ClassBlock, error){
		"ClassMeans":   func(y []int) (*ClassBlock, error) { return ClassMeans(y), nil },
		"BetweenClass": func(y []int) (*ClassBlock, error) { return BetweenClass(y), nil },
		"WithinClass":  func(y []int) (*ClassBlock, error) { return WithinClass(y), nil },
		"BER":          BER,
	} {
		gb, err := build(big)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gs, _ := build(small)
		if r := gb.Block.SymmetricDim(); r != 3 {
			t.Errorf("%s: block of order %d, want 3", name, r)
		}
		if !mat.Equal(gb.Apply(x), gs.Apply(x)) || !mat.Equal(gb.Dense(), gs.Dense()) {
			t.Errorf("%s: G·X differs from the compact labels'", name)
		}
	}
}
