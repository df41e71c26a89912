package classify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// naiveKNN is the brute-force reference: direct distances, a full stable
// sort by (distance, index), and the documented vote rule, summed
// distances within 1e-9 counting as equal (on integer rows a distance tie
// is exact, but equal sums of square roots can differ in rounding).
func naiveKNN(k int, X *mat.Dense, y []int, T *mat.Dense) []int {
	n, p := X.Dims()
	nt, _ := T.Dims()
	out := make([]int, nt)
	for t := 0; t < nt; t++ {
		type nd struct {
			d float64
			i int
		}
		all := make([]nd, n)
		for i := 0; i < n; i++ {
			s := 0.0
			for j := 0; j < p; j++ {
				d := T.At(t, j) - X.At(i, j)
				s += d * d
			}
			all[i] = nd{math.Sqrt(s), i}
		}
		sort.SliceStable(all, func(a, b int) bool { return all[a].d < all[b].d })
		votes := map[int]int{}
		sums := map[int]float64{}
		for _, e := range all[:k] {
			votes[y[e.i]]++
			sums[y[e.i]] += e.d
		}
		best := -1
		for c := range votes {
			if best < 0 || votes[c] > votes[best] ||
				(votes[c] == votes[best] && (sums[c] < sums[best]-1e-9 || (math.Abs(sums[c]-sums[best]) <= 1e-9 && c < best))) {
				best = c
			}
		}
		out[t] = best
	}
	return out
}

// classSums returns the per-class column sums of X and the class sizes,
// for classes 0..max(y).
func classSums[T int64 | float64](X *mat.Dense, y []int) (sum [][]T, cnt []T) {
	n, p := X.Dims()
	nc := 0
	for _, v := range y {
		nc = max(nc, v+1)
	}
	sum, cnt = make([][]T, nc), make([]T, nc)
	for c := range sum {
		sum[c] = make([]T, p)
	}
	for i := 0; i < n; i++ {
		cnt[y[i]]++
		for j := 0; j < p; j++ {
			sum[y[i]][j] += T(X.At(i, j))
		}
	}
	return sum, cnt
}

func naiveNCC(X *mat.Dense, y []int, T *mat.Dense) []int {
	_, p := X.Dims()
	nt, _ := T.Dims()
	mean, cnt := classSums[float64](X, y)
	nc := len(cnt)
	out := make([]int, nt)
	for t := 0; t < nt; t++ {
		best, bd := -1, math.Inf(1)
		for c := 0; c < nc; c++ {
			if cnt[c] == 0 {
				continue
			}
			s := 0.0
			for j := 0; j < p; j++ {
				d := T.At(t, j) - mean[c][j]/cnt[c]
				s += d * d
			}
			if s < bd {
				best, bd = c, s
			}
		}
		out[t] = best
	}
	return out
}

// dataset returns n rows in p columns with labels 0..c-1; integer-valued
// rows (many exact ties) when ints is set.
func dataset(rng *rand.Rand, n, p, c int, ints bool) (*mat.Dense, []int) {
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = rng.IntN(c)
		for j := 0; j < p; j++ {
			if ints {
				x.Set(i, j, float64(rng.IntN(3)))
			} else {
				x.Set(i, j, rng.NormFloat64()+0.7*float64(y[i]%(j+2)))
			}
		}
	}
	return x, y
}

// fitPredict fits c on (X, y) and predicts T, failing the test on an
// error.
func fitPredict(t *testing.T, c Classifier, X *mat.Dense, y []int, T *mat.Dense) []int {
	t.Helper()
	p, err := c.Fit(X, y)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Predict(T)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestKNNMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, ints := range []bool{false, true} {
		for _, k := range []int{1, 2, 3, 4, 7} {
			X, y := dataset(rng, 60, 4, 3, ints)
			T, _ := dataset(rng, 45, 4, 3, ints)
			got := fitPredict(t, KNN{K: k}, X, y, T)
			if want := naiveKNN(k, X, y, T); !reflect.DeepEqual(got, want) {
				t.Errorf("k=%d ints=%v:\n got %v\nwant %v", k, ints, got, want)
			}
		}
	}
}

