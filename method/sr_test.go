package method

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
	"github.com/dimred/dimred/stats"
)

func srData(t *testing.T) (*mat.Dense, []int) {
	t.Helper()
	x, y := testdata.Sklearn(t, "wine")
	return testdata.MinMax(x), y
}

// Supervised SR with a vanishing ridge spans LDA's subspace, and KSR spans
// GDA's with the same (absolute) ridge (seed 002 §2.1: the responses of the
// class graph are the centred class indicators): principal angles between
// the embeddings of the training rows < 1e-6 rad.
func TestSRMatchesLDAAndGDA(t *testing.T) {
	x, y := srData(t)
	sr, err := SR{SRParams: SRParams{Ridge: 1e-9}}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	lda, err := LDA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	zs, _ := sr.Transform(x)
	zl, _ := lda.Transform(x)
	if a := maxAngle(t, zs, zl); a > 1e-6 {
		t.Errorf("SR (γ → 0) and LDA span subspaces %.3g rad apart", a)
	}
	k := kernel.RBF(0.8)
	prep, err := embed.Kernel{K: k}.Prepare(t.Context(), x)
	if err != nil {
		t.Fatal(err)
	}
	ridge := 0.05 * prep.Scale()
	ksr, err := KSR{SRParams: SRParams{Ridge: ridge}, Kernel: k}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	gda, err := GDA{Kernel: k, Alpha: param.Set(0.05)}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	zk, _ := ksr.Transform(x)
	zg, _ := gda.Transform(x)
	if a := maxAngle(t, zk, zg); a > 1e-6 {
		t.Errorf("KSR and GDA with the same ridge span subspaces %.3g rad apart", a)
	}
	if sr.Dims() != 2 || ksr.Dims() != 2 {
		t.Errorf("dims %d, %d; want C−1 = 2", sr.Dims(), ksr.Dims())
	}
}

// Supervised SR regresses on the canonical responses of the class graph
// (graph.ClassResponses, SRDA's Gram–Schmidt basis, itself tested against
// brute-force Gram–Schmidt in package graph): its directions are
// a_k = (X̄ᵀX̄ + γ·I)⁻¹X̄ᵀy_k, computed here by a dense solve, in the order of
// the responses (labels with gaps: the classes present in label order);
// relative 1e-10 on the embeddings of the training rows.
func TestSRRegressesOnCanonicalResponses(t *testing.T) {
	x, y := srData(t)
	n, d := x.Dims()
	gapped := make([]int, n) // classes 1, 4, 6
	for i, c := range y {
		gapped[i] = []int{1, 4, 6}[c]
	}
	xc := mat.DenseCopyOf(x)
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = mat.Sum(xc.ColView(j)) / float64(n)
		for i := 0; i < n; i++ {
			xc.Set(i, j, xc.At(i, j)-mean[j])
		}
	}
	for _, tc := range []struct {
		labels []int
		ridge  float64
		dims   int
	}{{y, 1, 0}, {gapped, 0.01, 0}, {y, 1, 1}} {
		m, err := SR{SRParams: SRParams{Ridge: tc.ridge}}.Fit(x, tc.labels, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		resp := graph.ClassResponseRows(y) // the compacted labels
		var lhs, rhs, a, want mat.Dense
		lhs.Mul(xc.T(), xc)
		for j := 0; j < d; j++ {
			lhs.Set(j, j, lhs.At(j, j)+tc.ridge)
		}
		rhs.Mul(xc.T(), resp)
		if err := a.Solve(&lhs, &rhs); err != nil {
			t.Fatal(err)
		}
		want.Mul(xc, &a)
		if tc.dims > 0 {
			want = *mat.DenseCopyOf(want.Slice(0, n, 0, tc.dims))
		}
		got, _ := m.Transform(x)
		var diff mat.Dense
		diff.Sub(got, &want)
		if e := mat.Norm(&diff, math.Inf(1)) / mat.Norm(&want, math.Inf(1)); e > 1e-10 {
			t.Errorf("ridge %v dims %d: SR's embedding differs from the regression on the canonical responses by %.3g (relative)", tc.ridge, tc.dims, e)
		}
		if f := m.(*Fitted); len(f.Values) != m.Dims() || math.Abs(f.Values[0]-1) > 1e-12 {
			t.Errorf("values %v; want the class graph's eigenvalue 1 per direction", f.Values)
		}
	}
}

