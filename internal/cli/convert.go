package cli

import (
	"io"
	"path/filepath"

	"github.com/dimred/dimred/data"
)

const convertHelp = `Reads a data file as the other commands read it (the same reading flags)
and writes it in the format of the extension of -o: .csv or .tsv (label
column first), .npy (the rows only; --labels-out FILE writes the labels
too), .npz (the arrays X and y, which np.load reads), .mat (the variables
fea and gnd for MATLAB, Octave and scipy.io.loadmat; string class names as
the char matrix classes), .libsvm (.svm, .svmlight: LIBSVM text, the
labels and the non-zero features, for labelled rows only), any of them
followed by .gz; - is CSV on standard output. The output is written to a
temporary name and renamed.

examples:
  dimred convert -i ../shared/data/faces/mat/Yale_32x32.mat -o yale.npz
  dimred convert -i digits.npz -o digits.csv.gz
  dimred convert -i x.npy --labels y.txt -o data.mat
  dimred convert -i builtin:wine -o x.npy --labels-out y.npy`

func init() { commandHelp["convert"] = convertHelp }

// runConvert reads a data file and writes it in another format.
func runConvert(e *env, args []string) error {
	fs := newFlags(e, "convert")
	df := addDataFlags(e, fs)
	out := fs.String("o", "", "output file, its format by extension: .csv, .tsv, .npy, .npz, .mat or .libsvm, any of them .gz; - is standard output (CSV)")
	labelsOut := fs.String("labels-out", "", "also write the labels to this file: .npy (integers, or strings for other class names) or text (one per line; empty for an unlabelled row), optionally .gz")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-o OUT is required")
	}
	format, err := outputFormat(*out)
	if err != nil {
		return err
	}
	if err := checkOutput(*out, df.input, df.labels); err != nil {
		return err
	}
	if err := checkOutput(*labelsOut, df.input, df.labels, *out); err != nil {
		return err
	}
	if *labelsOut == "-" {
		return usagef("--labels-out needs a file name")
	}
	if *labelsOut != "" && *out != "-" && filepath.Clean(*labelsOut) == filepath.Clean(*out) {
		return usagef("--labels-out %s is the output -o: the labels would replace the rows", *labelsOut)
	}
	ds, err := df.loadFrom(e.stdin)
	if err != nil {
		return err
	}
	if *labelsOut != "" && ds.Y == nil {
		return df.errNoLabels("--labels-out writes the labels")
	}
	if err := e.writeData(*out, format, ds); err != nil {
		return err
	}
	what := "rows and labels"
	switch {
	case ds.Y == nil:
		what = "rows (no labels)"
	case format == "npy" && *labelsOut == "":
		what = "rows only (a .npy file holds no labels: --labels-out FILE writes them)"
	case format == "npy":
		what = "rows"
	}
	if *labelsOut != "" {
		if err := data.WriteFile(*labelsOut, func(w io.Writer) error { return data.WriteLabels(w, *labelsOut, ds.Y, ds.ClassNames) }); err != nil {
			return err
		}
		what += ", labels to " + *labelsOut
	}
	r, c := ds.Dims()
	e.status(*out, "converted %s (%s, %s, %s) to %s: %s\n", df.input, nOf(r, "row"), nOf(c, "feature"), nOf(ds.NumClasses(), "class"), *out, what)
	return nil
}
