package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Options controls how Load and the Read* functions interpret a file. The
// zero value reads the common case: format from the extension, labels
// present, CSV label column "label"/"class"/last, ARFF class attribute
// "class"/last with ordinal nominals and missing values rejected, MATLAB
// variables fea and gnd with the orientation guessed from the labels.
type Options struct {
	// Format overrides the format guessed from the file name: "csv", "tsv",
	// "libsvm" (also "svm", "svmlight"), "arff", "npy", "npz" or "mat". Empty
	// means: from the extension, after removing a ".gz" suffix.
	Format string

	// NoLabels reads the data as unlabelled: every CSV column and every
	// ARFF attribute (but those dropped) is a feature, the labels of a
	// LIBSVM file are ignored, no MATLAB label variable is needed, and
	// Dataset.Y is nil.
	NoLabels bool

	// Classes, when non-nil, fixes the class names and their order: a
	// label whose text is Classes[c] gets label c, and a label text not in
	// the list is an error. Use it to give the files of one data set (say
	// train and test) the same class numbering, or to read back a CSV
	// written from a Dataset whose ClassNames are not in sorted order.
	// Numeric labels of .npy and .mat files are matched by their decimal
	// text ("3"). Nil: CSV, LIBSVM, NumPy and MATLAB labels are ordered
	// numerically if they all are integers, else as sorted strings; an
	// ARFF nominal class keeps its declaration order.
	Classes []string

	// MaxClasses, for Scan: integer labels at or above it are refused by
	// file and line (0: no bound). A consumer that keeps per-class tables
	// indexed by the class sets it (a streamed fit: stats.MaxClasses), so
	// that a label such as 20231105 is an error naming its file and line.
	MaxClasses int

	// LabelColumn picks the CSV/TSV label column, by header name (exact
	// match first, then case-insensitive) or by 1-based index ("1" is the
	// first column). Empty: the column named "label", else "labels",
	// "class", "target" or "gnd" (any case), else the last column (a guess
	// that Dataset.Notes questions when that column has a class for more
	// than half the rows).
	LabelColumn string

	// Delimiter is the CSV field separator. 0 means ',' (or '\t' for the
	// "tsv" format and .tsv files).
	Delimiter rune

	// NoHeader says the CSV file has no header row; the features are then
	// named x0, x1, ... and LabelColumn can only be an index (default: the
	// last column).
	NoHeader bool

	// NumFeatures fixes the dimension of LIBSVM data (useful when the last
	// features are zero in every row of a file); an index above it is an
	// error. 0 means: the largest index in the file.
	NumFeatures int

	// ZeroBased reads LIBSVM indices as starting at 0 (scikit-learn's
	// dump_svmlight_file default) even in a file without an index 0; Load
	// reads a file with an index 0 as zero-based anyway, Scan only with
	// ZeroBased (it cannot tell from its first rows). It is the user's
	// word: it wins over a header comment that says one-based.
	ZeroBased bool

	// ZeroBasedDefault reads LIBSVM indices as starting at 0 unless the
	// file's header comment says "Column indices are one-based": what a
	// model fitted on a zero-based file implies for files of new rows
	// (method.Pipeline.LIBSVMZeroBased), weaker than the file's own word
	// and than ZeroBased.
	ZeroBasedDefault bool

	// ClassAttr picks the ARFF class attribute, by name (exact match first,
	// then case-insensitive) or by 1-based index. Empty: the attribute
	// named "class" in any case, else the last attribute.
	ClassAttr string

	// Drop lists ARFF attributes or CSV/TSV columns to leave out (row
	// identifiers, string or date attributes, ...), by name or 1-based
	// index like ClassAttr and LabelColumn. A name that matches none is an
	// error, and so is the label column.
	Drop []string

	// Nominal says how ARFF nominal input attributes become numbers:
	// "ordinal" (or empty, the default) gives the 0-based index of the
	// value in the declaration, except that when every declared value is
	// a number (like {0,1,2,3}) the number itself is used; "onehot" gives
	// one 0/1 column per declared value, named attr=value.
	Nominal string

	// Missing says what to do with a row that has a missing value in a
	// kept input attribute or column (ARFF: '?'; CSV/TSV: an empty field,
	// "?", "NA", "N/A", "NaN" or "null" in any case): "reject" (or empty,
	// the default) is an error naming the file, line and column; "drop"
	// leaves the row out and counts it in Dataset.DroppedRows. A missing
	// label (an empty one or "?"; NA and the like are class names there)
	// is never an error: the row is kept as Unlabeled. Other formats have
	// no missing values, and the option is an error there.
	Missing string

	// Weights says what to do with ARFF instance weights ("…, {w}") other
	// than 1: "reject" (or empty, the default) is an error naming the file
	// and line, as no method here weighs rows; "ignore" reads the rows
	// unweighted.
	Weights string

	// LabelsFile names the file holding the labels of a .npy data file: a
	// .npy array of integers (1-D, or 2-D with one row or column) or a
	// text file with one label per line ("" or "?" for unlabelled rows).
	// Only used with the npy format; a ".gz" suffix is decompressed.
	LabelsFile string

	// Unlabelled is a label text that marks a row without a label, besides
	// "" and "?" (and NaN in a numeric label array), which always do: "-1"
	// reads scikit-learn's semi-supervised convention. It is matched as
	// text, or by value when both are whole numbers ("-1.0" is -1). Empty:
	// no other text; -1 is then a class like any other (LIBSVM's ±1).
	Unlabelled string

	scanLabels *scanLabels // ScanReaderLabels' labels input

	// NPZFeatures names the array of a NumPy .npz archive holding the
	// features. Empty means the first of NPZFeatureNames the archive
	// holds (X, x, data, …), else its only array.
	NPZFeatures string

	// NPZLabels names the array of a .npz archive holding the labels.
	// Empty means the first of NPZLabelNames the archive holds (y, Y,
	// labels, …); none is an error when the archive holds other arrays
	// than the features (unless NoLabels).
	NPZLabels string

	// MatFeatures names the MATLAB variable holding the features. Empty
	// means the first of MatFeatureNames the file holds (fea, X, …).
	MatFeatures string

	// MatLabels names the MATLAB variable holding the labels (a vector of
	// integers). Empty means the first of MatLabelNames the file holds
	// (gnd, y, Y, labels, …).
	MatLabels string

	// MatSamples gives the orientation of the MATLAB feature matrix:
	// "rows" (one sample per row, as in fea n×d), "columns" (one sample
	// per column, d×n), or empty: the dimension whose length matches the
	// label vector (rows when both do, or when there are no labels; an
	// error when neither does).
	MatSamples string
}

