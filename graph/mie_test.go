package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

// randomLabels draws n labels over c classes, every class present.
func randomLabels(rng *rand.Rand, n, c int) []int {
	y := make([]int, n)
	for i := range y {
		if i < c {
			y[i] = i
		} else {
			y[i] = rng.IntN(c)
		}
	}
	rng.Shuffle(n, func(i, j int) { y[i], y[j] = y[j], y[i] })
	return y
}

func randomRows(rng *rand.Rand, n, d int, s float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, s*rng.NormFloat64())
		}
	}
	return x
}

// γ of seed 003 eq. 5 entry by entry from its formula, and its relation
// to the QMI graph of seed 000 (γ = N²·M').
func TestGammaFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	y := randomLabels(rng, 37, 4)
	g, err := Gamma(y)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := QMI(y)
	n := float64(len(y))
	cnt := map[int]float64{}
	for _, v := range y {
		cnt[v]++
	}
	eta := 0.0
	for _, k := range cnt {
		eta += k * k / (n * n)
	}
	for i := range y {
		for j := range y {
			want := eta - cnt[y[i]]/n - cnt[y[j]]/n
			if y[i] == y[j] {
				want++
			}
			if got := g.at(i, j); math.Abs(got-want) > 1e-12 {
				t.Fatalf("γ(%d,%d) = %v, formula %v", i, j, got, want)
			}
			if q := n * n * m.at(i, j); math.Abs(q-want) > 1e-12 {
				t.Fatalf("N²·M'(%d,%d) = %v, γ %v", i, j, q, want)
			}
		}
	}
}

// Theorem 2 of seed 003: γ > 0 on every same-class pair, and the mean of γ
// over the ordered pairs of different classes is negative — on random
// class sizes, including very unbalanced ones.
func TestGammaTheorem2(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		c := 2 + rng.IntN(6)
		n := c + rng.IntN(60)
		y := randomLabels(rng, n, c)
		if trial%10 == 0 { // one dominant class
			for i := c; i < n; i++ {
				y[i] = 0
			}
		}
		g, err := Gamma(y)
		if err != nil {
			t.Fatal(err)
		}
		sum, pairs := 0.0, 0
		for i := range y {
			for j := range y {
				v := g.at(i, j)
				if y[i] == y[j] {
					if !(v > 0) {
						t.Fatalf("trial %d: same-class γ(%d,%d) = %v; Theorem 2 says > 0", trial, i, j, v)
					}
					continue
				}
				sum += v
				pairs++
			}
		}
		if mean := sum / float64(pairs); !(mean < 0) {
			t.Fatalf("trial %d (%d classes, n = %d): mean between-class γ = %v; Theorem 2 says < 0", trial, c, n, mean)
		}
	}
}

// Eq. 4 = eq. 5: the three-term quadratic-MI estimate J_zy + J_z·J_y,
// computed term by term from eq. 4 with k(zᵢ, zⱼ) = exp(−‖zᵢ−zⱼ‖²/δ²),
// equals the γ-weighted kernel sum of Theorem 1, on random embeddings.
func TestEq4EqualsEq5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 20; trial++ {
		n, c, d := 10+rng.IntN(40), 2+rng.IntN(5), 1+rng.IntN(4)
		y := randomLabels(rng, n, c)
		z := randomRows(rng, n, d, 1)
		delta := 0.5 + 2*rng.Float64()
		k := func(i, j int) float64 {
			s := 0.0
			for a := 0; a < d; a++ {
				v := z.At(i, a) - z.At(j, a)
				s += v * v
			}
			return math.Exp(-s / (delta * delta))
		}
		fn := float64(n)
		cnt := make([]float64, c)
		for _, v := range y {
			cnt[v]++
		}
		jzy := 0.0
		for cl := 0; cl < c; cl++ {
			for i := 0; i < n; i++ {
				if y[i] != cl {
					continue
				}
				for j := 0; j < n; j++ {
					if y[j] == cl {
						jzy += k(i, j)
					}
				}
				for m := 0; m < n; m++ {
					jzy -= 2 * cnt[cl] / fn * k(i, m)
				}
			}
		}
		jzy /= fn * fn
		jz, jy := 0.0, 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				jz += k(i, j)
			}
		}
		jz /= fn * fn
		for _, v := range cnt {
			jy += v * v / (fn * fn)
		}
		g, _ := Gamma(y)
		got, err := KernelSum(g, Euclidean{X: z}, Bandwidth{Delta: delta})
		if err != nil {
			t.Fatal(err)
		}
		if want := jzy + jz*jy; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("trial %d: eq. 5 gives %.15g, eq. 4 %.15g", trial, got, want)
		}
	}
}