func TestKNNBlocks(t *testing.T) {
	// A tiny block budget forces many blocks (and a block of one row when
	// the training set exceeds the budget); the answer must not depend on
	// blocking.
	defer func(b int) { blockElems = b }(blockElems)
	rng := rand.New(rand.NewPCG(2, 2))
	X, y := dataset(rng, 300, 3, 4, false)
	T, _ := dataset(rng, 90, 3, 4, false)
	want := naiveKNN(3, X, y, T)
	for _, b := range []int{7 * 300, 100} {
		blockElems = b
		p, err := KNN{K: 3}.Fit(X, y)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Predict(T)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("block budget %d: blockwise kNN differs from brute force", b)
		}
		miss, err := KNN{K: 3}.Sweep(X, y, T, want, 3)
		if err != nil {
			t.Fatal(err)
		}
		if miss[2] != 0 {
			t.Errorf("block budget %d: sweep at full dimension misses %d rows of the brute-force labels", b, miss[2])
		}
	}
}

func TestNCCMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, ints := range []bool{false, true} {
		X, y := dataset(rng, 50, 5, 4, ints)
		y[0] = 6 // classes 4 and 5 absent
		T, _ := dataset(rng, 40, 5, 4, ints)
		got := fitPredict(t, NCC{}, X, y, T)
		if want := naiveNCC(X, y, T); !reflect.DeepEqual(got, want) {
			t.Errorf("ints=%v:\n got %v\nwant %v", ints, got, want)
		}
	}
}

func TestTieRules(t *testing.T) {
	// Training points on a line; query at 0.
	X := mat.NewDense(6, 1, []float64{1, -1, 2, -2, 3, -3})
	// Distance tie between rows 0 and 1: 1-NN takes the lower index.
	p, _ := KNN{K: 1}.Fit(X, []int{5, 4, 0, 0, 0, 0})
	if got, _ := p.Predict(mat.NewDense(1, 1, []float64{0})); got[0] != 5 {
		t.Errorf("1-NN distance tie: got %d, want 5 (lower index)", got[0])
	}
	// 2-NN, one vote each, equal sums: lowest label.
	p, _ = KNN{K: 2}.Fit(X, []int{5, 4, 0, 0, 0, 0})
	if got, _ := p.Predict(mat.NewDense(1, 1, []float64{0})); got[0] != 4 {
		t.Errorf("2-NN vote tie, equal sums: got %d, want 4 (lowest label)", got[0])
	}
	// 4-NN: labels 1,2,1,2 at distances 1,1,2,2 → tie 2-2, equal sums →
	// lowest label. Query 0.1: class 1 at 0.9 and 1.9, class 2 at 1.1 and
	// 2.1 → class 1 by smaller sum.
	p, _ = KNN{K: 4}.Fit(X, []int{2, 1, 2, 1, 0, 0})
	if got, _ := p.Predict(mat.NewDense(2, 1, []float64{0, 0.1})); got[0] != 1 || got[1] != 2 {
		t.Errorf("4-NN vote ties: got %v, want [1 2]", got)
	}
	// 3-NN: majority beats distance.
	p, _ = KNN{K: 3}.Fit(X, []int{7, 3, 3, 0, 0, 0})
	if got, _ := p.Predict(mat.NewDense(1, 1, []float64{0.5})); got[0] != 3 {
		t.Errorf("3-NN majority: got %d, want 3", got[0])
	}
	// NCC tie: lowest label.
	p, _ = NCC{}.Fit(mat.NewDense(2, 1, []float64{1, -1}), []int{3, 1})
	if got, _ := p.Predict(mat.NewDense(1, 1, []float64{0})); got[0] != 1 {
		t.Errorf("NCC tie: got %d, want 1", got[0])
	}
	// Distances equal up to rounding are tied: 0.1 + 0.2 is 0.30000000000000004,
	// farther from 0 than 0.3 in floating point, and still wins as the lower
	// index (1-NN) or label (NCC); 1e-6 farther is not a tie.
	q := mat.NewDense(1, 1, []float64{0})
	tenth := 0.1 // a variable: a constant 0.1 + 0.2 is exactly 0.3
	for _, c := range []struct {
		far  float64
		want int
	}{{-(tenth + 0.2), 4}, {-0.3 * (1 + 1e-6), 5}} {
		p, _ = KNN{K: 1}.Fit(mat.NewDense(2, 1, []float64{c.far, 0.3}), []int{4, 5})
		if got, _ := p.Predict(q); got[0] != c.want {
			t.Errorf("1-NN, rows %v and 0.3: got %d, want %d", c.far, got[0], c.want)
		}
		p, _ = NCC{}.Fit(mat.NewDense(2, 1, []float64{c.far, 0.3}), []int{4, 5})
		if got, _ := p.Predict(q); got[0] != c.want {
			t.Errorf("NCC, centroids %v and 0.3: got %d, want %d", c.far, got[0], c.want)
		}
		// 2-NN, one vote each: summed distances within the tolerance are tied.
		p, _ = KNN{K: 2}.Fit(mat.NewDense(3, 1, []float64{c.far, 0.3, 9}), []int{4, 5, 6})
		if got, _ := p.Predict(q); got[0] != c.want {
			t.Errorf("2-NN, rows %v and 0.3: got %d, want %d", c.far, got[0], c.want)
		}
	}
}

