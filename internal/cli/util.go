package cli

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
)

func subCols(z *mat.Dense, k int) *mat.Dense {
	r, _ := z.Dims()
	return mat.DenseCopyOf(z.Slice(0, r, 0, k))
}

// needClasses refuses labelled data with fewer than two classes among its
// labelled rows, for a command whose score would be trivial then (why).
func needClasses(ds *data.Dataset, input, why string) error {
	classes := 0
	for _, c := range data.ClassCounts(ds.Y) {
		if c > 0 {
			classes++
		}
	}
	if classes < 2 {
		have := "only one class"
		if classes == 0 {
			have = "no class"
		}
		return fmt.Errorf("input %s: the labelled rows have %s; %s, so the score needs at least 2", input, have, why)
	}
	return nil
}

// nOf returns "1 row", "2 rows": n and the noun, plural unless n is 1.
func nOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun) // classes
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// errNoLabels is the error for an input read without labels where a command
// or method needs them (why says what for), with where the labels of
// such a file come from.
func (d *dataFlags) errNoLabels(why string) error {
	var hint string
	switch format := d.inputFormat(); {
	case d.noLabels:
		hint = "--no-labels was given"
	case format == data.FormatNPY:
		hint = "a .npy file holds no labels: give them with --labels FILE (.npy or one per line)"
	case format == data.FormatNPZ:
		hint = "name the archive's label array with --npz-y"
	case format == data.FormatMAT:
		hint = "name the label variable with --mat-gnd"
	default:
		hint = "the file has none"
	}
	return fmt.Errorf("input %s has no labels (%s); %s", d.input, hint, why)
}

// unlabelled reports whether the input will be read without labels
// whatever it holds: --no-labels, or a .npy file without --labels.
func (d *dataFlags) unlabelled() bool {
	return d.noLabels || (d.inputFormat() == data.FormatNPY && d.labels == "")
}

// inputFormat is the input's format as --format-in or its extension give
// it ("" when neither does).
func (d *dataFlags) inputFormat() string {
	if d.format != "" {
		return strings.ToLower(d.format)
	}
	format, _ := data.DetectFormat(d.input)
	return format
}

// libsvmWidth reads a LIBSVM input for model p at p's width, unless
// --features gives one (a sparse file whose last features are zero in
// every row would otherwise be read narrower than the model, "has 12
// features, the model was fitted on 13"), and zero-based when p was
// fitted on a zero-based LIBSVM file (method.Pipeline.LIBSVMZeroBased),
// with a note: a file without an index 0 would be read a column off. A
// model of an earlier version whose features are named f0, f1, … (a
// zero-based LIBSVM file's names, or a CSV header's) gets a note that such
// a file needs --zero-based: a guess from the names would read a
// one-based file a column off for a model of such a CSV.
func (d *dataFlags) libsvmWidth(p *method.Pipeline) {
	switch d.inputFormat() {
	case data.FormatLIBSVM, "svm", "svmlight":
		if d.features == 0 {
			d.features = p.Features
		}
		switch {
		case d.e == nil || flagGiven(d.fs, "zero-based"): // the user's word, either way
		case p.LIBSVMZeroBased:
			d.zeroBasedDefault = true
			fmt.Fprintf(d.e.stderr, "dimred: note: %s is read zero-based (index 0 is the first feature), as the model's training file was, unless its header comment says one-based; --zero-based=false reads it one-based\n", d.input)
		case len(p.FeatureNames) > 1 && p.FeatureNames[0] == "f0" && p.FeatureNames[1] == "f1":
			fmt.Fprintf(d.e.stderr, "dimred: note: the model's features are named f0, f1, … as a zero-based LIBSVM file's: if %s is zero-based too, give --zero-based (a file with an index 0 is read so anyway)\n", d.input)
		}
	}
}

// zeroBasedFit reports whether a fit reads its input as a zero-based
// LIBSVM file (method.Pipeline.LIBSVMZeroBased): by names, the data's
// feature names when it was read whole (the reader names a zero-based
// file's features f0, f1, …), else (a scan, names nil) by --zero-based or
// the file's header comment (data.LIBSVMZeroBased), the only ways a scan
// reads zero-based.
func (d *dataFlags) zeroBasedFit(names []string, opt data.Options) bool {
	if f, _ := data.FormatOf(d.input, d.format); f != data.FormatLIBSVM {
		return false
	}
	if names != nil {
		return len(names) > 0 && names[0] == "f0"
	}
	zero, err := data.LIBSVMZeroBased(d.input, opt)
	return err == nil && zero
}

// supervised reports whether the method named name is a supervised one
// (it needs every training row's label).
func supervised(name string) bool {
	info, err := method.Lookup(name)
	return err == nil && info.Supervised()
}

// gramColumns keeps, of a Gram matrix read as n0×n0 whose rows rows (of
// the n0) ds now holds, the columns of those rows too. A matrix that was
// not square is left as it is, for the method to refuse by name.
func gramColumns(ds *data.Dataset, rows []int, n0 int) {
	if n, d := ds.Dims(); d == n0 && len(rows) == n && n < d {
		ds.X = data.Columns(ds.X, rows)
	}
}
