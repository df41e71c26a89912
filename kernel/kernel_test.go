package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

func randMat(seed uint64, n, d int) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// Gram (blockwise, matrix products) equals the direct formula.
func TestGramMatchesDefinition(t *testing.T) {
	x := randMat(1, 300, 5) // more rows than one block
	y := randMat(2, 7, 5)
	cases := []Kernel{Linear(), RBF(1.3), {Type: "rbf", Gamma: 0.2}, Poly(3, 1), {Type: "sigmoid", Gamma: 0.1, Offset: -0.5},
		Sum([]float64{0.3, 0.7}, RBF(1), Poly(2, 0))}
	for _, k := range cases {
		g, err := k.Gram(x, y)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 300; i += 37 {
			for j := 0; j < 7; j++ {
				want := k.Eval(x.RawRowView(i), y.RawRowView(j))
				if math.Abs(g.At(i, j)-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%s: G[%d][%d] = %g, want %g", k, i, j, g.At(i, j), want)
				}
			}
		}
	}
}

// The RBF convention: exp(−‖x−y‖²/(2σ²)), and gamma = 1/(2σ²).
func TestRBFConvention(t *testing.T) {
	a, b := []float64{0, 0}, []float64{3, 4} // ‖a−b‖² = 25
	if got, want := RBF(2).Eval(a, b), math.Exp(-25.0/8); math.Abs(got-want) > 1e-15 {
		t.Fatalf("rbf σ=2: %g, want %g", got, want)
	}
	if got, want := (Kernel{Type: "rbf", Gamma: 0.125}).Eval(a, b), math.Exp(-25.0/8); math.Abs(got-want) > 1e-15 {
		t.Fatalf("rbf γ=1/8: %g, want %g", got, want)
	}
	k, err := Parse("rbf:sigma=2")
	if err != nil || k.Sigma != 2 {
		t.Fatalf("Parse: %v %v", k, err)
	}
}

func TestCentering(t *testing.T) {
	x := randMat(3, 40, 3)
	xt := randMat(4, 9, 3)
	k := RBF(1)
	g, _ := k.Gram(x, nil)
	raw := mat.DenseCopyOf(g)
	c, err := CenterGram(g)
	if err != nil {
		t.Fatal(err)
	}
	// H·K·H directly.
	n := 40
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -1.0 / float64(n)
			if i == j {
				v += 1
			}
			h.Set(i, j, v)
		}
	}
	var hk, hkh mat.Dense
	hk.Mul(h, raw)
	hkh.Mul(&hk, h)
	if !mat.EqualApprox(&hkh, g, 1e-12) {
		t.Fatal("CenterGram differs from H·K·H")
	}
	// Centring the training rows as test rows reproduces K̃.
	again := mat.DenseCopyOf(raw)
	if err := c.CenterRows(again); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(again, g, 1e-12) {
		t.Fatal("CenterRows on the training rows differs from CenterGram")
	}
	// Test rows: φ(x) − mean φ, inner products with centred training φ —
	// checked with the linear kernel where φ(x) = x.
	lg, _ := Linear().Gram(x, nil)
	lc, _ := CenterGram(lg)
	kt, _ := Linear().Gram(xt, x)
	if err := lc.CenterRows(kt); err != nil {
		t.Fatal(err)
	}
	mu := make([]float64, 3)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			mu[j] += x.At(i, j) / float64(n)
		}
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < n; j++ {
			want := 0.0
			for c := 0; c < 3; c++ {
				want += (xt.At(i, c) - mu[c]) * (x.At(j, c) - mu[c])
			}
			if math.Abs(kt.At(i, j)-want) > 1e-12 {
				t.Fatalf("centred test kernel (%d,%d) = %g, want %g", i, j, kt.At(i, j), want)
			}
		}
	}
}

func TestGramDeterministicAcrossGOMAXPROCS(t *testing.T) {
	x := randMat(5, 500, 20)
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	g1, _ := RBF(1).Gram(x, nil)
	runtime.GOMAXPROCS(4)
	g4, _ := RBF(1).Gram(x, nil)
	if !mat.Equal(g1, g4) {
		t.Fatal("Gram differs between GOMAXPROCS=1 and 4")
	}
}