// The r-graph of §4 from its formula.
func TestBERFormula(t *testing.T) {
	y := []int{0, 0, 0, 1, 1, 2}
	g, err := BER(y)
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.5, 2.0 / 6, 1.0 / 6}
	for i := range y {
		for j := range y {
			want := p[y[i]] + p[y[j]] - 2
			if y[i] == y[j] {
				want = 2 * p[y[i]]
			}
			if got := g.at(i, j); math.Abs(got-want) > 1e-15 {
				t.Errorf("r(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
}

// The weights and the kernel sum with local scaling, against a direct
// computation; the tangent weights are the derivative of the kernel sum.
func TestVariationalWeightsLocal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 25
	y := randomLabels(rng, n, 3)
	x := randomRows(rng, n, 3, 1)
	bw, err := LocalBandwidth(Euclidean{X: x}, 4, SearchBrute)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := Gamma(y)
	wp, err := VariationalWeights(g, Euclidean{X: x}, bw, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := VariationalWeights(g, Euclidean{X: x}, bw, true)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d2 := Euclidean{X: x}.SqDist(i, j)
			s2 := bw.Sigma[i] * bw.Sigma[j]
			want := g.at(i, j) * math.Exp(-d2/s2)
			if math.Abs(wp.At(i, j)-want) > 1e-14 || math.Abs(wt.At(i, j)-want/s2) > 1e-12*math.Abs(want/s2)+1e-15 {
				t.Fatalf("w(%d,%d) = %v, %v; want %v, %v", i, j, wp.At(i, j), wt.At(i, j), want, want/s2)
			}
		}
	}
	// dJ/dZ = −(4/N²)·L·Z with the tangent weights: check by central
	// differences on one coordinate.
	lap, _ := LaplacianOf(wt)
	grad := lap.Apply(x)
	h := 1e-6
	for _, ij := range [][2]int{{0, 0}, {7, 2}, {19, 1}} {
		xp, xm := mat.DenseCopyOf(x), mat.DenseCopyOf(x)
		xp.Set(ij[0], ij[1], x.At(ij[0], ij[1])+h)
		xm.Set(ij[0], ij[1], x.At(ij[0], ij[1])-h)
		jp, _ := KernelSum(g, Euclidean{X: xp}, bw)
		jm, _ := KernelSum(g, Euclidean{X: xm}, bw)
		num := (jp - jm) / (2 * h)
		an := -4 / float64(n*n) * grad.At(ij[0], ij[1])
		if math.Abs(num-an) > 1e-6*(math.Abs(an)+1e-3) {
			t.Errorf("∂J/∂z(%d,%d): numeric %.10g, −(4/N²)(LZ) %.10g", ij[0], ij[1], num, an)
		}
	}
}

// Theorem 3 of seed 003: the redundancy term J_z = (1/N²)Σᵢⱼ k(zᵢ, zⱼ)
// (class coefficients all 1) linearised at the input rows gives the heat
// graph of LPP: with one δ, the initial graph equals the complete
// neighbourhood graph with heat weights exp(−d²/t), t = δ², entry by entry,
// so its embedding minimises LPP's objective Σᵢⱼ wᵢⱼ‖zᵢ − zⱼ‖².
func TestTheorem3RedundancyIsLPPGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 30
	y := make([]int, n) // one block: all coefficients 1
	ones := &ClassBlock{Labels: y, Block: mat.NewSymDense(1, []float64{1})}
	x := randomRows(rng, n, 4, 1)
	delta := 1.7
	w, err := VariationalWeights(ones, Euclidean{X: x}, Bandwidth{Delta: delta}, false)
	if err != nil {
		t.Fatal(err)
	}
	lpp, err := Neighbourhood{K: n - 1, Weights: Weights{Kind: Heat, T: delta * delta}, Search: SearchBrute}.Build(Euclidean{X: x})
	if err != nil {
		t.Fatal(err)
	}
	ld := lpp.W.Dense()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if math.Abs(w.At(i, j)-ld.At(i, j)) > 1e-14 {
				t.Fatalf("w(%d,%d) = %v, LPP heat graph %v", i, j, w.At(i, j), ld.At(i, j))
			}
		}
	}
}

