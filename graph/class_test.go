package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/linalg"
)

// Tests of the class-block graphs (class.go) against dense formulas built
// here entry by entry, and of the scatter identities of LDA against the
// textbook sums over classes.

// clsLabels: 4 classes (sizes 5, 3, 6, 4) in shuffled order plus 3
// unlabeled rows.
var clsLabels = []int{2, 0, -1, 1, 2, 3, 0, 2, 1, 3, 0, -1, 2, 0, 3, 2, 1, 0, 2, 3, -1}

func clsRand(rng *rand.Rand, n, d int) *mat.Dense { return testdata.Normal(rng, n, d) }

func clsRandBlock(rng *rand.Rand, c int) *mat.SymDense {
	b := mat.NewSymDense(c, nil)
	for i := 0; i < c; i++ {
		for j := i; j < c; j++ {
			b.SetSym(i, j, rng.NormFloat64())
		}
	}
	return b
}

// clsDenseByFormula is G[i][j] = Block[yᵢ][yⱼ]·[yᵢ,yⱼ ≥ 0] + δᵢⱼ·Diag[i],
// written out entry by entry.
func clsDenseByFormula(y []int, block mat.Symmetric, diag []float64) *mat.Dense {
	n := len(y)
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := 0.0
			if y[i] >= 0 && y[j] >= 0 {
				v = block.At(y[i], y[j])
			}
			if i == j && diag != nil {
				v += diag[i]
			}
			g.Set(i, j, v)
		}
	}
	return g
}

func clsMaxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}

func clsMaxAbs(a mat.Matrix) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)))
		}
	}
	return d
}

// ClassBlock.Dense equals the entry formula, and Apply(M) equals G·M for a
// random M (to 1e-13 relative), with unlabeled rows, with and without a
// diagonal, and with an empty class (a block row no label uses). Apply
// must not modify M.
func TestClassBlockApplyEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(clsLabels)
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = rng.NormFloat64()
	}
	yEmpty := append([]int(nil), clsLabels...)
	for i, v := range yEmpty { // class 1 becomes empty; class 4 block unused
		if v == 1 {
			yEmpty[i] = 0
		}
	}
	for _, tc := range []struct {
		name string
		y    []int
		c    int
		diag []float64
	}{
		{"block only", clsLabels, 4, nil},
		{"block and diagonal", clsLabels, 4, diag},
		{"empty classes", yEmpty, 5, diag},
	} {
		g := &ClassBlock{Labels: tc.y, Block: clsRandBlock(rng, tc.c), Diag: tc.diag}
		want := clsDenseByFormula(tc.y, g.Block, tc.diag)
		if e := clsMaxAbsDiff(g.Dense(), want); e != 0 {
			t.Errorf("%s: Dense() differs from the entry formula by %g", tc.name, e)
		}
		if g.Size() != n {
			t.Errorf("%s: Size %d, want %d", tc.name, g.Size(), n)
		}
		for _, m := range []int{1, 3, 7} {
			x := clsRand(rng, n, m)
			orig := mat.DenseCopyOf(x)
			got := g.Apply(x)
			var ref mat.Dense
			ref.Mul(want, x)
			if r, c := got.Dims(); r != n || c != m {
				t.Fatalf("%s: Apply gave %d×%d, want %d×%d", tc.name, r, c, n, m)
			}
			if e := clsMaxAbsDiff(got, &ref); e > 1e-13*(1+clsMaxAbs(&ref)) {
				t.Errorf("%s, m=%d: Apply differs from G·M by %.3g", tc.name, m, e)
			}
			if !mat.Equal(x, orig) {
				t.Errorf("%s: Apply modified its argument", tc.name)
			}
			// Rows of unlabeled samples get only the diagonal term.
			for i, y := range tc.y {
				if y >= 0 {
					continue
				}
				for j := 0; j < m; j++ {
					w := 0.0
					if tc.diag != nil {
						w = tc.diag[i] * x.At(i, j)
					}
					if got.At(i, j) != w {
						t.Errorf("%s: unlabeled row %d column %d = %g, want %g", tc.name, i+1, j+1, got.At(i, j), w)
					}
				}
			}
		}
	}
}

