package cli

import (
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
