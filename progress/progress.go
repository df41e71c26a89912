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
)

// MinOrder is the smallest matrix order whose steps are reported.
const MinOrder = 2000

type key struct{}

// With returns a context that carries the reporter f (nil: none).
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
