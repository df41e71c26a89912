package method

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// KQMI is kernel quadratic mutual information (seed 000, Bouzas et al.
// 2015, §III-A, Algorithm 1). With K̃ the centred Gram matrix and M' the
// symmetrised QMI graph (graph.QMI, eq. 19/30), it solves eq. 23
//
//	max tr(Aᵀ·K̃·M'·K̃·A) / tr(Aᵀ·K̃·K̃·A),
//
// i.e. the generalized eigenproblem K̃·M'·K̃·a = λ·K̃·K̃·a (eq. 24), and maps
// a new row x to Aᵀ·k̃(x). M' has rank C−1, so at most C−1 directions exist.
//
// Algorithm 1 solves it through K̃ = P·L·Pᵀ: the eigenvectors B of
// Pᵀ·M'·P (eq. 27) give A = P·L⁻¹·B. Taken literally (P over every nonzero
// eigenvalue) this inverts the whole spectrum of K̃: the training rows of a
// class collapse onto one point and the projection generalises badly
// (DESIGN.md; docs/qmi.md). Two regularisers are offered:
//
//   - "ridge" (default): the constraint becomes K̃·K̃ + ε·K̃ (a penalty ε‖w‖²
//     in feature space), with ε = Alpha times the mean diagonal of K̃. In
//     Algorithm 1's terms, P·L⁻¹ becomes P·(L² + εL)^{-1/2} and Pᵀ·M'·P is
//     filtered by √(λᵢ/(λᵢ+ε)) on both sides. Because the nonzero-eigenvalue
//     eigenvectors of M' span the centred class indicators Y, the solution
//     lies in (K̃ + εI)⁻¹·span(Y) for every ε; the engine's spectral
//     regression route (C−1 responses, one Cholesky of K̃ + εI, then a
//     Rayleigh–Ritz step on the original objective) is therefore exact, in
//     O(n³/3) instead of two n×n eigen-decompositions.
//   - "cutoff": Algorithm 1 with P and L restricted to the eigenvalues of K̃
//     above Cutoff times the largest: whitened kernel PCA on those
//     directions followed by the linear QMI problem.
//
// The default regulariser was chosen by 10-fold cross-validation on UCI
// sets (docs/qmi.md). With the same ridge, KQMI and GDA span the same
// subspace at C−1 dimensions (they differ only in the order of the
// directions; for balanced classes M' = (W_c − 11ᵀ/n)/(nC) and the two
// coincide). Values are the eigenvalues λ of the regularised problem.
// Unlabeled rows (−1) are ignored.
type KQMI struct {
	Kernel kernel.Kernel // zero: RBF, σ from the training rows (sigma=auto)
	// Reg is the regulariser: "ridge" (default) or "cutoff".
	Reg string
	// Alpha is the ridge relative to the mean diagonal of K̃ (unset:
	// DefaultKQMIAlpha; param.Set(0.0): none).
	Alpha param.Opt[float64]
	// Cutoff keeps the eigenvalues of K̃ above Cutoff·λ_max (zero:
	// DefaultKQMICutoff); only with Reg = "cutoff".
	Cutoff float64
	// MinClassRows is the number of rows every class needs (zero: 2).
	MinClassRows int
	Space        KernelSpace
	// Engine: the ridge route's default is spectral regression.
	Engine
}

const (
	// DefaultKQMIAlpha is the default ridge of KQMI relative to the mean
	// diagonal of K̃ (measured in docs/qmi.md).
	DefaultKQMIAlpha = 0.1
	// DefaultKQMICutoff is the default relative eigenvalue cut-off of
	// KQMI's "cutoff" regulariser (measured in docs/qmi.md).
	DefaultKQMICutoff = 3e-3
	// DefaultQMIMinClassRows is the default least number of rows per class
	// of KQMI, LQMI and AQMIDA.
	DefaultQMIMinClassRows = 2
)

// qmiLabels checks and compacts the labels of a QMI method and the
// requested dimension against C−1 (when capped); sp is a kernel method's
// space (nil for a linear method).
func qmiLabels(name string, sp *KernelSpace, x *mat.Dense, y []int, minRows, dims int, capC bool) (*mat.Dense, []int, int, error) {
	if dims < 0 {
		return nil, nil, 0, fmt.Errorf("%s: %d dimensions requested; must be ≥ 0 (0 = all)", name, dims)
	}
	lab := labelled
	if sp != nil {
		lab = sp.labelled
	}
	x, y, err := lab(name, x, y, minRows)
	if err != nil {
		var ce *graph.ClassSizeError
		if minRows > 1 && errors.As(err, &ce) {
			err = fmt.Errorf("%w (QMI's Parzen estimate of a class needs %d rows; set min_class=1 to accept smaller classes)", err, minRows)
		}
		return nil, nil, 0, err
	}
	c := classesPresent(y)
	if capC && dims > c-1 {
		return nil, nil, 0, dimsError(name, dims, c-1, "the QMI graph has rank C−1 = %d for %d classes", c-1, c)
	}
	return x, y, c, nil
}

