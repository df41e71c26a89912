package method

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

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