// Theorem 1 of seed 002: if y solves W·y = λ·D·y and K·α = y, then α solves
// K·W·K·α = λ·K·D·K·α (eq. 19) with the same λ. Checked on the
// semi-supervised SR graph of wine (a third of the labels hidden) with the
// uncentred RBF Gram matrix (full rank, so K·α = y is solvable): relative
// residuals ≤ 1e-8.
func TestSRTheorem1(t *testing.T) {
	x, y := srData(t)
	ys := append([]int(nil), y...)
	for i := range ys {
		if i%3 == 0 {
			ys[i] = -1
		}
	}
	g, err := graph.SRGraph{P: 5, Heat: true}.Build(graph.Euclidean{X: x}, ys)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := x.Dims()
	vals, yv, err := linalg.GenSymEig(g.W.Dense(), g.Degree.Dense(), 4, linalg.GenOptions{Order: linalg.Largest})
	if err != nil {
		t.Fatal(err)
	}
	kk, _ := kernel.RBF(0.5).Gram(x, nil)
	var ch mat.Cholesky
	if !ch.Factorize(linalg.SymView(kk)) {
		t.Fatal("K is not positive definite")
	}
	var alpha mat.Dense
	if err := ch.SolveTo(&alpha, yv); err != nil {
		t.Fatal(err)
	}
	var ka, wka, dka, kwka, kdka mat.Dense
	ka.Mul(kk, &alpha)
	wka.Mul(g.W.Dense(), &ka)
	dka.Mul(g.Degree.Dense(), &ka)
	kwka.Mul(kk, &wka)
	kdka.Mul(kk, &dka)
	for j, lam := range vals {
		r := 0.0
		s := 0.0
		for i := 0; i < n; i++ {
			d := kwka.At(i, j) - lam*kdka.At(i, j)
			r += d * d
			s += kwka.At(i, j) * kwka.At(i, j)
		}
		if rel := math.Sqrt(r / s); rel > 1e-8 {
			t.Errorf("pair %d (λ = %.6g): ‖KWKα − λKDKα‖/‖KWKα‖ = %.3g", j, lam, rel)
		}
	}
}

// The SR graph follows §2.1's rules on a hand-checkable case: same-class
// pairs weigh 1/l_k, neighbour edges touching an unlabeled row weigh δ,
// pairs of different labels have no edge; degrees are the row sums.
func TestSRGraphRules(t *testing.T) {
	x := mat.NewDense(6, 1, []float64{0, 1, 2, 10, 11, 12})
	y := []int{0, 0, -1, 1, 1, -1}
	g, err := graph.SRGraph{P: 1, Delta: 0.5, KeepDisconnected: true}.Build(graph.Euclidean{X: x}, y)
	if err != nil {
		t.Fatal(err)
	}
	w := g.W.Dense()
	want := map[[2]int]float64{{0, 1}: 0.5, {1, 2}: 0.5, {3, 4}: 0.5, {4, 5}: 0.5}
	// Class 0 (rows 0,1) and class 1 (rows 3,4) have l_k = 2: 1/2 each; the
	// 1-NN edges 1–2 and 4–5 touch unlabeled rows: δ = 0.5.
	for i := 0; i < 6; i++ {
		for j := i + 1; j < 6; j++ {
			if got := w.At(i, j); math.Abs(got-want[[2]int{i, j}]) > 1e-15 {
				t.Errorf("W[%d][%d] = %v, want %v", i, j, got, want[[2]int{i, j}])
			}
		}
	}
	for i := 0; i < 6; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			s += w.At(i, j)
		}
		if math.Abs(s-g.Degree[i]) > 1e-15 {
			t.Errorf("degree %d = %v, row sum %v", i, g.Degree[i], s)
		}
	}
	if g.Components != 2 {
		t.Errorf("%d components, want 2", g.Components)
	}
	// Connecting raises p until the graph is one component.
	g2, err := graph.SRGraph{P: 1}.Build(graph.Euclidean{X: x}, y)
	if err != nil {
		t.Fatal(err)
	}
	if g2.Components != 1 || g2.P < 2 {
		t.Errorf("connected build: %d components with p = %d", g2.Components, g2.P)
	}
}

