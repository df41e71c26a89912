package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

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

// checkOutput refuses an output path that is one of the command's input
// files (fit -i data.csv -o data.csv would replace the data by the model):
// the inputs are read before the output is written, so the file would be
// lost. "-" and builtin: inputs, and outputs that do not exist yet, pass.
func checkOutput(out string, inputs ...string) error {
	if out == "-" || out == "" {
		return nil
	}
	ost, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" || strings.HasPrefix(in, "builtin:") {
			continue
		}
		if ist, err := os.Stat(in); err == nil && os.SameFile(ost, ist) {
			return usagef("-o %s is the input %s: writing it would destroy what is read; choose another output", out, in)
		}
	}
	return nil
}
