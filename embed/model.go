package embed

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/kernel"
)

// Model is a fitted projection (it satisfies method.Model).
type Model interface {
	Transform(x *mat.Dense) (*mat.Dense, error)
	Dims() int
	// InDims is the number of input columns the model expects.
	InDims() int
}

// Truncater is implemented by models that can keep only their first k
// output dimensions (every model of the engine does).
type Truncater interface {
	Truncate(k int) (Model, error)
}

// Truncate returns a model that keeps the first k output dimensions.
func Truncate(m Model, k int) (Model, error) {
	if k < 1 || k > m.Dims() {
		return nil, fmt.Errorf("dims: %d requested, the model has %d", k, m.Dims())
	}
	t, ok := m.(Truncater)
	if !ok {
		return nil, fmt.Errorf("dims: cannot truncate a %T", m)
	}
	return t.Truncate(k)
}

func firstCols(m *mat.Dense, k int) *mat.Dense {
	r, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, r, 0, k))
}

// LinearModel is z = Wᵀ·(x − Mean).
type LinearModel struct {
	Mean []float64
	W    *mat.Dense // d×k
}

// Dims implements Model.
func (m *LinearModel) Dims() int { _, k := m.W.Dims(); return k }

// InDims implements Model.
func (m *LinearModel) InDims() int { return len(m.Mean) }

// Transform implements Model.
func (m *LinearModel) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(x, len(m.Mean)); err != nil {
		return nil, err
	}
	var z mat.Dense
	z.Mul(CenterRows(x, m.Mean), m.W)
	return &z, nil
}

// Truncate implements Truncater.
func (m *LinearModel) Truncate(k int) (Model, error) {
	return &LinearModel{Mean: m.Mean, W: firstCols(m.W, k)}, nil
}

// KernelModel is z = Aᵀ·k̃(x).
type KernelModel struct {
	Kernel kernel.Kernel
	Train  *mat.Dense // n×d training rows
	Center kernel.Centering
	A      *mat.Dense // n×k
}

// Dims implements Model.
func (m *KernelModel) Dims() int { _, k := m.A.Dims(); return k }

// InDims implements Model.
func (m *KernelModel) InDims() int { _, d := m.Train.Dims(); return d }

// Transform implements Model.
func (m *KernelModel) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(x, m.InDims()); err != nil {
		return nil, err
	}
	kt, err := m.Kernel.Gram(x, m.Train)
	if err != nil {
		return nil, err
	}
	if err := m.Center.CenterRows(kt); err != nil {
		return nil, err
	}
	var z mat.Dense
	z.Mul(kt, m.A)
	return &z, nil
}

// Truncate implements Truncater.
func (m *KernelModel) Truncate(k int) (Model, error) {
	c := *m
	c.A = firstCols(m.A, k)
	return &c, nil
}

// Chain applies models in sequence (for example PCA then LDA, KPCA then
// LDA in CKFD).
type Chain []Model

// Dims implements Model.
func (c Chain) Dims() int { return c[len(c)-1].Dims() }

// InDims implements Model.
func (c Chain) InDims() int { return c[0].InDims() }

