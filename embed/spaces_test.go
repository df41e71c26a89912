package embed

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
)

// Tests of the Nyström, precomputed and multiple-kernel spaces against the
// exact kernel space, which is their reference: each must reproduce it
// where the theory says it is exact.

func spacesData(t *testing.T) (*mat.Dense, []int, *mat.Dense) {
	t.Helper()
	x, y := engIris(t)
	rng := rand.New(rand.NewPCG(7, 8))
	xn := mat.DenseCopyOf(x.Slice(0, 30, 0, 4))
	for i := 0; i < 30; i++ {
		for j := 0; j < 4; j++ {
			xn.Set(i, j, xn.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	return x, y, xn
}

func gdaProblem(sp Space, y []int, ridge float64) *Problem {
	return &Problem{Space: sp, Objective: graph.BetweenClass(y), Constraint: graph.Identity(len(y)),
		Ridge: ridge, MaxDims: 2, DropZero: true}
}

func fitTransform(t *testing.T, p *Problem, x, xn *mat.Dense) (*Result, *mat.Dense) {
	t.Helper()
	r, err := p.Fit(x)
	if err != nil {
		t.Fatalf("%s: %v", p.Space.Name(), err)
	}
	z, err := r.Model.Transform(xn)
	if err != nil {
		t.Fatal(err)
	}
	return r, z
}

// With every row a landmark the Nyström space is the kernel space: the
// same GDA problem (same absolute ridge) gives the same embedding of new
// rows (principal angles < 1e-6) and the same eigenvalues (1e-8 relative),
// by the regression route and by the dense route. With fewer landmarks the
// kernel approximation error ‖K̃ − FFᵀ‖/‖K̃‖ shrinks as m grows.
func TestNystromFullEqualsKernel(t *testing.T) {
	x, y, xn := spacesData(t)
	k := kernel.RBF(1.2)
	for _, s := range []Solver{Regression, Dense} {
		pk := gdaProblem(Kernel{K: k}, y, 0.05)
		pk.Solver = s
		rk, zk := fitTransform(t, pk, x, xn)
		for _, samp := range []string{Uniform, KMeansPP} {
			pn := gdaProblem(Nystrom{K: k, Landmarks: 150, Sampling: samp, Seed: 3}, y, 0.05)
			pn.Solver = s
			rn, zn := fitTransform(t, pn, x, xn)
			if a := engMaxAngle(t, zk, zn); a > 1e-6 {
				t.Errorf("%s %s: Nyström with m = n differs from the kernel space by %.3g rad", s, samp, a)
			}
			for j := range rk.Values {
				if d := math.Abs(rk.Values[j]-rn.Values[j]) / math.Abs(rk.Values[0]); d > 1e-8 {
					t.Errorf("%s %s: value %d: %v vs %v", s, samp, j, rn.Values[j], rk.Values[j])
				}
			}
			if _, ok := rn.Model.(*NystromModel); !ok {
				t.Errorf("Nyström fit gave a %T", rn.Model)
			}
		}
	}
	// Approximation error decreases with m.
	kp, err := Kernel{K: k}.Prepare(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	for _, m := range []int{5, 20, 80} {
		np, err := Nystrom{K: k, Landmarks: m, Sampling: KMeansPP, Seed: 1}.Prepare(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		var ffT mat.Dense
		ffT.Mul(np.Phi, np.Phi.T())
		e := engMaxAbsDiff(&ffT, kp.Phi) / engMaxAbs(kp.Phi)
		t.Logf("m = %d: max |K̃ − FFᵀ| / max |K̃| = %.3g", m, e)
		if e >= prev {
			t.Errorf("m = %d: approximation error %.3g did not decrease (was %.3g)", m, e, prev)
		}
		prev = e
	}
}

// Same seed, same landmarks and bits; another seed, other landmarks.
func TestNystromSeeded(t *testing.T) {
	x, y, xn := spacesData(t)
	fit := func(seed uint64, samp string) *mat.Dense {
		_, z := fitTransform(t, gdaProblem(Nystrom{K: kernel.RBF(1), Landmarks: 20, Sampling: samp, Seed: seed}, y, 0.1), x, xn)
		return z
	}
	for _, samp := range []string{Uniform, KMeansPP} {
		if !engBitEqual(fit(4, samp), fit(4, samp)) {
			t.Errorf("%s: same seed, different output", samp)
		}
		if engBitEqual(fit(4, samp), fit(5, samp)) {
			t.Errorf("%s: different seeds, identical output", samp)
		}
	}
}

// The precomputed space given K = k(X, X) and test rows k(Xnew, X) equals
// the kernel space (1e-10 relative); a non-square or asymmetric input is
// an error naming the rule.
func TestPrecomputedEqualsKernel(t *testing.T) {
	x, y, xn := spacesData(t)
	k := kernel.Poly(2, 1)
	_, zk := fitTransform(t, gdaProblem(Kernel{K: k}, y, 0.1), x, xn)
	g, _ := k.Gram(x, nil)
	gn, _ := k.Gram(xn, x)
	_, zp := fitTransform(t, gdaProblem(Precomputed{}, y, 0.1), g, gn)
	if d := engMaxAbsDiff(zk, zp) / engMaxAbs(zk); d > 1e-10 {
		t.Errorf("precomputed differs from the kernel space by %.3g (relative)", d)
	}
	bad := mat.DenseCopyOf(g)
	bad.Set(0, 1, bad.At(0, 1)+1)
	for _, c := range []struct {
		in   *mat.Dense
		want string
	}{{x, "n×n Gram matrix"}, {bad, "not symmetric"}} {
		if _, err := gdaProblem(Precomputed{}, y, 0.1).Fit(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("precomputed: error %v, want %q", err, c.want)
		}
	}
}

// MultiKernel with weights β equals the kernel space of Σ βₘkₘ (bases
// computed once; Combine re-weights them) to 1e-9 relative (the centred
// Gram matrices agree to rounding, ~1e-15; the regression with ridge 0.1
// amplifies that by its condition number, ~1e4), and its model
// is a kernel model of the sum kernel. Invalid weights are errors.
func TestMultiKernelEqualsSumKernel(t *testing.T) {
	x, y, xn := spacesData(t)
	ks := []kernel.Kernel{kernel.RBF(0.7), kernel.Poly(2, 1), kernel.Linear()}
	b, err := NewKernelBases(context.Background(), ks, x)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range [][]float64{{1, 0, 0}, {0.2, 0.5, 0.3}, {0, 0, 2}} {
		_, zs := fitTransform(t, gdaProblem(Kernel{K: kernel.Sum(w, ks...)}, y, 0.1), x, xn)
		prep, err := b.Combine(w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := gdaProblem(nil, y, 0.1).Solve(prep)
		if err != nil {
			t.Fatal(err)
		}
		zm, err := r.Model.Transform(xn)
		if err != nil {
			t.Fatal(err)
		}
		if d := engMaxAbsDiff(zs, zm) / engMaxAbs(zs); d > 1e-9 {
			t.Errorf("weights %v: combined bases differ from the sum kernel by %.3g", w, d)
		}
		_, zp := fitTransform(t, gdaProblem(MultiKernel{Kernels: ks, Weights: w}, y, 0.1), x, xn)
		if d := engMaxAbsDiff(zs, zp) / engMaxAbs(zs); d > 1e-9 {
			t.Errorf("weights %v: MultiKernel space differs from the sum kernel by %.3g", w, d)
		}
	}
	for _, w := range [][]float64{{1, 1}, {0, 0, 0}, {1, -1, 1}, {1, math.NaN(), 1}} {
		if _, err := b.Combine(w); err == nil {
			t.Errorf("weights %v accepted", w)
		}
	}
}

// Nyström and precomputed models survive a JSON round trip bit for bit;
// corrupt objects are errors naming what is wrong.
func TestNewModelKindsJSON(t *testing.T) {
	x, y, xn := spacesData(t)
	g, _ := kernel.RBF(1).Gram(x, nil)
	gn, _ := kernel.RBF(1).Gram(xn, x)
	rn, zn := fitTransform(t, gdaProblem(Nystrom{K: kernel.RBF(1), Landmarks: 30}, y, 0.1), x, xn)
	rp, zp := fitTransform(t, gdaProblem(Precomputed{}, y, 0.1), g, gn)
	for _, c := range []struct {
		name string
		m    Model
		in   *mat.Dense
		z    *mat.Dense
	}{{"nystrom", rn.Model, xn, zn}, {"precomputed", rp.Model, gn, zp}} {
		b, err := MarshalModel(c.m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := UnmarshalModel(b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		z2, err := m2.Transform(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if !engBitEqual(c.z, z2) {
			t.Errorf("%s: round trip changed the transform", c.name)
		}
		tr, err := Truncate(m2, 1)
		if err != nil || tr.Dims() != 1 {
			t.Errorf("%s: truncate: %v", c.name, err)
		}
		var e map[string]any
		_ = json.Unmarshal(b, &e)
		e["w"] = map[string]any{"rows": 2, "cols": 1, "data": []float64{1, 2}}
		bad, _ := json.Marshal(e)
		if _, err := UnmarshalModel(bad); err == nil {
			t.Errorf("%s: inconsistent coefficients accepted", c.name)
		}
	}
}

// The prepared representation is computed once and serves several
// problems: solving GDA and KPCA on one Prepared equals fitting each from
// the rows.
func TestPreparedReuse(t *testing.T) {
	x, y, xn := spacesData(t)
	sp := Kernel{K: kernel.RBF(1)}
	prep, err := sp.Prepare(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Problem{gdaProblem(sp, y, 0.1), {Space: sp, Objective: graph.Identity(150), Dims: 3}} {
		_, want := fitTransform(t, p, x, xn)
		r, err := p.Solve(prep)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := r.Model.Transform(xn)
		if !engBitEqual(got, want) {
			t.Errorf("solve on a shared Prepared differs from Fit (max %.3g)", engMaxAbsDiff(got, want))
		}
	}
	if s := prep.Scale(); !(s > 0) {
		t.Errorf("scale %v", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sp.Prepare(ctx, x); err == nil {
		t.Error("Prepare ran with a cancelled context")
	}
}

// LandmarkRows gives the rows Prepare takes as landmarks (from the row
// count alone, for a multi-pass pipeline), and NewNystromModel folds a
// linear model on the features into the model Prepare builds: the same
// transform of new rows; mismatched shapes and D² sampling are errors.
func TestNystromLandmarkRowsAndFold(t *testing.T) {
	x, _, xn := spacesData(t)
	n, d := x.Dims()
	sp := Nystrom{K: kernel.RBF(1), Landmarks: 15, Seed: 11}
	prep, err := sp.Prepare(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	r, q := prep.Phi.Dims()
	w := mat.NewDense(q, 2, nil)
	for i := 0; i < q; i++ {
		w.Set(i, 0, float64(i+1))
		w.Set(i, 1, math.Sin(float64(i)))
	}
	want := prep.Build(w).(*NystromModel)
	rows, err := sp.LandmarkRows(n)
	if err != nil {
		t.Fatal(err)
	}
	lm := mat.NewDense(len(rows), d, nil)
	for i, k := range rows {
		lm.SetRow(i, x.RawRowView(k))
	}
	if !mat.Equal(lm, want.Landmarks) {
		t.Fatalf("LandmarkRows %v are not the landmarks Prepare took", rows)
	}
	tm, err := NystromMap(context.Background(), sp.K, lm)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NystromFeatures(context.Background(), sp.K, lm, tm, x)
	if err != nil {
		t.Fatal(err)
	}
	if fr, fq := f.Dims(); fr != r || fq != q {
		t.Fatalf("features %d×%d, Prepare's %d×%d", fr, fq, r, q)
	}
	got, err := NewNystromModel(sp.K, lm, tm, &LinearModel{Mean: ColMeans(f), W: w})
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := want.Transform(xn)
	zg, _ := got.Transform(xn)
	var diff mat.Dense
	diff.Sub(zg, zw)
	if rel := mat.Norm(&diff, math.Inf(1)) / mat.Norm(zw, math.Inf(1)); rel > 1e-12 {
		t.Errorf("folded model differs from Prepare's by %.3g (relative)", rel)
	}
	if _, err := NewNystromModel(sp.K, lm, tm, &LinearModel{Mean: make([]float64, q+1), W: w}); err == nil || !strings.Contains(err.Error(), "want a 15×r map") {
		t.Errorf("mismatched mean: %v", err)
	}
	if _, err := (Nystrom{K: kernel.RBF(1), Landmarks: 15, Sampling: KMeansPP}).LandmarkRows(n); err == nil || !strings.Contains(err.Error(), "needs every row") {
		t.Errorf("kmeans++: %v", err)
	}
	if _, err := sp.LandmarkRows(0); err == nil {
		t.Error("0 rows: no error")
	}
}

// Precomputed.Cols: fitting on the rows K[cols, all] with those columns
// named equals fitting on K[cols, cols] (bit for bit), the model reads
// new points' kernel values with all the columns and takes only cols
// (equal to the plain model on the selected columns), survives a JSON
// round trip with its columns, and bad columns are errors.
func TestPrecomputedCols(t *testing.T) {
	x, y, xn := spacesData(t)
	k := kernel.RBF(1)
	g, _ := k.Gram(x, nil)
	gn, _ := k.Gram(xn, x)
	var cols []int
	var yc []int
	for i := range y {
		if i%3 != 1 {
			cols = append(cols, i)
			yc = append(yc, y[i])
		}
	}
	rows := (&data.Dataset{X: g, Y: y}).Subset(cols).X // K[cols, all]
	_, want := fitTransform(t, gdaProblem(Precomputed{}, yc, 0.1), data.Columns(rows, cols), data.Columns(gn, cols))
	r, got := fitTransform(t, gdaProblem(Precomputed{Cols: cols}, yc, 0.1), rows, gn)
	if !engBitEqual(got, want) {
		t.Errorf("named columns differ from the selected matrix by %.3g", engMaxAbsDiff(got, want))
	}
	if in := r.Model.InDims(); in != 150 {
		t.Errorf("InDims %d, want the 150 columns of the input", in)
	}
	if _, err := r.Model.Transform(data.Columns(gn, cols)); err == nil || !strings.Contains(err.Error(), "150") {
		t.Errorf("kernel values with the kept columns only: error %v", err)
	}
	b, err := MarshalModel(r.Model)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := UnmarshalModel(b)
	if err != nil {
		t.Fatal(err)
	}
	z2, err := m2.Transform(gn)
	if err != nil || !engBitEqual(z2, got) {
		t.Errorf("round trip: %v", err)
	}
	for _, m := range []func() (Model, error){
		func() (Model, error) { return Truncate(m2, 1) },
		func() (Model, error) { return ScaleOutputs(m2, []float64{2}) },
	} {
		m3, err := m()
		if err != nil {
			t.Fatal(err)
		}
		z3, err := m3.Transform(gn)
		if err != nil || m3.InDims() != 150 || math.Abs(z3.At(0, 0)) == 0 {
			t.Errorf("truncated or scaled model: InDims %d, %v", m3.InDims(), err)
		}
	}
	var e map[string]any
	_ = json.Unmarshal(b, &e)
	e["cols"] = append([]any{float64(cols[1])}, e["cols"].([]any)[1:]...)
	bad, _ := json.Marshal(e)
	if _, err := UnmarshalModel(bad); err == nil || !strings.Contains(err.Error(), "must increase") {
		t.Errorf("decreasing columns: error %v", err)
	}
	for _, c := range []struct {
		cols []int
		want string
	}{{cols[:10], "10 training columns named for 100 rows"}, {append(append([]int{}, cols[:99]...), 150), "must increase within 0..149"}} {
		if _, err := gdaProblem(Precomputed{Cols: c.cols}, yc, 0.1).Fit(rows); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cols %v…: error %v, want %q", c.cols[:3], err, c.want)
		}
	}
}

// A model file whose RBF kernel has no width (sigma 0, auto: a fit
// resolves it before saving) is refused at load, for kernel and Nyström
// models (the library audit: it loaded, and every transform failed).
func TestSavedKernelNeedsWidth(t *testing.T) {
	x, y, _ := spacesData(t)
	for _, sp := range []Space{Kernel{K: kernel.RBF(1)}, Nystrom{K: kernel.RBF(1), Landmarks: 20}} {
		r, err := gdaProblem(sp, y, 0.1).Fit(x)
		if err != nil {
			t.Fatal(err)
		}
		switch m := r.Model.(type) {
		case *KernelModel:
			m.Kernel = kernel.RBFAuto()
		case *NystromModel:
			m.Kernel = kernel.RBFAuto()
		}
		b, err := MarshalModel(r.Model)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := UnmarshalModel(b); err == nil || !strings.Contains(err.Error(), "has no width (sigma 0)") {
			t.Errorf("%s: a kernel without width loaded: %v", sp.Name(), err)
		}
	}
}
