package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
)

// dataFlags are the flags that say how to read a data file.
type dataFlags struct {
	input                                            string
	format, labelCol, classAttr, drop, missing       string
	weights                                          string
	nominal, labels, matFea, matGnd, matSamples, sep string
	npzX, npzY, unlabelledMark                       string
	noLabels, noHeader, zeroBased                    bool
	zeroBasedDefault                                 bool // the model's training file was zero-based (libsvmWidth)
	features                                         int

	e  *env          // its stderr gets the reader's notes (data.Dataset.Notes)
	fs *flag.FlagSet // the command's flags (flagGiven: --zero-based=false)
}

func addDataFlags(e *env, fs *flag.FlagSet) *dataFlags {
	d := &dataFlags{e: e, fs: fs}
	fs.StringVar(&d.input, "i", "", "input data: a file (.csv .tsv .libsvm .arff .npy .npz .mat, optionally .gz), builtin:NAME, or - for standard input (transform, convert; CSV unless --format-in)")
	fs.StringVar(&d.format, "format-in", "", "input format, overriding the extension: csv, tsv, libsvm, arff, npy, npz, mat")
	fs.StringVar(&d.labelCol, "label-col", "", "CSV label column, by name or 1-based index (default: the column named label, labels, class, target or gnd, in any case, else the last)")
	fs.StringVar(&d.classAttr, "class-attr", "", "ARFF class attribute, by name or 1-based index (default: class, else last)")
	fs.StringVar(&d.drop, "drop", "", "ARFF attributes or CSV/TSV columns to leave out (identifiers, names), comma-separated names or 1-based indices")
	fs.StringVar(&d.missing, "missing", "", "ARFF, CSV and TSV rows with a missing value ('?'; in CSV/TSV also empty, NA, N/A, NaN, null): reject (default) or drop")
	fs.StringVar(&d.weights, "arff-weights", "", "ARFF instance weights other than 1: reject (default) or ignore (read the rows unweighted)")
	fs.StringVar(&d.nominal, "nominal", "", "ARFF nominal inputs: ordinal (default) or onehot")
	fs.StringVar(&d.labels, "labels", "", "labels file for .npy data (.npy or one label per line)")
	fs.StringVar(&d.npzX, "npz-x", "", "NumPy .npz feature array (default: X, x, data, features, fea or arr_0, else the only array)")
	fs.StringVar(&d.npzY, "npz-y", "", "NumPy .npz label array, integers or strings (default: y, Y, labels, label, target, targets, gnd or arr_1)")
	fs.StringVar(&d.matFea, "mat-fea", "", "MATLAB feature variable (default: fea, X, x, data or features, the first the file holds)")
	fs.StringVar(&d.matGnd, "mat-gnd", "", "MATLAB label variable (default: gnd, y, Y, labels, label, target or targets, the first the file holds)")
	fs.StringVar(&d.matSamples, "mat-samples", "", "MATLAB orientation: rows or columns (default: guessed from the labels)")
	fs.StringVar(&d.sep, "sep", "", "CSV field separator (default ',')")
	fs.BoolVar(&d.noLabels, "no-labels", false, "the data has no label column")
	fs.StringVar(&d.unlabelledMark, "unlabelled", "", "a label that marks a row without a label, besides an empty one, ? and NaN: -1 for scikit-learn's semi-supervised convention (matched by value: -1.0 too)")
	fs.BoolVar(&d.noHeader, "no-header", false, "the CSV file has no header row")
	fs.IntVar(&d.features, "features", 0, "LIBSVM: the number of features (0: the largest index in the file)")
	fs.BoolVar(&d.zeroBased, "zero-based", false, "LIBSVM: indices start at 0 (scikit-learn's default; without it a file with an index 0 is read so, except with --stream, and so is a file of new rows for a model fitted on a zero-based file unless its header says one-based; --zero-based=false reads such a file one-based when it has no index 0)")
	return d
}

// options returns the reader options the flags give.
func (d *dataFlags) options() (data.Options, error) {
	opt := data.Options{
		Format: d.format, NoLabels: d.noLabels, LabelColumn: d.labelCol, ClassAttr: d.classAttr,
		Missing: d.missing, Weights: d.weights, Nominal: d.nominal, LabelsFile: d.labels, NoHeader: d.noHeader,
		MatFeatures: d.matFea, MatLabels: d.matGnd, MatSamples: d.matSamples, NumFeatures: d.features, ZeroBased: d.zeroBased, ZeroBasedDefault: d.zeroBasedDefault,
		NPZFeatures: d.npzX, NPZLabels: d.npzY, Unlabelled: strings.TrimSpace(d.unlabelledMark),
	}
	if d.noLabels && (d.labelCol != "" || d.classAttr != "" || d.labels != "" || d.unlabelledMark != "") {
		return opt, usagef("--no-labels with --label-col, --class-attr, --labels or --unlabelled: the data is read without labels, so the label option would be ignored; give one or the other")
	}
	if d.drop != "" {
		opt.Drop = strings.Split(d.drop, ",")
	}
	if d.sep != "" {
		r := []rune(d.sep)
		switch {
		case d.sep == `\t`:
			return opt, usagef(`--sep '\t' is two characters, a backslash and a t: for tab-separated data give --format-in tsv (or a literal tab)`)
		case len(r) != 1:
			return opt, usagef("--sep must be one character, got %q", d.sep)
		case r[0] == '"' || r[0] == '\r' || r[0] == '\n' || r[0] == 0xFFFD:
			return opt, usagef("--sep %q: a quote, a line break or an invalid character cannot separate fields", d.sep)
		}
		opt.Delimiter = r[0]
	}
	return opt, nil
}