func TestKernelBadInput(t *testing.T) {
	for _, spec := range []string{"rbf:sigma=0", "rbf:sigma=-1", "rbf:sigma=x", "poly:degree=1.5", "bogus", "rbf:foo=1", "rbf:sigma"} {
		if _, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) accepted", spec)
		}
	}
	// A parameter the kernel would ignore is refused, naming what it takes.
	for spec, want := range map[string]string{
		"poly:sigma=1":     "parameter sigma does not apply to the poly kernel, which takes only gamma, degree, offset",
		"linear:degree=3":  "parameter degree does not apply to the linear kernel, which takes no parameters",
		"rbf:offset=1":     "parameter offset does not apply to the rbf kernel, which takes only sigma, gamma",
		"sigmoid:degree=2": "parameter degree does not apply to the sigmoid kernel",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", spec, err, want)
		}
	}
	for _, spec := range []string{"poly:gamma=2,degree=3,offset=1", "poly:coef0=1", "sigmoid:gamma=0.1,offset=-1", "gaussian:gamma=0.5"} {
		if _, err := Parse(spec); err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
		}
	}
	if _, err := Sum([]float64{-1}, RBF(1)).Gram(randMat(1, 3, 2), nil); err == nil {
		t.Error("negative sum weight accepted")
	}
	// Fewer weights than terms: an error, and String (which error messages
	// call) does not index past the weights (the library audit: a panic).
	short := Kernel{Type: "sum", Weights: []float64{1}, Terms: []Kernel{RBF(1), Linear()}}
	if err := short.Validate(); err == nil {
		t.Error("a sum with 1 weight for 2 terms validates")
	}
	if s := short.String(); !strings.Contains(s, "?*linear") {
		t.Errorf("String of a sum short of weights: %q", s)
	}
	if _, err := RBF(1).Gram(randMat(1, 3, 2), randMat(1, 3, 3)); err == nil {
		t.Error("column mismatch accepted")
	}
	// NaN in, or a kernel that overflows: an error, not a matrix of NaN
	// and Inf (the library audit).
	nan := randMat(2, 5, 3)
	nan.Set(3, 1, math.NaN())
	if _, err := RBF(1).Gram(randMat(1, 4, 3), nan); err == nil || !strings.Contains(err.Error(), "row 4, column 2 is NaN") {
		t.Errorf("NaN row: %v", err)
	}
	big := randMat(3, 6, 2)
	big.Scale(1e200, big)
	for _, k := range []Kernel{Linear(), Poly(2, 1)} {
		if _, err := k.Gram(big, nil); err == nil || !strings.Contains(err.Error(), "is not finite: the kernel overflows") {
			t.Errorf("%s of rows of 1e200: %v", k, err)
		}
	}
	x := randMat(4, 6, 2)
	x.Scale(10, x)
	if _, err := Poly(1000, 1).Gram(x, nil); err == nil || !strings.Contains(err.Error(), "poly(degree=1000,offset=1)") {
		t.Errorf("degree 1000: %v", err)
	}
}

// GramsContext computes several kernels from one product per block: every
// matrix equals its kernel's definition (Eval), and equals GramContext of
// that kernel alone exactly, for a square and a rectangular pair of row
// sets spanning several blocks; nested sums multiply their weights.
func TestGramsShareProducts(t *testing.T) {
	x := randMat(7, 300, 6)
	y := randMat(8, 150, 6)
	nested := Sum([]float64{0.5, 2}, Sum([]float64{0.3, 0.7}, RBF(1), Linear()), Poly(2, 1))
	ks := []Kernel{Linear(), Poly(2, 1), RBF(0.8), {Type: "sigmoid", Gamma: 0.1, Offset: -0.5}, nested}
	for _, yy := range []*mat.Dense{nil, y} {
		gs, err := GramsContext(context.Background(), ks, x, yy)
		if err != nil {
			t.Fatal(err)
		}
		other := yy
		if yy == nil {
			other = x
		}
		m, _ := other.Dims()
		for i, k := range ks {
			alone, err := k.Gram(x, yy)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(gs[i], alone) {
				t.Errorf("%s: GramsContext differs from GramContext", k)
			}
			for r := 0; r < 300; r += 23 {
				for c := 0; c < m; c += 11 {
					want := k.Eval(x.RawRowView(r), other.RawRowView(c))
					if got := gs[i].At(r, c); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("%s: G[%d][%d] = %g, want %g", k, r, c, got, want)
					}
				}
			}
		}
	}
	if _, err := GramsContext(context.Background(), []Kernel{Linear(), RBFAuto()}, x, nil); err == nil || !strings.Contains(err.Error(), "resolve it first") {
		t.Errorf("unresolved width: %v", err)
	}
}

