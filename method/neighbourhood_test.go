package method

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
)

// ---- helpers: dense direct solutions built from scratch ----

func nbCentred(x *mat.Dense) *mat.Dense { return embed.CenterRows(x, embed.ColMeans(x)) }

func nbCentredGram(t *testing.T, k kernel.Kernel, x *mat.Dense) *mat.Dense {
	t.Helper()
	g, err := k.Gram(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	kernel.CenterGram(g)
	return g
}

// quad returns Fᵀ·G·F for a dense symmetric G.
func nbQuad(f mat.Matrix, g mat.Matrix) *mat.SymDense {
	var gf, out mat.Dense
	gf.Mul(g, f)
	out.Mul(f.T(), &gf)
	return linalg.Symmetrize(&out)
}

func nbAddScaled(a *mat.SymDense, f float64, b mat.Symmetric) *mat.SymDense {
	n := a.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			out.SetSym(i, j, a.At(i, j)+f*b.At(i, j))
		}
	}
	return out
}

func nbIdentitySym(n int) *mat.SymDense { return graph.Identity(n).Dense() }

func nbCols(m *mat.Dense, k int) *mat.Dense {
	r, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, r, 0, k))
}

func nbMaxAngle(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	ang, err := linalg.PrincipalAngles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return ang[len(ang)-1]
}

// coef returns the coefficient matrix of a fitted model (W or A).
func nbCoef(t *testing.T, m Model) *mat.Dense {
	t.Helper()
	switch md := m.(*Fitted).Model.(type) {
	case *embed.LinearModel:
		return md.W
	case *embed.KernelModel:
		return md.A
	}
	t.Fatalf("unexpected model %T", m.(*Fitted).Model)
	return nil
}

// compareDirect checks a fitted model against the direct solution: the
// subspaces spanned by the first k directions agree to principal angles
// below 1e-6 rad and the eigenvalues to 1e-7 (absolute below 1e-12).
func nbCompareDirect(t *testing.T, name string, m Model, vals []float64, vecs *mat.Dense, ks ...int) {
	t.Helper()
	c := nbCoef(t, m)
	got := m.(*Fitted).Values
	for _, k := range ks {
		if a := nbMaxAngle(t, nbCols(c, k), nbCols(vecs, k)); a > 1e-6 {
			t.Errorf("%s: largest principal angle over the first %d directions %.3g rad", name, k, a)
		}
		for i := 0; i < k; i++ {
			if math.Abs(got[i]-vals[i]) > 1e-7*math.Abs(vals[i])+1e-12 {
				t.Errorf("%s: value %d = %.12g, direct %.12g", name, i, got[i], vals[i])
			}
		}
	}
}

func nbWineScaled(t *testing.T) (*mat.Dense, []int) {
	x, y := loadSklearn(t, "wine")
	return minmax(x), compact(y)
}

func nbMinimal(a, b *mat.SymDense) ([]float64, *mat.Dense, error) {
	return linalg.GenSymEig(a, b, 0, linalg.GenOptions{Order: linalg.Smallest})
}

// ---- LPP family ----

// LPP, SLPP (both supervision modes): X̄ᵀLX̄·w = λ·X̄ᵀDX̄·w solved densely
// from a graph built independently from the definition.
func TestLPPFamilyMatchesDenseEigenproblem(t *testing.T) {
	x, y := nbWineScaled(t)
	xc := nbCentred(x)
	for _, tc := range []struct {
		name string
		m    Method
		sup  graph.Supervision
		w    graph.Weights
	}{
		{"lpp", LPP{}, graph.Unsupervised, graph.Weights{Kind: graph.Heat}},
		{"lpp constant k=5", LPP{NeighbourParams: NeighbourParams{K: 5, Weight: graph.Constant}}, graph.Unsupervised, graph.Weights{Kind: graph.Constant}},
		{"slpp", SLPP{}, graph.SameClassEdges, graph.Weights{Kind: graph.Heat}},
		{"slpp within, local scaling", SLPP{LPP: LPP{NeighbourParams: NeighbourParams{Weight: graph.LocalScaling}}, Within: true}, graph.InClass, graph.Weights{Kind: graph.LocalScaling}},
	} {
		k := 10
		if np, ok := tc.m.(LPP); ok && np.K != 0 {
			k = np.K
		}
		g := nbDenseGraph(t, x, y, k, tc.sup, tc.w)
		a := nbQuad(xc, nbLaplacian(g))
		b := nbQuad(xc, nbDegree(g))
		vals, vecs, err := nbMinimal(a, b)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tc.m.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		nbCompareDirect(t, tc.name, m, vals, vecs, 1, 3, 6)
	}
}

