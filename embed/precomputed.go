package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/kernel"
)

// Precomputed is a kernel space whose Gram matrix the user supplies (the
// convention of scikit-learn's kernel="precomputed"): the training "rows"
// given to Prepare are the n×n Gram matrix K (symmetric, positive
// semi-definite), and the rows given to Transform are the m×n kernel
// values between new points and the n training points. Everything else is
// the kernel space: K̃ = H·K·H, coefficients in the dual, test rows
// centred with the training statistics.
//
// Cols, when set, names the columns of the input that are the training
// points: the rows given to Prepare are then K[Cols, all] (one row per
// training point, in the order of Cols) and the model takes kernel rows
// with all the columns, selecting Cols itself. This is how a supervised
// method fits on the labelled points of a Gram matrix over labelled and
// unlabelled points: it leaves out the unlabelled rows, and the Gram
// matrix's columns of those points are left out with them, here.
type Precomputed struct {
	Cols []int
}

// Name implements Space.
func (Precomputed) Name() string { return "precomputed kernel" }

// Prepare implements Space.
func (s Precomputed) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	n, m := x.Dims()
	in := m
	if s.Cols != nil {
		if len(s.Cols) != n {
			return nil, fmt.Errorf("precomputed kernel: %d training columns named for %d rows of the Gram matrix", len(s.Cols), n)
		}
		if err := checkTrainingCols("precomputed kernel", s.Cols, m); err != nil {
			return nil, err
		}
		x = data.Columns(x, s.Cols)
		m = n
	}
	if n != m {
		return nil, fmt.Errorf("precomputed kernel: the training input must be the n×n Gram matrix, got %d×%d (rows left out after the matrix was made, such as rows a class or missing-value filter drops, must take their columns with them)", n, m)
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
	var cols []int
	if s.Cols != nil && len(s.Cols) < in {
		cols = append([]int(nil), s.Cols...)
	}
	prep, err := newPrepared(g, true, "precomputed kernel", func(a *mat.Dense) Model {
		return &PrecomputedModel{Center: c, A: a, Cols: cols, In: in}
	})
	if prep != nil {
		prep.NoRows = true
	}
	return prep, err
}

// PrecomputedModel is z = Aᵀ·k̃ for kernel rows k (m×n, the kernel values
// between new points and the n training points), centred with the training
// statistics. With Cols set, the training points are those columns of
// the In columns of an input row (Precomputed.Cols): the others are the
// points the fit left out, and their kernel values are not read.
type PrecomputedModel struct {
	Center kernel.Centering
	A      *mat.Dense // n×k
	Cols   []int      // nil: every column is a training point
	In     int        // the input's columns when Cols is set
}

// Dims implements Model.
func (m *PrecomputedModel) Dims() int { _, k := m.A.Dims(); return k }

// InDims implements Model: the number of training points.
func (m *PrecomputedModel) InDims() int {
	if m.Cols != nil {
		return m.In
	}
	r, _ := m.A.Dims()
	return r
}

// Kind implements Kinded.
func (*PrecomputedModel) Kind() string { return "precomputed" }

// Transform implements Model.
func (m *PrecomputedModel) Transform(k *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(k, m.InDims()); err != nil {
		return nil, err
	}
	var kt *mat.Dense
	if m.Cols != nil {
		kt = data.Columns(k, m.Cols)
	} else {
		kt = mat.DenseCopyOf(k)
	}
	if err := m.Center.CenterRows(kt); err != nil {
		return nil, err
	}
	var z mat.Dense
	z.Mul(kt, m.A)
	return &z, nil
}

// Truncate implements Truncater.
func (m *PrecomputedModel) Truncate(k int) (Model, error) {
	return m.withA(firstCols(m.A, k)), nil
}

// withA returns the model with coefficients a.
func (m *PrecomputedModel) withA(a *mat.Dense) *PrecomputedModel {
	c := *m
	c.A = a
	return &c
}

type precomputedJSON struct {
	Kind   string            `json:"kind"`
	Center *kernel.Centering `json:"center"`
	W      *MatrixJSON       `json:"w"`
	Cols   []int             `json:"cols,omitempty"`
	In     int               `json:"in,omitempty"`
}

func init() {
	RegisterModel(ModelCodec{Kind: "precomputed",
		Encode: func(m Model) (any, error) {
			t := m.(*PrecomputedModel)
			c := t.Center
			return precomputedJSON{Kind: "precomputed", Center: &c, W: matJSON(t.A), Cols: t.Cols, In: t.In}, finiteModel("precomputed", t.A)
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
			r, _ := a.Dims()
			if r != len(e.Center.ColMeans) {
				return nil, fmt.Errorf("model: precomputed-kernel model has coefficients for %d training points and centring for %d", r, len(e.Center.ColMeans))
			}
			if e.Cols != nil {
				if len(e.Cols) != r {
					return nil, fmt.Errorf("model: precomputed-kernel model has coefficients for %d training points and %d training columns", r, len(e.Cols))
				}
				if err := checkTrainingCols("model: precomputed-kernel model", e.Cols, e.In); err != nil {
					return nil, err
				}
			}
			return &PrecomputedModel{Center: *e.Center, A: a, Cols: e.Cols, In: e.In}, checkFiniteSlice("centring", e.Center.ColMeans)
		}})
}

// checkTrainingCols checks the training columns of a precomputed kernel:
// increasing, within the in columns of an input row.
func checkTrainingCols(what string, cols []int, in int) error {
	for i, c := range cols {
		if c < 0 || c >= in || (i > 0 && c <= cols[i-1]) {
			return fmt.Errorf("%s: training column %d is %d: the columns must increase within 0..%d", what, i+1, c, in-1)
		}
	}
	return nil
}