// EigIndicatorSpan against the dense matrix: with a diagonal constant on
// each class, every returned pair is an eigenpair of the n×n dense G
// (residual ‖Gv − λv‖ ≤ 1e-12·‖G‖), the vectors are orthonormal, constant
// on each class and zero on unlabeled rows, and the values are the
// eigenvalues of the C×C matrix S[a][b] = √(n_a·n_b)·Block[a][b] + δ_ab·d_a
// (Eᵀ·G·E for the normalised indicators, written from the class counts),
// at the requested end of the spectrum; each value is also an eigenvalue
// of the dense G. A diagonal that varies inside a class is an error.
func TestEigIndicatorSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := len(clsLabels)
	counts := data.ClassCounts(clsLabels)
	perClass := []float64{0.5, -1, 2, 0.25}
	diag := make([]float64, n)
	for i, y := range clsLabels {
		if y >= 0 {
			diag[i] = perClass[y]
		} else {
			diag[i] = 3 * rng.NormFloat64() // unlabeled rows: anything
		}
	}
	for _, tc := range []struct {
		name string
		diag []float64
	}{{"no diagonal", nil}, {"diagonal constant per class", diag}} {
		g := &ClassBlock{Labels: clsLabels, Block: clsRandBlock(rng, 4), Diag: tc.diag}
		gd := clsDenseByFormula(clsLabels, g.Block, tc.diag)
		// The C×C matrix from the class counts.
		s := mat.NewSymDense(4, nil)
		for a := 0; a < 4; a++ {
			for b := a; b < 4; b++ {
				v := math.Sqrt(float64(counts[a]*counts[b])) * g.Block.At(a, b)
				if a == b && tc.diag != nil {
					v += perClass[a]
				}
				s.SetSym(a, b, v)
			}
		}
		var es mat.EigenSym
		if !es.Factorize(s, false) {
			t.Fatal("EigenSym failed")
		}
		small := es.Values(nil) // ascending
		var esn mat.EigenSym
		if !esn.Factorize(linalg.Symmetrize(gd), false) {
			t.Fatal("EigenSym failed")
		}
		full := esn.Values(nil)
		gnorm := mat.Norm(gd, 2)
		for _, tk := range []struct {
			k     int
			order linalg.Order
		}{{0, linalg.Largest}, {2, linalg.Largest}, {3, linalg.Smallest}} {
			vals, v, err := g.EigIndicatorSpan(tk.k, tk.order)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want := tk.k
			if want == 0 {
				want = 4
			}
			if r, c := v.Dims(); len(vals) != want || r != n || c != want {
				t.Fatalf("%s k=%d: %d values, %d×%d vectors; want %d", tc.name, tk.k, len(vals), r, c, want)
			}
			for j, lam := range vals {
				w := small[3-j]
				if tk.order == linalg.Smallest {
					w = small[j]
				}
				if math.Abs(lam-w) > 1e-12*(1+math.Abs(w)) {
					t.Errorf("%s k=%d: λ%d = %.15g, want %.15g", tc.name, tk.k, j+1, lam, w)
				}
				// An eigenvalue of the dense G as well.
				i := sort.SearchFloat64s(full, lam-1e-9)
				if i == len(full) || math.Abs(full[i]-lam) > 1e-9*(1+gnorm) {
					t.Errorf("%s: λ = %.15g is not an eigenvalue of the dense graph", tc.name, lam)
				}
				vj := mat.NewVecDense(n, mat.Col(nil, j, v))
				var gv mat.VecDense
				gv.MulVec(gd, vj)
				gv.AddScaledVec(&gv, -lam, vj)
				if r := mat.Norm(&gv, 2); r > 1e-12*gnorm {
					t.Errorf("%s: ‖Gv − λv‖ = %.3g for λ = %g", tc.name, r, lam)
				}
				// In the indicator span: constant on classes, zero on unlabeled rows.
				first := map[int]float64{}
				for i, y := range clsLabels {
					x := vj.AtVec(i)
					if y < 0 {
						if x != 0 {
							t.Errorf("%s: eigenvector %d is %g on unlabeled row %d", tc.name, j+1, x, i+1)
						}
						continue
					}
					if f, ok := first[y]; ok && math.Abs(f-x) > 1e-14 {
						t.Errorf("%s: eigenvector %d not constant on class %d (%g vs %g)", tc.name, j+1, y, f, x)
					} else if !ok {
						first[y] = x
					}
				}
			}
			var vtv mat.Dense
			vtv.Mul(v.T(), v)
			for a := 0; a < want; a++ {
				for b := 0; b < want; b++ {
					w := 0.0
					if a == b {
						w = 1
					}
					if math.Abs(vtv.At(a, b)-w) > 1e-13 {
						t.Errorf("%s: VᵀV[%d][%d] = %g", tc.name, a, b, vtv.At(a, b))
					}
				}
			}
		}
	}
	// A diagonal that varies inside a class breaks the invariance: error.
	bad := append([]float64(nil), diag...)
	bad[0] += 1 // row 1 is class 2
	g := &ClassBlock{Labels: clsLabels, Block: clsRandBlock(rng, 4), Diag: bad}
	if _, _, err := g.EigIndicatorSpan(0, linalg.Largest); err == nil || !strings.Contains(err.Error(), "constant on each class") {
		t.Errorf("varying diagonal: %v", err)
	}
	// No labelled rows: error, not a panic.
	g = &ClassBlock{Labels: []int{-1, -1, -1}, Block: mat.NewSymDense(1, []float64{1})}
	if _, _, err := g.EigIndicatorSpan(0, linalg.Largest); err == nil {
		t.Error("no labelled rows: no error")
	}
}

