// Package method defines the dimensionality-reduction methods of dimred:
// each is a small file that chooses a space, graphs, a constraint and a
// solver of the graph-embedding engine (package embed) and documents its
// objective and paper. Every method fits on labelled rows and transforms
// new rows.
package method

import "gonum.org/v1/gonum/mat"

// Method is a configured (hyperparameters set) but unfitted method.
type Method interface {
	// Fit learns a projection from the rows of X with labels y (-1 for
	// unlabeled rows; unsupervised methods ignore y, which may be nil).
	// dims is the number of output dimensions wanted; 0 means the largest
	// number the method can produce on this data (MaxDims).
	Fit(X *mat.Dense, y []int, dims int) (Model, error)
}

// Model is a fitted projection.
type Model interface {
	// Transform maps the rows of X (same columns as the training data) to
	// the embedding, one row per sample, Dims() columns ordered from most to
	// least important.
	Transform(X *mat.Dense) (*mat.Dense, error)
	// Dims is the number of output dimensions.
	Dims() int
}