// denseGraph builds the weight matrix from the definition: all pairwise
// distances, k nearest by (distance, index), "or" symmetrisation.
func nbDenseGraph(t *testing.T, x *mat.Dense, y []int, k int, sup graph.Supervision, w graph.Weights) *mat.SymDense {
	t.Helper()
	n, _ := x.Dims()
	d2 := func(i, j int) float64 {
		s := 0.0
		for c := range x.RawRowView(i) {
			v := x.At(i, c) - x.At(j, c)
			s += v * v
		}
		return s
	}
	knn := func(i, kk int, ok func(j int) bool) []int {
		var cand []int
		for j := 0; j < n; j++ {
			if j != i && ok(j) {
				cand = append(cand, j)
			}
		}
		for a := 1; a < len(cand); a++ { // insertion sort by (d², j)
			for b := a; b > 0 && (d2(i, cand[b]) < d2(i, cand[b-1]) || (d2(i, cand[b]) == d2(i, cand[b-1]) && cand[b] < cand[b-1])); b-- {
				cand[b], cand[b-1] = cand[b-1], cand[b]
			}
		}
		return cand[:min(kk, len(cand))]
	}
	adj := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		ok := func(int) bool { return true }
		if sup == graph.InClass {
			ok = func(j int) bool { return y[j] == y[i] }
		}
		for _, j := range knn(i, k, ok) {
			if sup == graph.SameClassEdges && y[i] != y[j] {
				continue
			}
			adj.SetSym(i, j, 1)
		}
	}
	sigma := make([]float64, n)
	for i := range sigma {
		nb := knn(i, 7, func(int) bool { return true })
		sigma[i] = math.Sqrt(d2(i, nb[len(nb)-1]))
	}
	tw := w.T
	if w.Kind == graph.Heat && tw == 0 {
		s, c := 0.0, 0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if adj.At(i, j) != 0 {
					s += d2(i, j)
					c++
				}
			}
		}
		tw = s / float64(c)
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if adj.At(i, j) == 0 {
				continue
			}
			v := 1.0
			switch w.Kind {
			case graph.Heat:
				v = math.Exp(-d2(i, j) / tw)
			case graph.LocalScaling:
				v = math.Exp(-d2(i, j) / (sigma[i] * sigma[j]))
			}
			out.SetSym(i, j, v)
		}
	}
	return out
}

func nbDegree(w *mat.SymDense) *mat.SymDense {
	n := w.SymmetricDim()
	d := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += w.At(i, j)
		}
		d.SetSym(i, i, s)
	}
	return d
}

func nbLaplacian(w *mat.SymDense) *mat.SymDense {
	d := nbDegree(w)
	return nbAddScaled(d, -1, w)
}

// KLPP and SKLPP: (K̃LK̃ + α·K̃)·a = λ·(K̃DK̃ + α·K̃)·a, RBF σ = 1, graph in
// input space.
func TestKernelLPPMatchesDenseEigenproblem(t *testing.T) {
	x, y := nbWineScaled(t)
	n, _ := x.Dims()
	g := nbCentredGram(t, kernel.RBF(1), x)
	rel := 0.0
	for i := 0; i < n; i++ {
		rel += g.At(i, i) / float64(n)
	}
	for _, tc := range []struct {
		name string
		m    Method
		sup  graph.Supervision
		ks   []int
	}{
		{"klpp", KLPP{Kernel: kernel.RBF(1)}, graph.Unsupervised, []int{1, 4, 8}},
		{"sklpp", SKLPP{KLPP: KLPP{Kernel: kernel.RBF(1)}}, graph.SameClassEdges, []int{1, 4, 8}},
	} {
		w := nbDenseGraph(t, x, y, 10, tc.sup, graph.Weights{Kind: graph.Heat})
		a := nbAddScaled(nbQuad(g, nbLaplacian(w)), DefaultKernelAlpha*rel, linalg.Symmetrize(g))
		b := nbAddScaled(nbQuad(g, nbDegree(w)), DefaultKernelAlpha*rel, linalg.Symmetrize(g))
		vals, vecs, err := nbMinimal(a, b)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tc.m.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		nbCompareDirect(t, tc.name, m, vals, vecs, tc.ks...)
	}
}

// zeroCount is the number of leading eigenvalues that are numerically 0.
func nbZeroCount(vals []float64) int {
	big := 0.0
	for _, v := range vals {
		big = math.Max(big, math.Abs(v))
	}
	z := 0
	for z < len(vals) && math.Abs(vals[z]) <= 1e-10*big {
		z++
	}
	return z
}

