package linalg

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/dimred/dimred/progress"
)

// stage carries the progress meter and the cancellation of one long dense
// decomposition into its O(n³) kernels (sytrdLower, applyTridiagQT),
// which call done between their blocks: a fit at 10 000 rows spends tens
// of minutes in one eigen-decomposition, and without it said nothing and
// could not be stopped until the end. A nil *stage does neither, so the
// kernels run as before for callers without a context.
type stage struct {
	ctx     context.Context
	n       int
	what    string // "eigen-decomposition of order 10000"
	meter   *progress.Meter
	stopped atomic.Bool
}

// newStage returns the stage of a decomposition of order n described by
// what, or nil when ctx can neither be cancelled nor carries a reporter.
func newStage(ctx context.Context, n int, what string) *stage {
	if ctx == nil || (ctx.Done() == nil && progress.Reporter(ctx) == nil) {
		return nil
	}
	return &stage{ctx: ctx, n: n, what: what}
}

// begin starts the part of the decomposition named part: its fractions
// go to a new meter (progress.Start: orders of at least progress.MinOrder,
// lines at most every progress.MinGap).
func (s *stage) begin(part string) {
	if s != nil {
		s.meter = progress.Start(s.ctx, s.n, "%s: %s", s.what, part)
	}
}

// announce sends one line for a part without a meter (progress.Step).
func (s *stage) announce(part string) {
	if s != nil {
		progress.Step(s.ctx, s.n, "%s: %s", s.what, part)
	}
}

// done reports the fraction frac of the current part and returns false
// when the context is cancelled (the kernel then stops; err says why).
func (s *stage) done(frac float64) bool {
	if s == nil {
		return true
	}
	if s.ctx.Err() != nil {
		s.stopped.Store(true)
		return false
	}
	s.meter.Done(frac)
	return true
}

// halted reports whether a kernel has stopped on cancellation.
func (s *stage) halted() bool { return s != nil && s.stopped.Load() }

// err returns the context's error once a kernel has stopped on it, and
// also when the context was cancelled between two kernels.
func (s *stage) err() error {
	if s == nil {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("linalg: %s stopped: %w", s.what, err)
	}
	return nil
}
