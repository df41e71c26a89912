package method

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
)

// Fitted is the model every method returns: the engine's model (which does
// the transform) plus the eigenvalues of its directions.
type Fitted struct {
	embed.Model
	// Name is the method's CLI name.
	Name string
	// Values are the eigenvalues (objective values) of the directions, in
	// output order; their meaning is given by each method.
	Values []float64
	// Train, when not nil, is the embedding of the training rows the fit
	// computed on its way (FitTransform returns it instead of transforming
	// the rows again, which for a kernel model costs a second Gram matrix).
	Train *mat.Dense
	// Trace is what an iterative method reports of its iterations
	// (MKLResult for mklsr); nil otherwise.
	Trace any
}

// TrainEmbedding returns the embedding of the training rows kept from the
// fit (nil when the method does not keep it).
func (f *Fitted) TrainEmbedding() *mat.Dense { return f.Train }

// Transform maps rows through the model. An embedding that is not finite
// (rows so large that the model's arithmetic overflows: a polynomial
// kernel of rows of 1e200) is an error, not NaN.
func (f *Fitted) Transform(x *mat.Dense) (*mat.Dense, error) {
	if f == nil || f.Model == nil {
		return nil, errors.New("method: Transform of an empty model (nil, or a Fitted not made by a fit or a model file)")
	}
	z, err := f.Model.Transform(x)
	if err != nil {
		return nil, err
	}
	if r, c := z.Dims(); r > 0 && c > 0 {
		if err := data.CheckFinite(f.Name+": embedding", z); err != nil {
			return nil, fmt.Errorf("%w (the rows are too large for the model's arithmetic; scale them as the training rows were)", err)
		}
	}
	return z, nil
}

// FitTransform fits m and returns the model with the embedding of the
// training rows x: the one the engine computed during the fit when the
// method keeps it (kernel methods: no second Gram matrix), else
// Model.Transform(x). The two agree to rounding (tested). The embedding
// may be the model's own TrainEmbedding, not a copy (a copy of KPCA's on
// 10 000 rows is 800 MB): copy it before changing it in place.
func FitTransform(m Method, x *mat.Dense, y []int, dims int) (Model, *mat.Dense, error) {
	model, err := m.Fit(x, y, dims)
	if err != nil {
		return nil, nil, err
	}
	if f, ok := model.(*Fitted); ok && f.Train != nil {
		if r, c := f.Train.Dims(); x != nil && r == x.RawMatrix().Rows && c == model.Dims() {
			return model, f.Train, nil
		}
	}
	z, err := model.Transform(x)
	if err != nil {
		return nil, nil, err
	}
	return model, z, nil
}

func fit(name string, p *embed.Problem, x *mat.Dense) (*Fitted, error) {
	return fitContext(context.Background(), name, p, x)
}

// fitContext is fit whose problem stops with ctx's error once ctx is
// cancelled (embed.Problem.FitContext).
func fitContext(ctx context.Context, name string, p *embed.Problem, x *mat.Dense) (*Fitted, error) {
	r, err := p.FitContext(ctx, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Fitted{Model: r.Model, Name: name, Values: r.Values, Train: r.Train}, nil
}

// labelled returns the rows of x whose label is not −1 and their labels,
// after checking that y has one label per row and at least two classes
// with at least minPerClass rows each.
func labelled(name string, x *mat.Dense, y []int, minPerClass int) (*mat.Dense, []int, error) {
	x, y, _, err := labelledIdx(name, x, y, minPerClass)
	return x, y, err
}

// labelledIdx is labelled with the indices of the rows kept (nil when
// every row is).
func labelledIdx(name string, x *mat.Dense, y []int, minPerClass int) (*mat.Dense, []int, []int, error) {
	if x == nil {
		return nil, nil, nil, fmt.Errorf("%s: no training rows", name)
	}
	if err := data.CheckFinite(name+": training data", x); err != nil {
		return nil, nil, nil, err
	}
	if err := data.CheckDistanceRange(name+": training data", x); err != nil {
		return nil, nil, nil, err
	}
	n, _ := x.Dims()
	if y == nil {
		return nil, nil, nil, fmt.Errorf("%s: supervised method needs labels", name)
	}
	if err := graph.CheckLabels(y, n, minPerClass); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	idx := data.LabelledRows(y) // CheckLabels refused labels below −1
	if len(idx) == n {
		return x, compact(y), nil, nil
	}
	ds := (&data.Dataset{X: x, Y: y}).Subset(idx)
	return ds.X, compact(ds.Y), idx, nil
}

// compact relabels y to 0..C'-1 over the classes present (so that empty
// classes, for example in a cross-validation fold, leave no empty blocks).
func compact(y []int) []int {
	out, _ := data.Relabel(y)
	return out
}
