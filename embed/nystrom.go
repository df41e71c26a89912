package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/gemm"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// Nyström sampling schemes.
const (
	// Uniform draws the landmarks uniformly without replacement.
	Uniform = "uniform"
	// KMeansPP draws them by k-means++ seeding in the kernel's feature
	// space (D² sampling with ‖φ(x) − φ(c)‖² = k(x,x) + k(c,c) − 2k(x,c)):
	// landmarks spread over the data, which lowers the approximation
	// error for the same m (Kumar, Mohri & Talwalkar 2012; Oglic & Gärtner
	// 2017).
	KMeansPP = "kmeans++"
)

// DefaultLandmarks is the default number of Nyström landmarks.
const DefaultLandmarks = 1000

// Nystrom is the Nyström approximation of a kernel space (Williams &
// Seeger 2001): with m landmark rows L and K_mm = k(L, L) = U·Σ·Uᵀ, every
// row x gets the explicit features
//
//	f(x) = Σ_r^{-1/2}·U_rᵀ·k(L, x)        (r eigenvalues above 1e-12·σ_max)
//
// so that f(x)ᵀf(y) = k(x,L)·K_mm⁺·k(L,y) ≈ k(x, y), exactly when x or y is a
// landmark. The features are centred and solved in the linear route: a
// kernel method then costs O(n·m·d + n·m²) time and O(n·m) memory instead
// of O(n²·d + n³) and O(n²). With m ≥ n (every row a landmark) it is the
// exact kernel space up to rounding. The feature-space metric is the
// identity, as in the kernel space (a ridge ε·‖w‖² means the same), and
// Prepared.Scale is the mean squared norm of the centred features, which
// approximates the mean diagonal of K̃.
type Nystrom struct {
	K kernel.Kernel
	// Landmarks is m (0: DefaultLandmarks, capped at n).
	Landmarks int
	// Sampling is Uniform (default) or KMeansPP.
	Sampling string
	// Seed seeds the landmark draw.
	Seed uint64
}

// Name implements Space.
func (s Nystrom) Name() string {
	return fmt.Sprintf("nystrom(%s,m=%d,%s)", s.K, s.landmarks(math.MaxInt), s.sampling())
}

func (s Nystrom) landmarks(n int) int {
	m := s.Landmarks
	if m == 0 {
		m = DefaultLandmarks
	}
	return min(m, n)
}

func (s Nystrom) sampling() string {
	if s.Sampling == "" {
		return Uniform
	}
	return s.Sampling
}

// Validate checks the parameters.
func (s Nystrom) Validate() error {
	if s.Landmarks < 0 {
		return fmt.Errorf("nystrom: landmarks = %d; must be ≥ 1 (0: %d)", s.Landmarks, DefaultLandmarks)
	}
	switch s.sampling() {
	case Uniform, KMeansPP:
	default:
		return fmt.Errorf("nystrom: sampling %q; allowed: %s, %s", s.Sampling, Uniform, KMeansPP)
	}
	return s.K.Validate()
}

// Prepare implements Space.
func (s Nystrom) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	lm, err := s.landmarkRows(ctx, x)
	if err != nil {
		return nil, err
	}
	proj, err := NystromMap(ctx, s.K, lm)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	m, _ := lm.Dims()
	progress.Step(ctx, n, "Nyström features of %d rows on %d landmarks", n, m)
	f, err := NystromFeatures(ctx, s.K, lm, proj, x)
	if err != nil {
		return nil, err
	}
	mean := centreColumns(f)
	return newPrepared(f, false, s.Name(), func(w *mat.Dense) Model {
		var a mat.Dense
		a.Mul(proj, w)
		return &NystromModel{Kernel: s.K, Landmarks: lm, A: &a, Offset: mulVecT(w, mean)}
	})
}

// landmarkRows returns the landmark rows s picks among the rows of x.
func (s Nystrom) landmarkRows(ctx context.Context, x *mat.Dense) (*mat.Dense, error) {
	n, d := x.Dims()
	idx, err := s.pick(ctx, x, s.landmarks(n))
	if err != nil {
		return nil, err
	}
	lm := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		lm.SetRow(i, x.RawRowView(r))
	}
	return lm, nil
}

// centreColumns subtracts its column means from f in place and returns
// them.
func centreColumns(f *mat.Dense) []float64 {
	mean := ColMeans(f)
	subtractFromRows(f, mean)
	return mean
}

// pick returns the sorted indices of m landmark rows.
func (s Nystrom) pick(ctx context.Context, x *mat.Dense, m int) ([]int, error) {
	n, _ := x.Dims()
	if s.sampling() == Uniform || m == n {
		return s.uniform(n, m), nil
	}
	idx, err := kmeansPP(ctx, s.K, x, m, s.rng())
	if err != nil {
		return nil, err
	}
	sort.Ints(idx)
	return idx, nil
}

func (s Nystrom) rng() *rand.Rand { return rand.New(rand.NewPCG(s.Seed, 0x6e7973747230)) }

