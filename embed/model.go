package embed

import (
	"encoding/json"
	"fmt"

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

// Compose returns a model equivalent to applying first then second. Two
// linear models fold into one (W = W₁·W₂, the mean of the first; the second
// model's mean is absorbed), anything else becomes a Chain.
func Compose(first, second Model) Model {
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
	n, k := z.Dims()
	for i := 0; i < n; i++ {
		row := z.RawRowView(i)
		for j := 0; j < k; j++ {
			row[j] -= m.Bias[j]
		}
	}
	return z, nil
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

// Truncate returns a model that keeps the first k output dimensions.
func Truncate(m Model, k int) (Model, error) {
	if k < 1 || k > m.Dims() {
		return nil, fmt.Errorf("dims: %d requested, the model has %d", k, m.Dims())
	}
	switch t := m.(type) {
	case *LinearModel:
		return &LinearModel{Mean: t.Mean, W: firstCols(t.W, k)}, nil
	case *AffineModel:
		return &AffineModel{Mean: t.Mean, W: firstCols(t.W, k), Bias: t.Bias[:k]}, nil
	case *KernelModel:
		c := *t
		c.A = firstCols(t.A, k)
		return &c, nil
	case Chain:
		last, err := Truncate(t[len(t)-1], k)
		if err != nil {
			return nil, err
		}
		out := append(Chain{}, t[:len(t)-1]...)
		return append(out, last), nil
	}
	return nil, fmt.Errorf("dims: cannot truncate a %T", m)
}

func firstCols(m *mat.Dense, k int) *mat.Dense {
	r, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, r, 0, k))
}

// ---- JSON ----

type envelope struct {
	Kind   string            `json:"kind"`
	Mean   []float64         `json:"mean,omitempty"`
	Bias   []float64         `json:"bias,omitempty"`
	W      *matrixJSON       `json:"w,omitempty"`
	Kernel *kernel.Kernel    `json:"kernel,omitempty"`
	Train  *matrixJSON       `json:"train,omitempty"`
	Center *kernel.Centering `json:"center,omitempty"`
	Steps  []json.RawMessage `json:"steps,omitempty"`
}

type matrixJSON struct {
	Rows int       `json:"rows"`
	Cols int       `json:"cols"`
	Data []float64 `json:"data"`
}

func toJSONMat(m *mat.Dense) *matrixJSON {
	r, c := m.Dims()
	return &matrixJSON{Rows: r, Cols: c, Data: mat.DenseCopyOf(m).RawMatrix().Data}
}

func (m *matrixJSON) dense(what string) (*mat.Dense, error) {
	if m == nil || m.Rows <= 0 || m.Cols <= 0 || len(m.Data) != m.Rows*m.Cols {
		return nil, fmt.Errorf("model: matrix %s is missing or has the wrong size", what)
	}
	d := mat.NewDense(m.Rows, m.Cols, m.Data)
	return d, data.CheckFinite("model matrix "+what, d)
}

// MarshalModel encodes a model as JSON.
func MarshalModel(m Model) ([]byte, error) {
	var e envelope
	switch t := m.(type) {
	case *LinearModel:
		e = envelope{Kind: "linear", Mean: t.Mean, W: toJSONMat(t.W)}
	case *AffineModel:
		e = envelope{Kind: "affine", Mean: t.Mean, W: toJSONMat(t.W), Bias: t.Bias}
	case *KernelModel:
		k, c := t.Kernel, t.Center
		e = envelope{Kind: "kernel", Kernel: &k, Train: toJSONMat(t.Train), Center: &c, W: toJSONMat(t.A)}
	case Chain:
		e.Kind = "chain"
		for _, s := range t {
			b, err := MarshalModel(s)
			if err != nil {
				return nil, err
			}
			e.Steps = append(e.Steps, b)
		}
	default:
		return nil, fmt.Errorf("model: cannot save a %T", m)
	}
	return json.Marshal(e)
}

// UnmarshalModel decodes a model written by MarshalModel and checks its
// consistency (sizes, finiteness).
func UnmarshalModel(b []byte) (Model, error) {
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	switch e.Kind {
	case "linear", "affine":
		w, err := e.W.dense("w")
		if err != nil {
			return nil, err
		}
		if r, _ := w.Dims(); r != len(e.Mean) {
			return nil, fmt.Errorf("model: w has %d rows but mean has %d entries", r, len(e.Mean))
		}
		if e.Kind == "linear" {
			return &LinearModel{Mean: e.Mean, W: w}, nil
		}
		if _, k := w.Dims(); len(e.Bias) != k {
			return nil, fmt.Errorf("model: bias has %d entries for %d outputs", len(e.Bias), k)
		}
		return &AffineModel{Mean: e.Mean, W: w, Bias: e.Bias}, nil
	case "kernel":
		if e.Kernel == nil || e.Center == nil {
			return nil, fmt.Errorf("model: kernel model without kernel or centring")
		}
		if err := e.Kernel.Validate(); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		tr, err := e.Train.dense("train")
		if err != nil {
			return nil, err
		}
		a, err := e.W.dense("w")
		if err != nil {
			return nil, err
		}
		n, _ := tr.Dims()
		if r, _ := a.Dims(); r != n || len(e.Center.ColMeans) != n {
			return nil, fmt.Errorf("model: kernel model has %d training rows but coefficients for %d and centring for %d", n, r, len(e.Center.ColMeans))
		}
		return &KernelModel{Kernel: *e.Kernel, Train: tr, Center: *e.Center, A: a}, nil
	case "chain":
		if len(e.Steps) == 0 {
			return nil, fmt.Errorf("model: empty chain")
		}
		var c Chain
		for i, s := range e.Steps {
			m, err := UnmarshalModel(s)
			if err != nil {
				return nil, fmt.Errorf("chain step %d: %w", i+1, err)
			}
			if i > 0 && m.InDims() != c[i-1].Dims() {
				return nil, fmt.Errorf("model: chain step %d expects %d inputs, step %d gives %d", i+1, m.InDims(), i, c[i-1].Dims())
			}
			c = append(c, m)
		}
		return c, nil
	}
	return nil, fmt.Errorf("model: unknown kind %q", e.Kind)
}