// Format names accepted by Options.Format.
const (
	FormatCSV    = "csv"
	FormatTSV    = "tsv"
	FormatLIBSVM = "libsvm"
	FormatARFF   = "arff"
	FormatNPY    = "npy"
	FormatNPZ    = "npz"
	FormatMAT    = "mat"
)

var formatByExt = map[string]string{
	".csv":      FormatCSV,
	".tsv":      FormatTSV,
	".libsvm":   FormatLIBSVM,
	".svm":      FormatLIBSVM,
	".svmlight": FormatLIBSVM,
	".arff":     FormatARFF,
	".npy":      FormatNPY,
	".npz":      FormatNPZ,
	".mat":      FormatMAT,
}

// FormatOf returns the format of the input at path: format (Options.Format,
// any spelling Load takes: "svm" is FormatLIBSVM) when it is set, else
// the one its extension names (DetectFormat).
func FormatOf(path, format string) (string, error) {
	if format == "" {
		return DetectFormat(path)
	}
	f, ok := normalizeFormat(format)
	if !ok {
		return "", fmt.Errorf("%s: unknown format %q; want csv, tsv, libsvm, arff, npy, npz or mat", path, format)
	}
	return f, nil
}

// normalizeFormat maps the names accepted by Options.Format to one of the
// Format* constants.
func normalizeFormat(f string) (string, bool) {
	switch strings.ToLower(f) {
	case "csv":
		return FormatCSV, true
	case "tsv":
		return FormatTSV, true
	case "libsvm", "svm", "svmlight":
		return FormatLIBSVM, true
	case "arff":
		return FormatARFF, true
	case "npy":
		return FormatNPY, true
	case "npz":
		return FormatNPZ, true
	case "mat":
		return FormatMAT, true
	}
	return "", false
}

