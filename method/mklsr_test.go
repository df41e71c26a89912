package method

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/stats"
)

// The exact β-step equals a brute force over a fine grid of the simplex
// (M = 2: step 1e-5; M = 3: step 1e-3, then refined) on random P, Q with
// the minimum inside, on an edge and at a vertex.
func TestMinRatioNonnegMatchesGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ratio := func(p, q *mat.SymDense, b []float64) float64 {
		x := mat.NewVecDense(len(b), b)
		return mat.Inner(x, p, x) / mat.Inner(x, q, x)
	}
	for trial := 0; trial < 30; trial++ {
		m := 2 + trial%2
		p := randPSDm(rng, m)
		q := randPSDm(rng, m)
		for i := 0; i < m; i++ {
			q.SetSym(i, i, q.At(i, i)+0.1)
		}
		beta, got, err := minRatioNonneg(p, q)
		if err != nil {
			t.Fatal(err)
		}
		if r := ratio(p, q, beta); math.Abs(r-got) > 1e-10*math.Abs(got)+1e-14 {
			t.Fatalf("reported ratio %v, ratio of β %v", got, r)
		}
		best := math.Inf(1)
		if m == 2 {
			for i := 0; i <= 100000; i++ {
				a := float64(i) / 100000
				best = math.Min(best, ratio(p, q, []float64{a, 1 - a}))
			}
		} else {
			const h = 1e-3
			for i := 0; i <= 1000; i++ {
				for j := 0; i+j <= 1000; j++ {
					a, b := float64(i)*h, float64(j)*h
					best = math.Min(best, ratio(p, q, []float64{a, b, math.Max(0, 1-a-b)}))
				}
			}
		}
		// The exact minimum is at most the grid's, and the grid comes
		// within its resolution of it.
		if got > best*(1+1e-12)+1e-14 {
			t.Errorf("trial %d (M=%d): exact %.12g above the grid's %.12g", trial, m, got, best)
		}
		if best-got > 1e-4*math.Abs(best)+1e-10 {
			t.Errorf("trial %d (M=%d): exact %.12g far below the grid's %.12g", trial, m, got, best)
		}
		s := 0.0
		for _, v := range beta {
			if v < 0 {
				t.Errorf("negative weight %v", v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("weights sum to %v", s)
		}
	}
}

func randPSDm(rng *rand.Rand, m int) *mat.SymDense {
	g := mat.NewDense(m, m, nil)
	for i := range g.RawMatrix().Data {
		g.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var s mat.SymDense
	s.SymOuterK(1, g)
	return &s
}

// MKL-SR on wine: the graph-embedding ratio never increases over the
// alternation, the weights are a point of the simplex, the model is a
// kernel model of the weighted sum (its transform equals a KSR-type
// kernel model of kernel.Sum(β)), and with a single base kernel MKL-SR is
// KSR with that kernel.
func TestMKLSR(t *testing.T) {
	x, y := srData(t)
	ys := append([]int(nil), y...)
	for i := range ys {
		if i%2 == 0 {
			ys[i] = -1
		}
	}
	m := MKLSR{Kernels: []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBF(1)}, MaxIter: 10}
	f, err := m.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := f.(*Fitted).Trace.(MKLResult)
	t.Logf("β = %v, objective %v, %d iterations, stop: %s", res.Beta, res.Objective, res.Iterations, res.Stop)
	for i := 1; i < len(res.Objective); i++ {
		if res.Objective[i] > res.Objective[i-1]*(1+1e-10) {
			t.Errorf("objective rose at iteration %d: %v", i+1, res.Objective)
		}
	}
	s := 0.0
	for _, b := range res.Beta {
		if b < 0 {
			t.Errorf("negative weight in %v", res.Beta)
		}
		s += b
	}
	if math.Abs(s-1) > 1e-12 || res.Stop == "" {
		t.Errorf("weights %v (sum %v), stop %q", res.Beta, s, res.Stop)
	}
	z, err := f.Transform(x)
	if err != nil || finite(z) != nil {
		t.Fatalf("transform: %v", err)
	}
	one, err := MKLSR{Kernels: []kernel.Kernel{kernel.RBF(0.7)}}.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	ksr, err := KSR{Kernel: kernel.RBF(0.7)}.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	z1, _ := one.Transform(x)
	z2, _ := ksr.Transform(x)
	var d mat.Dense
	d.Sub(z1, z2)
	if e := mat.Norm(&d, math.Inf(1)) / mat.Norm(z2, math.Inf(1)); e > 1e-9 {
		t.Errorf("MKL-SR with one kernel differs from KSR by %.3g", e)
	}
}

// MKL-SR in the Nyström space (space=nystrom) with every row a landmark
// is the exact MKL-SR: the features reproduce each centred Gram matrix, so
// the A-steps (primal ridge on the features against the dual one) and the
// β-steps agree; embeddings of the training rows and of new rows, and the
// learned weights, to 1e-6 relative. With fewer landmarks it stays close
// (principal angles of the training embeddings), and the model survives a
// save and load.
func TestMKLSRNystrom(t *testing.T) {
	x, y := srData(t)
	ys := append([]int(nil), y...)
	for i := range ys {
		if i%2 == 0 {
			ys[i] = -1
		}
	}
	n, d := x.Dims()
	xnew := mat.NewDense(20, d, nil)
	for i := 0; i < 20; i++ {
		for j := 0; j < d; j++ {
			xnew.Set(i, j, x.At(i, j)*0.9+0.05)
		}
	}
	ks := []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBF(0.7)}
	exact, err := MKLSR{Kernels: ks}.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	ny, err := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: n}}.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	if k := ny.(*Fitted).Model.(interface{ Kind() string }).Kind(); k != "multinystrom" {
		t.Fatalf("model kind %q", k)
	}
	be, bn := exact.(*Fitted).Trace.(MKLResult), ny.(*Fitted).Trace.(MKLResult)
	if be.Iterations != bn.Iterations || !floats.EqualApprox(be.Beta, bn.Beta, 1e-6) {
		t.Errorf("β exact %v (%d iterations), Nyström %v (%d)", be.Beta, be.Iterations, bn.Beta, bn.Iterations)
	}
	// The Nyström model records the weights it folded in, for info and
	// the fit's line (they were shown for exact models only), through a
	// save; a file with bad weights is refused.
	mn := ny.(*Fitted).Model.(*embed.MultiNystromModel)
	if !floats.Equal(mn.Weights, bn.Beta) {
		t.Errorf("model weights %v, β %v", mn.Weights, bn.Beta)
	}
	b, err := embed.MarshalModel(mn)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := embed.UnmarshalModel(b)
	if err != nil || !floats.Equal(loaded.(*embed.MultiNystromModel).Weights, bn.Beta) {
		t.Errorf("weights through a save: %v", err)
	}
	bad := *mn
	bad.Weights = []float64{1, -1, 0}
	if b, err = embed.MarshalModel(&bad); err != nil {
		t.Fatal(err)
	}
	if _, err := embed.UnmarshalModel(b); err == nil || !strings.Contains(err.Error(), "multinystrom weights") {
		t.Errorf("negative weight loaded: %v", err)
	}
	relDiff := func(a, b *mat.Dense) float64 {
		var dd mat.Dense
		dd.Sub(a, b)
		return mat.Norm(&dd, math.Inf(1)) / mat.Norm(a, math.Inf(1))
	}
	for _, rows := range []*mat.Dense{x, xnew} {
		ze, _ := exact.Transform(rows)
		zn, err := ny.Transform(rows)
		if err != nil {
			t.Fatal(err)
		}
		if e := relDiff(ze, zn); e > 1e-6 {
			t.Errorf("Nyström with every row a landmark differs from exact MKL-SR by %.3g", e)
		}
	}
	// Fewer dimensions than responses (one of wine's two): the A-step's
	// dual coefficients come from the response each kept direction
	// regresses (this failed with a size mismatch), and every row a
	// landmark is still exact.
	exact1, err := MKLSR{Kernels: ks}.Fit(x, ys, 1)
	if err != nil {
		t.Fatal(err)
	}
	ny1, err := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: n}}.Fit(x, ys, 1)
	if err != nil {
		t.Fatalf("Nyström MKL-SR with 1 of 2 dimensions: %v", err)
	}
	ze1, _ := exact1.Transform(xnew)
	zn1, _ := ny1.Transform(xnew)
	if e := relDiff(ze1, zn1); e > 1e-6 {
		t.Errorf("1 dimension: Nyström with every row a landmark differs from exact MKL-SR by %.3g", e)
	}
	// The training embedding the fit keeps is the model's on the rows.
	zt, _ := ny.Transform(x)
	if e := relDiff(zt, ny.(*Fitted).Train); e > 1e-10 {
		t.Errorf("kept training embedding differs from Transform by %.3g", e)
	}
	// Save and load.
	var buf bytes.Buffer
	if err := Save(&buf, File{}, ny.(*Fitted)); err != nil {
		t.Fatal(err)
	}
	_, back, err := Load(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	zb, err := back.Transform(xnew)
	if err != nil {
		t.Fatal(err)
	}
	zn, _ := ny.Transform(xnew)
	if !mat.EqualApprox(zb, zn, 1e-12) {
		t.Error("the loaded Nyström MKL-SR model maps rows differently")
	}
	// Half the rows as landmarks: an approximation of the same subspace.
	half, err := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: n / 2, Seed: 3}}.Fit(x, ys, 0)
	if err != nil {
		t.Fatal(err)
	}
	ze, _ := exact.Transform(x)
	zh, _ := half.Transform(x)
	if a := largestAngleDeg(t, ze, zh); a > 30 {
		t.Errorf("half the rows as landmarks: largest principal angle %.3g° to the exact subspace", a)
	}
	if _, err := New("mklsr", map[string]string{"space": "precomputed"}); err == nil || !strings.Contains(err.Error(), "space=precomputed") {
		t.Errorf("space=precomputed: %v", err)
	}
	// Rotated directions have no ridge identity for the dual coefficients.
	rm, err := New("mklsr", map[string]string{"space": "nystrom", "ritz": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rm.Fit(x, ys, 0); err == nil || !strings.Contains(err.Error(), "ritz=true with -p space=nystrom") {
		t.Errorf("ritz=true with the Nyström space: %v", err)
	}
}

// Nyström features of a few landmarks have low rank: MKL-SR refuses more
// unsupervised dimensions than the combined features have independent
// directions, and when a β-step moves the weight onto kernels whose
// features span fewer directions than requested, the pair before it is
// kept (the Stop reason says so) rather than an embedding with dependent
// coordinates: the training embedding has full column rank.
func TestMKLSRNystromRank(t *testing.T) {
	x, _ := srData(t)
	ks := []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBF(0.7)}
	m := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: 3}}
	m.Graph = SRUnsupervised
	if _, err := m.Fit(x, nil, 20); err == nil || !strings.Contains(err.Error(), "at most 9") {
		t.Errorf("20 dimensions on 3 landmarks × 3 kernels: %v", err)
	}
	f, err := m.Fit(x, nil, 9)
	if err != nil {
		t.Fatal(err)
	}
	tr := f.(*Fitted).Trace.(MKLResult)
	if !strings.Contains(tr.Stop, "independent directions") {
		t.Errorf("stop %q (β %v): want the pair before a rank-losing β-step", tr.Stop, tr.Beta)
	}
	var svd mat.SVD
	if !svd.Factorize(f.(*Fitted).Train, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	s := svd.Values(nil)
	if len(s) != 9 || s[8] < 1e-8*s[0] {
		t.Errorf("training embedding singular values %v: want 9 independent coordinates", s)
	}
}

