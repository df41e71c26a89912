package cli

import (
	"fmt"
	"io"

	"github.com/dimred/dimred/data"
)

// writeFile writes path by write atomically (data.WriteFile: a failed or
// interrupted run leaves no half-written file and never truncates an
// existing one); "-" writes to stdout.
func (e *env) writeFile(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(e.stdout)
	}
	return data.WriteFile(path, write)
}

// status prints a command's closing line: on stdout, or on stderr when
// the output itself went to stdout (-o -).
func (e *env) status(out, format string, a ...any) {
	w := e.stdout
	if out == "-" {
		w = e.stderr
	}
	fmt.Fprintf(w, format, a...)
}