// Transform implements Model.
func (c Chain) Transform(x *mat.Dense) (*mat.Dense, error) {
	var err error
	for _, m := range c {
		if x, err = m.Transform(x); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// Truncate implements Truncater (the last step is truncated).
func (c Chain) Truncate(k int) (Model, error) {
	last, err := Truncate(c[len(c)-1], k)
	if err != nil {
		return nil, err
	}
	out := append(Chain{}, c[:len(c)-1]...)
	return append(out, last), nil
}

// Compose returns a model equivalent to applying first then second. Two
// linear models fold into one (W = W₁·W₂, the mean of the first; the second
// model's mean is absorbed), anything else becomes a Chain. first's
// outputs must be second's inputs: Compose panics otherwise.
func Compose(first, second Model) Model {
	if first.Dims() != second.InDims() {
		// A programming error (as a product of mismatched matrices in
		// gonum), caught here rather than at the first Transform.
		panic(fmt.Sprintf("embed: Compose of a model with %d outputs and one with %d inputs", first.Dims(), second.InDims()))
	}
	l1, ok1 := first.(*LinearModel)
	l2, ok2 := second.(*LinearModel)
	if !ok1 || !ok2 {
		return Chain{first, second}
	}
	// z = W₂ᵀ(W₁ᵀ(x−μ₁) − μ₂) = (W₁W₂)ᵀ(x−μ₁) − W₂ᵀμ₂.
	var w mat.Dense
	w.Mul(l1.W, l2.W)
	return &AffineModel{Mean: l1.Mean, W: &w, Bias: mulVecT(l2.W, l2.Mean)}
}

// AffineModel is z = Wᵀ·(x − Mean) − Bias.
type AffineModel struct {
	Mean []float64
	W    *mat.Dense
	Bias []float64
}

// Dims implements Model.
func (m *AffineModel) Dims() int { _, k := m.W.Dims(); return k }

// InDims implements Model.
func (m *AffineModel) InDims() int { return len(m.Mean) }

// Transform implements Model.
func (m *AffineModel) Transform(x *mat.Dense) (*mat.Dense, error) {
	z, err := (&LinearModel{Mean: m.Mean, W: m.W}).Transform(x)
	if err != nil {
		return nil, err
	}
	subtractFromRows(z, m.Bias)
	return z, nil
}

// subtractFromRows subtracts off (one value per column) from every row of
// z in place.
func subtractFromRows(z *mat.Dense, off []float64) {
	n, _ := z.Dims()
	for i := 0; i < n; i++ {
		floats.Sub(z.RawRowView(i), off)
	}
}

// Truncate implements Truncater.
func (m *AffineModel) Truncate(k int) (Model, error) {
	return &AffineModel{Mean: m.Mean, W: firstCols(m.W, k), Bias: m.Bias[:k]}, nil
}

func mulVecT(w *mat.Dense, v []float64) []float64 {
	_, k := w.Dims()
	out := make([]float64, k)
	var r mat.VecDense
	r.MulVec(w.T(), mat.NewVecDense(len(v), v))
	for j := range out {
		out[j] = r.AtVec(j)
	}
	return out
}

func checkInput(x *mat.Dense, want int) error {
	if x == nil {
		return fmt.Errorf("transform: no input rows")
	}
	if err := checkCols("transform", x, want); err != nil {
		return err
	}
	return data.CheckFinite("transform input", x)
}

// ScaleOutputs returns a model whose output column j is scale[j] times
// that of m (len(scale) ≤ m.Dims(); columns beyond len(scale) are
// dropped). Models of the engine fold the scale into their coefficients;
// any other model is followed by a diagonal linear step.
func ScaleOutputs(m Model, scale []float64) (Model, error) {
	k := len(scale)
	if k < 1 || k > m.Dims() {
		return nil, fmt.Errorf("dims: %d scales for a model with %d outputs", k, m.Dims())
	}
	for j, v := range scale {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("embed: scale of output %d is %v; scales must be finite", j, v)
		}
	}
	tm, err := Truncate(m, k)
	if err != nil {
		tm = m
	}
	scaleCols := func(w *mat.Dense) *mat.Dense {
		out := mat.DenseCopyOf(w)
		r, _ := out.Dims()
		for i := 0; i < r; i++ {
			row := out.RawRowView(i)
			for j := range row {
				row[j] *= scale[j]
			}
		}
		return out
	}
	switch t := tm.(type) {
	case *LinearModel:
		return &LinearModel{Mean: t.Mean, W: scaleCols(t.W)}, nil
	case *KernelModel:
		c := *t
		c.A = scaleCols(t.A)
		return &c, nil
	case *NystromModel:
		off := make([]float64, k)
		for j := range off {
			off[j] = t.Offset[j] * scale[j]
		}
		return &NystromModel{Kernel: t.Kernel, Landmarks: t.Landmarks, A: scaleCols(t.A), Offset: off}, nil
	case *PrecomputedModel:
		return t.withA(scaleCols(t.A)), nil
	}
	w := mat.NewDense(tm.Dims(), k, nil)
	for j := 0; j < k; j++ {
		w.Set(j, j, scale[j])
	}
	return Compose(tm, &LinearModel{Mean: make([]float64, tm.Dims()), W: w}), nil
}
