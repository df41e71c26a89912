package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

// Precomputed is a kernel space whose Gram matrix the user supplies (the
// convention of scikit-learn's kernel="precomputed"): the training "rows"
// given to Prepare are the n×n Gram matrix K (symmetric, positive
// semi-definite), and the rows given to Transform are the m×n kernel
// values between new points and the n training points. Everything else is
// the kernel space: K̃ = H·K·H, coefficients in the dual, test rows
// centred with the training statistics.
type Precomputed struct{}

// Name implements Space.
func (Precomputed) Name() string { return "precomputed kernel" }

// Prepare implements Space.
func (Precomputed) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	n, m := x.Dims()
	if n != m {
		return nil, fmt.Errorf("precomputed kernel: the training input must be the n×n Gram matrix, got %d×%d (rows left out after the matrix was made, such as unlabelled rows a supervised method drops or rows a reader's class or missing-value filter drops, must take their columns with them)", n, m)
	}
	big := 0.0
	for i := 0; i < n; i++ {
		for _, v := range x.RawRowView(i) {
			big = math.Max(big, math.Abs(v))
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if math.Abs(x.At(i, j)-x.At(j, i)) > 1e-10*big {
				return nil, fmt.Errorf("precomputed kernel: the Gram matrix is not symmetric: K[%d][%d] = %g but K[%d][%d] = %g", i+1, j+1, x.At(i, j), j+1, i+1, x.At(j, i))
			}
		}
	}
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 0.5 * (x.At(i, j) + x.At(j, i))
			g.Set(i, j, v)
			g.Set(j, i, v)
		}
	}
	c, err := kernel.CenterGram(g)
	if err != nil {
		return nil, err
	}
	prep, err := newPrepared(g, true, "precomputed kernel", func(a *mat.Dense) Model {
		return &PrecomputedModel{Center: c, A: a}
	})
	if prep != nil {
		prep.NoRows = true
	}
	return prep, err
}

// PrecomputedModel is z = Aᵀ·k̃ for kernel rows k (m×n, the kernel values
// between new points and the n training points), centred with the training
// statistics.
type PrecomputedModel struct {
	Center kernel.Centering
	A      *mat.Dense // n×k
}

// Dims implements Model.
func (m *PrecomputedModel) Dims() int { _, k := m.A.Dims(); return k }

// InDims implements Model: the number of training points.
func (m *PrecomputedModel) InDims() int { r, _ := m.A.Dims(); return r }

// Kind implements Kinded.
func (*PrecomputedModel) Kind() string { return "precomputed" }

// Transform implements Model.
func (m *PrecomputedModel) Transform(k *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(k, m.InDims()); err != nil {
		return nil, err
	}
	kt := mat.DenseCopyOf(k)
	if err := m.Center.CenterRows(kt); err != nil {
		return nil, err
	}
	var z mat.Dense
	z.Mul(kt, m.A)
	return &z, nil
}

// Truncate implements Truncater.
func (m *PrecomputedModel) Truncate(k int) (Model, error) {
	return &PrecomputedModel{Center: m.Center, A: firstCols(m.A, k)}, nil
}

type precomputedJSON struct {
	Kind   string            `json:"kind"`
	Center *kernel.Centering `json:"center"`
	W      *MatrixJSON       `json:"w"`
}

func init() {
	RegisterModel(ModelCodec{Kind: "precomputed",
		Encode: func(m Model) (any, error) {
			t := m.(*PrecomputedModel)
			c := t.Center
			return precomputedJSON{Kind: "precomputed", Center: &c, W: matJSON(t.A)}, finiteModel("precomputed", t.A)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			var e precomputedJSON
			if err := bl.Unmarshal(b, &e); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			if e.Center == nil {
				return nil, errors.New("model: precomputed-kernel model without centring")
			}
			a, err := e.W.Dense("w")
			if err != nil {
				return nil, err
			}
			if r, _ := a.Dims(); r != len(e.Center.ColMeans) {
				return nil, fmt.Errorf("model: precomputed-kernel model has coefficients for %d training points and centring for %d", r, len(e.Center.ColMeans))
			}
			return &PrecomputedModel{Center: *e.Center, A: a}, checkFiniteSlice("centring", e.Center.ColMeans)
		}})
}
