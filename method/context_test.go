package method

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/progress"
)

// cancelAfter is a context that reports itself cancelled from its n-th
// Err call on: a fit that returns context.Canceled with n > 1 checked
// the context during the fit, not only before it.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

func TestFitContextStopsDuringTheFit(t *testing.T) {
	x := testdata.Normal(rand.New(rand.NewPCG(1, 2)), 300, 5)
	y := make([]int, 300)
	for i := range y {
		y[i] = i % 3
	}
	for _, name := range []string{"gda", "kpca", "kqmi", "lda", "sklpp", "knda", "ksr", "aqmida"} {
		m, err := New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(3)
		model, err := FitContext(ctx, m, x, y, 0)
		if !errors.Is(err, context.Canceled) || model != nil {
			t.Errorf("%s: FitContext = %v, %v; want context.Canceled and no model", name, model, err)
		}
		if c := ctx.calls.Load(); c < 3 {
			t.Errorf("%s: the context was checked %d times", name, c)
		}
		// The method value itself is unchanged: a plain fit still works.
		if _, err := m.Fit(x, y, 0); err != nil {
			t.Errorf("%s after a cancelled fit: %v", name, err)
		}
	}
	// A pointer to a method works too, and a live context fits.
	if _, err := FitContext(context.Background(), &GDA{}, x, y, 0); err != nil {
		t.Error(err)
	}
}

// A fit on the dense dual route reports the eigen-decomposition of its
// kernel matrix in percentages and stops inside it when its context is
// cancelled: SKLPP on progress.MinOrder rows, cancelled at the first
// percentage of the tridiagonal reduction, returns an error wrapping
// context.Canceled, with no line of a later part.
func TestFitCancelledInsideDecomposition(t *testing.T) {
	if linalg.Backend() == "openblas" {
		t.Skip("the openblas build hands dense decompositions to LAPACK, which is neither metered nor stopped")
	}
	old := progress.MinGap
	progress.MinGap = 0
	defer func() { progress.MinGap = old }()
	n := progress.MinOrder
	x := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		x.Set(i, 0, float64(i%37))
		x.Set(i, 1, float64((i*7)%41))
		y[i] = i % 2
	}
	m, err := New("sklpp", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lines []string
	ctx = progress.With(ctx, func(s string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, s)
		if strings.Contains(s, "tridiagonal reduction, ") {
			cancel()
		}
	})
	_, err = FitContext(ctx, m, x, y, 1)
	all := strings.Join(lines, "\n")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled; lines:\n%s", err, all)
	}
	if !strings.Contains(all, "feature coordinates: eigen-decomposition of the 2000×2000 centred kernel matrix") ||
		!strings.Contains(all, "eigen-decomposition of order 2000: tridiagonal reduction, ") ||
		strings.Contains(all, "divide and conquer") || strings.Contains(all, "back-transformation") {
		t.Errorf("lines:\n%s", all)
	}
}

// TransformContext maps rows in chunks with Transform's result bit for
// bit, reports the rows mapped from progress.MinOrder rows on, and stops
// between chunks when cancelled; an error in a later chunk names the row
// counted from x's first, as Transform's does. Nil and zero models,
// and a nil context, give errors or defaults, not panics (a library
// tester's findings).
func TestTransformContext(t *testing.T) {
	old := progress.MinGap
	progress.MinGap = 0
	defer func() { progress.MinGap = old }()
	x, y := testdata.Classes(300, 5, 3)
	p, err := PipelineSpec{Method: "gda", Params: map[string]string{"sigma": "2"}}.Fit(nil, &data.Dataset{X: x, Y: y}) // nil ctx: Background
	if err != nil {
		t.Fatal(err)
	}
	xt, _ := testdata.Classes(progress.MinOrder+500, 5, 3)
	want, err := p.Transform(xt)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	ctx := progress.With(context.Background(), func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() })
	got, err := p.TransformContext(ctx, xt)
	if err != nil || !mat.Equal(got, want) {
		t.Fatalf("TransformContext differs from Transform (err %v)", err)
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "transform: rows mapped") {
		t.Errorf("progress lines %q", lines)
	}
	// Cancelled after the first chunk.
	cctx, cancel := context.WithCancel(context.Background())
	chunks := 0
	_, err = p.TransformChunked(cctx, xt, 700, func(mapped, n int) { chunks++; cancel() })
	if !errors.Is(err, context.Canceled) || chunks != 1 {
		t.Errorf("cancelled after one chunk: %d chunks, error %v", chunks, err)
	}
	// A NaN in the last chunk is named by its row in xt.
	bad := mat.DenseCopyOf(xt)
	bad.Set(2400, 1, math.NaN())
	_, err1 := p.Transform(bad)
	_, err2 := p.TransformChunked(context.Background(), bad, 700, nil)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("errors differ: whole %v, chunked %v", err1, err2)
	}
	// Behind the preprocessing's wrapping too, for a NaN and for a value
	// that scaling takes out of range.
	scaled, err := PipelineSpec{Method: "gda", Scale: "minmax", Params: map[string]string{"sigma": "2"}}.Fit(context.Background(), &data.Dataset{X: x, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{math.NaN(), 1e308} {
		bad.Set(2400, 1, v)
		_, err1 := scaled.Transform(bad)
		_, err2 := scaled.TransformChunked(context.Background(), bad, 700, nil)
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !strings.Contains(err2.Error(), "row 2401") {
			t.Errorf("%v behind the scaling: whole %v, chunked %v", v, err1, err2)
		}
	}
	// Another error of a later chunk says which rows the chunk held.
	poly, err := PipelineSpec{Method: "kpca", Dims: 2, Params: map[string]string{"kernel": "poly:degree=3"}}.Fit(context.Background(), &data.Dataset{X: x, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	big := mat.DenseCopyOf(xt)
	big.Set(2450, 0, 1e200)
	if _, err := poly.TransformChunked(context.Background(), big, 700, nil); err == nil || !strings.Contains(err.Error(), "rows 2101 to 2500, the row numbers below counted from row 2101: ") {
		t.Errorf("overflow in a later chunk: %v", err)
	}
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"nil pipeline", func() error { var q *Pipeline; _, err := q.Transform(x); return err }},
		{"zero pipeline", func() error { _, err := (&Pipeline{}).TransformContext(context.Background(), x); return err }},
		{"zero fitted", func() error { _, err := (&Fitted{}).Transform(x); return err }},
		{"nil method", func() error { _, err := FitContext(context.Background(), nil, x, y, 2); return err }},
		{"nil *LDA", func() error { _, err := FitContext(context.Background(), (*LDA)(nil), x, y, 2); return err }},
		{"chunk 0", func() error { _, err := p.TransformChunked(context.Background(), x, 0, nil); return err }},
	} {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := FitContext(nil, &LDA{}, x, y, 2); err != nil { // a nil context is Background
		t.Errorf("FitContext with a nil context: %v", err)
	}
}
