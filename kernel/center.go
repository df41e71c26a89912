package kernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Centering holds the statistics of a training Gram matrix needed to centre
// kernel rows of new points in the same feature space:
//
//	K̃ = K − 1ₙK/n − K1ₙ/n + 1ₙK1ₙ/n²        (training, n×n)
//	K̃ₜ = Kₜ − 1ₘ·μᵀ − (Kₜ1ₙ/n)·1ₙᵀ + μ̄       (test rows, m×n)
//
// where μ is the vector of column means of K and μ̄ its grand mean.
type Centering struct {
	ColMeans  []float64 `json:"col_means"`
	GrandMean float64   `json:"grand_mean"`
}

// CenterGram centres the square Gram matrix k in place (K̃ = H·K·H with
// H = I − 11ᵀ/n) and returns the statistics that CenterRows needs.
func CenterGram(k *mat.Dense) (Centering, error) {
	n, m := k.Dims()
	if n != m || n == 0 {
		return Centering{}, fmt.Errorf("kernel: CenterGram needs a non-empty square matrix, got %d×%d", n, m)
	}
	mu := make([]float64, n)
	for i := 0; i < n; i++ {
		row := k.RawRowView(i)
		for j, v := range row {
			mu[j] += v
		}
	}
	grand := 0.0
	for j := range mu {
		mu[j] /= float64(n)
		grand += mu[j]
	}
	grand /= float64(n)
	c := Centering{ColMeans: mu, GrandMean: grand}
	// K symmetric: row means equal column means.
	for i := 0; i < n; i++ {
		row := k.RawRowView(i)
		for j := range row {
			row[j] += grand - mu[i] - mu[j]
		}
	}
	return c, nil
}

// CenterRows centres, in place, the m×n matrix kt of kernel values between
// m new points and the n training points.
func (c Centering) CenterRows(kt *mat.Dense) error {
	m, n := kt.Dims()
	if n != len(c.ColMeans) {
		return fmt.Errorf("kernel: test kernel rows have %d columns, training set had %d rows", n, len(c.ColMeans))
	}
	for i := 0; i < m; i++ {
		row := kt.RawRowView(i)
		rm := 0.0
		for _, v := range row {
			rm += v
		}
		rm /= float64(n)
		for j := range row {
			row[j] += c.GrandMean - rm - c.ColMeans[j]
		}
	}
	return nil
}
