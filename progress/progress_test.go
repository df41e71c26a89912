package progress

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Lines reach the reporter the context carries, only for orders of at
// least MinOrder; a context without one, or a nil context, is quiet.
func TestStep(t *testing.T) {
	var lines []string
	ctx := With(context.Background(), func(s string) { lines = append(lines, s) })
	Step(ctx, MinOrder-1, "small %d", 1)
	Step(ctx, MinOrder, "kernel matrix %d×%d", MinOrder, MinOrder)
	Step(context.Background(), MinOrder, "nobody listens")
	Step(nil, MinOrder, "nil context") // a nil context must not panic
	if len(lines) != 1 || lines[0] != "kernel matrix 2000×2000" {
		t.Errorf("lines %q, want the one step of order ≥ MinOrder", lines)
	}
	if Reporter(context.Background()) != nil {
		t.Error("a context without a reporter returned one")
	}
}

// A Meter sends a line at each tenth passed, once and at most one per
// MinGap, with the percentage, the elapsed time and the linear estimate of
// the time left; nothing below MinOrder or without a reporter, and a nil
// Meter is safe.
func TestMeter(t *testing.T) {
	var lines []string
	ctx := With(context.Background(), func(s string) { lines = append(lines, s) })
	if m := Start(ctx, MinOrder-1, "small"); m != nil {
		t.Error("Start below MinOrder returned a meter")
	}
	if m := Start(context.Background(), MinOrder, "nobody"); m != nil {
		t.Error("Start without a reporter returned a meter")
	}
	var none *Meter
	none.Done(0.5) // must not panic
	m := Start(ctx, 3000, "eigen-decomposition of order %d: tridiagonal reduction", 3000)
	clock := m.start
	m.now = func() time.Time { return clock }
	for _, step := range []struct {
		frac float64
		at   time.Duration
	}{
		{0.05, 5 * time.Second},  // below the first tenth
		{0.1, 8 * time.Second},   // a tenth, but within MinGap of the start
		{0.15, 12 * time.Second}, // sent
		{0.34, 34 * time.Second}, // sent
		{0.3, 40 * time.Second},  // no new tenth
		{0.45, 41 * time.Second}, // a new tenth within MinGap of the last line
		{0.5, 50 * time.Second},  // sent
		{0.99, 99 * time.Second}, // sent
		{1, 120 * time.Second},   // the end is not reported
	} {
		clock = m.start.Add(step.at)
		m.Done(step.frac)
	}
	want := []string{
		"eigen-decomposition of order 3000: tridiagonal reduction, 15 % (12s, about 1m8s left)",
		"eigen-decomposition of order 3000: tridiagonal reduction, 34 % (34s, about 1m6s left)",
		"eigen-decomposition of order 3000: tridiagonal reduction, 50 % (50s, about 50s left)",
		"eigen-decomposition of order 3000: tridiagonal reduction, 99 % (1m39s, about 1s left)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Say sends its line only when MinGap has passed since the meter's last
// line, Done's included.
func TestMeterSay(t *testing.T) {
	var lines []string
	ctx := With(context.Background(), func(s string) { lines = append(lines, s) })
	m := Start(ctx, MinOrder, "lobpcg eigen-solver of order %d", MinOrder)
	clock := m.start
	m.now = func() time.Time { return clock }
	for i, at := range []time.Duration{3, 11, 15, 22, 40} {
		clock = m.start.Add(at * time.Second)
		m.Say("iteration %d", i)
		if i == 2 {
			m.Done(0.5) // 4 s after the last line: not sent, and not a line for Say's gap
		}
	}
	want := "lobpcg eigen-solver of order 2000: iteration 1\nlobpcg eigen-solver of order 2000: iteration 3\nlobpcg eigen-solver of order 2000: iteration 4"
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("lines\n%s\nwant\n%s", got, want)
	}
}