// DetectFormat returns the format Load would use for path: the one named by
// the extension, after removing a ".gz" suffix.
func DetectFormat(path string) (string, error) {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	ext := filepath.Ext(base)
	if f, ok := formatByExt[ext]; ok {
		return f, nil
	}
	return "", fmt.Errorf("%s: unknown file extension %q; want .csv, .tsv, .libsvm, .svm, .svmlight, .arff, .npy, .npz or .mat (optionally followed by .gz), or set the format explicitly", path, ext)
}

// Load reads the data set in the file at path. The format comes from the
// extension (see DetectFormat) unless opt.Format is set; a ".gz" suffix is
// decompressed transparently. Dataset.Name is the file name without its
// extensions.
func Load(path string, opt Options) (*Dataset, error) {
	format, opt, err := resolveFormat(path, opt)
	if err != nil {
		return nil, err
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return decode(b, path, format, opt)
}

// ReadFrom reads a data set from r (standard input, say) in opt.Format
// (default csv), gzipped or not (by its first bytes); name is used in
// errors. NPY data from a stream has no labels file unless
// opt.LabelsFile names one.
func ReadFrom(r io.Reader, name string, opt Options) (*Dataset, error) {
	if opt.Format == "" {
		opt.Format = FormatCSV
	}
	format, opt, err := resolveFormat(name, opt)
	if err != nil {
		return nil, err
	}
	in, err := sniffGzip(r, name)
	if err != nil {
		return nil, err
	}
	b, err := readAllLimited(in, name)
	if err != nil {
		return nil, err
	}
	return decode(b, name, format, opt)
}

// sniffGzip returns r decompressed when it starts with gzip's magic bytes
// (errors then name the input), else r as it is.
func sniffGzip(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return newGzipInput(br, nil, name)
	}
	return br, nil
}

// decode parses the bytes b of a data file in format.
func decode(b []byte, path, format string, opt Options) (*Dataset, error) {
	r := bytes.NewReader(b)
	var d *Dataset
	var err error
	switch format {
	case FormatCSV, FormatTSV:
		d, err = ReadCSV(r, path, opt)
	case FormatLIBSVM:
		d, err = ReadLIBSVM(r, path, opt)
	case FormatARFF:
		d, err = ReadARFF(r, path, opt)
	case FormatNPY:
		d, err = loadNPY(b, path, opt)
	case FormatNPZ:
		d, err = readNPZ(b, path, opt)
	case FormatMAT:
		d, err = ReadMAT(r, path, opt)
	}
	if err != nil {
		return nil, err
	}
	if note := minusOneNote(d, opt); note != "" {
		d.Notes = append(d.Notes, note)
	}
	return d, nil
}

// minusOneNote questions a class -1 beside classes 0, 1, …: scikit-learn
// marks unlabelled rows with -1 (LabelSpreading, SelfTrainingClassifier),
// and a semi-supervised fit would take them for a class. It returns "" for
// other labels, LIBSVM's ±1 among them (no class 0), and with
// Options.Unlabelled or Options.Classes set.
func minusOneNote(d *Dataset, opt Options) string {
	if d.Y == nil || opt.Unlabelled != "" || opt.Classes != nil {
		return ""
	}
	minus, zero := -1, false
	for c, name := range d.ClassNames {
		v, ok := wholeNumber(name)
		switch {
		case !ok || v < -1:
			return ""
		case v == -1:
			minus = c
		case v == 0:
			zero = true
		}
	}
	if minus < 0 || !zero {
		return ""
	}
	rows := 0
	for _, c := range d.Y {
		if c == minus {
			rows++
		}
	}
	return fmt.Sprintf("label -1 is read as a class (%d rows) beside 0, 1, …; if it marks unlabelled rows (scikit-learn's semi-supervised convention), give --unlabelled -1 (Options.Unlabelled)", rows)
}

