package kernel

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The median of every pairwise distance, computed directly.
func bruteMedian(x *mat.Dense) float64 {
	n, _ := x.Dims()
	var d []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for c, v := range x.RawRowView(i) {
				s += (v - x.At(j, c)) * (v - x.At(j, c))
			}
			d = append(d, math.Sqrt(s))
		}
	}
	sort.Float64s(d)
	m := len(d)
	return (d[(m-1)/2] + d[m/2]) / 2
}

func TestMedianDistanceMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 4, 7, 50} {
		x := mat.NewDense(n, 3, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				x.Set(i, j, rng.NormFloat64()*5)
			}
		}
		got, err := MedianDistance(x, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteMedian(x); math.Abs(got-want) > 1e-12*want {
			t.Errorf("n=%d: median %v, want %v", n, got, want)
		}
	}
	// Duplicated rows: a few zero distances count; when the median would
	// be one, the median of the non-zero distances is used.
	x := mat.NewDense(4, 1, []float64{0, 0, 1, 5}) // pairs: 0,1,1,4,5,5
	if got, _ := MedianDistance(x, 1000); got != 2.5 {
		t.Errorf("one zero: %v, want 2.5", got)
	}
	x = mat.NewDense(5, 1, []float64{0, 0, 0, 0, 3}) // 6 zeros, 4 threes
	if got, _ := MedianDistance(x, 1000); got != 3 {
		t.Errorf("mostly zeros: %v, want 3", got)
	}
	if _, err := MedianDistance(mat.NewDense(3, 1, []float64{1, math.NaN(), 2}), 10); err == nil || !strings.Contains(err.Error(), "row 2, column 1 is NaN") {
		t.Errorf("NaN: %v", err)
	}
}

// A sample is seeded: the same rows give the same width, and the sampled
// median is close to the full one.
func TestMedianDistanceSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(3000, 5, nil)
	for i := 0; i < 3000; i++ {
		for j := 0; j < 5; j++ {
			x.Set(i, j, rng.Float64())
		}
	}
	a, _ := MedianDistance(x, 1000)
	b, _ := MedianDistance(x, 1000)
	full, _ := MedianDistance(x, 0)
	if a != b {
		t.Errorf("sampled median not deterministic: %v, %v", a, b)
	}
	if math.Abs(a-full) > 0.02*full {
		t.Errorf("sampled median %v, full %v", a, full)
	}
}

func TestAutoWidth(t *testing.T) {
	k, err := Parse("rbf")
	if err != nil || !k.IsAuto() || k.String() != "rbf(sigma=auto)" {
		t.Fatalf("Parse(rbf) = %v (%v), want the automatic width", k, err)
	}
	if k2, _ := Parse("rbf:sigma=2"); k2.IsAuto() {
		t.Error("rbf:sigma=2 is not automatic")
	}
	if _, err := Parse("rbf:sigma=0"); err == nil {
		t.Error("rbf:sigma=0 accepted")
	}
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 2, 3, 3})
	if _, err := k.Gram(x, nil); err == nil || !strings.Contains(err.Error(), "Resolve") {
		t.Errorf("Gram of an unresolved width: %v", err)
	}
	r, err := Sum([]float64{1, 1}, Linear(), k).Resolve(x)
	if err != nil {
		t.Fatal(err)
	}
	if want := AutoWidthFactor * bruteMedian(x); r.Terms[1].Sigma != want || r.IsAuto() {
		t.Errorf("resolved %v, want sigma %v", r, want)
	}
	// Equal rows: any width gives the same Gram matrix; σ = 1.
	if r, err := k.Resolve(mat.NewDense(3, 1, []float64{2, 2, 2})); err != nil || r.Sigma != 1 {
		t.Errorf("equal rows: %v, %v", r, err)
	}
}

// The pair triangle is scanned in parallel blocks: the median is the brute
// force one and the same whatever GOMAXPROCS, and a non-finite value is
// reported for the pair a serial scan meets first.
func TestMedianDistanceBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(200, 4, nil)
	for i := 0; i < 200; i++ {
		for j := 0; j < 4; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	old := runtime.GOMAXPROCS(1)
	one, err := MedianDistance(x, 0)
	runtime.GOMAXPROCS(4)
	four, err4 := MedianDistance(x, 0)
	runtime.GOMAXPROCS(old)
	if err != nil || err4 != nil || one != four {
		t.Fatalf("GOMAXPROCS 1 and 4: %v (%v), %v (%v)", one, err, four, err4)
	}
	if want := bruteMedian(x); math.Abs(one-want) > 1e-12*want {
		t.Errorf("median %v, want %v", one, want)
	}
	x.Set(150, 2, math.Inf(1))
	x.Set(40, 1, math.NaN())
	if _, err := MedianDistance(x, 0); err == nil || !strings.Contains(err.Error(), "row 41, column 2 is NaN") {
		t.Errorf("non-finite: %v", err)
	}
}

// ResolveContext gives Resolve's width, and a cancelled context stops it
// with the context's error (a library tester: a 200 ms deadline on 5 000
// rows returned after 400 ms, in the automatic width).
func TestResolveContext(t *testing.T) {
	x := mat.NewDense(600, 3, nil)
	for i := 0; i < 600; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, float64((i*7+j*13)%31))
		}
	}
	want, err := RBFAuto().Resolve(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RBFAuto().ResolveContext(context.Background(), x)
	if err != nil || got.Sigma != want.Sigma {
		t.Errorf("ResolveContext: σ %v (%v), Resolve: %v", got.Sigma, err, want.Sigma)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RBFAuto().ResolveContext(ctx, x); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	sum := Kernel{Type: "sum", Terms: []Kernel{Linear(), RBFAuto()}}
	if _, err := sum.ResolveContext(ctx, x); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sum: %v", err)
	}
}