// clsScatters returns, by the textbook sums over the labelled rows,
// S_b = Σ_c n_c(μ_c−μ)(μ_c−μ)ᵀ and S_w = Σ_c Σ_{yᵢ=c}(xᵢ−μ_c)(xᵢ−μ_c)ᵀ
// (testdata.ClassScatters), S_t = Σᵢ(xᵢ−μ)(xᵢ−μ)ᵀ summed separately, and
// the labelled mean μ.
func clsScatters(x *mat.Dense, y []int) (sb, sw, st *mat.Dense, mu []float64) {
	sbs, sws := testdata.ClassScatters(x, y)
	n, d := x.Dims()
	mu = make([]float64, d)
	nl := 0.0
	for i := 0; i < n; i++ {
		if y[i] < 0 {
			continue
		}
		nl++
		for j := 0; j < d; j++ {
			mu[j] += x.At(i, j)
		}
	}
	for j := range mu {
		mu[j] /= nl
	}
	st = mat.NewDense(d, d, nil)
	for i := 0; i < n; i++ {
		if y[i] < 0 {
			continue
		}
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				st.Set(a, b, st.At(a, b)+(x.At(i, a)-mu[a])*(x.At(i, b)-mu[b]))
			}
		}
	}
	return mat.DenseCopyOf(sbs), mat.DenseCopyOf(sws), st, mu
}

func clsQuad(x *mat.Dense, g Operator) *mat.Dense {
	var out mat.Dense
	out.Mul(x.T(), g.Apply(x))
	return &out
}

// BetweenClass, WithinClass and ClassMeans against the textbook scatter
// sums (tolerance 1e-12 relative to ‖S_t‖): Xᵀ·BetweenClass·X = S_b and
// Xᵀ·WithinClass·X = S_w for uncentred X (the doc says any X), so that
// their sum is S_t; X̄ᵀ·ClassMeans·X̄ = S_b for X centred by the labelled
// mean; all over the labelled rows only. Checked on iris and on random
// shifted data with unlabeled rows (whose values must not matter: changing
// them leaves every scatter unchanged). BetweenClass is a projection of
// rank C−1 (its nonzero eigenvalues are 1).
func TestClassGraphsGiveScatterMatrices(t *testing.T) {
	ds, err := data.Load(testdata.Path(t, "data/uci/iris.arff"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	xr := clsRand(rng, len(clsLabels), 3)
	for i, y := range clsLabels {
		for j := 0; j < 3; j++ {
			xr.Set(i, j, xr.At(i, j)+10+float64(y*(j+1))) // far from centred
		}
	}
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		y    []int
	}{{"iris", ds.X, ds.Y}, {"random with unlabeled rows", xr, clsLabels}} {
		sb, sw, st, mu := clsScatters(tc.x, tc.y)
		tol := 1e-12 * clsMaxAbs(st)
		gotB := clsQuad(tc.x, BetweenClass(tc.y))
		gotW := clsQuad(tc.x, WithinClass(tc.y))
		if e := clsMaxAbsDiff(gotB, sb); e > tol {
			t.Errorf("%s: Xᵀ·BetweenClass·X differs from S_b by %.3g", tc.name, e)
		}
		if e := clsMaxAbsDiff(gotW, sw); e > tol {
			t.Errorf("%s: Xᵀ·WithinClass·X differs from S_w by %.3g", tc.name, e)
		}
		var sum mat.Dense
		sum.Add(gotB, gotW)
		if e := clsMaxAbsDiff(&sum, st); e > tol {
			t.Errorf("%s: S_b + S_w differs from S_t by %.3g", tc.name, e)
		}
		n, d := tc.x.Dims()
		xc := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				xc.Set(i, j, tc.x.At(i, j)-mu[j])
			}
		}
		if e := clsMaxAbsDiff(clsQuad(xc, ClassMeans(tc.y)), sb); e > tol {
			t.Errorf("%s: X̄ᵀ·ClassMeans·X̄ differs from S_b by %.3g", tc.name, e)
		}
		// Unlabeled rows do not matter.
		x2 := mat.DenseCopyOf(tc.x)
		changed := false
		for i, y := range tc.y {
			if y < 0 {
				for j := 0; j < d; j++ {
					x2.Set(i, j, 1e3*rng.NormFloat64())
				}
				changed = true
			}
		}
		if changed {
			if e := clsMaxAbsDiff(clsQuad(x2, BetweenClass(tc.y)), sb); e > tol {
				t.Errorf("%s: unlabeled rows change Xᵀ·BetweenClass·X by %.3g", tc.name, e)
			}
			if e := clsMaxAbsDiff(clsQuad(x2, WithinClass(tc.y)), sw); e > tol {
				t.Errorf("%s: unlabeled rows change Xᵀ·WithinClass·X by %.3g", tc.name, e)
			}
		}
		// BetweenClass is a projection of rank C−1.
		bd := BetweenClass(tc.y).Dense()
		var es mat.EigenSym
		es.Factorize(bd, false)
		ones := 0
		for _, v := range es.Values(nil) {
			switch {
			case math.Abs(v-1) < 1e-12:
				ones++
			case math.Abs(v) > 1e-12:
				t.Errorf("%s: BetweenClass has eigenvalue %g (want 0 or 1)", tc.name, v)
			}
		}
		if c := len(data.ClassCounts(tc.y)); ones != c-1 {
			t.Errorf("%s: BetweenClass has %d unit eigenvalues, want C−1 = %d", tc.name, ones, c-1)
		}
	}
}