// The tie tolerance is absolute in distance, a billionth of the
// coordinates' size: points 1e-3 apart next to a point at 360 (Soy's LDA
// has such classes) are not tied, whatever the squared distances' ratio
// to the squared norms (1e-6 against 4e4).
func TestCloseIsNotTied(t *testing.T) {
	base := -20.0
	X := mat.NewDense(3, 1, []float64{base + 2e-3, base + 1e-3, 360})
	q := mat.NewDense(1, 1, []float64{base})
	for _, c := range []Classifier{NCC{}, KNN{K: 1}} {
		p, err := c.Fit(X, []int{0, 1, 2})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := p.Predict(q); got[0] != 1 {
			t.Errorf("%s: rows %v, query %v: got %d, want 1 (nearer by 1e-3)", c.Name(), X.RawMatrix().Data, base, got[0])
		}
		miss, err := SweepMisclassified(c, X, []int{0, 1, 2}, q, []int{1}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if miss[0] != 0 {
			t.Errorf("%s sweep: query %v misclassified, want 1 (nearer by 1e-3)", c.Name(), base)
		}
	}
}

// A value is always tied with itself: (√d2 + r)² rounds below d2 for
// about half the values when r is 0 or below d2's last bit, and a run
// anchored there would hold nothing (k-NN looped forever on it).
func TestTieLimitHoldsItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for i := 0; i < 10000; i++ {
		d2 := rng.Float64() * math.Pow(10, float64(rng.IntN(20)-10))
		for _, r := range []float64{0, 1e-30, 1e-9 * math.Sqrt(d2)} {
			if lim := (tie{r}).limit(d2); lim < d2 {
				t.Fatalf("tie{%g}.limit(%v) = %v < %v", r, d2, lim, d2)
			}
		}
	}
	// Duplicate training rows at distances whose square root rounds:
	// Predict (which ranks exactly before refining) must return.
	X := mat.NewDense(6, 2, []float64{0.1, 0.7, 0.1, 0.7, 0.3, 0.2, 0.3, 0.2, 0.9, 0.9, 0.9, 0.9})
	p, err := KNN{K: 3}.Fit(X, []int{0, 1, 0, 1, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Predict(mat.NewDense(2, 2, []float64{0.33, 0.51, 0.01, 0.02})); err != nil {
		t.Fatal(err)
	}
}

// A run of tied distances may hold any number of points: 1 500 rows of a
// class collapsed onto 1 (up to 1e-14) compete for the last four places
// of a query's 5 nearest, which go to the lowest indices (labels 2, 2, 1,
// 1), after the nearest row, the last (label 1): class 1 by 3 votes to 2.
// Ranking the run by its rounding would pick labels 2 nearly always.
func TestLongTiedRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := 1501
	X := mat.NewDense(n, 1, nil)
	y := make([]int, n)
	for i := 0; i < n-1; i++ {
		X.Set(i, 0, 1+1e-14*rng.NormFloat64())
		y[i] = 2
	}
	y[2], y[3] = 1, 1
	X.Set(n-1, 0, 0.5)
	y[n-1] = 1
	q := mat.NewDense(1, 1, []float64{0})
	p, err := KNN{K: 5}.Fit(X, y)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Predict(q); got[0] != 1 {
		t.Errorf("5-NN with a tied run of %d rows: got %d, want 1", n-1, got[0])
	}
	miss, err := KNN{K: 5}.Sweep(X, y, q, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if miss[0] != 0 {
		t.Errorf("5-NN sweep with a tied run of %d rows: misclassified, want class 1", n-1)
	}
}

// exactNCC is NCC on integer-valued rows in exact integer arithmetic: the
// squared distance to the centroid S/n of class c is Σ(n·t − S)²/n², so two
// classes compare by cross-multiplying; a tie goes to the lowest label.
func exactNCC(X *mat.Dense, y []int, T *mat.Dense) []int {
	_, p := X.Dims()
	nt, _ := T.Dims()
	sum, cnt := classSums[int64](X, y)
	nc := len(cnt)
	out := make([]int, nt)
	for t := range out {
		best := -1
		var bnum, bden int64
		for c := 0; c < nc; c++ {
			if cnt[c] == 0 {
				continue
			}
			var num int64
			for j := 0; j < p; j++ {
				d := cnt[c]*int64(T.At(t, j)) - sum[c][j]
				num += d * d
			}
			den := cnt[c] * cnt[c]
			if best < 0 || num*bden < bnum*den {
				best, bnum, bden = c, num, den
			}
		}
		out[t] = best
	}
	return out
}

// perturb returns X + eps·N(0, 1) entrywise.
func perturb(rng *rand.Rand, X *mat.Dense, eps float64) *mat.Dense {
	out := mat.DenseCopyOf(X)
	r, c := out.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Set(i, j, out.At(i, j)+eps*rng.NormFloat64())
		}
	}
	return out
}