// resolveFormat returns the format of the file at path (opt.Format, else
// from the extension) and opt checked for that format, with the tab
// delimiter of the tsv format filled in. Load and Scan share it.
func resolveFormat(path string, opt Options) (string, Options, error) {
	format, err := FormatOf(path, opt.Format)
	if err != nil {
		return "", opt, err
	}
	if opt.LabelsFile != "" && format != FormatNPY {
		return "", opt, fmt.Errorf("%s: --labels (Options.LabelsFile) %s is only used with .npy data, not %s", path, opt.LabelsFile, format)
	}
	if err := checkOptions(path, opt); err != nil {
		return "", opt, err
	}
	if (opt.NPZFeatures != "" || opt.NPZLabels != "") && format != FormatNPZ {
		return "", opt, fmt.Errorf("%s: --npz-x and --npz-y (Options.NPZFeatures, NPZLabels) name arrays of .npz data, not %s", path, format)
	}
	if (opt.MatFeatures != "" || opt.MatLabels != "" || opt.MatSamples != "") && format != FormatMAT {
		return "", opt, fmt.Errorf("%s: --mat-fea, --mat-gnd and --mat-samples (Options.MatFeatures, MatLabels, MatSamples) are for .mat data, not %s", path, format)
	}
	// Options of one format given for another would be ignored without a
	// word (the CLI audit): each is an error naming the formats it is for.
	text := format == FormatCSV || format == FormatTSV
	for _, c := range []struct {
		given bool
		what  string
		ok    bool
		for_  string
	}{
		{opt.ClassAttr != "", "--class-attr (Options.ClassAttr)", format == FormatARFF, "ARFF data (CSV and TSV take --label-col)"},
		{opt.Nominal != "", "--nominal (Options.Nominal)", format == FormatARFF, "ARFF data"},
		{opt.Weights != "", "--arff-weights (Options.Weights)", format == FormatARFF, "ARFF data"},
		{len(opt.Drop) > 0, "--drop (Options.Drop)", format == FormatARFF || text, "ARFF, CSV and TSV data"},
		{opt.Missing != "", "--missing (Options.Missing)", format == FormatARFF || text, "ARFF, CSV and TSV data (the others have no missing values)"},
		{opt.LabelColumn != "", "--label-col (Options.LabelColumn)", text, "CSV and TSV data (ARFF takes --class-attr)"},
		{opt.NoHeader, "--no-header (Options.NoHeader)", text, "CSV and TSV data"},
		{opt.Delimiter != 0 && format != FormatTSV, "--sep (Options.Delimiter)", format == FormatCSV, "CSV data"},
		{opt.NumFeatures != 0, "--features (Options.NumFeatures)", format == FormatLIBSVM, "LIBSVM data"},
		{opt.ZeroBased, "--zero-based (Options.ZeroBased)", format == FormatLIBSVM, "LIBSVM data"},
	} {
		if c.given && !c.ok {
			return "", opt, fmt.Errorf("%s: %s is for %s, not %s", path, c.what, c.for_, format)
		}
	}
	if format == FormatTSV && opt.Delimiter == 0 {
		opt.Delimiter = '\t'
	}
	return format, opt, nil
}

// checkOptions rejects option values that no reader accepts.
func checkOptions(name string, opt Options) error {
	switch opt.Nominal {
	case "", "ordinal", "onehot":
	default:
		return fmt.Errorf("%s: --nominal (Options.Nominal) is %q; want \"ordinal\" or \"onehot\"", name, opt.Nominal)
	}
	switch opt.Missing {
	case "", "reject", "drop":
	default:
		return fmt.Errorf("%s: --missing (Options.Missing) is %q; want \"reject\" or \"drop\"", name, opt.Missing)
	}
	switch opt.Weights {
	case "", "reject", "ignore":
	default:
		return fmt.Errorf("%s: --arff-weights (Options.Weights) is %q; want \"reject\" or \"ignore\"", name, opt.Weights)
	}
	switch opt.MatSamples {
	case "", "rows", "columns":
	default:
		return fmt.Errorf("%s: --mat-samples (Options.MatSamples) is %q; want \"rows\", \"columns\" or empty (automatic)", name, opt.MatSamples)
	}
	if opt.NumFeatures < 0 {
		return fmt.Errorf("%s: --features (Options.NumFeatures) is %d; want 0 (automatic) or a positive dimension", name, opt.NumFeatures)
	}
	return nil
}

// MaxInputBytes bounds the bytes a reader holds after decompression (a
// gzipped file, a compressed MAT element, a stream): a small file that
// would expand beyond it (a "zip bomb", or a header implying an array
// larger than memory) is an error instead of an exhausted machine.
var MaxInputBytes int64 = 16 << 30

