package linalg

import (
	"context"
	"fmt"
	"sync"
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

// newGenStage is the stage of a generalized eigen-decomposition of order
// n by a Cholesky factor of B, its first part that factorisation.
func newGenStage(ctx context.Context, n int) *stage {
	st := newStage(ctx, n, fmt.Sprintf("generalized eigen-decomposition of order %d", n))
	st.begin("Cholesky factorization of B")
	return st
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

// unmetered runs f, one call that can neither report nor stop (a LAPACK
// routine of the openblas build, or gonum's EigenSym): f is not started
// when the context is already cancelled, a line says that it runs
// unmetered and that a stop takes effect when it returns, and the
// context's error is returned when it was cancelled meanwhile (the caller
// then drops f's result).
func (s *stage) unmetered(f func()) error {
	if err := s.err(); err != nil {
		return err
	}
	s.announce(fmt.Sprintf("one %s call, without progress lines; a stop takes effect when it returns", backendName))
	f()
	return s.err()
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

// share meters one share of a stage's current part that parallel blocks
// do (par.Blocks): each block asks ok() before its work and calls add with
// its work when it has finished; the stage hears base + width·(work
// finished)/total. A nil *share (from a nil stage) does neither.
type share struct {
	st                 *stage
	base, width, total float64
	mu                 sync.Mutex
	done               float64
}

// share returns the share [base, base+width) of the current part, whose
// blocks add up to total work.
func (s *stage) share(base, width, total float64) *share {
	if s == nil {
		return nil
	}
	return &share{st: s, base: base, width: width, total: total}
}

// ok reports whether a block should run: false once the stage's context
// is cancelled.
func (p *share) ok() bool { return p == nil || p.st.done(0) }

// add records w more work finished and reports the fraction.
func (p *share) add(w float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done += w
	f := p.base + p.width*p.done/p.total
	p.mu.Unlock()
	p.st.done(f)
}

// stopped reports whether a block has seen the stage's context cancelled
// (its work is then incomplete).
func (p *share) stopped() bool { return p != nil && p.st.halted() }