// CheckLabels: every rule gives an error that names it and the value.
func TestCheckLabels(t *testing.T) {
	cases := []struct {
		name string
		y    []int
		n    int
		min  int
		want string // "" = valid
	}{
		{"valid", []int{0, 1, 0, 1, 2, 2}, 6, 2, ""},
		{"valid with unlabeled", []int{0, -1, 1, -1}, 4, 1, ""},
		{"valid, empty class index", []int{0, 2, 0, 2}, 4, 2, ""},
		{"length mismatch", []int{0, 1, 0}, 4, 1, "3 labels for 4 rows"},
		{"one class", []int{1, 1, 1, 1}, 4, 1, "1 class(es) present; a supervised method needs at least 2"},
		{"one class plus unlabeled", []int{0, -1, 0, -1}, 4, 1, "1 class(es)"},
		{"all unlabeled", []int{-1, -1}, 2, 1, "0 class(es)"},
		{"small class", []int{0, 0, 0, 1, 2, 2}, 6, 2, "class 1 has 1 rows, need at least 2"},
		{"label below −1", []int{0, 1, -2, 1}, 4, 1, "row 3 has label -2"},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			err := CheckLabels(c.y, c.n, c.min)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s: unexpected error %v", c.name, err)
			case c.want != "" && err == nil:
				t.Errorf("%s: no error", c.name)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
			}
		}()
	}
}

// A class with too few rows is a ClassSizeError naming its label; with
// the data set's class names NameClass names it in the whole message
// (the wrappers' text kept, the chain unwrapping to the original), as the
// command line and evaluate do (the CLI audit: "class 3 has 1 rows" for
// the class "merlot").
func TestNameClass(t *testing.T) {
	err := CheckLabels([]int{0, 0, 1, 2, 2}, 5, 2)
	var ce *ClassSizeError
	if !errors.As(err, &ce) || ce.Class != 1 || ce.Rows != 1 || ce.Need != 2 {
		t.Fatalf("CheckLabels: %v", err)
	}
	wrapped := fmt.Errorf("kqmi: %w (advice)", err)
	named := NameClass(fmt.Errorf("fold 2: %w", wrapped), []string{"barolo", "merlot", "grignolino"})
	if want := `fold 2: kqmi: labels: class "merlot" has 1 row, need at least 2 (advice)`; named.Error() != want || !errors.As(named, &ce) {
		t.Errorf("named: %q, want %q", named, want)
	}
	if NameClass(wrapped, nil) != wrapped || NameClass(errors.New("other"), []string{"a"}).Error() != "other" {
		t.Error("NameClass changed an error it cannot name")
	}
}