// GramContext reports the share of entries done at order
// progress.MinOrder (lines with rising percentages, under 100), the
// symmetric form counting the upper triangle only, and its matrix is the
// one computed without a reporter; a cancelled context stops it.
func TestGramReportsProgress(t *testing.T) {
	old := progress.MinGap
	progress.MinGap = 0
	t.Cleanup(func() { progress.MinGap = old })
	n := progress.MinOrder
	x := mat.NewDense(n, 3, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = float64(i%17) / 17
	}
	y := mat.DenseCopyOf(x.Slice(0, 700, 0, 3))
	for _, tc := range []struct {
		name string
		y    *mat.Dense
		cols int
	}{{"symmetric", nil, n}, {"cross", y, 700}} {
		want, err := RBF(1).Gram(x, tc.y)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var lines []string
		ctx := progress.With(context.Background(), func(s string) {
			mu.Lock()
			lines = append(lines, s)
			mu.Unlock()
		})
		got, err := RBF(1).GramContext(ctx, x, tc.y)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("%s: the matrix differs with a reporter", tc.name)
		}
		prefix := fmt.Sprintf("kernel matrix, %d×%d, ", n, tc.cols)
		last := 0
		for _, s := range lines {
			var pct int
			if !strings.HasPrefix(s, prefix) {
				t.Fatalf("%s: line %q, want the prefix %q", tc.name, s, prefix)
			}
			if _, err := fmt.Sscan(s[len(prefix):], &pct); err != nil || pct <= last || pct >= 100 {
				t.Fatalf("%s: line %q after %d %%", tc.name, s, last)
			}
			last = pct
		}
		if last < 80 {
			t.Errorf("%s: the last line says %d %%, lines %q", tc.name, last, lines)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RBF(1).GramContext(ctx, x, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// Rows far from the origin: the expansion ‖x‖² + ‖y‖² − 2xᵀy would leave
// rounding of order ε·‖x‖² in every distance (the library audit: GDA off
// by 0.17 % at an offset of 1e6, KPCA's subspace 70° away at 1e8). An RBF
// Gram is translation-invariant, so the rows are centred first; a kernel
// that is not (linear, poly, or a sum with one) is computed as it is.
func TestGramOfRowsFarFromTheOrigin(t *testing.T) {
	x := randMat(7, 40, 3)
	y := randMat(8, 25, 3)
	shift := func(m *mat.Dense, by float64) *mat.Dense {
		out := mat.DenseCopyOf(m)
		r, c := out.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				out.Set(i, j, out.At(i, j)+by*float64(j+1))
			}
		}
		return out
	}
	// The definition from differences (Eval, like the Gram, expands).
	rbfDef := func(a, b []float64, sigma float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Exp(-s / (2 * sigma * sigma))
	}
	for _, by := range []float64{1e6, 1e8} {
		xs, ys := shift(x, by), shift(y, by)
		for _, pair := range [][2]*mat.Dense{{xs, nil}, {xs, ys}} {
			g, err := RBF(0.7).Gram(pair[0], pair[1])
			if err != nil {
				t.Fatal(err)
			}
			ref := pair[1]
			if ref == nil {
				ref = pair[0]
			}
			r, c := g.Dims()
			worst := 0.0
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					worst = math.Max(worst, math.Abs(g.At(i, j)-rbfDef(pair[0].RawRowView(i), ref.RawRowView(j), 0.7)))
				}
			}
			if worst > 1e-12 {
				t.Errorf("offset %g: RBF Gram off the definition by %g", by, worst)
			}
		}
	}
	// Near the origin nothing is shifted: the Gram is the expansion's,
	// bit for bit as before.
	if farOffset(x) != nil {
		t.Error("rows near the origin were shifted")
	}
	// A sum with a linear term is not translation-invariant: not shifted,
	// so its linear part stays xᵀy.
	xs := shift(x, 1e3)
	g, err := Sum([]float64{1, 1}, RBF(1), Linear()).Gram(xs, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := xs.RawRowView(0), xs.RawRowView(1)
	want := rbfDef(a, b, 1) + floats.Dot(a, b)
	if math.Abs(g.At(0, 1)-want) > 1e-12*math.Abs(want) {
		t.Errorf("sum kernel: %v, want %v", g.At(0, 1), want)
	}
}
