package classify

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The library audit's cases: rows whose squared distances overflow made
// k-NN (K ≥ 2) panic, a label of 1e8 made NCC allocate 1e8 centroids, and
// a nil test matrix made Misclassified dereference nil.
func TestExtremeInputs(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 5, 5, 6, 5})
	big := mat.DenseCopyOf(x)
	big.Scale(1e154, big)
	y := []int{0, 0, 1, 1}
	for _, c := range []Classifier{KNN{K: 3}, KNN{K: 1}, NCC{}} {
		if _, err := c.Fit(big, y); err == nil || !strings.Contains(err.Error(), "squared distances and scatter of rows of 2 columns overflow") {
			t.Errorf("%s on rows of 1e154: %v", c.Name(), err)
		}
		p, err := c.Fit(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Predict(big); err == nil || !strings.Contains(err.Error(), "squared distances and scatter of rows of 2 columns overflow") {
			t.Errorf("%s predicting rows of 1e154: %v", c.Name(), err)
		}
	}
	// Labels far beyond the rows: the original values come back, and the
	// centroids are those of the compact labels bit for bit. math.MaxInt
	// once overflowed data.NumClasses (v+1) and panicked.
	if p, err := (NCC{}).Fit(x, []int{math.MaxInt, math.MaxInt, 7, 7}); err != nil {
		t.Errorf("NCC with a label of math.MaxInt: %v", err)
	} else if pred, _ := p.Predict(x); pred[0] != math.MaxInt || pred[3] != 7 {
		t.Errorf("NCC with a label of math.MaxInt predicts %v", pred)
	}
	p, err := NCC{}.Fit(x, []int{100_000_000, 100_000_000, 7, 7})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := NCC{}.Fit(x, []int{1, 1, 0, 0})
	pred, _ := p.Predict(x)
	want, _ := q.Predict(x)
	for i := range pred {
		if m := map[int]int{1: 100_000_000, 0: 7}[want[i]]; pred[i] != m {
			t.Fatalf("predictions %v, want %v mapped", pred, want)
		}
	}
	if !mat.Equal(p.(*NCCModel).Centroids, q.(*NCCModel).Centroids) {
		t.Error("centroids differ from the compact labels'")
	}
	if _, err := Misclassified(NCC{}, x, y, nil, nil); err == nil {
		t.Error("Misclassified with nil test rows: no error")
	}
	if _, err := Misclassified(NCC{}, x, y, x, y[:3]); err == nil || !strings.Contains(err.Error(), "3 test labels for 4 test rows") {
		t.Errorf("Misclassified with 3 labels: %v", err)
	}
}
