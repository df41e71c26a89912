// Package embed is the graph-embedding engine of dimred (Yan et al.'s
// framework, cited by all five papers): a method is a Problem — a Space
// (linear or kernel), an objective graph A, a constraint graph B, an
// optimisation direction, a regulariser and a Solver — and Fit turns it into
// a Model that transforms new rows. See docs/architecture.md.
//
// With Φ the training representation (centred rows X − μ in the linear
// space; the centred Gram matrix K̃ in the kernel space, coefficients in the
// dual), every method solves
//
//	optimise  tr(Vᵀ·Φᵀ·A·Φ·V)   subject to   Vᵀ·(Φᵀ·B·Φ + ε·I)·V = I,
//
// where a nil B means "orthonormal projections in feature space"
// (Vᵀ·V = I in the linear space, Vᵀ·K̃·V = I in the kernel space).
package embed

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

// Space maps training rows to the representation Φ on which the
// eigenproblem is posed, and turns solved coefficients into a Model.
type Space interface {
	// Prepare builds the representation of the training rows.
	Prepare(x *mat.Dense) (*Rep, error)
	// Name describes the space, e.g. "linear" or "kernel rbf(sigma=1)".
	Name() string
}

// Rep is a prepared training representation.
type Rep struct {
	// Phi is n×p: centred rows (linear, p = d) or the centred Gram matrix
	// (kernel, p = n).
	Phi *mat.Dense
	// Dual is true when Phi is a centred Gram matrix K̃ and coefficients
	// are dual (z = Vᵀ·k̃(x)); the feature-space metric is then K̃.
	Dual bool
	// Build turns a p×k coefficient matrix into a Model.
	Build func(coef *mat.Dense) Model
}

// Linear is the linear space z = Wᵀ(x − μ).
type Linear struct{}

// Name implements Space.
func (Linear) Name() string { return "linear" }

// Prepare implements Space.
func (Linear) Prepare(x *mat.Dense) (*Rep, error) {
	mean := ColMeans(x)
	phi := CenterRows(x, mean)
	return &Rep{Phi: phi, Build: func(w *mat.Dense) Model {
		return &LinearModel{Mean: mean, W: w}
	}}, nil
}

// Kernel is the kernel space z = Aᵀ·k̃(x), with k̃(x) the vector of kernel
// values between x and the training rows, centred like the training Gram
// matrix (kernel.Centering).
type Kernel struct{ K kernel.Kernel }

// Name implements Space.
func (s Kernel) Name() string { return "kernel " + s.K.String() }

// Prepare implements Space.
func (s Kernel) Prepare(x *mat.Dense) (*Rep, error) {
	g, err := s.K.Gram(x, nil)
	if err != nil {
		return nil, err
	}
	c, err := kernel.CenterGram(g)
	if err != nil {
		return nil, err
	}
	train := mat.DenseCopyOf(x)
	return &Rep{Phi: g, Dual: true, Build: func(a *mat.Dense) Model {
		return &KernelModel{Kernel: s.K, Train: train, Center: c, A: a}
	}}, nil
}

// ColMeans returns the column means of x.
func ColMeans(x *mat.Dense) []float64 {
	n, d := x.Dims()
	mu := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	return mu
}

// CenterRows returns x with mu subtracted from every row.
func CenterRows(x *mat.Dense, mu []float64) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			row[j] = v - mu[j]
		}
	}
	return out
}

func checkCols(what string, x *mat.Dense, want int) error {
	_, d := x.Dims()
	if d != want {
		return fmt.Errorf("%s: input has %d columns, the model was fitted on %d", what, d, want)
	}
	return nil
}