// uniform returns m of the indices 0..n−1 drawn uniformly without
// replacement by the seeded generator, sorted.
func (s Nystrom) uniform(n, m int) []int {
	idx := s.rng().Perm(n)[:m]
	sort.Ints(idx)
	return idx
}

// LandmarkRows returns the sorted indices, among n rows, of the landmark
// rows Prepare picks on n rows: it needs only n, so a pipeline that reads
// its rows in several passes (the shards of a distributed fit) can count
// them in a first pass, collect these rows in a second, build the map
// with NystromMap and compute the features of every row in a third, and
// get the features of the in-memory fit. It is an error unless the
// sampling is Uniform, or m ≥ n (every row): k-means++ seeding needs the
// distances of every row to each landmark chosen.
func (s Nystrom) LandmarkRows(n int) ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("nystrom: %d rows; need at least 1", n)
	}
	m := s.landmarks(n)
	if s.sampling() != Uniform && m < n {
		return nil, fmt.Errorf("nystrom: sampling %s needs every row in memory (D² sampling); use sampling %s to pick the landmarks from the row count alone", s.sampling(), Uniform)
	}
	return s.uniform(n, m), nil
}

// kmeansPP draws m distinct rows by D² sampling in the feature space of k.
func kmeansPP(ctx context.Context, k kernel.Kernel, x *mat.Dense, m int, rng *rand.Rand) ([]int, error) {
	n, _ := x.Dims()
	diag := make([]float64, n)
	for i := range diag {
		r := x.RawRowView(i)
		diag[i] = k.Eval(r, r)
	}
	d2 := make([]float64, n)
	for i := range d2 {
		d2[i] = math.Inf(1)
	}
	chosen := make([]bool, n)
	idx := []int{rng.IntN(n)}
	chosen[idx[0]] = true
	for len(idx) < m {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := idx[len(idx)-1]
		kc, err := k.Gram(x, x.Slice(c, c+1, 0, x.RawMatrix().Cols).(*mat.Dense))
		if err != nil {
			return nil, err
		}
		total := 0.0
		for i := 0; i < n; i++ {
			if v := diag[i] + diag[c] - 2*kc.At(i, 0); v < d2[i] {
				d2[i] = math.Max(v, 0)
			}
			if !chosen[i] {
				total += d2[i]
			}
		}
		next := -1
		if total > 0 {
			u := rng.Float64() * total
			for i := 0; i < n; i++ {
				if chosen[i] || d2[i] == 0 {
					continue
				}
				next = i
				if u -= d2[i]; u < 0 {
					break
				}
			}
		}
		for i := 0; next < 0 && i < n; i++ { // the remaining rows coincide with landmarks
			if !chosen[i] {
				next = i
			}
		}
		chosen[next] = true
		idx = append(idx, next)
	}
	return idx, nil
}

// NystromMap returns the map T = U_r·Σ_r^{-1/2} (m×r) of the Nyström
// features f(x) = Tᵀ·k(L, x) for the landmark rows lm (m×d) and kernel k:
// K_mm = k(L, L) = U·Σ·Uᵀ, over the eigenvalues above 1e-12·σ_max (see
// Nystrom). NystromFeatures computes the features of rows with it, and
// NewNystromModel folds a linear model on them into a model of the input
// rows.
func NystromMap(ctx context.Context, k kernel.Kernel, lm *mat.Dense) (*mat.Dense, error) {
	kmm, err := k.GramContext(ctx, lm, nil)
	if err != nil {
		return nil, err
	}
	vals, u, err := linalg.SymEig(linalg.SymView(kmm), 0, linalg.Largest)
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 || !(vals[0] > 0) {
		return nil, errors.New("nystrom: the landmarks' Gram matrix is zero or not positive semi-definite")
	}
	r := 0
	for r < len(vals) && vals[r] > 1e-12*vals[0] {
		r++
	}
	m, _ := u.Dims()
	t := mat.NewDense(m, r, nil)
	for j := 0; j < r; j++ {
		s := 1 / math.Sqrt(vals[j])
		for i := 0; i < m; i++ {
			t.Set(i, j, u.At(i, j)*s)
		}
	}
	return t, nil
}

// nystromBlock is the number of rows whose kernel values are held at once
// while computing features: the n×m matrix k(X, L) is never formed.
const nystromBlock = 1024

// NystromFeatures returns k(X, L)·T for the rows of x, landmarks lm and
// map t, one block of rows at a time (memory O(block·m) besides the
// output).
func NystromFeatures(ctx context.Context, k kernel.Kernel, lm, t, x *mat.Dense) (*mat.Dense, error) {
	n, _ := x.Dims()
	_, r := t.Dims()
	f := mat.NewDense(n, r, nil)
	if err := featuresInto(ctx, []kernel.Kernel{k}, lm, []*mat.Dense{t}, x, []*mat.Dense{f}); err != nil {
		return nil, err // no half-written features beside the error
	}
	return f, nil
}

