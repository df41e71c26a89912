package graph

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gramSchmidtResponses computes Cai, He & Han's responses by brute force
// in ℝⁿ: modified Gram–Schmidt on the all-ones vector and then the class
// indicators 1_0, 1_1, … (label order), keeping the vectors that do not
// vanish (norm above 1e-8 of their norm before the projections) after the
// first.
func gramSchmidtResponses(y []int, classes int) *mat.Dense {
	n := len(y)
	var basis [][]float64
	var out [][]float64
	for c := -1; c < classes; c++ {
		v := make([]float64, n)
		for i, l := range y {
			if c < 0 || l == c {
				v[i] = 1
			}
		}
		norm0 := math.Sqrt(dot(v, v))
		if norm0 == 0 {
			continue // an empty class
		}
		for _, u := range basis {
			d := dot(u, v)
			for i := range v {
				v[i] -= d * u[i]
			}
		}
		nv := math.Sqrt(dot(v, v))
		if nv <= 1e-8*norm0 {
			continue
		}
		for i := range v {
			v[i] /= nv
		}
		basis = append(basis, v)
		if c >= 0 {
			out = append(out, v)
		}
	}
	m := mat.NewDense(n, len(out), nil)
	for j, v := range out {
		m.SetCol(j, v)
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// The closed form of ClassResponses (a weighted Helmert basis) is the
// Gram–Schmidt construction of SRDA done by brute force on n-vectors, on
// labels in scrambled order with an empty class and classes of one row;
// its vectors are eigenvectors of the class graph with eigenvalue 1, and
// the supervised SR graph carries them.
func TestClassResponsesAreGramSchmidt(t *testing.T) {
	for _, y := range [][]int{
		{0, 1, 0, 1},
		{2, 0, 3, 3, 0, 2, 3, 0, 0, 3, 2},
		{4, 1, 1, 0, 4, 4, 1, 1, 4, 0, 0, 0, 1, 4, 4}, // class 2 empty, class 3 empty
		{1, 0, 2, 0, 0, 0, 0, 0},                      // classes of one row
	} {
		classes := 0
		for _, c := range y {
			classes = max(classes, c+1)
		}
		want := gramSchmidtResponses(y, classes)
		got := ClassResponseRows(y)
		if got == nil {
			t.Fatalf("labels %v: no responses", y)
		}
		var d mat.Dense
		d.Sub(got, want)
		if e := mat.Norm(&d, math.Inf(1)); e > 1e-14 {
			t.Errorf("labels %v: closed form differs from Gram–Schmidt by %.3g:\n%v\nwant\n%v", y, e, mat.Formatted(got), mat.Formatted(want))
		}
		var wy, r mat.Dense
		wy.Mul(ClassMeans(y).Dense(), got)
		r.Sub(&wy, got)
		if e := mat.Norm(&r, math.Inf(1)); e > 1e-14 {
			t.Errorf("labels %v: W·y − y = %.3g; want eigenvalue 1", y, e)
		}
		g, err := SRGraph{}.Build(Euclidean{X: mat.NewDense(len(y), 1, nil)}, y)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(g.Responses, got) {
			t.Errorf("labels %v: the supervised SR graph does not carry ClassResponseRows", y)
		}
	}
	if z := ClassResponses([]int{0, 5, 0}); z != nil {
		t.Errorf("one class present: %v, want nil", mat.Formatted(z))
	}
}
