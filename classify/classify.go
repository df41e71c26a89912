// Package classify holds the classifiers used to evaluate embeddings:
// nearest class centroid and k nearest neighbours (and, in later work,
// linear and RBF support vector machines).
package classify

import "gonum.org/v1/gonum/mat"

// Classifier is a configured, unfitted classifier.
type Classifier interface {
	// Name is the CLI name, for example "ncc" or "knn3".
	Name() string
	// Fit learns from rows X with labels y in 0..C-1 (no -1).
	Fit(X *mat.Dense, y []int) (Predictor, error)
}

// Predictor is a fitted classifier.
type Predictor interface {
	Predict(X *mat.Dense) ([]int, error)
}
