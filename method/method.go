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

// DimensionDependent is implemented by methods whose fit for k dimensions
// is not, in general, the first k columns of a fit for more: iterative
// methods whose every step sees the whole embedding. The EM of MIE, BERE,
// kMIE and kBERE (seed 003 §3.2) re-weights its graph by the distances in
// the current k-dimensional embedding — fitted at the full rank of the
// data the embedding is an isometry of it, the E-step gives back the
// initial graph and the EM returns MIE₀'s directions — and MKL-SR's kernel
// weights (seed 002 Algorithm 1) are learned from all its responses.
// Eigen-methods are nested and do not implement it. Evaluators that sweep
// the dimension (package evaluate) refit such methods for every dimension.
type DimensionDependent interface {
	// DimensionDependent reports whether a fit for k dimensions can
	// differ from the first k columns of a fit for more.
	DimensionDependent() bool
}

// RefitsPerDimension reports whether m must be refitted for each
// dimension of a sweep (it implements DimensionDependent and says so).
func RefitsPerDimension(m Method) bool {
	d, ok := m.(DimensionDependent)
	return ok && d.DimensionDependent()
}
