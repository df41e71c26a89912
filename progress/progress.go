// Package progress carries an optional line reporter in a context, so that
// the long steps deep inside a fit — a kernel matrix, a dense
// eigendecomposition, a factorisation, each O(n²) to O(n³) and minutes
// long at 10 000 rows — can say what they start without every layer
// taking a callback. The library reports only steps of at least MinOrder
// rows, so small fits and the inner solves of an iteration stay quiet.
//
//	ctx := progress.With(context.Background(), func(line string) { log.Print(line) })
//	model, err := method.FitContext(ctx, m, x, y, k)
//
// dimred fit writes these lines to standard error, timestamped off a
// terminal.
package progress

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MinOrder is the smallest matrix order whose steps are reported.
const MinOrder = 2000

// MinGap is the least time between two lines of one Meter: a step that
// passes several tenths within it reports only the last (a decomposition
// of order 2 000 takes seconds and stays quiet; one of order 10 000
// reports every tenth). A variable so that tests can lower it: set it
// before any fit starts (changing it while fits run is a data race).
var MinGap = 10 * time.Second

type key struct{}

// With returns a context that carries the reporter f (nil: none). Steps
// that run in parallel (the folds of an evaluation, fits on several
// goroutines under one context) may call f at the same time: f must be
// safe for concurrent use (guard what it writes to with a mutex).
func With(ctx context.Context, f func(line string)) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// Reporter returns the reporter ctx carries, or nil.
func Reporter(ctx context.Context) func(string) {
	if ctx == nil {
		return nil
	}
	f, _ := ctx.Value(key{}).(func(string))
	return f
}

// Step reports the start of a step on a matrix of order n (its rows):
// format and args make the line. Nothing is sent when ctx carries no
// reporter or n < MinOrder.
func Step(ctx context.Context, n int, format string, args ...any) {
	if n < MinOrder {
		return
	}
	if f := Reporter(ctx); f != nil {
		f(fmt.Sprintf(format, args...))
	}
}

// Meter reports how far one long step has got: a line each time the
// fraction done passes another tenth (at most one per MinGap), with the
// percentage, the time taken and a linear estimate of the time left, for
// example
//
//	eigen-decomposition of order 10000: tridiagonal reduction, 30 % (2m24s, about 5m36s left)
//
// A nil *Meter does nothing, so callers need not test for a reporter.
// Done is safe for concurrent use.
type Meter struct {
	f     func(string)
	what  string
	now   func() time.Time
	start time.Time
	mu    sync.Mutex
	tenth int       // the last tenth reported
	last  time.Time // when the last line was sent (start: none yet)
}

// Start returns a Meter for a step on a matrix of order n, described by
// format and args, or nil when ctx carries no reporter or n < MinOrder.
// Start itself sends nothing.
func Start(ctx context.Context, n int, format string, args ...any) *Meter {
	if n < MinOrder {
		return nil
	}
	f := Reporter(ctx)
	if f == nil {
		return nil
	}
	now := time.Now()
	return &Meter{f: f, what: fmt.Sprintf(format, args...), now: time.Now, start: now, last: now}
}

// Done reports that the fraction frac ∈ [0, 1] of the step is done: a
// line when frac reaches a tenth (10 %, 20 %, …, 90 %) not reported yet
// and at least MinGap has passed since the meter's last line (or its
// start). The end of the step is not reported; the next step's line, or
// the fit's, says it.
func (m *Meter) Done(frac float64) {
	if m == nil || !(frac > 0) || frac >= 1 {
		return
	}
	t := int(frac * 10)
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if t <= m.tenth || now.Sub(m.last) < MinGap {
		return
	}
	m.tenth, m.last = t, now
	took := now.Sub(m.start)
	left := time.Duration(float64(took) * (1 - frac) / frac)
	m.f(fmt.Sprintf("%s, %d %% (%s, about %s left)", m.what, int(100*frac), round(took), round(left)))
}

// Say sends "what: " followed by the formatted text when at least MinGap
// has passed since the meter's last line (or its start): for steps that
// can count their iterations but not the fraction done, an iterative
// eigen-solver's converged pairs for example.
func (m *Meter) Say(format string, args ...any) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if now.Sub(m.last) < MinGap {
		return
	}
	m.last = now
	m.f(m.what + ": " + fmt.Sprintf(format, args...))
}

// round rounds d to a second above ten seconds, to a tenth of one below.
func round(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