// MFA and KMFA: X̄ᵀLX̄·w = λ·X̄ᵀLᵖX̄·w and (K̃LK̃ + α·K̃)·a = λ·(K̃LᵖK̃ + α·K̃)·a with
// the within-class k₁-NN and between-class k₂-NN graphs (constant weights).
func TestMFAMatchesDenseEigenproblem(t *testing.T) {
	x, y := nbWineScaled(t)
	n, _ := x.Dims()
	lw := nbLaplacian(nbDenseGraph(t, x, y, DefaultMFAK1, graph.InClass, graph.Weights{Kind: graph.Constant}))
	gp, err := graph.Neighbourhood{K: DefaultMFAK2, Supervision: graph.CrossClass, Labels: y}.Build(graph.Euclidean{X: x})
	if err != nil {
		t.Fatal(err)
	}
	// Penalty graph from the definition: every cross-class pair where one
	// is among the other's k₂ nearest other-class rows.
	wp := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		nb := nbNearestOther(x, y, i, DefaultMFAK2)
		for _, j := range nb {
			wp.SetSym(i, j, 1)
		}
	}
	if !mat.Equal(wp, gp.W.Dense()) {
		t.Fatal("penalty graph differs from the definition")
	}
	lb := nbLaplacian(wp)

	xc := nbCentred(x)
	vals, vecs, err := nbMinimal(nbQuad(xc, lw), nbQuad(xc, lb))
	if err != nil {
		t.Fatal(err)
	}
	m, err := MFA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	nbCompareDirect(t, "mfa", m, vals, vecs, 1, 3, 6)

	g := nbCentredGram(t, kernel.RBF(1), x)
	rel := 0.0
	for i := 0; i < n; i++ {
		rel += g.At(i, i) / float64(n)
	}
	vals, vecs, err = nbMinimal(nbAddScaled(nbQuad(g, lw), DefaultKernelAlpha*rel, linalg.Symmetrize(g)),
		nbAddScaled(nbQuad(g, lb), DefaultKernelAlpha*rel, linalg.Symmetrize(g)))
	if err != nil {
		t.Fatal(err)
	}
	km, err := KMFA{Kernel: kernel.RBF(1)}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	z := nbZeroCount(vals)
	nbCompareDirect(t, "kmfa", km, vals, vecs, max(z, 1), z+4)
}

func nbNearestOther(x *mat.Dense, y []int, i, k int) []int {
	n, _ := x.Dims()
	type c struct {
		d float64
		j int
	}
	var cs []c
	for j := 0; j < n; j++ {
		if y[j] != y[i] {
			cs = append(cs, c{(graph.Euclidean{X: x}).SqDist(i, j), j})
		}
	}
	for a := 1; a < len(cs); a++ {
		for b := a; b > 0 && (cs[b].d < cs[b-1].d || (cs[b].d == cs[b-1].d && cs[b].j < cs[b-1].j)); b-- {
			cs[b], cs[b-1] = cs[b-1], cs[b]
		}
	}
	out := make([]int, 0, k)
	for _, v := range cs[:min(k, len(cs))] {
		out = append(out, v.j)
	}
	return out
}

