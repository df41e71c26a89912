package cli

import (
	"strings"
	"testing"
)

// reproduce seed002 rejects bad flags with a message naming the flag and
// the value, before any work; a small run prints ours beside the paper.
func TestReproduceSeed002Flags(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--tables 5", `--tables: "5"`},
		{"--per-class 1", `--per-class: "1"`},
		{"--runs 0", "--runs"},
		{"-c svm-cubic", "svm-cubic"},
	} {
		st, _, errs := run(t, append([]string{"reproduce", "seed002"}, strings.Fields(c.args)...)...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: status %d, stderr %q; want an error naming %q", c.args, st, errs, c.want)
		}
	}
}