// On integer-valued rows many distances tie exactly, and the answers of
// the tie rules are known exactly (naiveKNN, exactNCC). Moving every
// coordinate by about 1e-13, as an eigensolver's rounding moves points
// that coincide in theory, leaves the ties within TieTolerance, so Predict
// and the sweeps must still give those answers. Under an exact tie rule
// (TieTolerance = 0) the 1-NN and NCC predictions differ from them.
func TestNearTiesAreTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 3; trial++ {
		// Classes 3-5 repeat the rows of 0-2, so their centroids coincide
		// with 0-2's and every row has a twin.
		X0, y0 := dataset(rng, 30, 4, 3, true)
		X := mat.NewDense(60, 4, nil)
		X.Stack(X0, X0)
		y := append(append([]int(nil), y0...), y0...)
		for i := 30; i < 60; i++ {
			y[i] += 3
		}
		T, yt := dataset(rng, 45, 4, 6, true)
		Xn, Tn := perturb(rng, X, 1e-13), perturb(rng, T, 1e-13)
		check := func(c Classifier, ref func(X *mat.Dense, y []int, T *mat.Dense) []int) {
			got := fitPredict(t, c, Xn, y, Tn)
			if want := ref(X, y, T); !reflect.DeepEqual(got, want) {
				t.Errorf("trial %d, %s on perturbed rows:\n got %v\nwant %v (exact ties)", trial, c.Name(), got, want)
			}
			miss, err := SweepMisclassified(c, Xn, y, Tn, yt, 4)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= 4; k++ {
				pred := ref(mat.DenseCopyOf(X.Slice(0, 60, 0, k)), y, mat.DenseCopyOf(T.Slice(0, 45, 0, k)))
				want := 0
				for i := range pred {
					if pred[i] != yt[i] {
						want++
					}
				}
				if miss[k-1] != want {
					t.Errorf("trial %d, %s sweep at dimension %d: %d errors on perturbed rows, %d with exact ties", trial, c.Name(), k, miss[k-1], want)
				}
			}
		}
		check(NCC{}, exactNCC)
		for _, k := range []int{1, 2, 3, 4, 7} {
			check(KNN{K: k}, func(X *mat.Dense, y []int, T *mat.Dense) []int { return naiveKNN(k, X, y, T) })
		}
	}
}