// labelsByModel picks the label column of a CSV or TSV input from the
// feature names of the model it is to be embedded with, when the user
// gave no label option: a header of exactly the model's features has no
// label column (the label/class/last rule would take the last feature for
// the labels, and the rows would then lack a feature); a header of the
// model's features plus one other column takes that column as the labels,
// wherever it stands. The features may be in another order here: the
// model's check of the names then says so (method.Pipeline.
// CheckFeatureNames), instead of a wrong label column. Any other header is
// left to the rule. Standard input, a
// headerless file, generated names and other formats are left alone.
func (d *dataFlags) labelsByModel(featureNames []string) error {
	if d.input == "-" || d.input == "" || strings.HasPrefix(d.input, "builtin:") ||
		d.labelCol != "" || d.noLabels || d.noHeader || len(featureNames) == 0 || data.GeneratedNames(featureNames) {
		return nil
	}
	opt, err := d.options()
	if err != nil {
		return err
	}
	opt.NoLabels = true
	cols, err := data.ScanHeader(d.input, opt)
	if err != nil || cols == nil {
		return nil // not a CSV or TSV file, or one Load will report on
	}
	// The columns that are not model features, each model feature
	// matched once.
	left := make(map[string]int, len(featureNames))
	for _, f := range featureNames {
		left[f]++
	}
	var other []int
	for j, c := range cols {
		if left[c] > 0 {
			left[c]--
		} else {
			other = append(other, j)
		}
	}
	switch {
	case len(cols) == len(featureNames) && len(other) == 0:
		d.noLabels = true
	case len(cols) == len(featureNames)+1 && len(other) == 1:
		// By name, which resolveColumn matches exactly first: an index
		// would be taken for a column's name where columns are named by
		// numbers (pandas' default "0", "1", …). A name the header holds
		// twice is left to the rule.
		name, same := cols[other[0]], 0
		for _, c := range cols {
			if c == name {
				same++
			}
		}
		if same == 1 {
			d.labelCol = name
		}
	}
	return nil
}

// loadFrom is load, reading stdin for -i -.
func (d *dataFlags) loadFrom(stdin io.Reader) (*data.Dataset, error) {
	if d.input != "-" {
		return d.load()
	}
	opt, err := d.options()
	if err != nil {
		return nil, err
	}
	ds, err := data.ReadFrom(stdin, "stdin", opt)
	if err != nil {
		return nil, err
	}
	d.printNotes(ds)
	return ds, ds.Validate()
}

// printNotes prints what the reader guessed that may be wrong, on stderr
// (also under --quiet: they are not progress).
func (d *dataFlags) printNotes(ds *data.Dataset) {
	if d.e == nil {
		return
	}
	for _, n := range ds.Notes {
		fmt.Fprintf(d.e.stderr, "dimred: note: %s\n", n)
	}
}

func (d *dataFlags) load() (*data.Dataset, error) {
	if d.input == "-" {
		return nil, usagef("-i -: this command cannot read standard input; give a file")
	}
	if d.input == "" {
		return nil, usagef("no input: give -i FILE or -i builtin:NAME (see 'dimred datasets')")
	}
	if strings.HasPrefix(d.input, "builtin:") {
		return datasets.Builtin(d.input)
	}
	opt, err := d.options()
	if err != nil {
		return nil, err
	}
	ds, err := data.Load(d.input, opt)
	if err != nil {
		return nil, err
	}
	d.printNotes(ds)
	return ds, ds.Validate()
}

func runDatasets(e *env, args []string) error {
	fs := newFlags(e, "datasets")
	if err := parse(fs, args); err != nil {
		return err
	}
	width := 0
	for _, n := range datasets.Names() {
		width = max(width, len(n))
	}
	for _, n := range datasets.Names() {
		ds, err := datasets.Builtin(n)
		if err != nil {
			return err
		}
		r, c := ds.Dims()
		e.printf("builtin:%-*s %5d rows %4d features %3d classes\n", width, n, r, c, ds.NumClasses())
	}
	return nil
}