// KNDA (seed 004 eq. 18-19 with the 0.01 ridge; also with the optional α)
// and DNDA, against the full n×n (or d×d) generalized problem solved
// densely:
//
//	K̃(D_min − W_min)K̃·μ = λ·(K̃(D_max − W_max)K̃ + 0.01·I)·μ.
//
// On the null space of K̃ both sides vanish except the ridge, so the full
// problem has spurious eigenvalue-0 vectors (K̃μ = 0: every training row
// maps to 0); after discarding them the remaining eigenpairs are exactly
// KNDA's. Polynomial kernel (rank 91 < n: 87 spurious vectors) and RBF
// (rank n−1: the constant vector, plus genuine zeros from the within-class
// components).
func TestNDAMatchesDenseEigenproblem(t *testing.T) {
	x, y := nbWineScaled(t)
	for _, tc := range []struct {
		k         kernel.Kernel
		alpha     float64
		jitterAbs float64
	}{{DefaultKNDAKernel(), 0, 0}, {DefaultKNDAKernel(), 0, PaperNDAJitter}, {kernel.RBF(1), 0, 0}, {kernel.RBF(1), 0.05, 0}} {
		k := tc.k
		g := nbCentredGram(t, k, x)
		fs, _ := graph.NewFeatureSpace(k, x)
		nda := NDA{Alpha: tc.alpha, JitterAbs: tc.jitterAbs}
		within, between, eps, err := nda.Graphs(fs, y)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := g.Dims()
		rel := 0.0
		for i := 0; i < n; i++ {
			rel += g.At(i, i) / float64(n)
		}
		jitter := DefaultNDAJitter * rel * rel // relative to s², s = mean diag K̃
		if tc.jitterAbs > 0 {
			jitter = tc.jitterAbs // the paper's literal 0.01
		}
		a := nbAddScaled(nbQuad(g, within.Laplacian().Dense()), tc.alpha*rel, linalg.Symmetrize(g))
		b := nbAddScaled(nbQuad(g, between.Laplacian().Dense()), jitter, nbIdentitySym(a.SymmetricDim()))
		b = nbAddScaled(b, tc.alpha*rel, linalg.Symmetrize(g))
		vals, vecs, err := nbMinimal(a, b)
		if err != nil {
			t.Fatal(err)
		}
		// Spurious vectors: the null space of K̃ (s = n − rank K̃ of them),
		// all with eigenvalue 0. If genuine zeros exist too, the direct
		// solver mixes both inside the zero eigenspace: project that
		// eigenspace on range(K̃) and keep the z = (size − s) directions it
		// spans; the nonzero eigenpairs are genuine as they are.
		kv, kvec, _ := linalg.SymEig(linalg.Symmetrize(g), 0, linalg.Largest)
		rank := 0
		for rank < n && kv[rank] > 1e-10*kv[0] {
			rank++
		}
		qr := nbCols(kvec, rank)
		zFull := nbZeroCount(vals)
		z := zFull - (n - rank)
		if z < 0 {
			t.Fatalf("knda %s: %d zero eigenvalues, fewer than the %d null vectors of K̃", k, zFull, n-rank)
		}
		var keepVals []float64
		var blocks []*mat.Dense
		if z > 0 {
			var proj, coefs mat.Dense
			coefs.Mul(qr.T(), nbCols(vecs, zFull))
			proj.Mul(qr, &coefs)
			var svd mat.SVD
			svd.Factorize(&proj, mat.SVDThin)
			var uu mat.Dense
			svd.UTo(&uu)
			blocks = append(blocks, nbCols(&uu, z))
			keepVals = make([]float64, z)
		}
		blocks = append(blocks, mat.DenseCopyOf(vecs.Slice(0, n, zFull, n)))
		keepVals = append(keepVals, vals[zFull:]...)
		kept := blocks[0]
		if len(blocks) == 2 {
			var cat mat.Dense
			cat.Augment(blocks[0], blocks[1])
			kept = &cat
		}
		m, err := KNDA{Kernel: k, NDA: nda}.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m.Dims() != len(keepVals) {
			t.Errorf("knda %s: %d directions, direct non-spurious %d", k, m.Dims(), len(keepVals))
		}
		t.Logf("knda %s α=%g: ε = %.4g, %d directions, %d with eigenvalue 0, %d spurious discarded", k, tc.alpha, eps, len(keepVals), z, n-rank)
		nbCompareDirect(t, "knda "+k.String(), m, keepVals, kept, max(z, 1), z+3, z+10)
	}

	// DNDA in input space.
	eu := graph.Euclidean{X: x}
	within, between, _, err := NDA{}.Graphs(eu, y)
	if err != nil {
		t.Fatal(err)
	}
	xc := nbCentred(x)
	n, _ := xc.Dims()
	s := mat.Norm(xc, 2) * mat.Norm(xc, 2) / float64(n) // tr(X̄X̄ᵀ)/n: X̄ᵀLX̄ scales like s
	a := nbQuad(xc, within.Laplacian().Dense())
	b := nbAddScaled(nbQuad(xc, between.Laplacian().Dense()), DefaultNDAJitter*s, nbIdentitySym(13))
	vals, vecs, err := nbMinimal(a, b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := DNDA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	nbCompareDirect(t, "dnda", m, vals, vecs, 1, 2, 5, 13)
}

// CKFD against KPCA and both discriminant parts computed directly: KPCA
// coordinates Y = U·√Λ from the eigen-decomposition of K̃ (all numerically
// nonzero components, the paper's m = rank K̃, and the default 99.9% of the
// variance), S_w and S_b from class means, the null space of S_w, LDA on
// its range and the leading eigenvectors of S_b on its null space. The
// training embeddings of the irregular and regular blocks span the same
// subspaces.
func TestCKFDMatchesDirectComputation(t *testing.T) {
	x, y := nbWineScaled(t)
	n, _ := x.Dims()
	g := nbCentredGram(t, kernel.RBF(1), x)
	lam, u, err := linalg.SymEig(linalg.Symmetrize(g), 0, linalg.Largest)
	if err != nil {
		t.Fatal(err)
	}
	mAll := 0
	total := 0.0
	for mAll < len(lam) && lam[mAll] > 1e-10*lam[0] {
		total += lam[mAll]
		mAll++
	}
	for _, kp := range []float64{1, 0} {
		m := mAll
		if kp == 0 {
			acc := 0.0
			for m = 0; m < mAll; m++ {
				acc += lam[m]
				if acc >= DefaultCKFDKPCA*total*(1-1e-12) {
					m++
					break
				}
			}
		}
		yk := mat.NewDense(n, m, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				yk.Set(i, j, u.At(i, j)*math.Sqrt(lam[j]))
			}
		}
		// Scatter matrices from class means.
		sw := mat.NewSymDense(m, nil)
		sb := mat.NewSymDense(m, nil)
		mean := embed.ColMeans(yk)
		for c := 0; c < 3; c++ {
			var rows []int
			for i, v := range y {
				if v == c {
					rows = append(rows, i)
				}
			}
			mc := make([]float64, m)
			for _, i := range rows {
				for j := 0; j < m; j++ {
					mc[j] += yk.At(i, j) / float64(len(rows))
				}
			}
			for _, i := range rows {
				for a := 0; a < m; a++ {
					for b := a; b < m; b++ {
						sw.SetSym(a, b, sw.At(a, b)+(yk.At(i, a)-mc[a])*(yk.At(i, b)-mc[b]))
					}
				}
			}
			for a := 0; a < m; a++ {
				for b := a; b < m; b++ {
					sb.SetSym(a, b, sb.At(a, b)+float64(len(rows))*(mc[a]-mean[a])*(mc[b]-mean[b]))
				}
			}
		}
		wv, wvec, _ := linalg.SymEig(sw, 0, linalg.Largest)
		r := 0
		for r < m && wv[r] > DefaultCKFDNullTol*wv[0] {
			r++
		}
		var want []*mat.Dense // irregular block (if any), then regular
		if r < m {
			p2 := mat.DenseCopyOf(wvec.Slice(0, m, r, m))
			_, vi, _ := linalg.SymEig(linalg.Congruence(sb, p2), 2, linalg.Largest)
			var irr, zi mat.Dense
			irr.Mul(p2, vi)
			zi.Mul(yk, &irr)
			want = append(want, &zi)
		}
		p1 := nbCols(wvec, r)
		_, vr, err := linalg.GenSymEig(linalg.Congruence(sb, p1), linalg.Congruence(sw, p1), 2, linalg.GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var reg, zr mat.Dense
		reg.Mul(p1, vr)
		zr.Mul(yk, &reg)
		want = append(want, &zr)

		f, err := CKFD{KPCA: kp, Kernel: kernel.RBF(1)}.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Dims() != 2*len(want) {
			t.Fatalf("ckfd kpca=%g: %d dims, want %d (m = %d, rank S_w = %d)", kp, f.Dims(), 2*len(want), m, r)
		}
		t.Logf("ckfd kpca=%g: m = %d KPCA components, rank S_w = %d, %d dims", kp, m, r, f.Dims())
		emb, err := f.Transform(x)
		if err != nil {
			t.Fatal(err)
		}
		for b, w := range want {
			blk := mat.DenseCopyOf(emb.Slice(0, n, 2*b, 2*b+2))
			if a := nbMaxAngle(t, blk, w); a > 1e-6 {
				t.Errorf("ckfd kpca=%g block %d: principal angle %.3g", kp, b, a)
			}
			// Each block scaled to unit mean squared norm.
			if s := mat.Norm(blk, 2) * mat.Norm(blk, 2) / float64(n); math.Abs(s-1) > 1e-8 {
				t.Errorf("block %d mean squared norm %.10g, want 1", b, s)
			}
		}
		if len(want) == 2 {
			// Irregular features have no within-class scatter (in training).
			irr := nbCentred(mat.DenseCopyOf(emb.Slice(0, n, 0, 2)))
			wsc := scatterOf(irr, graph.WithinClass(y))
			tot := scatterOf(irr, graph.Identity(n))
			if mat.Trace(wsc) > 1e-6*mat.Trace(tot) {
				t.Errorf("irregular block: within-class scatter %.3g of total %.3g", mat.Trace(wsc), mat.Trace(tot))
			}
		}
	}
}

// ---- residuals on a real set ----

// loadORL reads the first perPerson images of each of the 40 people of
// ../shared/data/faces/orl_32x32.csv.gz (pixels scaled to [0,1]).
func loadORL(t *testing.T, perPerson int) (*mat.Dense, []int) {
	t.Helper()
	f, err := os.Open(testdata.Path(t, "data/faces/orl_32x32.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	var data []float64
	var y []int
	for _, r := range rows[1:] {
		l, _ := strconv.Atoi(r[0])
		if seen[l] >= perPerson {
			continue
		}
		seen[l]++
		y = append(y, l-1)
		for _, s := range r[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, v/255)
		}
	}
	return mat.NewDense(len(y), len(rows[0])-1, data), y
}

// linearCoef returns W of a linear or affine model.
func linearCoef(t *testing.T, m Model) *mat.Dense {
	t.Helper()
	switch md := m.(*Fitted).Model.(type) {
	case *embed.LinearModel:
		return md.W
	case *embed.AffineModel:
		return md.W
	case *embed.KernelModel:
		return md.A
	}
	t.Fatalf("unexpected model %T", m.(*Fitted).Model)
	return nil
}

// nbResidual returns max over columns of ‖A·v − λ·B·v‖ / ((‖A‖ + |λ|·‖B‖)·‖v‖)
// (matrix norms: Frobenius; mat.Norm(·, 2) of a matrix is Frobenius).
func nbResidual(a, b mat.Symmetric, v *mat.Dense, vals []float64) float64 {
	na, nb := mat.Norm(a, 2), mat.Norm(b, 2)
	var av, bv mat.Dense
	av.Mul(a, v)
	bv.Mul(b, v)
	worst := 0.0
	r, k := v.Dims()
	for j := 0; j < k; j++ {
		res, vn := 0.0, 0.0
		for i := 0; i < r; i++ {
			e := av.At(i, j) - vals[j]*bv.At(i, j)
			res += e * e
			vn += v.At(i, j) * v.At(i, j)
		}
		worst = math.Max(worst, math.Sqrt(res)/((na+math.Abs(vals[j])*nb)*math.Sqrt(vn)))
	}
	return worst
}

// On ORL faces (5 per person, 200 × 1024, d > n: linear methods go through
// the lossless PCA step, whose composed directions must still solve the
// problem in the original 1024-dimensional space), every returned
// direction satisfies its generalized eigenproblem: relative residual
// ‖Av − λBv‖/((‖A‖ + |λ|‖B‖)‖v‖) below 1e-9. KNDA's spectrum here has
// eigenvalue-0 directions (classes collapsed), ordinary ones and a tail up
// to 1e9 (directions the between-class graph barely sees): the case where
// a tie tolerance relative to max|λ| once merged and rotated every small
// eigenvector.
func TestNeighbourhoodResidualsOnFaces(t *testing.T) {
	x, y := loadORL(t, 5)
	n, d := x.Dims()
	xc := nbCentred(x)
	check := func(name string, m Method, a, b mat.Symmetric) {
		t.Helper()
		f, err := m.Fit(x, y, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v := linearCoef(t, f)
		if r := nbResidual(a, b, v, f.(*Fitted).Values); r > 1e-9 {
			t.Errorf("%s: relative residual %.3g over %d directions", name, r, f.Dims())
		} else {
			t.Logf("%s: %d directions, largest relative residual %.2g", name, f.Dims(), r)
		}
	}
	eu := graph.Euclidean{X: x}

	// SLPP (heat weights, automatic t).
	g, err := graph.Neighbourhood{K: DefaultNeighbours, Supervision: graph.SameClassEdges, Labels: y, Weights: graph.Weights{Kind: graph.Heat}}.Build(eu)
	if err != nil {
		t.Fatal(err)
	}
	check("slpp", SLPP{}, nbQuad(xc, g.Laplacian().Dense()), nbQuad(xc, g.Degree().Dense()))

	// MFA.
	lw, lb, err := mfaGraphs(context.Background(), eu, y, DefaultMFAK1, DefaultMFAK2, "")
	if err != nil {
		t.Fatal(err)
	}
	check("mfa", MFA{}, nbQuad(xc, lw.Dense()), nbQuad(xc, lb.Dense()))

	// DNDA: X̄ᵀL_minX̄·w = λ(X̄ᵀL_maxX̄ + 0.01·I)·w (the literal ridge).
	wi, be, _, err := NDA{}.Graphs(eu, y)
	if err != nil {
		t.Fatal(err)
	}
	check("dnda", DNDA{NDA{JitterAbs: PaperNDAJitter}}, nbQuad(xc, wi.Laplacian().Dense()),
		nbAddScaled(nbQuad(xc, be.Laplacian().Dense()), PaperNDAJitter, nbIdentitySym(d)))

	// KNDA: K̃L_minK̃·μ = λ(K̃L_maxK̃ + jitter·s²·I)·μ, polynomial kernel.
	k := DefaultKNDAKernel()
	kg := nbCentredGram(t, k, x)
	fs, _ := graph.NewFeatureSpace(k, x)
	wi, be, _, err = NDA{}.Graphs(fs, y)
	if err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for i := 0; i < n; i++ {
		s += kg.At(i, i) / float64(n)
	}
	check("knda", KNDA{}, nbQuad(kg, wi.Laplacian().Dense()),
		nbAddScaled(nbQuad(kg, be.Laplacian().Dense()), DefaultNDAJitter*s*s, nbIdentitySym(n)))

	// SKLPP: (K̃LK̃ + αK̃)·a = λ(K̃DK̃ + αK̃)·a, RBF σ = 1 (pixels in [0,1]).
	rg := nbCentredGram(t, kernel.RBF(1), x)
	rel := 0.0
	for i := 0; i < n; i++ {
		rel += rg.At(i, i) / float64(n)
	}
	check("sklpp", SKLPP{KLPP: KLPP{Kernel: kernel.RBF(1)}}, nbAddScaled(nbQuad(rg, g.Laplacian().Dense()), DefaultKernelAlpha*rel, linalg.Symmetrize(rg)),
		nbAddScaled(nbQuad(rg, g.Degree().Dense()), DefaultKernelAlpha*rel, linalg.Symmetrize(rg)))
}

// ---- tie-breaking, determinism, bad input, registry ----

// KNDA with an RBF kernel has eigenvalue-0 directions (classes collapsed);
// inside that eigenspace they are ordered by their between-class spread:
// Vᵀ·K̃·L_max·K̃·V is diagonal there, decreasing.
func TestKNDAZeroEigenspaceOrdered(t *testing.T) {
	x, y := nbWineScaled(t)
	k := kernel.RBF(1)
	f, err := KNDA{Kernel: k}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	z := nbZeroCount(f.(*Fitted).Values)
	if z < 2 {
		t.Fatalf("expected a degenerate zero eigenspace, got %d zeros", z)
	}
	fs, _ := graph.NewFeatureSpace(k, x)
	_, be, _, _ := NDA{}.Graphs(fs, y)
	g := nbCentredGram(t, k, x)
	var proj mat.Dense
	proj.Mul(g, nbCols(nbCoef(t, f), z))
	s := nbQuad(&proj, be.Laplacian().Dense())
	for i := 0; i < z; i++ {
		for j := 0; j < z; j++ {
			if i != j && math.Abs(s.At(i, j)) > 1e-8*s.At(0, 0) {
				t.Errorf("secondary matrix not diagonal: S[%d][%d] = %g", i, j, s.At(i, j))
			}
		}
		if i > 0 && s.At(i, i) > s.At(i-1, i-1)*(1+1e-10) {
			t.Errorf("between-class spread not decreasing: %g then %g", s.At(i-1, i-1), s.At(i, i))
		}
	}
	// The zero directions collapse each class to a point (in training).
	emb, _ := f.Transform(x)
	for c := 0; c < 3; c++ {
		first := -1
		for i, v := range y {
			if v != c {
				continue
			}
			if first < 0 {
				first = i
				continue
			}
			for j := 0; j < z; j++ {
				if math.Abs(emb.At(i, j)-emb.At(first, j)) > 1e-6*(1+math.Abs(emb.At(first, j))) {
					t.Fatalf("class %d not collapsed in zero direction %d", c, j)
				}
			}
		}
	}
}

func TestNeighbourhoodDeterministicAcrossGOMAXPROCS(t *testing.T) {
	x, y := nbWineScaled(t)
	fits := func() []*mat.Dense {
		var out []*mat.Dense
		for _, m := range []Method{SLPP{}, KNDA{}, DNDA{}, KMFA{}, CKFD{}} {
			f, err := m.Fit(x, y, 0)
			if err != nil {
				t.Fatal(err)
			}
			z, _ := f.Transform(x)
			out = append(out, z)
		}
		return out
	}
	old := runtime.GOMAXPROCS(1)
	a := fits()
	runtime.GOMAXPROCS(4)
	b := fits()
	runtime.GOMAXPROCS(old)
	for i := range a {
		if !mat.Equal(a[i], b[i]) {
			t.Errorf("method %d: embeddings differ between GOMAXPROCS 1 and 4", i)
		}
	}
}

func finiteOut(t *testing.T, name string, m Model, x *mat.Dense) {
	t.Helper()
	z, err := m.Transform(x)
	if err != nil {
		t.Fatalf("%s: transform: %v", name, err)
	}
	r, c := z.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := z.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: output (%d,%d) = %v", name, i, j, v)
			}
		}
	}
}

