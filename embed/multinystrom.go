package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
)

// NystromBases are the Nyström counterpart of KernelBases: for M kernels on
// the same n rows, the centred Nyström features Fₘ (n×rₘ, Fₘ·Fₘᵀ ≈ K̃ₘ) of
// every kernel on one shared set of landmark rows. A combination
// k = Σₘ βₘ·kₘ is then the linear space of the features [√β₁·F₁ … √β_M·F_M]
// (n × Σrₘ): memory O(n·Σrₘ) instead of M n×n Gram matrices, so
// multiple-kernel spectral regression scales to rows far past an n×n
// matrix. With every row a landmark the features reproduce K̃ₘ exactly (to
// the rank cut-off of NystromMap) and the combination is MultiKernel's
// (tested).
type NystromBases struct {
	Kernels   []kernel.Kernel // resolved (sigma=auto widths chosen from the rows)
	Landmarks *mat.Dense      // m×d, shared by every kernel
	Maps      []*mat.Dense    // m×rₘ, NystromMap of each kernel
	Features  []*mat.Dense    // n×rₘ, centred: column blocks (views) of all
	Means     [][]float64     // rₘ, the feature means removed

	all   *mat.Dense    // n×Σrₘ, the features [F₁ … F_M]
	cross *mat.SymDense // FᵀF of all
}

// NewNystromBases picks the landmarks with s (k-means++ sampling seeds in
// the feature space of s.K, by default the equal-weight combination of the
// kernels; uniform sampling needs no kernel) and computes every kernel's
// Nyström map and centred features (the kernel values of all M kernels
// from one shared product per block) and their cross product FᵀF, which
// every combination rescales (Combine).
func NewNystromBases(ctx context.Context, ks []kernel.Kernel, x *mat.Dense, s Nystrom) (*NystromBases, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	if len(ks) == 0 {
		return nil, errors.New("multikernel: no kernels")
	}
	b := &NystromBases{Kernels: make([]kernel.Kernel, len(ks))}
	w := make([]float64, len(ks))
	for i, k := range ks {
		rk, err := k.Resolve(x)
		if err != nil {
			return nil, fmt.Errorf("multikernel: kernel %d: %w", i+1, err)
		}
		b.Kernels[i], w[i] = rk, 1/float64(len(ks))
	}
	if s.sampling() == KMeansPP && s.K.Type == "" {
		s.K = kernel.Sum(w, b.Kernels...) // seeding in the equal-weight combination's space
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var err error
	if b.Landmarks, err = s.landmarkRows(ctx, x); err != nil {
		return nil, err
	}
	p := 0
	for i, k := range b.Kernels {
		t, err := NystromMap(ctx, k, b.Landmarks)
		if err != nil {
			return nil, fmt.Errorf("multikernel: kernel %d: %w", i+1, err)
		}
		b.Maps = append(b.Maps, t)
		_, r := t.Dims()
		p += r
	}
	if b.all, err = MultiNystromFeatures(ctx, b.Kernels, b.Landmarks, b.Maps, x); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	c := 0
	for _, t := range b.Maps {
		_, r := t.Dims()
		b.Features = append(b.Features, b.all.Slice(0, n, c, c+r).(*mat.Dense))
		c += r
	}
	for _, f := range b.Features {
		b.Means = append(b.Means, centreColumns(f))
	}
	b.cross = linalg.CrossProduct(b.all)
	return b, nil
}

// Combine returns the prepared linear space of the features
// [√β₁·F₁ … √β_M·F_M] of Σₘ βₘ·kₘ. Its Build takes coefficients W stacked
// in the same blocks and folds them into a MultiNystromModel of the input
// rows.
func (b *NystromBases) Combine(w []float64) (*Prepared, error) {
	if err := checkWeights(b.Kernels, w); err != nil {
		return nil, err
	}
	n, p := b.all.Dims()
	phi := mat.NewDense(n, p, nil)
	c := 0
	for m, f := range b.Features {
		_, r := f.Dims()
		if w[m] > 0 {
			phi.Slice(0, n, c, c+r).(*mat.Dense).Scale(math.Sqrt(w[m]), f)
		}
		c += r
	}
	// ΦᵀΦ of the combination is FᵀF with block (i, j) scaled by √(βᵢβⱼ):
	// one product for every re-weighting (MKL-SR's A-steps).
	blocks := make([]int, len(b.Features))
	for m, f := range b.Features {
		_, blocks[m] = f.Dims()
	}
	cross := ScaleSym(b.cross, BlockScales(blocks, w))
	sum := kernel.Sum(w, b.Kernels...)
	prep, err := newPrepared(phi, false, "multikernel nystrom "+sum.String(), func(coef *mat.Dense) Model {
		_, k := coef.Dims()
		model := &MultiNystromModel{Kernels: b.Kernels, Landmarks: b.Landmarks, Offset: make([]float64, k), Weights: append([]float64(nil), w...)}
		c := 0
		for m, t := range b.Maps {
			_, r := t.Dims()
			wm := mat.DenseCopyOf(coef.Slice(c, c+r, 0, k))
			wm.Scale(math.Sqrt(w[m]), wm)
			var a mat.Dense
			a.Mul(t, wm)
			model.A = append(model.A, &a)
			for j, v := range mulVecT(wm, b.Means[m]) {
				model.Offset[j] += v
			}
			c += r
		}
		return model
	})
	if err != nil {
		return nil, err
	}
	prep.cross = cross
	return prep, nil
}

// Products returns Fₘ·(Fₘᵀ·A) ≈ K̃ₘ·A for every kernel (MKL-SR's β-step).
func (b *NystromBases) Products(a *mat.Dense) []*mat.Dense {
	out := make([]*mat.Dense, len(b.Features))
	for m, f := range b.Features {
		var fa mat.Dense
		fa.Mul(f.T(), a)
		out[m] = new(mat.Dense)
		out[m].Mul(f, &fa)
	}
	return out
}

// BlockScales returns √wₘ for every column of block m (blocks[m] columns
// each): the scaling of the features [√w₁·F₁ … √w_M·F_M] of a weighted
// kernel sum.
func BlockScales(blocks []int, w []float64) []float64 {
	var d []float64
	for m, r := range blocks {
		for j := 0; j < r; j++ {
			d = append(d, math.Sqrt(w[m]))
		}
	}
	return d
}

// ScaleSym returns D·S·D for D = diag(d).
func ScaleSym(s *mat.SymDense, d []float64) *mat.SymDense {
	p := s.SymmetricDim()
	out := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out.SetSym(i, j, d[i]*d[j]*s.At(i, j))
		}
	}
	return out
}