// Params declares the parameters of KQMI.
func (m *KQMI) Params(s *param.Schema) {
	param.Enum(s, &m.Reg, "reg", "regulariser: ridge (K̃K̃ + αK̃ constraint) or cutoff (drop the eigenvalues of K̃ below cutoff·λmax)", param.Names("ridge", "cutoff")...)
	param.OptNum(s, &m.Alpha, "alpha", param.Set(DefaultKQMIAlpha), "ridge relative to the mean diagonal of K̃ (reg=ridge)", param.Min(0))
	param.Num(s, &m.Cutoff, "cutoff", DefaultKQMICutoff, "relative eigenvalue cut-off of K̃ (reg=cutoff)", param.Above(0), param.Below(1))
	minClassParam(s, &m.MinClassRows)
	kernelParams(s, &m.Kernel, kernel.RBFAuto())
	m.Space.Params(s)
	m.Engine.Params(s)
}

// minClassParam declares the least number of rows per class of a QMI
// method.
func minClassParam(s *param.Schema, p *int) {
	param.Num(s, p, "min_class", DefaultQMIMinClassRows, "least number of rows per class", param.Min(1))
}

// Fit implements Method.
func (m KQMI) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("kqmi", &m); err != nil {
		return nil, err
	}
	x, y, c, err := qmiLabels("kqmi", &m.Space, x, y, m.MinClassRows, dims, true)
	if err != nil {
		return nil, err
	}
	g, err := graph.QMI(y)
	if err != nil {
		return nil, fmt.Errorf("kqmi: %w", err)
	}
	n, _ := x.Dims()
	if m.Reg == "cutoff" {
		white, err := whitenedKPCA(KPCA{Kernel: m.Kernel, Space: m.Space, Engine: m.Engine}, x, m.Cutoff)
		if err != nil {
			return nil, fmt.Errorf("kqmi: %w", err)
		}
		z, err := white.Transform(x)
		if err != nil {
			return nil, fmt.Errorf("kqmi: %w", err)
		}
		prob := &embed.Problem{Space: embed.Linear{}, Objective: g, Constraint: graph.Identity(n),
			Dims: dims, MaxDims: c - 1, DropZero: true}
		m.Engine.apply(prob)
		f, err := fit("kqmi", prob, z)
		if err != nil {
			return nil, err
		}
		f.Model = embed.Compose(white, f.Model)
		return f, nil
	}
	prep, err := m.Space.prepare(m.ctx(), "kqmi", m.Kernel, x)
	if err != nil {
		return nil, err
	}
	alpha, _ := m.Alpha.Get()
	prob := &embed.Problem{Objective: g, Constraint: graph.Identity(n),
		Ridge: alpha * prep.Scale(), Dims: dims, MaxDims: c - 1, DropZero: true}
	return solve("kqmi", m.Engine, prob, prep)
}

// whitenedKPCA returns the kernel model x ↦ L_r⁻¹·P_rᵀ·k̃(x) over the
// eigenpairs (P_r, L_r) of K̃ with eigenvalue above cut·λ_max: on the
// training rows it gives P_r (orthonormal columns), so a linear problem with
// identity constraint on these features is Algorithm 1 of seed 000 with
// the spectrum cut at cut·λ_max. (The projections would be the same on
// unwhitened kernel-PCA coordinates, since the constraint is the total
// scatter of the features; whitening makes that scatter the identity, so
// the regression route's safeguard ridge is negligible.)
func whitenedKPCA(kp KPCA, x *mat.Dense, cut float64) (embed.Model, error) {
	f, err := kp.Fit(x, nil, 0)
	if err != nil {
		return nil, err
	}
	ft := f.(*Fitted)
	if len(ft.Values) == 0 {
		return nil, errors.New("kernel PCA step gave no directions")
	}
	r := 0
	for r < len(ft.Values) && ft.Values[r] > cut*ft.Values[0] {
		r++
	}
	scale := make([]float64, r)
	for j := range scale {
		scale[j] = 1 / math.Sqrt(ft.Values[j]) // KPCA gives uⱼ/√λⱼ; whitened: uⱼ/λⱼ
	}
	return embed.ScaleOutputs(ft.Model, scale)
}

// LQMI is linear quadratic mutual information (seed 000 eq. 28-29,
// Algorithm 2): with X̄ the centred training rows and M' the QMI graph,
//
//	max tr(Wᵀ·X̄ᵀ·M'·X̄·W) / tr(Wᵀ·(X̄ᵀ·X̄ + ε·I)·W),
//
// the generalized eigenproblem X̄ᵀM'X̄·v = γ·(X̄ᵀX̄ + εI)·v, and z = Wᵀ(x − μ).
// Since X̄ᵀ·M'·X̄ = Σ_c J_c²·m_c·m_cᵀ/n² (m_c the centred class means), LQMI
// is LDA with the between-class scatter weighting class c by J_c² instead
// of J_c (and the total scatter, not the within-class scatter, as
// constraint — which leaves LDA's directions unchanged); for balanced
// classes it is LDA. At most C−1 directions, each of unit length (‖w‖ = 1,
// as Algorithm 2 normalises them; norm=constraint keeps the engine's
// vᵀ(X̄ᵀX̄ + εI)v = 1 instead).
//
// Ridge ε is relative to the mean eigenvalue of X̄ᵀX̄ (tr/d). Unset means:
// none when X̄ᵀX̄ is nonsingular, DefaultLQMIRidge when it is singular
// (d ≥ n, or collinear columns); param.Set(0.0) means none in any case. With a ridge the default solver is
// spectral regression (exact here, as for KQMI: the solution lies in
// (X̄ᵀX̄ + εI)⁻¹·X̄ᵀ·span(Y)); without one it is the d×d dense generalized
// eigenproblem. Solver overrides the choice. With more columns than rows
// the problem is solved on the span of the rows (fitWide), never forming a
// d×d matrix.
type LQMI struct {
	Ridge        param.Opt[float64]
	MinClassRows int // zero: 2
	// Engine: Solver empty means dense without a ridge, regression with
	// one.
	Engine
}

