package progress

import (
	"context"
	"testing"
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