// perDim is the straightforward loop the sweeps must reproduce.
func perDim(t *testing.T, c Classifier, tr *mat.Dense, ytr []int, te *mat.Dense, yte []int, maxDim int) []int {
	t.Helper()
	ntr, _ := tr.Dims()
	nte, _ := te.Dims()
	miss := make([]int, maxDim)
	for k := 1; k <= maxDim; k++ {
		p, err := c.Fit(mat.DenseCopyOf(tr.Slice(0, ntr, 0, k)), ytr)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := p.Predict(mat.DenseCopyOf(te.Slice(0, nte, 0, k)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range pred {
			if pred[i] != yte[i] {
				miss[k-1]++
			}
		}
	}
	return miss
}

// plain hides the Sweep method so SweepMisclassified takes the fallback.
type plain struct{ Classifier }

func TestSweepEqualsPerDimension(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, ints := range []bool{false, true} {
		tr, ytr := dataset(rng, 80, 6, 3, ints)
		te, yte := dataset(rng, 50, 6, 3, ints)
		for _, c := range []Classifier{NCC{}, KNN{K: 1}, KNN{K: 3}, KNN{K: 4}} {
			want := perDim(t, c, tr, ytr, te, yte, 6)
			got, err := SweepMisclassified(c, tr, ytr, te, yte, 6)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s ints=%v: sweep %v, per-dimension %v", c.Name(), ints, got, want)
			}
			fb, err := SweepMisclassified(plain{c}, tr, ytr, te, yte, 4)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fb, want[:4]) {
				t.Errorf("%s fallback: %v, want %v", c.Name(), fb, want[:4])
			}
			rates, err := SweepErrors(c, tr, ytr, te, yte, 6)
			if err != nil {
				t.Fatal(err)
			}
			for k := range rates {
				if rates[k] != float64(want[k])/50 {
					t.Errorf("%s: rate[%d] = %v, want %v", c.Name(), k, rates[k], float64(want[k])/50)
				}
			}
		}
	}
}

func TestSweepAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	tr, ytr := dataset(rng, 70, 5, 4, true)
	te, yte := dataset(rng, 40, 5, 4, true)
	cs := []Classifier{KNN{K: 3}, NCC{}, plain{KNN{K: 2}}, KNN{K: 1}, KNN{K: 5}}
	all, err := SweepAll(cs, tr, ytr, te, yte, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if want := perDim(t, c, tr, ytr, te, yte, 5); !reflect.DeepEqual(all[i], want) {
			t.Errorf("%s: SweepAll %v, per-dimension %v", c.Name(), all[i], want)
		}
	}
	if _, err := SweepAll([]Classifier{KNN{K: 1}, KNN{K: 71}}, tr, ytr, te, yte, 5); err == nil || !strings.Contains(err.Error(), "knn71: K = 71 exceeds the 70 training rows") {
		t.Errorf("SweepAll K too large: %v", err)
	}
}

// SweepAt gives, at each listed dimension, the per-dimension fit's count
// for sweepers, a classifier without a sweep (plain) and an SVM, and
// refuses an empty, unordered or too long list.
func TestSweepAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	tr, ytr := dataset(rng, 60, 5, 3, true)
	te, yte := dataset(rng, 30, 5, 3, true)
	cs := []Classifier{KNN{K: 3}, NCC{}, plain{KNN{K: 2}}, SVM{Kernel: SVMLinear, C: 1}, KNN{K: 1}}
	dims := []int{2, 3, 5}
	got, err := SweepAt(cs, tr, ytr, te, yte, dims)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		all := perDim(t, c, tr, ytr, te, yte, 5)
		want := []int{all[1], all[2], all[4]}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s: SweepAt %v, per-dimension %v at %v", c.Name(), got[i], want, dims)
		}
	}
	for _, tc := range []struct {
		dims []int
		want string
	}{
		{nil, "no dimensions"},
		{[]int{3, 2}, "want ascending, distinct values ≥ 1"},
		{[]int{0, 1}, "want ascending, distinct values ≥ 1"},
		{[]int{2, 6}, "sweep to dimension 6, want 1..5"},
	} {
		for _, c := range []Classifier{NCC{}, SVM{Kernel: SVMLinear}} {
			if _, err := SweepAt([]Classifier{c}, tr, ytr, te, yte, tc.dims); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, dims %v: error %v, want one containing %q", c.Name(), tc.dims, err, tc.want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Classifier{
		"ncc": NCC{}, " NCC ": NCC{}, "knn1": KNN{K: 1}, "knn3": KNN{K: 3},
		"1nn": KNN{K: 1}, "3NN": KNN{K: 3}, "knn15": KNN{K: 15},
	} {
		c, err := Parse(in)
		if err != nil || c != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, c, err, want)
		}
	}
	for in, frag := range map[string]string{
		"svm":   `unknown classifier "svm"; valid names: "ncc"`,
		"knn":   "unknown classifier",
		"knnx":  "unknown classifier",
		"knn-1": "unknown classifier",
		"knn0":  "k = 0, want k ≥ 1",
		"0nn":   "k = 0, want k ≥ 1",
		"nn":    "unknown classifier",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("Parse(%q) error = %v, want %q", in, err, frag)
		}
	}
	cs, err := ParseList("ncc, knn1,3nn")
	if err != nil || len(cs) != 3 || cs[2].Name() != "knn3" {
		t.Errorf("ParseList: %v %v", cs, err)
	}
}