// Progress lines reach the callback: one when the base kernels are ready,
// one per accepted iteration (with its objective) and the stop reason.
func TestMKLSRProgress(t *testing.T) {
	x, y := srData(t)
	var lines []string
	m := MKLSR{}.WithProgress(func(s string) { lines = append(lines, s) })
	f, err := m.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := f.(*Fitted).Trace.(MKLResult)
	if len(lines) != r.Iterations+2 || !strings.Contains(lines[0], "base kernels on 178 rows ready (exact)") ||
		!strings.Contains(lines[1], fmt.Sprintf("objective %.6g", r.Objective[0])) || !strings.Contains(lines[len(lines)-1], r.Stop) {
		t.Errorf("progress lines %q for %d iterations, stop %q", lines, r.Iterations, r.Stop)
	}
}

// MKL-SR from the statistics of the concatenated Nyström features (the
// pipeline's route: landmark rows from the row count, the maps, the
// features' moments accumulated in chunks) equals the in-memory Nyström
// MKL-SR on the same landmarks: β to 1e-8 and the embeddings of training
// and new rows to 1e-8 relative, with the default and unit directions and
// fewer dimensions than responses. Methods set otherwise refuse with the
// reason.
func TestMKLSRFromFeatureStats(t *testing.T) {
	x, y := srData(t)
	n, d := x.Dims()
	xnew := mat.NewDense(15, d, nil)
	for i := 0; i < 15; i++ {
		for j := 0; j < d; j++ {
			xnew.Set(i, j, x.At(3*i, j)*0.8+0.1)
		}
	}
	ks := []kernel.Kernel{kernel.Linear(), kernel.Poly(2, 1), kernel.RBF(0.7)}
	ctx := context.Background()
	for _, tc := range []struct {
		norm embed.Norm
		dims int
	}{{"", 0}, {embed.NormUnit, 0}, {"", 1}} {
		m := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: 60, Seed: 5}}
		m.Norm = tc.norm
		want, err := m.Fit(x, y, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		kk, sp, err := m.MultiNystromSpace()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := sp.LandmarkRows(n)
		if err != nil {
			t.Fatal(err)
		}
		lm := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			lm.SetRow(i, x.RawRowView(r))
		}
		var maps []*mat.Dense
		var blocks []int
		for _, k := range kk {
			tm, err := embed.NystromMap(ctx, k, lm)
			if err != nil {
				t.Fatal(err)
			}
			_, r := tm.Dims()
			maps, blocks = append(maps, tm), append(blocks, r)
		}
		var ms stats.Moments
		for lo := 0; lo < n; lo += 50 { // chunks, as a stream or shards give them
			hi := min(lo+50, n)
			f, err := embed.MultiNystromFeatures(ctx, kk, lm, maps, x.Slice(lo, hi, 0, d).(*mat.Dense))
			if err != nil {
				t.Fatal(err)
			}
			if err := ms.Add(f, y[lo:hi]); err != nil {
				t.Fatal(err)
			}
		}
		lin, err := m.FitMultiFeatureStats(&ms, blocks, tc.dims)
		if err != nil {
			t.Fatalf("norm %q dims %d: %v", tc.norm, tc.dims, err)
		}
		model, err := embed.NewMultiNystromModel(kk, lm, maps, lin.Model.(*embed.LinearModel))
		if err != nil {
			t.Fatal(err)
		}
		bw, bs := want.(*Fitted).Trace.(MKLResult), lin.Trace.(MKLResult)
		if bw.Iterations != bs.Iterations || !floats.EqualApprox(bw.Beta, bs.Beta, 1e-8) {
			t.Errorf("norm %q dims %d: β in memory %v (%d iterations), from statistics %v (%d)", tc.norm, tc.dims, bw.Beta, bw.Iterations, bs.Beta, bs.Iterations)
		}
		for _, rows := range []*mat.Dense{x, xnew} {
			zw, _ := want.Transform(rows)
			zs, err := model.Transform(rows)
			if err != nil {
				t.Fatal(err)
			}
			var diff mat.Dense
			diff.Sub(zw, zs)
			if e := mat.Norm(&diff, math.Inf(1)) / mat.Norm(zw, math.Inf(1)); e > 1e-8 {
				t.Errorf("norm %q dims %d: from statistics differs from in memory by %.3g", tc.norm, tc.dims, e)
			}
		}
	}
	// Statistics with an unlabeled row, or blocks that do not add up.
	okm := MKLSR{Kernels: ks, Space: KernelSpace{Kind: SpaceNystrom, Landmarks: 20}}
	xs, ys := mat.NewDense(30, d, nil), make([]int, 30) // every 6th row: all three classes
	for i := range ys {
		xs.SetRow(i, x.RawRowView(6*i))
		ys[i] = y[6*i]
	}
	var ms stats.Moments
	yu := append([]int(nil), ys...)
	yu[4] = -1
	if err := ms.Add(xs, yu); err != nil {
		t.Fatal(err)
	}
	if _, err := okm.FitMultiFeatureStats(&ms, []int{d}, 0); err == nil || !strings.Contains(err.Error(), "1 of 30 rows are unlabeled") {
		t.Errorf("an unlabeled row: %v", err)
	}
	ms = stats.Moments{}
	if err := ms.Add(xs, ys); err != nil {
		t.Fatal(err)
	}
	if _, err := okm.FitMultiFeatureStats(&ms, []int{4, 4, 4}, 0); err == nil || !strings.Contains(err.Error(), "feature blocks of 12 columns in all, statistics of 13 features") {
		t.Errorf("blocks that do not add up: %v", err)
	}
	for _, c := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{}, "space=nystrom"},
		{map[string]string{"space": "nystrom"}, "sigma=auto"},
		{map[string]string{"space": "nystrom", "kernels": "linear;rbf:sigma=1", "graph": "unsupervised"}, "graph=unsupervised"},
		{map[string]string{"space": "nystrom", "kernels": "linear;rbf:sigma=1", "sampling": "kmeans++"}, ""},
	} {
		mm, err := New("mklsr", c.kv)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = mm.(MultiNystromStatsFitter).MultiNystromSpace()
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.kv, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want an error naming %q", c.kv, err, c.want)
		}
	}
}