// featuresInto writes kₘ(X, L)·Tₘ for every kernel kₘ and map Tₘ into
// dst[m] (n×rₘ, possibly a view), one block of rows at a time; the kernel
// values of all kernels come from one product per block
// (kernel.GramsContext). It returns the first block's error.
func featuresInto(ctx context.Context, ks []kernel.Kernel, lm *mat.Dense, maps []*mat.Dense, x *mat.Dense, dst []*mat.Dense) error {
	n, d := x.Dims()
	errs := make([]error, (n+nystromBlock-1)/nystromBlock)
	par.Blocks(n, nystromBlock, func(lo, hi int) {
		gs, err := kernel.GramsContext(ctx, ks, x.Slice(lo, hi, 0, d).(*mat.Dense), lm)
		if err != nil {
			errs[lo/nystromBlock] = err
			return
		}
		for i, g := range gs {
			_, r := maps[i].Dims()
			gemm.MulTile(dst[i].Slice(lo, hi, 0, r).(*mat.Dense), g, maps[i])
		}
	})
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// NystromModel is z = Aᵀ·k(L, x) − Offset: the linear solution W on the
// centred Nyström features folded into one map of the kernel values
// between x and the landmarks L (A = T·W, Offset = Wᵀ·μ_f).
type NystromModel struct {
	Kernel    kernel.Kernel
	Landmarks *mat.Dense // m×d
	A         *mat.Dense // m×k
	Offset    []float64  // k
}

// NewNystromModel returns the model of the input rows whose output is
// the linear model lin applied to the Nyström features k(L, x)ᵀ·T for the
// landmarks lm and map t (NystromMap): z = linᵀ(f(x) − μ) folded into
// A = T·W and Offset = Wᵀ·μ, as Nystrom's Prepare builds it for the
// centred features.
func NewNystromModel(k kernel.Kernel, lm, t *mat.Dense, lin *LinearModel) (*NystromModel, error) {
	if lm == nil || t == nil || lin == nil || lin.W == nil {
		return nil, errors.New("nystrom: a model needs landmarks, a map and a linear model")
	}
	m, _ := lm.Dims()
	tm, r := t.Dims()
	wr, _ := lin.W.Dims()
	if tm != m || wr != r || len(lin.Mean) != r {
		return nil, fmt.Errorf("nystrom: %d landmarks, a %d×%d map and a linear model on %d features (mean of %d); want a %d×r map and a model on its r features", m, tm, r, wr, len(lin.Mean), m)
	}
	var a mat.Dense
	a.Mul(t, lin.W)
	return &NystromModel{Kernel: k, Landmarks: lm, A: &a, Offset: mulVecT(lin.W, lin.Mean)}, nil
}

// Dims implements Model.
func (m *NystromModel) Dims() int { _, k := m.A.Dims(); return k }

// InDims implements Model.
func (m *NystromModel) InDims() int { _, d := m.Landmarks.Dims(); return d }

// Kind implements Kinded.
func (*NystromModel) Kind() string { return "nystrom" }

// Transform implements Model.
func (m *NystromModel) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := checkInput(x, m.InDims()); err != nil {
		return nil, err
	}
	z, err := NystromFeatures(context.Background(), m.Kernel, m.Landmarks, m.A, x)
	if err != nil {
		return nil, err
	}
	subtractFromRows(z, m.Offset)
	return z, nil
}

// Truncate implements Truncater.
func (m *NystromModel) Truncate(k int) (Model, error) {
	return &NystromModel{Kernel: m.Kernel, Landmarks: m.Landmarks, A: firstCols(m.A, k), Offset: m.Offset[:k]}, nil
}

type nystromJSON struct {
	Kind      string         `json:"kind"`
	Kernel    *kernel.Kernel `json:"kernel"`
	Landmarks *MatrixJSON    `json:"landmarks"`
	W         *MatrixJSON    `json:"w"`
	Offset    []float64      `json:"offset"`
}

func init() {
	RegisterModel(ModelCodec{Kind: "nystrom",
		Encode: func(m Model) (any, error) {
			t := m.(*NystromModel)
			k := t.Kernel
			return nystromJSON{Kind: "nystrom", Kernel: &k, Landmarks: matJSON(t.Landmarks), W: matJSON(t.A), Offset: t.Offset},
				finiteModel("nystrom", t.A)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			var e nystromJSON
			if err := bl.Unmarshal(b, &e); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			if e.Kernel == nil {
				return nil, errors.New("model: nystrom model without kernel")
			}
			if err := savedKernel(*e.Kernel); err != nil {
				return nil, err
			}
			lm, err := e.Landmarks.Dense("landmarks")
			if err != nil {
				return nil, err
			}
			a, err := e.W.Dense("w")
			if err != nil {
				return nil, err
			}
			m, _ := lm.Dims()
			r, k := a.Dims()
			if r != m || len(e.Offset) != k {
				return nil, fmt.Errorf("model: nystrom model has %d landmarks, coefficients for %d and %d offsets for %d outputs", m, r, len(e.Offset), k)
			}
			return &NystromModel{Kernel: *e.Kernel, Landmarks: lm, A: a, Offset: e.Offset}, checkFiniteSlice("offset", e.Offset)
		}})
}