// Theorem 4 of seed 003, on a balanced toy set: the relevance term
// J_zy (coefficients I(yᵢ=yⱼ) − P̂_yᵢ − P̂_yⱼ) linearised at the input rows
// gives the graph w⁺ − w⁻ of eq. 13, and that graph is a fixed combination
// of LFDA's two local graphs (Sugiyama 2007, affinity A = heat kernel):
//
//	w⁺ − w⁻ = −n_c·(W^lw + 2·W^lb),   W^lw = A/n_c (same class), 0 (other);
//	                                   W^lb = A(1/n − 1/n_c) (same), A/n (other).
//
// The check is entry by entry against LFDA's definitions. (So the initial
// MIE's relevance part optimises the trace difference tr(S^lw + 2S^lb) of
// LFDA's scatters, not LFDA's trace ratio: docs/variational-embedding.md.)
func TestTheorem4RelevanceIsLFDAGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c, nc := 3, 8
	n := c * nc
	y := make([]int, n)
	for i := range y {
		y[i] = i % c
	}
	x := randomRows(rng, n, 3, 1)
	delta := 1.3
	rel := mat.NewSymDense(c, nil)
	for a := 0; a < c; a++ {
		for b := a; b < c; b++ {
			v := -2.0 / float64(c)
			if a == b {
				v++
			}
			rel.SetSym(a, b, v)
		}
	}
	w, err := VariationalWeights(&ClassBlock{Labels: y, Block: rel}, Euclidean{X: x}, Bandwidth{Delta: delta}, false)
	if err != nil {
		t.Fatal(err)
	}
	fn, fc := float64(n), float64(nc)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a := math.Exp(-Euclidean{X: x}.SqDist(i, j) / (delta * delta))
			lw, lb := 0.0, a/fn
			if y[i] == y[j] {
				lw, lb = a/fc, a*(1/fn-1/fc)
			}
			if want := -fc * (lw + 2*lb); math.Abs(w.At(i, j)-want) > 1e-14 {
				t.Fatalf("w(%d,%d) = %v, −n_c(W^lw + 2W^lb) = %v", i, j, w.At(i, j), want)
			}
		}
	}
}

func TestVariationalBadInput(t *testing.T) {
	if _, err := Gamma([]int{0, -1, 1}); err == nil {
		t.Error("Gamma accepted an unlabeled row")
	}
	y := []int{0, 0, 1, 1}
	g, _ := Gamma(y)
	x := mat.NewDense(4, 1, []float64{0, 1, 2, 3})
	for _, bw := range []Bandwidth{{Delta: -1}, {Delta: math.NaN()}, {Sigma: []float64{1, 1}}, {Sigma: []float64{1, 0, 1, 1}}} {
		if _, err := VariationalWeights(g, Euclidean{X: x}, bw, true); err == nil {
			t.Errorf("bandwidth %+v accepted", bw)
		}
	}
	if _, err := KernelSum(g, Euclidean{X: mat.NewDense(3, 1, nil)}, Bandwidth{Delta: 1}); err == nil {
		t.Error("size mismatch accepted")
	}
}

