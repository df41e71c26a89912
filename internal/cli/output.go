package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/plot"
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

// writeData writes ds to path in format (data.Write, atomically as
// writeFile). LIBSVM labels are numbers, so classes named by text go out
// as their indices (data.WriteLIBSVM); a note on stderr says which index
// is which class.
func (e *env) writeData(path, format string, ds *data.Dataset) error {
	if err := e.writeFile(path, func(w io.Writer) error { return data.Write(w, format, ds) }); err != nil {
		return err
	}
	if format == "libsvm" && !data.LIBSVMNumericNames(ds.ClassNames) {
		var pairs []string
		for c, name := range ds.ClassNames {
			if c == 12 {
				pairs = append(pairs, "…")
				break
			}
			pairs = append(pairs, fmt.Sprintf("%d = %s", c, name))
		}
		fmt.Fprintf(e.stderr, "dimred: note: LIBSVM labels are numbers (LIBSVM and scikit-learn read no others), so %s holds the class indices: %s\n", path, strings.Join(pairs, ", "))
	}
	return nil
}

// outputFormat returns the data format of the output path out by its
// extension (data.OutputFormat): CSV for standard output (-) and for no
// output (""); a usage error for an extension no writer has.
func outputFormat(out string) (string, error) {
	if out == "" || out == "-" {
		return "csv", nil
	}
	f, err := data.OutputFormat(out)
	if err != nil {
		return "", usageError{err}
	}
	return f, nil
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

// checkPlot refuses a --plot path before the command's work: an
// extension no plot format has, a directory that does not exist, or one
// of the inputs.
func checkPlot(path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if err := plot.CheckPath(path); err != nil {
		return usageError{fmt.Errorf("--plot: %w", err)}
	}
	if dir := filepath.Dir(path); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("--plot %s: directory %s does not exist", path, dir)
		}
	}
	if err := checkOutput(path, inputs...); err != nil {
		return usagef("--plot %s is an input file: writing it would destroy what is read", path)
	}
	return nil
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

// plotCurves draws the error of every result of rep against the
// dimension (eval --plot): one line per method and classifier, with ±1
// standard deviation over the repeats as error bars when there are
// several.
func plotCurves(path, title string, rep *evaluate.Report) error {
	var series []plot.Series
	for _, r := range rep.Results {
		s := plot.Series{Name: r.Method + ", " + r.Classifier}
		for i, v := range r.ErrorsByDim {
			s.X = append(s.X, float64(r.Dim(i)))
			s.Y = append(s.Y, 100*v)
			if r.StdByDim != nil {
				s.YErr = append(s.YErr, 100*r.StdByDim[i])
			}
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	return plot.Curves(path, series, plot.CurveOptions{Title: title, XLabel: "dimension", YLabel: "error %"})
}