// MultiNystromFeatures returns the concatenated Nyström features
// [T₁ᵀ·k₁(L, x) … T_Mᵀ·k_M(L, x)] of the rows of x (uncentred), the kernel
// values of all kernels from one shared product per block.
func MultiNystromFeatures(ctx context.Context, ks []kernel.Kernel, lm *mat.Dense, maps []*mat.Dense, x *mat.Dense) (*mat.Dense, error) {
	if len(ks) == 0 || len(maps) != len(ks) {
		return nil, fmt.Errorf("multinystrom: %d kernels and %d maps", len(ks), len(maps))
	}
	n, _ := x.Dims()
	p := 0
	for _, t := range maps {
		_, r := t.Dims()
		p += r
	}
	out := mat.NewDense(n, p, nil)
	parts := make([]*mat.Dense, len(maps))
	c := 0
	for i, t := range maps {
		_, r := t.Dims()
		parts[i] = out.Slice(0, n, c, c+r).(*mat.Dense)
		c += r
	}
	if err := featuresInto(ctx, ks, lm, maps, x, parts); err != nil {
		return nil, err
	}
	return out, nil
}

// NewMultiNystromModel folds a linear model z = Wᵀ(f − μ) on the
// concatenated Nyström features f = [T₁ᵀ·k₁(L, x) … T_Mᵀ·k_M(L, x)] (a fit
// from their statistics) into the model of the input rows: Aₘ = Tₘ·Wₘ for
// the rows Wₘ of W of kernel m, Offset = Wᵀ·μ.
func NewMultiNystromModel(ks []kernel.Kernel, lm *mat.Dense, maps []*mat.Dense, lin *LinearModel) (*MultiNystromModel, error) {
	if lm == nil || lin == nil || lin.W == nil || len(ks) == 0 || len(maps) != len(ks) {
		return nil, fmt.Errorf("multinystrom: a model needs landmarks, one map per kernel (%d maps, %d kernels) and a linear model", len(maps), len(ks))
	}
	m, _ := lm.Dims()
	wr, k := lin.W.Dims()
	model := &MultiNystromModel{Kernels: ks, Landmarks: lm, Offset: mulVecT(lin.W, lin.Mean)}
	c := 0
	for i, t := range maps {
		tm, r := t.Dims()
		if tm != m || c+r > wr {
			return nil, fmt.Errorf("multinystrom: kernel %d: a %d×%d map for %d landmarks and a model on %d features", i+1, tm, r, m, wr)
		}
		var a mat.Dense
		a.Mul(t, lin.W.Slice(c, c+r, 0, k))
		model.A = append(model.A, &a)
		c += r
	}
	if c != wr || len(lin.Mean) != wr {
		return nil, fmt.Errorf("multinystrom: maps of %d features in all, a linear model on %d (mean of %d)", c, wr, len(lin.Mean))
	}
	return model, nil
}