// Semi-supervised and unsupervised SR run, use the unlabeled rows (the
// model differs from the supervised one on the labelled rows alone), and
// unsupervised SR without a dimension is an error naming the rule.
func TestSRSemiAndUnsupervised(t *testing.T) {
	x, y := srData(t)
	ys := append([]int(nil), y...)
	for i := range ys {
		if i%2 == 1 {
			ys[i] = -1
		}
	}
	for _, m := range []Method{SR{}, KSR{}} {
		semi, err := m.Fit(x, ys, 0)
		if err != nil {
			t.Fatal(err)
		}
		if semi.Dims() != 2 {
			t.Errorf("%T semi-supervised: %d dims", m, semi.Dims())
		}
		z, err := semi.Transform(x)
		if err != nil || finite(z) != nil {
			t.Errorf("%T: transform %v", m, err)
		}
		if _, err := m.Fit(x, nil, 0); err == nil || !strings.Contains(err.Error(), "needs the number of dimensions") {
			t.Errorf("%T unsupervised without dims: %v", m, err)
		}
		un, err := m.Fit(x, nil, 3)
		if err != nil || un.Dims() != 3 {
			t.Errorf("%T unsupervised: %v", m, err)
		}
	}
	if _, err := (SR{SRParams: SRParams{Graph: SRSupervised}}).Fit(x, ys, 0); err == nil {
		t.Error("graph=supervised accepted unlabeled rows")
	}
}

// With more responses than the data has dimensions (2 features, 5
// classes: C − 1 = 4 responses) spectral regression's raw directions are
// dependent; SR keeps the independent ones, in response order. Checked
// against the regression written out, (X̄ᵀX̄ + γI)·V = X̄ᵀY on the canonical
// class responses (its first two directions span the embedding: principal
// angles < 1e-8 rad), against the fit from statistics (same embedding,
// 1e-9 relative), and by the refusal of three or more dimensions, in
// memory, from statistics, and for the unsupervised graph.
func TestSRMoreResponsesThanFeatures(t *testing.T) {
	const perClass, classes = 12, 5
	n := perClass * classes
	x := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % classes
		y[i] = c
		ang := 2 * math.Pi * float64(c) / classes
		// class c around a point of a circle, spread by a fixed pattern
		x.Set(i, 0, math.Cos(ang)+0.3*math.Sin(float64(7*i)))
		x.Set(i, 1, math.Sin(ang)+0.3*math.Cos(float64(11*i)))
	}
	f, err := SR{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Dims(); d != 2 {
		t.Fatalf("SR gave %d dimensions on 2 features, want 2", d)
	}
	z, _ := f.Transform(x)
	// The regression written out.
	var xc mat.Dense
	xc.CloneFrom(x)
	for j := 0; j < 2; j++ {
		col := mat.Col(nil, j, &xc)
		m := 0.0
		for _, v := range col {
			m += v
		}
		m /= float64(n)
		for i := range col {
			xc.Set(i, j, col[i]-m)
		}
	}
	counts := make([]int, classes)
	for _, c := range y {
		counts[c]++
	}
	cr := graph.ClassResponses(counts) // classes × (C−1)
	resp := mat.NewDense(n, classes-1, nil)
	for i, c := range y {
		resp.SetRow(i, mat.Row(nil, c, cr))
	}
	var lhs, rhs, v mat.Dense
	lhs.Mul(xc.T(), &xc)
	for j := 0; j < 2; j++ {
		lhs.Set(j, j, lhs.At(j, j)+1) // the default ridge γ = 1
	}
	rhs.Mul(xc.T(), resp)
	if err := v.Solve(&lhs, &rhs); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	want.Mul(&xc, v.Slice(0, 2, 0, 2))
	if a := largestAngleDeg(t, z, &want) * math.Pi / 180; a > 1e-8 {
		t.Errorf("embedding is %.3g rad from the first two raw directions", a)
	}
	if _, err := (SR{}).Fit(x, y, 3); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("3 dimensions in memory: %v", err)
	}
	var ms stats.Moments
	if err := ms.Add(x, y); err != nil {
		t.Fatal(err)
	}
	fs, err := SR{}.FitStats(&ms, 0)
	if err != nil {
		t.Fatal(err)
	}
	zs, _ := fs.Transform(x)
	var diff mat.Dense
	diff.Sub(zs, z)
	if r, _ := zs.Dims(); r != n || mat.Norm(&diff, math.Inf(1)) > 1e-9*mat.Norm(z, math.Inf(1)) {
		t.Errorf("fit from statistics differs from the in-memory fit (%d dimensions)", fs.Dims())
	}
	if _, err := (SR{}).FitStats(&ms, 3); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("3 dimensions from statistics: %v", err)
	}
	un := SR{SRParams: SRParams{Graph: SRUnsupervised}}
	if _, err := un.Fit(x, nil, 3); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("3 unsupervised dimensions on 2 features: %v", err)
	}
	if g, err := un.Fit(x, nil, 2); err != nil || g.Dims() != 2 {
		t.Errorf("2 unsupervised dimensions: %v", err)
	}
}
