package method

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
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
	for _, name := range []string{"gda", "kpca", "kqmi", "lda", "sklpp", "knda", "ksr"} {
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