// MultiNystromModel is z = Σₘ Aₘᵀ·kₘ(L, x) − Offset: a linear solution on
// the features of NystromBases.Combine folded into one map per kernel of
// the kernel values between x and the shared landmarks L.
type MultiNystromModel struct {
	Kernels   []kernel.Kernel
	Landmarks *mat.Dense   // m×d
	A         []*mat.Dense // m×k, one per kernel
	Offset    []float64    // k
	// Weights are the kernel weights β the fit chose (folded into A
	// already: shown, not used); nil when not recorded.
	Weights []float64
}

// Dims implements Model.
func (m *MultiNystromModel) Dims() int { _, k := m.A[0].Dims(); return k }

// InDims implements Model.
func (m *MultiNystromModel) InDims() int { _, d := m.Landmarks.Dims(); return d }

// Kind implements Kinded.
func (*MultiNystromModel) Kind() string { return "multinystrom" }

// Transform implements Model.
func (m *MultiNystromModel) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(x, m.InDims()); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	parts := make([]*mat.Dense, len(m.A))
	for i := range parts {
		parts[i] = mat.NewDense(n, m.Dims(), nil)
	}
	if err := featuresInto(context.Background(), m.Kernels, m.Landmarks, m.A, x, parts); err != nil {
		return nil, err
	}
	z := parts[0]
	for _, p := range parts[1:] {
		z.Add(z, p)
	}
	subtractFromRows(z, m.Offset)
	return z, nil
}

// Truncate implements Truncater.
func (m *MultiNystromModel) Truncate(k int) (Model, error) {
	t := &MultiNystromModel{Kernels: m.Kernels, Landmarks: m.Landmarks, Offset: m.Offset[:k], Weights: m.Weights}
	for _, a := range m.A {
		t.A = append(t.A, firstCols(a, k))
	}
	return t, nil
}

type multiNystromJSON struct {
	Kind      string          `json:"kind"`
	Kernels   []kernel.Kernel `json:"kernels"`
	Landmarks *MatrixJSON     `json:"landmarks"`
	W         []*MatrixJSON   `json:"w"`
	Offset    []float64       `json:"offset"`
	Weights   []float64       `json:"weights,omitempty"`
}

func init() {
	RegisterModel(ModelCodec{Kind: "multinystrom",
		Encode: func(m Model) (any, error) {
			t := m.(*MultiNystromModel)
			e := multiNystromJSON{Kind: "multinystrom", Kernels: t.Kernels, Landmarks: matJSON(t.Landmarks), Offset: t.Offset, Weights: t.Weights}
			for _, a := range t.A {
				e.W = append(e.W, matJSON(a))
			}
			return e, finiteModel("multinystrom", t.A...)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			var e multiNystromJSON
			if err := bl.Unmarshal(b, &e); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			if len(e.Kernels) == 0 || len(e.Kernels) != len(e.W) {
				return nil, fmt.Errorf("model: multinystrom model with %d kernels and %d coefficient matrices; want as many, at least one", len(e.Kernels), len(e.W))
			}
			lm, err := e.Landmarks.Dense("landmarks")
			if err != nil {
				return nil, err
			}
			nl, _ := lm.Dims()
			if e.Weights != nil {
				if err := checkWeights(e.Kernels, e.Weights); err != nil {
					return nil, fmt.Errorf("model: multinystrom weights: %w", err)
				}
			}
			out := &MultiNystromModel{Kernels: e.Kernels, Landmarks: lm, Offset: e.Offset, Weights: e.Weights}
			for i, k := range e.Kernels {
				if err := savedKernel(k); err != nil {
					return nil, fmt.Errorf("kernel %d: %w", i+1, err)
				}
				a, err := e.W[i].Dense(fmt.Sprintf("w[%d]", i))
				if err != nil {
					return nil, err
				}
				r, c := a.Dims()
				if r != nl || c != len(e.Offset) {
					return nil, fmt.Errorf("model: multinystrom kernel %d has %d×%d coefficients for %d landmarks and %d offsets", i+1, r, c, nl, len(e.Offset))
				}
				out.A = append(out.A, a)
			}
			return out, checkFiniteSlice("offset", e.Offset)
		},
	})
}
