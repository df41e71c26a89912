package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports a long command's advance on stderr, whether or not it
// is a terminal: on a terminal a bar with the elapsed time and an ETA,
// redrawn in place; otherwise (a log file, a pipe) plain lines stamped
// with the UTC time, at most one every progressEvery plus the first and
// the last. --quiet silences it (a nil *progress does nothing).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	label string
	start time.Time
	last  time.Time
	now   func() time.Time
	// counted is the count count last wrote (a final count equal to it
	// is not written again).
	counted int
}

// progressEvery spaces the lines written to a non-terminal.
const progressEvery = 10 * time.Second

// newProgress returns the reporter of command label, or nil with --quiet.
func (e *env) newProgress(label string) *progress {
	if e.quiet {
		return nil
	}
	now := e.now
	if now == nil {
		now = time.Now
	}
	return &progress{w: e.stderr, tty: isTerminal(e.stderr), label: label, start: now(), now: now}
}

// progressLog is where a command's own progress lines go: stderr, or
// nowhere with --quiet.
func (e *env) progressLog() io.Writer {
	if e.quiet {
		return io.Discard
	}
	return e.stderr
}

// note writes one line (timestamped unless on a terminal).
func (p *progress) note(format string, a ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line(fmt.Sprintf(format, a...))
}

func (p *progress) line(msg string) {
	if p.tty {
		fmt.Fprintf(p.w, "%s: %s\n", p.label, msg)
		return
	}
	fmt.Fprintf(p.w, "%s %s: %s\n", p.now().UTC().Format(time.RFC3339), p.label, msg)
}

// update reports done of total units (what names them, e.g. "fits").
func (p *progress) update(done, total int, what string) {
	if p == nil || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	elapsed := now.Sub(p.start)
	eta := ""
	if done > 0 && done < total {
		eta = ", ETA " + roundDuration(time.Duration(float64(elapsed)*float64(total-done)/float64(done)))
	}
	status := fmt.Sprintf("%d/%d %s, %s elapsed%s", done, total, what, roundDuration(elapsed), eta)
	if p.tty {
		const width = 24
		fill := width * done / total
		fmt.Fprintf(p.w, "\r%s [%s%s] %s\x1b[K", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), status)
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if done == 1 || done == total || now.Sub(p.last) >= progressEvery {
		p.last = now
		p.line(status)
	}
}

// step reports a stage inside one unit (a fit of a dimension sweep): on a
// terminal a line redrawn in place until the next update, otherwise a
// line at most every progressEvery (spaced together with update's).
func (p *progress) step(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprintf(p.w, "\r%s: %s\x1b[K", p.label, msg)
		return
	}
	if now := p.now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		p.line(msg)
	}
}

// count reports done units of a total not known in advance (a file read
// in one pass): on a terminal a line redrawn in place, otherwise a line at
// most every progressEvery. done reports the end (final true: the last
// line, always written).
func (p *progress) count(done int, what string, final bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	status := fmt.Sprintf("%d %s, %s elapsed", done, what, roundDuration(now.Sub(p.start)))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s: %s\x1b[K", p.label, status)
		if final {
			fmt.Fprintln(p.w)
		}
		return
	}
	if (final && done != p.counted) || (!final && now.Sub(p.last) >= progressEvery) {
		p.last, p.counted = now, done
		p.line(status)
	}
}

// roundDuration shows d to the second (to 0.1 s under a minute).
func roundDuration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