// SignedLaplacians splits a signed graph: L⁺ − L⁻ is the Laplacian of W
// (exactly: every edge goes to one side), both parts are Laplacians of
// non-negative graphs (rows sum to zero, off-diagonals ≤ 0), and the edge
// counts are those of the signs of W's off-diagonal entries.
func TestSignedLaplacians(t *testing.T) {
	w := mat.NewSymDense(4, []float64{
		9, 2, -1, 0,
		2, 9, 0.5, -3,
		-1, 0.5, 9, 0,
		0, -3, 0, 9,
	})
	pos, neg, np, nn, err := SignedLaplacians(w)
	if err != nil {
		t.Fatal(err)
	}
	if np != 2 || nn != 2 {
		t.Errorf("edges %d positive, %d negative; want 2 and 2", np, nn)
	}
	l, _ := LaplacianOf(w)
	for i := 0; i < 4; i++ {
		rp, rn := 0.0, 0.0
		for j := 0; j < 4; j++ {
			if d := pos.M.At(i, j) - neg.M.At(i, j) - l.M.At(i, j); d != 0 {
				t.Errorf("L⁺ − L⁻ − L at (%d,%d) = %g", i, j, d)
			}
			if i != j && (pos.M.At(i, j) > 0 || neg.M.At(i, j) > 0) {
				t.Errorf("positive off-diagonal at (%d,%d): L⁺ %g, L⁻ %g", i, j, pos.M.At(i, j), neg.M.At(i, j))
			}
			rp += pos.M.At(i, j)
			rn += neg.M.At(i, j)
		}
		if rp != 0 || rn != 0 {
			t.Errorf("row %d sums: L⁺ %g, L⁻ %g", i, rp, rn)
		}
	}
	if _, _, _, _, err := SignedLaplacians(&mat.SymDense{}); err == nil {
		t.Error("empty matrix accepted")
	}
}

// The tiled, parallel pair loop gives the plain double loop's numbers bit
// for bit — every weight, and the kernel sum, whose per-row sums must keep
// their order — at sizes that leave partial blocks and tiles, whatever
// GOMAXPROCS is.
func TestVariationalPairsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, pairBlock + 1, pairBlock + pairTile + 7, 3*pairTile + 5} {
		y := randomLabels(rng, n, min(n, 4))
		x := randomRows(rng, n, 13, 1)
		m := Euclidean{X: x}
		bw := Bandwidth{Delta: 2.5}
		if n > 5 {
			var err error
			if bw, err = LocalBandwidth(m, 3, SearchBrute); err != nil {
				t.Fatal(err)
			}
		}
		g, _ := BER(y)
		wantSum := 0.0
		for i := 0; i < n; i++ {
			row := 0.0
			for j := i + 1; j < n; j++ {
				row += g.at(i, j) * math.Exp(-m.SqDist(i, j)/bw.Sq(i, j))
			}
			wantSum += 2*row + g.at(i, i)
		}
		wantSum /= float64(n) * float64(n)
		for _, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			w, err := VariationalWeights(g, m, bw, true)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := KernelSum(g, m, bw)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if sum != wantSum {
				t.Fatalf("n = %d, GOMAXPROCS %d: J = %v, plain loop %v", n, procs, sum, wantSum)
			}
			// The fused pass: the same weights and the same J.
			w2, j2, err := VariationalGraph(g, m, bw, true)
			if err != nil || j2 != wantSum || !mat.Equal(w2, w) {
				t.Fatalf("n = %d, GOMAXPROCS %d: VariationalGraph J = %v (plain loop %v), same weights %v, err %v", n, procs, j2, wantSum, mat.Equal(w2, w), err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					want := 0.0
					if i != j {
						d2 := bw.Sq(i, j)
						want = g.at(i, j) * math.Exp(-m.SqDist(i, j)/d2) / d2
					}
					if w.At(i, j) != want {
						t.Fatalf("n = %d, GOMAXPROCS %d: w(%d,%d) = %v, plain loop %v", n, procs, i, j, w.At(i, j), want)
					}
				}
			}
		}
	}
}

