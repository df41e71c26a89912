// Package kernel holds the kernels of dimred (linear, polynomial,
// Gaussian/RBF, sigmoid and non-negative sums of kernels), blockwise
// parallel Gram matrices, and the centring of training and test Gram
// matrices in feature space.
package kernel

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/gemm"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/progress"
)

// Kernel is a positive semi-definite kernel k(x, y). The zero value is the
// linear kernel (but a method's Kernel field left zero means that method's
// default kernel, for most RBF with σ from the training rows: see the
// method's doc). It is a plain value so that fitted models can be saved as
// JSON.
//
//	linear:     k(x,y) = xᵀy
//	poly:       k(x,y) = (Gamma·xᵀy + Offset)^Degree      (Gamma 0 → 1, Degree 0 → 2)
//	rbf:        k(x,y) = exp(−‖x−y‖² / (2σ²))            (σ = Sigma)
//	            neither Sigma nor Gamma: σ chosen from the training rows (auto.go)
//	            or exp(−Gamma·‖x−y‖²) when Gamma is set   (Gamma = 1/(2σ²))
//	sigmoid:    k(x,y) = tanh(Gamma·xᵀy + Offset)         (Gamma 0 → 1; not PSD in general)
//	sum:        k(x,y) = Σ Weightsᵢ·Termsᵢ(x,y)            (weights ≥ 0)
//
// Note on conventions: seed 000 (eq. 12-14) writes its Parzen kernel as the
// Gaussian density N(xᵢ−xⱼ; 0, 2σ²I); the "RBF kernel with σ = 1" of its
// experiments is taken here as exp(−‖x−y‖²/(2σ²)) (scikit-learn's
// gamma = 1/(2σ²) = 0.5). Constant factors do not change the subspaces of
// the eigenproblems.
type Kernel struct {
	Type    string    `json:"type"`
	Sigma   float64   `json:"sigma,omitempty"`
	Gamma   float64   `json:"gamma,omitempty"`
	Degree  int       `json:"degree,omitempty"`
	Offset  float64   `json:"offset,omitempty"`
	Weights []float64 `json:"weights,omitempty"`
	Terms   []Kernel  `json:"terms,omitempty"`
}

// Linear returns the linear kernel.
func Linear() Kernel { return Kernel{Type: "linear"} }

// RBF returns the Gaussian kernel exp(−‖x−y‖²/(2σ²)).
func RBF(sigma float64) Kernel { return Kernel{Type: "rbf", Sigma: sigma} }

// Poly returns the polynomial kernel (xᵀy + offset)^degree.
func Poly(degree int, offset float64) Kernel {
	return Kernel{Type: "poly", Degree: degree, Offset: offset}
}

// Sum returns Σ wᵢ·kᵢ.
func Sum(weights []float64, terms ...Kernel) Kernel {
	return Kernel{Type: "sum", Weights: append([]float64(nil), weights...), Terms: terms}
}

// Validate checks the parameters and names the offending one.
func (k Kernel) Validate() error {
	if k.Type == "sum" {
		if len(k.Terms) == 0 || len(k.Weights) != len(k.Terms) {
			return fmt.Errorf("kernel sum: %d weights for %d terms; need one non-negative weight per term", len(k.Weights), len(k.Terms))
		}
		for i, w := range k.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return fmt.Errorf("kernel sum: weight %d is %v; weights must be finite and ≥ 0", i+1, w)
			}
			if err := k.Terms[i].Validate(); err != nil {
				return fmt.Errorf("kernel sum term %d: %w", i+1, err)
			}
		}
		return nil
	}
	kd, err := lookupKind(k.Type)
	if err != nil {
		return err
	}
	if kd.Validate != nil {
		return kd.Validate(k)
	}
	return nil
}