func TestErrors(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 0, 1, 1, 2, 2})
	y := []int{0, 1, 1}
	nan := mat.NewDense(1, 2, []float64{0, math.NaN()})
	for _, c := range []Classifier{NCC{}, KNN{K: 1}} {
		if _, err := c.Fit(X, []int{0, -1, 1}); err == nil || !strings.Contains(err.Error(), "row 2 has label -1") {
			t.Errorf("%s negative label: %v", c.Name(), err)
		}
		if _, err := c.Fit(X, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "2 training labels for 3 rows") {
			t.Errorf("%s label count: %v", c.Name(), err)
		}
		if _, err := c.Fit(nan, []int{0}); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s NaN training: %v", c.Name(), err)
		}
		if _, err := c.Fit(nil, nil); err == nil {
			t.Errorf("%s nil training: no error", c.Name())
		}
		p, err := c.Fit(X, y)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Predict(nan); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s NaN input: %v", c.Name(), err)
		}
		if _, err := p.Predict(mat.NewDense(1, 3, nil)); err == nil || !strings.Contains(err.Error(), "3 columns, trained on 2") {
			t.Errorf("%s width: %v", c.Name(), err)
		}
		if _, err := SweepMisclassified(c, X, y, X, y, 3); err == nil || !strings.Contains(err.Error(), "want 1..2") {
			t.Errorf("%s sweep too far: %v", c.Name(), err)
		}
		if _, err := SweepMisclassified(c, X, y, X, []int{0, 1, -1}, 1); err == nil || !strings.Contains(err.Error(), "test row 3") {
			t.Errorf("%s sweep negative test label: %v", c.Name(), err)
		}
	}
	if _, err := (KNN{K: 0}).Fit(X, y); err == nil || !strings.Contains(err.Error(), "K = 0, want K ≥ 1") {
		t.Errorf("K=0: %v", err)
	}
	if _, err := (KNN{K: 4}).Fit(X, y); err == nil || !strings.Contains(err.Error(), "K = 4 exceeds the 3 training rows") {
		t.Errorf("K=4: %v", err)
	}
	if _, err := (KNN{K: 4}).Sweep(X, y, X, y, 1); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("K=4 sweep: %v", err)
	}
}

func TestErrorRate(t *testing.T) {
	if got := ErrorRate([]int{1, 2, 3, 4}, []int{1, 0, 3, 0}); got != 0.5 {
		t.Errorf("ErrorRate = %v, want 0.5", got)
	}
	if !math.IsNaN(ErrorRate([]int{1}, nil)) || !math.IsNaN(ErrorRate(nil, nil)) {
		t.Error("ErrorRate of mismatched or empty slices is not NaN")
	}
}

func BenchmarkSweepKNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	tr, ytr := dataset(rng, 900, 30, 5, false)
	te, yte := dataset(rng, 100, 30, 5, false)
	for _, k := range []int{1, 3} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := (KNN{K: k}).Sweep(tr, ytr, te, yte, 30); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSweepKNNCollapsed: 10 000 training rows in 3 classes, each
// collapsed onto a point up to 1e-13 (a zero eigenspace's embedding), so
// every query's k-th place is a run of thousands of tied points.
func BenchmarkSweepKNNCollapsed(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, p := 10000, 2
	tr := mat.NewDense(n, p, nil)
	ytr := make([]int, n)
	for i := 0; i < n; i++ {
		ytr[i] = i % 3
		for j := 0; j < p; j++ {
			tr.Set(i, j, float64(ytr[i]*(j+1))+1e-13*rng.NormFloat64())
		}
	}
	te, yte := dataset(rng, 200, p, 3, false)
	for _, k := range []int{1, 3} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := (KNN{K: k}).Sweep(tr, ytr, te, yte, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPerDimKNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	tr, ytr := dataset(rng, 900, 30, 5, false)
	te, yte := dataset(rng, 100, 30, 5, false)
	for b.Loop() {
		if _, err := SweepMisclassified(plain{KNN{K: 1}}, tr, ytr, te, yte, 30); err != nil {
			b.Fatal(err)
		}
	}
}
