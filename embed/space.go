// Package embed is the graph-embedding engine of dimred (Yan et al.'s
// framework, cited by all five papers): a method is a Problem — an
// objective graph A, a constraint graph B, an optimisation direction, a
// regulariser and a solver route — posed on a Space (linear, kernel,
// precomputed kernel, Nyström, multiple kernels), and Solve turns it into
// a Model that transforms new rows. See docs/architecture.md.
//
// With Φ the prepared training representation (centred rows X − μ in the
// linear space; the centred Gram matrix K̃ in a kernel space, coefficients
// in the dual), every method solves
//
//	optimise  tr(Vᵀ·Φᵀ·A·Φ·V)   subject to   Vᵀ·(Φᵀ·B·Φ + ε·M)·V = I,
//
// where M is the feature-space metric (I in the linear space, K̃ in the
// dual) and a nil B means "orthonormal projections in feature space"
// (Vᵀ·M·V = I).
//
// The engine prepares once, then solves: Space.Prepare computes Φ (the
// Gram matrix is built exactly once per fit) and the scale that relative
// regularisers refer to; one Prepared serves any number of Problems on
// the same rows (several methods in an evaluation, the iterations of an
// iterative method).
package embed

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/progress"
)

// Space maps training rows to the representation Φ on which the
// eigenproblem is posed, and turns solved coefficients into a Model. New
// kinds of space implement this interface in a file of their own (see
// nystrom.go, multikernel.go) and register their model kind (model.go).
type Space interface {
	// Prepare builds the representation of the training rows. It checks
	// the rows (finite, at least two) and stops early with ctx.Err() when
	// ctx is cancelled.
	Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error)
	// Name describes the space, e.g. "linear" or "kernel rbf(sigma=1)".
	Name() string
}

// Prepared is a prepared training representation, computed once per fit
// and shared by every problem solved on the same rows.
type Prepared struct {
	// Phi is n×p: centred rows or features (linear, Dual false) or the
	// centred Gram matrix K̃ (kernel, p = n, Dual true).
	Phi *mat.Dense
	// Dual is true when Phi is a centred Gram matrix K̃ and coefficients
	// are dual (z = Vᵀ·k̃(x)); the feature-space metric is then K̃.
	Dual bool
	// Build turns a p×k coefficient matrix into a Model.
	Build func(coef *mat.Dense) Model
	// Space is the description of the space that prepared it.
	Space string
	// NoRows is set when the training input was not feature rows but a
	// Gram matrix (Precomputed): graphs must then be built with Metric,
	// never on the input.
	NoRows bool
	scale  float64
	// cross, when set, is ΦᵀΦ of a feature space (Dual false) that the
	// space computed more cheaply than the product (NystromBases.Combine
	// rescales one cached product), used by the regression route.
	cross *mat.SymDense
}

// N is the number of training rows.
func (p *Prepared) N() int { n, _ := p.Phi.Dims(); return n }

// Scale is the mean squared norm of the centred training rows in feature
// space, trace(Φ·Φᵀ)/n: the mean diagonal of K̃ in a kernel space, of
// X̄·X̄ᵀ in the linear space. Relative regularisers (GDA's α, KLPP's α,
// KNDA's jitter) are multiples of it, so that they do not depend on the
// scale of the data or of the kernel.
func (p *Prepared) Scale() float64 { return p.scale }

// Metric returns the geometry of the space for graphs built in it
// (neighbourhoods "in the feature space", seed 004 eq. 13): distances
// ‖φ̃ᵢ − φ̃ⱼ‖² = K̃ᵢᵢ + K̃ⱼⱼ − 2K̃ᵢⱼ in a kernel space, Euclidean distances of
// the rows of Φ otherwise (centring changes no distance).
func (p *Prepared) Metric() graph.Metric {
	if p.Dual {
		return graph.FeatureSpace{K: p.Phi}
	}
	return graph.Euclidean{X: p.Phi}
}

// newPrepared computes the scale and checks that the representation is
// not zero.
func newPrepared(phi *mat.Dense, dual bool, space string, build func(*mat.Dense) Model) (*Prepared, error) {
	n, _ := phi.Dims()
	t := 0.0
	if dual {
		for i := 0; i < n; i++ {
			t += phi.At(i, i)
		}
	} else {
		for i := 0; i < n; i++ {
			for _, v := range phi.RawRowView(i) {
				t += v * v
			}
		}
	}
	if !(t > 0) {
		return nil, errors.New("embed: the centred training representation is zero (all rows coincide in feature space)")
	}
	return &Prepared{Phi: phi, Dual: dual, Build: build, Space: space, scale: t / float64(n)}, nil
}

// checkRows validates training rows for Prepare.
func checkRows(ctx context.Context, x *mat.Dense) error {
	if x == nil {
		return errors.New("embed: no training rows")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := data.CheckFinite("training data", x); err != nil {
		return err
	}
	if err := data.CheckDistanceRange("training data", x); err != nil {
		return err
	}
	if n, _ := x.Dims(); n < 2 {
		return fmt.Errorf("embed: %d training row(s); need at least 2", n)
	}
	return nil
}

// Linear is the linear space z = Wᵀ(x − μ).
type Linear struct{}

// Name implements Space.
func (Linear) Name() string { return "linear" }

// Prepare implements Space.
func (Linear) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	mean := ColMeans(x)
	return newPrepared(CenterRows(x, mean), false, "linear", func(w *mat.Dense) Model {
		return &LinearModel{Mean: mean, W: w}
	})
}

// Kernel is the kernel space z = Aᵀ·k̃(x), with k̃(x) the vector of kernel
// values between x and the training rows, centred like the training Gram
// matrix (kernel.Centering). Prepare builds the n×n Gram matrix once and
// centres it in place: n² floats.
type Kernel struct{ K kernel.Kernel }

// Name implements Space.
func (s Kernel) Name() string { return "kernel " + s.K.String() }

// Prepare implements Space.
func (s Kernel) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	progress.Step(ctx, n, "kernel matrix, %d×%d", n, n)
	g, err := s.K.GramContext(ctx, x, nil)
	if err != nil {
		return nil, err
	}
	c, err := kernel.CenterGram(g)
	if err != nil {
		return nil, err
	}
	train := mat.DenseCopyOf(x)
	return newPrepared(g, true, s.Name(), func(a *mat.Dense) Model {
		return &KernelModel{Kernel: s.K, Train: train, Center: c, A: a}
	})
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
func CenterRows(x *mat.Dense, mu []float64) *mat.Dense { return kernel.SubtractFromRows(x, mu) }

func checkCols(what string, x *mat.Dense, want int) error {
	_, d := x.Dims()
	if d != want {
		return fmt.Errorf("%s: input has %d columns, the model was fitted on %d", what, d, want)
	}
	return nil
}