// readAllLimited reads r whole, refusing more than MaxInputBytes.
func readAllLimited(r io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > MaxInputBytes {
		return nil, fmt.Errorf("%s: more than %d bytes after decompression (data.MaxInputBytes); refusing to hold it in memory", name, MaxInputBytes)
	}
	return b, nil
}

// readFile returns the contents of path, decompressed if the name ends in
// ".gz".
func readFile(path string) ([]byte, error) {
	rc, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readAllLimited(rc, path)
}

// openInput opens the file at path for reading, decompressing it on the
// fly if the name ends in ".gz". Decompression errors are FormatErrors
// naming the file and the number of bytes decompressed before them.
func openInput(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return f, nil
	}
	g, err := newGzipInput(f, f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return g, nil
}

// newGzipInput returns a decompressing reader of r whose errors name
// path; closing it closes c (nil: nothing to close).
func newGzipInput(r io.Reader, c io.Closer, path string) (*gzipInput, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid gzip file: %w", path, err)
	}
	return &gzipInput{path: path, c: c, zr: zr}, nil
}

// gzipInput is a decompressing reader whose errors name the file.
type gzipInput struct {
	path string
	c    io.Closer
	zr   *gzip.Reader
	n    int64 // bytes decompressed so far
	err  error // sticky error
}

func (g *gzipInput) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	k, err := g.zr.Read(p)
	g.n += int64(k)
	switch {
	case err == nil || err == io.EOF:
	case err == io.ErrUnexpectedEOF:
		err = &FormatError{File: g.path, Offset: -1, Msg: fmt.Sprintf("truncated gzip data: the compressed stream ends early (%d bytes decompressed before the end of the file)", g.n)}
	default:
		err = &FormatError{File: g.path, Offset: -1, Msg: fmt.Sprintf("corrupt gzip data after %d decompressed bytes", g.n), Err: err}
	}
	g.err = err
	return k, err
}

func (g *gzipInput) Close() error {
	if g.c == nil {
		return nil
	}
	return g.c.Close()
}

// datasetName is the file name of path without directory and extensions
// (".csv.gz" and the like).
func datasetName(path string) string {
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	if strings.HasSuffix(lower, ".gz") {
		base = base[:len(base)-3]
	}
	if _, ok := formatByExt[strings.ToLower(filepath.Ext(base))]; ok {
		base = base[:len(base)-len(filepath.Ext(base))]
	}
	return base
}

// FormatError is the error returned for input that breaks a rule of its
// format. Its message names the file, the place (line or byte offset), the
// rule and the offending value.
type FormatError struct {
	File   string // display name of the input
	Line   int    // 1-based line for text formats; 0 if not applicable
	Offset int64  // byte offset for binary formats; -1 if not applicable
	Msg    string // the rule broken, with the offending value
	Err    error  // underlying error, if any
}