// Bad input: k = 0, k ≥ class size, ε connecting nothing, duplicate
// points, a single class, too many dimensions, singleton classes.
func TestNeighbourhoodBadInput(t *testing.T) {
	x, y := nbWineScaled(t)
	expectErr := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", what, err, want)
		}
	}
	for _, name := range []string{"lpp", "slpp", "klpp", "sklpp", "knda", "dnda"} {
		_, err := New(name, map[string]string{"k": "0"})
		expectErr(name+" k=0", err, "must be ≥ 1")
	}
	_, err := New("mfa", map[string]string{"k1": "0"})
	expectErr("mfa k1=0", err, "must be ≥ 1")
	_, err = LPP{NeighbourParams: NeighbourParams{K: -1}}.Fit(x, nil, 0)
	expectErr("lpp k=-1", err, "must be ≥ 1")
	_, err = KNDA{NDA: NDA{Eps: 1e-9}}.Fit(x, y, 0)
	expectErr("knda tiny ε", err, "increase ε")
	_, err = DNDA{NDA: NDA{Eps: 1e-9}}.Fit(x, y, 0)
	expectErr("dnda tiny ε", err, "connects no pair")
	_, err = KNDA{NDA: NDA{Eps: -1}}.Fit(x, y, 0)
	expectErr("knda ε < 0", err, "eps=-1: must be > 0")
	one := make([]int, len(y))
	for _, m := range []Method{SLPP{}, SKLPP{}, MFA{}, KMFA{}, CKFD{}, KNDA{}, DNDA{}} {
		_, err = m.Fit(x, one, 0)
		expectErr("single class", err, "at least 2")
	}
	_, err = DNDA{}.Fit(x, y, 14)
	expectErr("dnda dims 14 > d", err, "at most")
	_, err = CKFD{}.Fit(x, y, 5)
	expectErr("ckfd dims 5 > 2(C−1)", err, "at most 2(C−1)")
	_, err = LPP{PCA: 2.5}.Fit(x, nil, 0)
	expectErr("pca 2.5", err, "whole number")

	// k ≥ class size: capped (complete within-class graphs), finite output.
	for _, m := range []Method{SLPP{LPP: LPP{NeighbourParams: NeighbourParams{K: 500}}, Within: true}, MFA{K1: 500, K2: 500}, KNDA{NDA: NDA{K: 500}}} {
		f, err := m.Fit(x, y, 0)
		if err != nil {
			t.Fatalf("%T with k ≥ n_c: %v", m, err)
		}
		finiteOut(t, "k ≥ n_c", f, x)
	}

	// Duplicate points: every third iris row (iris has duplicates of its
	// own) three times over.
	xa, ya := loadSklearn(t, "iris")
	xa = minmax(xa)
	var sub []int
	for i := 0; i < 150; i += 3 {
		sub = append(sub, i)
	}
	n, d := len(sub), 4
	xi := mat.NewDense(n, d, nil)
	yi := make([]int, n)
	for r, i := range sub {
		copy(xi.RawRowView(r), xa.RawRowView(i))
		yi[r] = ya[i]
	}
	dup := mat.NewDense(3*n, d, nil)
	ydup := make([]int, 3*n)
	for i := 0; i < 3*n; i++ {
		copy(dup.RawRowView(i), xi.RawRowView(i%n))
		ydup[i] = yi[i%n]
	}
	ydup = compact(ydup)
	for _, name := range []string{"lpp", "slpp", "klpp", "sklpp", "mfa", "kmfa", "ckfd", "knda", "dnda"} {
		for _, params := range []map[string]string{nil, {"weight": "local"}, {"weight": "constant"}} {
			if params != nil && !strings.Contains("lpp slpp klpp sklpp", name) {
				continue
			}
			m, err := New(name, params)
			if err != nil {
				t.Fatal(err)
			}
			f, err := m.Fit(dup, ydup, 0)
			if err != nil {
				t.Errorf("%s %v on duplicated rows: %v", name, params, err)
				continue
			}
			finiteOut(t, name+" duplicates", f, xi)
		}
	}

	// Singleton classes: isolated in the within-class graphs, still fine.
	ys := append([]int(nil), y...)
	ys[0], ys[100] = 3, 4
	for _, m := range []Method{SLPP{Within: true}, MFA{}, KNDA{}, DNDA{}, SKLPP{}, CKFD{}} {
		f, err := m.Fit(x, ys, 0)
		if err != nil {
			t.Errorf("%T with singleton classes: %v", m, err)
			continue
		}
		finiteOut(t, "singletons", f, x)
	}
}