// DefaultLQMIRidge is the relative ridge LQMI uses when X̄ᵀX̄ is singular.
const DefaultLQMIRidge = 1e-3

// Params declares the parameters of LQMI.
func (m *LQMI) Params(s *param.Schema) {
	param.OptNum(s, &m.Ridge, "ridge", param.Opt[float64]{}, "ridge relative to tr(X̄ᵀX̄)/d", param.Min(0),
		param.Auto(fmt.Sprintf("none, or %g when X̄ᵀX̄ is singular", DefaultLQMIRidge)))
	minClassParam(s, &m.MinClassRows)
	m.Engine.Params(s)
	s.SetDoc("solver", "route: auto (dense without a ridge, regression with one), regression (spectral regression) or dense (d×d generalized eigenproblem)")
}

// Fit implements Method.
func (m LQMI) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	if err := resolve("lqmi", &m); err != nil {
		return nil, err
	}
	x, y, c, err := qmiLabels("lqmi", nil, x, y, m.MinClassRows, dims, true)
	if err != nil {
		return nil, err
	}
	if n, d := x.Dims(); d > n {
		return m.fitWide(x, y, c, dims)
	}
	s, err := embed.ScatterOf(x, y, true)
	if err != nil {
		return nil, fmt.Errorf("lqmi: %w", err)
	}
	return m.fitScatter(s, c, dims)
}

// fitWide fits LQMI on more columns than rows without the d×d scatter
// matrices (20 000 columns: 3.2 GB each, and a d×d solve; 97 s and 13 GB
// for 300 rows): the same problem from the QMI graph and the identity on
// the rows, X̄ᵀ·M'·X̄ and X̄ᵀ·X̄ + ε·I, which the engine solves on the span
// of the rows (the regression route by its n-dimensional systems, the
// dense route in the rows' coordinates: embed's wide solve). X̄ᵀX̄ is
// singular here (rank ≤ n − 1 < d): the ridge defaults to
// DefaultLQMIRidge, relative to tr(X̄ᵀX̄)/d as in the scatter route.
func (m LQMI) fitWide(x *mat.Dense, y []int, c, dims int) (Model, error) {
	g, err := graph.QMI(y)
	if err != nil {
		return nil, fmt.Errorf("lqmi: %w", err)
	}
	n, d := x.Dims()
	// The centred rows once, for the ridge's scale and the solve.
	prep, err := embed.Linear{}.Prepare(m.ctx(), x)
	if err != nil {
		if m.ctx().Err() != nil {
			return nil, fmt.Errorf("lqmi: %w", err)
		}
		// x is finite (labelled checked it): the centred rows are zero.
		return nil, errors.New("lqmi: every training row is the same")
	}
	tr := prep.Scale() * float64(n) // tr(X̄ᵀX̄)
	ridge, set := m.Ridge.Get()
	if !set {
		ridge = DefaultLQMIRidge
	}
	prob := &embed.Problem{Objective: g, Constraint: graph.Identity(n),
		Ridge: ridge * tr / float64(d), Dims: dims, MaxDims: c - 1, DropZero: true, Norm: embed.NormUnit}
	if ridge == 0 {
		prob.Solver = embed.Dense // as fitScatter: no safeguard ridge
	}
	return solve("lqmi", m.Engine, prob, prep)
}

func init() {
	Register[KQMI](Info{
		Name: "kqmi", Title: "Kernel quadratic mutual information (graph-embedded QMI)", Family: "mutual information",
		Supervision: "supervised", Space: "kernel", Paper: "seed 000 (Bouzas et al. 2015), Algorithm 1",
		MaxDims: "C−1",
		Values:  "eigenvalues λ of the regularised K̃·M'·K̃·a = λ·K̃·K̃·a (eq. 24: the QMI graph's scatter over the kernel's), largest first",
	})
	Register[LQMI](Info{
		Name: "lqmi", Title: "Linear quadratic mutual information", Family: "mutual information",
		Supervision: "supervised", Space: "linear", Paper: "seed 000 (Bouzas et al. 2015), Algorithm 2",
		MaxDims: "C−1",
		Values:  "generalized eigenvalues γ of X̄ᵀM'X̄·v = γ·(X̄ᵀX̄ + εI)·v (the QMI graph's scatter over the total), largest first",
	})
}