// The O(n²) pair loops of AQMIDA and of the variational graph with a
// context: the same bits as without one; with a reporter and
// progress.MinOrder rows, rising percentages under 100; a cancelled
// context gives its error.
func TestPairLoopsContext(t *testing.T) {
	old := progress.MinGap
	progress.MinGap = 0
	defer func() { progress.MinGap = old }()
	rng := rand.New(rand.NewPCG(4, 5))
	n := progress.MinOrder
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	y := randomLabels(rng, n, 3)
	g, err := Gamma(y)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var mu sync.Mutex
	ctx := progress.With(context.Background(), func(s string) {
		mu.Lock()
		lines = append(lines, s)
		mu.Unlock()
	})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	percents := func(prefix string) []int {
		var p []int
		for _, l := range lines {
			var v int
			if rest, ok := strings.CutPrefix(l, prefix+", "); ok {
				if _, err := fmt.Sscanf(rest, "%d %%", &v); err == nil {
					p = append(p, v)
				}
			}
		}
		return p
	}
	rising := func(what string, p []int) {
		t.Helper()
		if len(p) == 0 || !slices.IsSorted(p) || p[len(p)-1] >= 100 {
			t.Errorf("%s: percentages %v, want rising values under 100", what, p)
		}
	}

	m := Euclidean{X: x}
	bw := Bandwidth{Delta: 1.5}
	w0, j0, _ := VariationalGraph(g, m, bw, true)
	w1, j1, err := VariationalGraphContext(ctx, g, m, bw, true)
	if err != nil || j1 != j0 || !mat.Equal(w0, w1) {
		t.Errorf("VariationalGraphContext differs from VariationalGraph (J %v vs %v, err %v)", j1, j0, err)
	}
	rising("variational graph", percents(fmt.Sprintf("variational graph: weights of the %d×%d pairs", n, n)))
	if s, err := KernelSumContext(ctx, g, m, bw); err != nil || s != j0 {
		t.Errorf("KernelSumContext = %v, %v; want %v", s, err, j0)
	}
	rising("criterion", percents(fmt.Sprintf("criterion J over the %d×%d pairs", n, n)))
	if _, _, err := VariationalGraphContext(cancelled, g, m, bw, true); !errors.Is(err, context.Canceled) {
		t.Errorf("VariationalGraphContext cancelled: %v", err)
	}
	if _, err := KernelSumContext(cancelled, g, m, bw); !errors.Is(err, context.Canceled) {
		t.Errorf("KernelSumContext cancelled: %v", err)
	}
	var calls atomic.Int64
	if err := upperPairsContext(cancelled, n, "", func(i, j int) { calls.Add(1) }); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Errorf("upperPairsContext cancelled: %v after %d pairs, want no pair computed", err, calls.Load())
	}

	l0, _ := ApproxQMI(x, y, 0.7)
	l1, err := ApproxQMIContext(ctx, x, y, 0.7)
	if err != nil || !mat.Equal(l0, l1) {
		t.Errorf("ApproxQMIContext differs from ApproxQMI (err %v)", err)
	}
	rising("AQMIDA", percents(fmt.Sprintf("AQMIDA pairwise weights of the %d×%d pairs", n, n)))
	if _, err := ApproxQMIContext(cancelled, x, y, 0.7); !errors.Is(err, context.Canceled) {
		t.Errorf("ApproxQMIContext cancelled: %v", err)
	}
}