// Parse reads a kernel from a spec such as "linear", "rbf:sigma=1",
// "rbf:gamma=0.5", "poly:degree=3,offset=1", "sigmoid:gamma=0.01,offset=0".
func Parse(spec string) (Kernel, error) {
	name, args, _ := strings.Cut(strings.TrimSpace(spec), ":")
	k := Kernel{Type: strings.ToLower(name)}
	if kd, err := lookupKind(k.Type); err == nil {
		k.Type = kd.Name
		if kd.Defaults != nil {
			kd.Defaults(&k)
		}
	}
	if args != "" {
		given := map[string]bool{}
		for _, kv := range strings.Split(args, ",") {
			key, val, ok := strings.Cut(kv, "=")
			if !ok {
				return k, fmt.Errorf("kernel %q: parameter %q is not key=value", spec, kv)
			}
			given[strings.ToLower(strings.TrimSpace(key))] = true
			if given["sigma"] && given["gamma"] {
				return k, fmt.Errorf("kernel %q: sigma and gamma exclude each other (γ = 1/(2σ²)); give one", spec)
			}
			if err := k.Set(strings.TrimSpace(key), strings.TrimSpace(val)); err != nil {
				return k, fmt.Errorf("kernel %q: %w", spec, err)
			}
		}
	}
	return k, k.Validate()
}

// Set sets one parameter by name (sigma, gamma, degree, offset); a
// parameter that k's type does not use (sigma of a polynomial kernel) is
// an error.
func (k *Kernel) Set(key, val string) error {
	switch strings.ToLower(key) {
	case "sigma", "gamma", "degree", "offset", "coef0":
		if !Applies(k.Type, key) {
			return NotApplicable(k.Type, key)
		}
	}
	if strings.EqualFold(key, "sigma") && strings.EqualFold(val, "auto") {
		k.Sigma, k.Gamma = 0, 0
		return nil
	}
	f, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("parameter %s=%q is not a number", key, val)
	}
	switch strings.ToLower(key) {
	case "sigma":
		if !(f > 0) {
			return fmt.Errorf("parameter sigma must be > 0 (or auto), got %v", val)
		}
		k.Sigma, k.Gamma = f, 0
	case "gamma":
		if !(f > 0) {
			return fmt.Errorf("parameter gamma must be > 0, got %v", val)
		}
		k.Gamma = f
	case "degree":
		if f != math.Trunc(f) || f < 1 {
			return fmt.Errorf("parameter degree=%v must be a whole number ≥ 1", val)
		}
		k.Degree = int(f)
	case "offset", "coef0":
		k.Offset = f
	default:
		return fmt.Errorf("unknown kernel parameter %q (want sigma, gamma, degree, offset)", key)
	}
	return nil
}

// Eval returns k(x, y) directly from the definition (used in tests and for
// single pairs; Gram is the fast path). k must be valid.
func (k Kernel) Eval(x, y []float64) float64 {
	if k.Type == "sum" {
		s := 0.0
		for i, t := range k.Terms {
			s += k.Weights[i] * t.Eval(x, y)
		}
		return s
	}
	kd, err := lookupKind(k.Type)
	if err != nil {
		panic("kernel: Eval on invalid kernel: " + err.Error())
	}
	if k.IsAuto() {
		panic("kernel: Eval on rbf(sigma=auto): resolve the width first")
	}
	var xn, yn float64
	if kd.NeedsNorms {
		xn, yn = floats.Dot(x, x), floats.Dot(y, y)
	}
	return kd.Elementwise(k)(floats.Dot(x, y), xn, yn)
}

// blockRows is the row-block size of Gram computations. It is a constant
// (not derived from GOMAXPROCS) so that results are bit-identical whatever
// the number of workers.
const blockRows = 128

// Gram returns the kernel matrix G with G[i][j] = k(xᵢ, yⱼ) for the rows of
// x (n×d) and y (m×d); see GramContext.
func (k Kernel) Gram(x, y *mat.Dense) (*mat.Dense, error) {
	return k.GramContext(context.Background(), x, y)
}

// GramContext returns the kernel matrix G with G[i][j] = k(xᵢ, yⱼ) for the
// rows of x (n×d) and y (m×d). Blocks of rows are computed in parallel;
// inner products come from one matrix product per block, shared by the
// terms of a sum kernel. If y is nil, y = x: only the upper triangle is
// computed (half the work) and mirrored, so the result is exactly
// symmetric. It stops with ctx.Err() when ctx is cancelled, and reports
// its progress to ctx's reporter (progress.Start: orders of at least
// progress.MinOrder rows, a line per tenth at most every MinGap).
func (k Kernel) GramContext(ctx context.Context, x, y *mat.Dense) (*mat.Dense, error) {
	g, err := GramsContext(ctx, []Kernel{k}, x, y)
	if err != nil {
		return nil, err
	}
	return g[0], nil
}