func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	case e.Offset >= 0:
		fmt.Fprintf(&b, ": byte offset %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *FormatError) Unwrap() error { return e.Err }

// lineErr returns a FormatError at line of file (line 0: no line).
func lineErr(file string, line int, format string, args ...any) error {
	return &FormatError{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// offsetErr returns a FormatError at byte offset off of file.
func offsetErr(file string, off int64, format string, args ...any) error {
	return &FormatError{File: file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// resolveColumn finds the column spec among names: an exact name, a
// 1-based index, or a case-insensitive name, in that order. what names the
// kind of thing for the error ("column", "attribute").
func resolveColumn(spec string, names []string, what string) (int, error) {
	if i := slices.Index(names, spec); i >= 0 {
		return i, nil
	}
	if k, err := strconv.Atoi(strings.TrimSpace(spec)); err == nil {
		if k < 1 || k > len(names) {
			return -1, fmt.Errorf("%s index %d is out of range 1..%d", what, k, len(names))
		}
		return k - 1, nil
	}
	for i, n := range names {
		if strings.EqualFold(n, spec) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("no %s named %q; the %ss are: %s", what, spec, what, quoteList(names, 40))
}

// quoteList formats names as a comma-separated list of quoted strings,
// eliding the middle of lists longer than max.
func quoteList(names []string, max int) string {
	q := func(s []string) string {
		out := make([]string, len(s))
		for i, n := range s {
			out[i] = strconv.Quote(short(n))
		}
		return strings.Join(out, ", ")
	}
	if len(names) <= max {
		return q(names)
	}
	return fmt.Sprintf("%s, ... (%d more) ..., %s", q(names[:max-5]), len(names)-max+1, q(names[len(names)-4:]))
}

// defaultNames returns x0, x1, ..., x(p-1).
// GeneratedNames reports whether names are ones a reader made up for
// columns without names (x0, x1, … for headerless tables, NumPy and MAT
// arrays; f1, f2, … for LIBSVM indices, f0, f1, … for zero-based ones;
// any increasing x<k> or f<k>, as left after --drop), which say nothing
// about what the columns hold. nil and empty slices count as generated.
func GeneratedNames(names []string) bool {
	if len(names) == 0 {
		return true
	}
	for _, prefix := range []string{"x", "f"} {
		last, ok := -1, true
		for _, s := range names {
			k, err := strconv.Atoi(strings.TrimPrefix(s, prefix))
			if !strings.HasPrefix(s, prefix) || err != nil || k <= last || strconv.Itoa(k) != s[len(prefix):] {
				ok = false
				break
			}
			last = k
		}
		if ok {
			return true
		}
	}
	return false
}

func defaultNames(p int) []string {
	names := make([]string, p)
	for j := range names {
		names[j] = "x" + strconv.Itoa(j)
	}
	return names
}

// isMissingLabel reports whether a label text means "no label".
func isMissingLabel(s string) bool {
	return s == "" || s == "?"
}

// unlabelledText reports whether the label text t marks a row without a
// label: "" or "?", or the text unl (Options.Unlabelled; by value when
// both are whole numbers).
func unlabelledText(t, unl string) bool {
	if isMissingLabel(t) {
		return true
	}
	if unl == "" {
		return false
	}
	if t == unl {
		return true
	}
	a, ok := wholeNumber(t)
	b, ok2 := wholeNumber(unl)
	return ok && ok2 && a == b
}

// labelError is returned by encodeLabels for the label at index Row.
type labelError struct {
	Row int
	Msg string
}

func (e *labelError) Error() string { return e.Msg }

// encodeLabels turns label texts (already trimmed) into labels 0..C-1 and
// class names. "" and "?" are Unlabeled, and so is unl
// (Options.Unlabelled; unlabelledText). With classes non-nil, the label is
// the index of its text in classes (lookupClass); otherwise, the classes
// are ordered numerically when every label is a whole number (wholeNumber:
// labels with the same value, like "1", "+1" and "1.0", are one class,
// named by its first text written as an integer, else by its value: "1.0"
// and np.savetxt's "1.000000000000000000e+00" name the class "1"), else
// as sorted strings.
func encodeLabels(texts []string, classes []string, unl string) ([]int, []string, error) {
	y := make([]int, len(texts))
	if unl != "" {
		texts = slices.Clone(texts)
		for i, t := range texts {
			if unlabelledText(t, unl) {
				texts[i] = ""
			}
		}
	}
	if classes != nil {
		idx := classIndex(classes)
		for i, t := range texts {
			c, msg := lookupClass(t, idx, classes)
			if msg != "" {
				return nil, nil, &labelError{Row: i, Msg: msg}
			}
			y[i] = c
		}
		return y, slices.Clone(classes), nil
	}

	allInt := true
	for _, t := range texts {
		if isMissingLabel(t) {
			continue
		}
		if _, ok := wholeNumber(t); !ok {
			allInt = false
			break
		}
	}
	if allInt {
		first := map[int64]string{}
		vals := make([]int64, len(texts))
		for i, t := range texts {
			if isMissingLabel(t) {
				continue
			}
			v, _ := wholeNumber(t)
			vals[i] = v
			if _, ok := first[v]; !ok {
				first[v] = t
			}
		}
		keys := make([]int64, 0, len(first))
		for v := range first {
			keys = append(keys, v)
		}
		slices.Sort(keys)
		index := make(map[int64]int, len(keys))
		names := make([]string, len(keys))
		for c, v := range keys {
			index[v] = c
			names[c] = first[v]
			if _, err := strconv.ParseInt(names[c], 10, 64); err != nil {
				names[c] = strconv.FormatInt(v, 10) // "1.0", "1e0": the value
			}
		}
		for i, t := range texts {
			if isMissingLabel(t) {
				y[i] = Unlabeled
			} else {
				y[i] = index[vals[i]]
			}
		}
		return y, names, nil
	}

	for i, t := range texts {
		v, err := strconv.ParseFloat(t, 64)
		if (err == nil || errors.Is(err, strconv.ErrRange)) && (v != math.Trunc(v) || math.IsInf(v, 0)) { // NaN ≠ Trunc(NaN)
			return nil, nil, &labelError{Row: i, Msg: fmt.Sprintf("label %q is a number but not a whole one, so not a class: is the label column a continuous feature? (choose the label column with --label-col, Options.LabelColumn, or give --no-labels; a row without a label has an empty label or ?)", short(t))}
		}
	}
	index := map[string]int{}
	for _, t := range texts {
		if !isMissingLabel(t) {
			index[t] = 0
		}
	}
	names := make([]string, 0, len(index))
	for t := range index {
		names = append(names, t)
	}
	slices.Sort(names)
	for c, t := range names {
		index[t] = c
	}
	for i, t := range texts {
		if isMissingLabel(t) {
			y[i] = Unlabeled
		} else {
			y[i] = index[t]
		}
	}
	return y, names, nil
}

// wholeNumber returns the value of a label text that is a whole number:
// an integer ("3", "+3", "03") or a decimal with no fraction ("3.0",
// "3e0", as pandas writes integer labels of a column with missing values)
// exactly representable (|v| ≤ 2⁵³).
func wholeNumber(t string) (int64, bool) {
	if v, err := strconv.ParseInt(t, 10, 64); err == nil {
		return v, true
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > 1<<53 { // NaN ≠ Trunc(NaN); Inf > 2⁵³
		return 0, false
	}
	return int64(v), true
}

// classIndex maps each name of classes to its index (the first one when a
// name is repeated), and each value of a whole-number name (valueKey) to
// its index unless another name has that value first.
func classIndex(classes []string) map[string]int {
	idx := make(map[string]int, len(classes))
	for c, name := range classes {
		if _, dup := idx[name]; !dup {
			idx[name] = c
		}
	}
	for c, name := range classes {
		if v, ok := wholeNumber(name); ok {
			if _, dup := idx[valueKey(v)]; !dup {
				idx[valueKey(v)] = c
			}
		}
	}
	return idx
}

// valueKey is classIndex's key of a whole-number class value; it is no
// label text (those are trimmed, and a NUL byte is not a number).
func valueKey(v int64) string { return "\x00" + strconv.FormatInt(v, 10) }

// lookupClass returns the label of the text t (trimmed) given the class
// names fixed by Options.Classes and their classIndex: Unlabeled for "" and
// "?", else the index of t, or of the class with t's value when t is a
// whole number ("1.0" is class "1"). A text not among the classes gives a
// message naming it and the classes.
func lookupClass(t string, idx map[string]int, classes []string) (int, string) {
	if isMissingLabel(t) {
		return Unlabeled, ""
	}
	c, ok := idx[t]
	if !ok {
		if v, whole := wholeNumber(t); whole {
			c, ok = idx[valueKey(v)]
		}
	}
	if !ok {
		return 0, fmt.Sprintf("label %q is not one of the given classes (%s)", short(t), quoteList(classes, 20))
	}
	return c, ""
}

// parseNumber parses s (surrounding spaces ignored) as a finite float64.
// On failure it returns a message naming the rule and the value.
func parseNumber(s string) (float64, string) {
	if len(s) == 1 && s[0] >= '0' && s[0] <= '9' {
		return float64(s[0] - '0'), "" // fast path for pixel data full of zeros
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		s = strings.TrimSpace(s)
		v, err = strconv.ParseFloat(s, 64)
	}
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("value %q is out of the float64 range", short(s))
		}
		if s == "" {
			return 0, "empty value; a number is required"
		}
		if s == "?" {
			return 0, "missing value \"?\"; a number is required"
		}
		return 0, fmt.Sprintf("cannot parse %q as a number", short(s))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("value %q is not finite; NaN and Inf are not allowed", short(s))
	}
	if strings.ContainsAny(s, "_xX") {
		// Go's float syntax, which ParseFloat accepts, is not a data
		// file's: 1_0.5 (digit separators) and 0x1p-2 (hexadecimal).
		return 0, fmt.Sprintf("cannot parse %q as a decimal number (digit separators and hexadecimal are not data)", short(s))
	}
	return v, ""
}