// The CLI names are registered with documented defaults, parse their
// parameters, and reject unknown ones.
func TestNeighbourhoodRegistry(t *testing.T) {
	for _, name := range []string{"lpp", "slpp", "klpp", "sklpp", "mfa", "kmfa", "ckfd", "knda", "dnda"} {
		info, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if info.Paper == "" || info.MaxDims == "" || len(info.Params) == 0 {
			t.Errorf("%s: incomplete registration %+v", name, info)
		}
		for _, p := range info.Params {
			if p.Doc == "" {
				t.Errorf("%s: parameter %s undocumented", name, p.Name)
			}
		}
		if _, err := New(name, map[string]string{"bogus": "1"}); err == nil {
			t.Errorf("%s: unknown parameter accepted", name)
		}
	}
	m, err := New("knda", map[string]string{"k": "4", "eps": "2", "jitter": "0.5", "pca": "0.9", "degree": "3"})
	if err != nil {
		t.Fatal(err)
	}
	kn := m.(KNDA)
	if kn.K != 4 || kn.Eps != 2 || kn.Jitter != 0.5 || kn.PCA != 0.9 || kn.Kernel.Type != "poly" || kn.Kernel.Degree != 3 {
		t.Errorf("knda parameters parsed as %+v", kn)
	}
	m, err = New("sklpp", map[string]string{"weight": "local", "within": "true", "graphspace": "kernel", "sigma": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.(SKLPP); !s.Within || !s.GraphInKernel || s.Weight != graph.LocalScaling || s.Kernel.Sigma != 2 {
		t.Errorf("sklpp parameters parsed as %+v", s)
	}
	if _, err := New("lpp", map[string]string{"weight": "gauss"}); err == nil {
		t.Error("lpp weight=gauss accepted")
	}
}

// Unsupervised LPP and the optional PCA pre-step: with pca = 0.9 the model
// is PCA (90% variance) composed with LPP on the reduced rows.
func TestLPPWithPCAStep(t *testing.T) {
	x, _ := loadORL(t, 3)
	f, err := LPP{PCA: 0.9}.Fit(x, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := PCA{}.Fit(x, nil, 0)
	vals := pm.(*Fitted).Values
	k, _ := componentsFor("pca", vals, 0.9)
	if f.Dims() != k {
		t.Errorf("LPP after PCA(90%%): %d dims, want %d", f.Dims(), k)
	}
	finiteOut(t, "lpp pca", f, x)
}

// KNDA and DNDA with the default (relative) ridge are invariant to the
// scale of the data: fitted on X and on 1000·X, their training embeddings
// agree column by column up to a scale factor. With the paper's absolute
// 0.01 (JitterAbs) they are not.
func TestNDAScaleInvariance(t *testing.T) {
	x, y := nbWineScaled(t)
	big := mat.DenseCopyOf(x)
	big.Scale(1000, big)
	for _, tc := range []struct {
		name string
		m    Method
	}{{"knda", KNDA{}}, {"dnda", DNDA{}}} {
		f1, err := tc.m.Fit(x, y, 6)
		if err != nil {
			t.Fatal(err)
		}
		f2, err := tc.m.Fit(big, y, 6)
		if err != nil {
			t.Fatal(err)
		}
		z1, _ := f1.Transform(x)
		z2, _ := f2.Transform(big)
		for j := 0; j < 6; j++ {
			a := nbMaxAngle(t, mat.DenseCopyOf(z1.Slice(0, 178, j, j+1)), mat.DenseCopyOf(z2.Slice(0, 178, j, j+1)))
			if a > 1e-6 {
				t.Errorf("%s direction %d: angle %.3g between the embeddings of X and 1000·X", tc.name, j, a)
			}
		}
	}
	f1, _ := KNDA{NDA: NDA{JitterAbs: PaperNDAJitter}}.Fit(x, y, 6)
	f2, _ := KNDA{NDA: NDA{JitterAbs: PaperNDAJitter}}.Fit(big, y, 6)
	z1, _ := f1.Transform(x)
	z2, _ := f2.Transform(big)
	if a := nbMaxAngle(t, z1, z2); a < 1e-3 {
		t.Errorf("absolute jitter: embeddings of X and 1000·X agree (angle %.3g); expected the scale to matter", a)
	}
}
