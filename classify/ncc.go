package classify

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
)

// NCC is the nearest class centroid (nearest mean) classifier: each class
// is represented by the mean of its training rows and a row is assigned to
// the class of the nearest mean in Euclidean distance. A tie in distance
// (equal up to TieTolerance) goes to the lowest class label. Labels that
// have no training rows are never predicted.
type NCC struct{}

// Name returns "ncc".
func (NCC) Name() string { return "ncc" }

// Fit computes the centroid of every class present in y.
func (NCC) Fit(X *mat.Dense, y []int) (Predictor, error) {
	if err := checkTrain("ncc", X, y); err != nil {
		return nil, err
	}
	_, p := X.Dims()
	classes, cent := centroids(X, y, p)
	return &NCCModel{Classes: classes, Centroids: cent}, nil
}

// centroids returns the labels present in y in increasing order and the
// mean of the first p columns of their rows, one row per class.
func centroids(X *mat.Dense, y []int, p int) ([]int, *mat.Dense) {
	y, orig := data.DenseLabels(y)
	nc := 0
	for _, v := range y {
		nc = max(nc, v+1)
	}
	sums := make([]float64, nc*p)
	counts := make([]int, nc)
	for i, c := range y {
		counts[c]++
		row := X.RawRowView(i)[:p]
		s := sums[c*p : (c+1)*p]
		for j, v := range row {
			s[j] += v
		}
	}
	var classes []int
	for c, n := range counts {
		if n > 0 {
			classes = append(classes, c)
		}
	}
	cent := mat.NewDense(len(classes), p, nil)
	for r, c := range classes {
		dst := cent.RawRowView(r)
		for j := range dst {
			dst[j] = sums[c*p+j] / float64(counts[c])
		}
	}
	if orig != nil {
		for r, c := range classes {
			classes[r] = orig[c]
		}
	}
	return classes, cent
}

// NCCModel is a fitted NCC: Centroids row r is the mean of class
// Classes[r]; Classes is increasing.
type NCCModel struct {
	Classes   []int
	Centroids *mat.Dense
}

// Predict returns the class of the nearest centroid for each row of X.
func (m *NCCModel) Predict(X *mat.Dense) ([]int, error) {
	if m.Centroids == nil {
		return nil, fmt.Errorf("classifier ncc: model has no centroids")
	}
	nc, p := m.Centroids.Dims()
	if len(m.Classes) != nc {
		return nil, fmt.Errorf("classifier ncc: model has %d classes for %d centroids", len(m.Classes), nc)
	}
	if err := checkTest("ncc", X, p); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	out := make([]int, n)
	refMean := stat.Mean(rowNorms(m.Centroids), nil)
	d := make([]float64, nc)
	for i := range out {
		x := X.RawRowView(i)
		for c := range d {
			d[c] = graph.SqDist(x, m.Centroids.RawRowView(c))
		}
		out[i] = m.Classes[nearestTied(d, newTie(sqNorm(x), refMean))]
	}
	return out, nil
}

// Sweep classifies testZ with the first k columns for every k = 1..maxDim
// in one pass, accumulating the squared distances to the centroids one
// coordinate at a time (the centroid of the first k columns is the first k
// coordinates of the full centroid).
func (NCC) Sweep(trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([]int, error) {
	if err := checkSweep("ncc", trainZ, ytrain, testZ, ytest, maxDim); err != nil {
		return nil, err
	}
	classes, cent := centroids(trainZ, ytrain, maxDim)
	nc := len(classes)
	nte, _ := testZ.Dims()
	refMean := prefixMeanSqNorms(cent, maxDim)
	miss := make([]int, maxDim)
	acc := make([]float64, nc)
	for i := 0; i < nte; i++ {
		clear(acc)
		row := testZ.RawRowView(i)
		qn := 0.0
		for k := 0; k < maxDim; k++ {
			for c := range acc {
				d := row[k] - cent.At(c, k)
				acc[c] += d * d
			}
			qn += row[k] * row[k]
			if classes[nearestTied(acc, newTie(qn, refMean[k]))] != ytest[i] {
				miss[k]++
			}
		}
	}
	return miss, nil
}