// GramsContext returns the kernel matrix of every kernel in ks on the same
// rows (as GramContext, entry for entry), from one matrix product xᵢᵀyⱼ
// per block of rows shared by all of them: M kernels on the same rows cost
// one product instead of M (multiple-kernel methods, sum kernels).
func GramsContext(ctx context.Context, ks []Kernel, x, y *mat.Dense) ([]*mat.Dense, error) {
	if len(ks) == 0 {
		return nil, nil
	}
	var terms []gramTerm
	norms, distOnly := false, true
	for i, k := range ks {
		var err error
		if terms, norms, err = k.appendTerms(terms, norms, 1, i); err != nil {
			return nil, err
		}
		distOnly = distOnly && k.distanceOnly()
	}
	sym := y == nil
	if sym {
		y = x
	}
	n, d := x.Dims()
	m, dy := y.Dims()
	if d != dy {
		return nil, fmt.Errorf("kernel: rows have %d and %d columns", d, dy)
	}
	for _, in := range []*mat.Dense{x, y} {
		if err := data.CheckFinite("kernel: rows", in); err != nil {
			return nil, err
		}
	}
	if distOnly {
		// ‖x−y‖² = ‖x‖² + ‖y‖² − 2xᵀy loses every digit of a distance
		// that is small against the norms: rows far from the origin
		// (features offset by 1e6) would get Gaussian weights from
		// rounding. A kernel of distances alone does not change when
		// both sets move by the same vector, so such rows are centred
		// first; rows near the origin (every scaled data set) are used
		// as they are, bit for bit as before.
		if mu := farOffset(y); mu != nil {
			x = SubtractFromRows(x, mu)
			if sym {
				y = x
			} else {
				y = SubtractFromRows(y, mu)
			}
		}
	}
	var xn, yn []float64
	if norms {
		xn = rowSqNorms(x)
		yn = xn
		if !sym {
			yn = rowSqNorms(y)
		}
	}
	gs := make([]*mat.Dense, len(ks))
	for i := range gs {
		gs[i] = mat.NewDense(n, m, nil)
	}
	// One kernel that is not a sum maps the products in place; otherwise
	// each block's products go to a scratch block and every term adds
	// w·f(product) to its kernel's matrix, in the order of the terms.
	inPlace := len(terms) == 1 && terms[0].w == 1
	meter := progress.Start(ctx, n, "kernel matrix, %d×%d", n, m)
	var mu sync.Mutex
	// badAt[b] is the first non-finite entry of row block b ({-1, -1}:
	// none): a kernel that overflows for these rows (a polynomial of high
	// degree, rows of 1e200) is an error, not a matrix of Inf and NaN.
	badAt := make([][2]int, (n+blockRows-1)/blockRows)
	entries, total := 0.0, float64(n)*float64(m)
	if sym {
		total = float64(n) * float64(n+1) / 2
	}
	par.Blocks(n, blockRows, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		c0 := 0
		if sym {
			c0 = lo // upper triangle (and the diagonal block) only
		}
		defer func() { // the block's entries on and above the diagonal are done
			w := float64(hi-lo) * float64(m)
			if sym {
				w -= float64(hi-lo) * float64(lo+hi-1) / 2
			}
			mu.Lock()
			entries += w
			frac := entries / total
			mu.Unlock()
			meter.Done(frac)
		}()
		dots := gs[0].Slice(lo, hi, c0, m).(*mat.Dense)
		if !inPlace {
			dots = mat.NewDense(hi-lo, m-c0, nil)
		}
		gemm.MulTile(dots, x.Slice(lo, hi, 0, d), y.Slice(c0, m, 0, d).T())
		for i := lo; i < hi; i++ {
			dr := dots.RawRowView(i - lo)
			var a float64
			if xn != nil {
				a = xn[i]
			}
			for _, t := range terms {
				row := gs[t.out].RawRowView(i)[c0:]
				for j, v := range dr {
					var b float64
					if yn != nil {
						b = yn[c0+j]
					}
					if inPlace {
						row[j] = t.f(v, a, b)
					} else {
						row[j] += t.w * t.f(v, a, b)
					}
				}
			}
		}
		badAt[lo/blockRows] = [2]int{-1, -1}
		for _, g := range gs {
			for i := lo; i < hi; i++ {
				for j, v := range g.RawRowView(i)[c0:] {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						badAt[lo/blockRows] = [2]int{i, c0 + j}
						return
					}
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, at := range badAt {
		if at[0] >= 0 {
			return nil, fmt.Errorf("kernel %s: entry (%d, %d) is not finite: the kernel overflows for these rows; scale the data (or lower a polynomial's degree)", kernelNames(ks), at[0]+1, at[1]+1)
		}
	}
	if sym {
		for _, g := range gs {
			mirrorUpper(g)
		}
	}
	return gs, nil
}

// kernelNames describes ks for an error.
func kernelNames(ks []Kernel) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// gramTerm is one leaf kernel of a Gram computation: its elementwise map,
// the weight it carries in its sum (1 for a kernel that is not one) and the
// matrix it adds to.
type gramTerm struct {
	f   func(dot, xn, yn float64) float64
	w   float64
	out int
}

// distanceOnly reports whether k depends on its arguments only through
// their distance (an RBF kernel, or a sum of them).
func (k Kernel) distanceOnly() bool {
	if k.Type == "sum" {
		for _, t := range k.Terms {
			if !t.distanceOnly() {
				return false
			}
		}
		return len(k.Terms) > 0
	}
	kd, err := lookupKind(k.Type)
	return err == nil && kd.NeedsNorms
}

// farOffsetRatio is how far (squared, relative to the rows' mean squared
// spread about their mean) the mean of the rows must be from the origin
// before GramsContext centres them: the expansion's relative error on a
// typical distance is about ε·ratio, 2e-12 at this threshold.
const farOffsetRatio = 1e4

// farOffset returns the column means of y when they lie farther from the
// origin than farOffsetRatio times the rows' spread (nil otherwise).
func farOffset(y *mat.Dense) []float64 {
	m, d := y.Dims()
	if m == 0 {
		return nil
	}
	mu := make([]float64, d)
	for i := 0; i < m; i++ {
		for j, v := range y.RawRowView(i) {
			mu[j] += v
		}
	}
	mn := 0.0
	for j := range mu {
		mu[j] /= float64(m)
		mn += mu[j] * mu[j]
	}
	spread := 0.0
	for i := 0; i < m; i++ {
		for j, v := range y.RawRowView(i) {
			e := v - mu[j]
			spread += e * e
		}
	}
	spread /= float64(m)
	if !(mn > farOffsetRatio*spread) {
		return nil
	}
	return mu
}

// SubtractFromRows returns x with mu subtracted from every row (the
// centring of embed.CenterRows, and the shift of rows far from the
// origin here).
func SubtractFromRows(x *mat.Dense, mu []float64) *mat.Dense {
	r, c := x.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		dst := out.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			dst[j] = v - mu[j]
		}
	}
	return out
}

// appendTerms appends k's leaf kernels (a sum's terms, recursively, with
// their weights multiplied by w) to terms, all adding to matrix out, and
// reports whether any of them needs the squared norms.
func (k Kernel) appendTerms(terms []gramTerm, norms bool, w float64, out int) ([]gramTerm, bool, error) {
	if err := k.Validate(); err != nil {
		return nil, false, err
	}
	if k.IsAuto() {
		return nil, false, fmt.Errorf("kernel %s: the width is chosen from training rows; resolve it first (Kernel.Resolve)", k)
	}
	if k.Type == "sum" {
		for i, t := range k.Terms {
			var err error
			if terms, norms, err = t.appendTerms(terms, norms, w*k.Weights[i], out); err != nil {
				return nil, false, err
			}
		}
		return terms, norms, nil
	}
	kd, err := lookupKind(k.Type)
	if err != nil {
		return nil, false, err
	}
	return append(terms, gramTerm{f: kd.Elementwise(k), w: w, out: out}), norms || kd.NeedsNorms, nil
}

// mirrorUpper copies the upper triangle of the square matrix g into its
// lower triangle (row blocks in parallel).
func mirrorUpper(g *mat.Dense) {
	n, _ := g.Dims()
	par.Blocks(n, blockRows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := g.RawRowView(i)
			for j := 0; j < i; j++ {
				row[j] = g.At(j, i)
			}
		}
	})
}

func rowSqNorms(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	out := make([]float64, n)
	for i := range out {
		r := x.RawRowView(i)
		out[i] = floats.Dot(r, r)
	}
	return out
}

// Names lists the kernel types Parse accepts (registered kinds, plus
// "sum" for weighted sums built with Sum).
func Names() []string {
	var n []string
	for name := range kinds {
		n = append(n, name)
	}
	sort.Strings(n)
	return n
}
