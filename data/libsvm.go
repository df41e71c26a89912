package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// lineReader yields the lines of a text input without their line ending
// ("\n" or "\r\n") and the first without a UTF-8 byte order mark,
// counting them from 1. Lines may be of any length.
type lineReader struct {
	name string
	br   *bufio.Reader
	line int
	err  error
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line and true, or "" and false at the end of the
// input or on a read error (see Err).
func (lr *lineReader) next() (string, bool) {
	if lr.err != nil {
		return "", false
	}
	s, err := lr.br.ReadString('\n')
	if err != nil {
		if err != io.EOF {
			lr.err = err
			var fe *FormatError
			if !errors.As(err, &fe) { // decompression errors already name the file
				lr.err = &FormatError{File: lr.name, Line: lr.line + 1, Offset: -1, Msg: "read error", Err: err}
			}
			return "", false
		}
		if s == "" {
			lr.err = io.EOF
			return "", false
		}
	}
	lr.line++
	if lr.line == 1 {
		s = strings.TrimPrefix(s, "\ufeff") // UTF-8 byte order mark (Windows editors)
	}
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return s, true
}

// Err returns the read error that stopped next, or nil at the end of the
// input.
func (lr *lineReader) Err() error {
	if lr.err == io.EOF {
		return nil
	}
	return lr.err
}

// ReadLIBSVM reads LIBSVM/svmlight sparse text from r; name is the file
// name used in errors and for Dataset.Name. Each non-blank line is
// "label index:value index:value ..." with 1-based indices (0-based when
// an index 0 occurs, as scikit-learn writes them, with opt.ZeroBased,
// when a comment before the first row says "Column indices are
// zero-based", as scikit-learn writes it, or with opt.ZeroBasedDefault
// unless such a comment says one-based), in any order but each
// at most once; features not listed are 0. Text from '#' to the
// end of a line is a comment, and svmlight's "qid:n" tokens are ignored.
// The dimension is the largest index in the file, or opt.NumFeatures. The
// labels are ordered as in ReadCSV ("-1" and "+1" give the classes "-1",
// "+1"); with opt.NoLabels they are ignored. Features are named f1, f2, ...
// after their LIBSVM index.
func ReadLIBSVM(r io.Reader, name string, opt Options) (*Dataset, error) {
	var (
		rows    [][]svmEntry
		labels  []string
		lines   []int
		maxIdx  int
		maxLine int // the line of the largest index
		decl    = noBase
	)
	lr := newLineReader(r, name)
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		if len(rows) == 0 {
			decl.read(s, lr.line)
		}
		label, row, ok, err := parseLIBSVMLine(s, lr.line, name, opt, nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if len(row) > 0 && row[len(row)-1].idx > maxIdx {
			maxIdx, maxLine = row[len(row)-1].idx, lr.line
		}
		rows = append(rows, row)
		labels = append(labels, label)
		lines = append(lines, lr.line)
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errLIBSVMEmpty(name)
	}
	// A file with an index 0 is zero-based (scikit-learn's
	// dump_svmlight_file writes one by default; its reader decides the
	// same way), and so is one whose header comment says so: every index
	// is shifted by one, and the features are named f0, f1, … after the
	// file's indices.
	zero, index0 := decl.zeroBased(opt), false
	for i, row := range rows {
		if len(row) > 0 && row[0].idx == 0 {
			if err := decl.checkZero(name, lines[i]); err != nil && !opt.ZeroBased {
				return nil, err
			}
			zero, index0 = true, true
			break
		}
	}
	if zero {
		for _, row := range rows {
			for k := range row {
				row[k].idx++
			}
		}
		maxIdx++
		if opt.NumFeatures > 0 && maxIdx > opt.NumFeatures {
			return nil, lineErr(name, maxLine, "index %d (zero-based: %s) exceeds the dimension %d set by --features (Options.NumFeatures)", maxIdx-1, decl.zeroWhy(opt, index0), opt.NumFeatures)
		}
	}
	p := maxIdx
	if opt.NumFeatures > 0 {
		p, maxLine = opt.NumFeatures, 0
	}
	if p == 0 {
		return nil, errLIBSVMNoFeatures(name)
	}
	if err := checkDenseSize(name, maxLine, len(rows), p, false); err != nil {
		return nil, err
	}
	x := mat.NewDense(len(rows), p, nil)
	for i, row := range rows {
		scatterEntries(x.RawRowView(i), row)
	}
	names := make([]string, p)
	first := 1
	if zero {
		first = 0
	}
	for j := range names {
		names[j] = "f" + strconv.Itoa(j+first)
	}
	d := &Dataset{Name: datasetName(name), X: x, FeatureNames: names}
	if !opt.NoLabels {
		y, classes, err := encodeLabels(labels, opt.Classes, opt.Unlabelled)
		if err != nil {
			var le *labelError
			if errors.As(err, &le) {
				return nil, lineErr(name, lines[le.Row], "%s", le.Msg)
			}
			return nil, err
		}
		d.Y, d.ClassNames = y, classes
	}
	return d, nil
}

// declaredBase is the base of a LIBSVM file's indices as its header
// comment declares it: scikit-learn's dump_svmlight_file, given a
// comment, starts the file with "# Column indices are zero-based" (or
// "one-based").
type declaredBase struct {
	base int // 0 or 1; -1: not declared
	line int // the comment's line
}

var noBase = declaredBase{base: -1}

// read takes the declaration from line number ln, a line before the first
// data row, if it is one.
func (d *declaredBase) read(line string, ln int) {
	t, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
	if !ok {
		return
	}
	t = strings.ToLower(strings.TrimSpace(t))
	switch t {
	case "column indices are zero-based":
		*d = declaredBase{0, ln}
	case "column indices are one-based":
		*d = declaredBase{1, ln}
	}
}

// zeroBased reports whether a file with this declaration is read
// zero-based before any index 0 is seen: by opt.ZeroBased (the user's
// word), the header's declaration, else opt.ZeroBasedDefault (the
// model's).
func (d declaredBase) zeroBased(opt Options) bool {
	return opt.ZeroBased || d.base == 0 || (opt.ZeroBasedDefault && d.base != 1)
}

// zeroWhy says why a file with this declaration is read zero-based, for
// errors that follow from it; index0 says that the file has an index 0
// (which no flag overrules).
func (d declaredBase) zeroWhy(opt Options, index0 bool) string {
	switch {
	case opt.ZeroBased:
		return "--zero-based, Options.ZeroBased"
	case index0:
		return "the file has an index 0"
	case d.base == 0:
		return fmt.Sprintf("line %d says \"Column indices are zero-based\"", d.line)
	case opt.ZeroBasedDefault:
		return "the model was fitted on a zero-based LIBSVM file; --zero-based=false reads this one one-based"
	}
	return "the file has an index 0"
}

// checkZero refuses an index 0 on line ln of a file declared one-based.
func (d declaredBase) checkZero(name string, ln int) error {
	if d.base != 1 {
		return nil
	}
	return lineErr(name, ln, "index 0, but line %d says \"Column indices are one-based\": the file contradicts its header (give --zero-based to read it zero-based)", d.line)
}

// LIBSVMZeroBased reports whether the LIBSVM file at path is read
// zero-based without an index 0 having to occur: with opt.ZeroBased, or
// when its header comment says so (scikit-learn's "# Column indices are
// zero-based"). A fit records it so that files of new rows are read alike.
func LIBSVMZeroBased(path string, opt Options) (bool, error) {
	if opt.ZeroBased {
		return true, nil
	}
	in, err := openInput(path)
	if err != nil {
		return false, err
	}
	defer in.Close()
	return LIBSVMZeroBasedReader(in, path, opt)
}

// LIBSVMZeroBasedReader is LIBSVMZeroBased of the LIBSVM text read from r
// (name for errors): it reads the comments before the first data row.
func LIBSVMZeroBasedReader(r io.Reader, name string, opt Options) (bool, error) {
	if opt.ZeroBased {
		return true, nil
	}
	lr := newLineReader(r, name)
	decl := noBase
	for {
		s, ok := lr.next()
		if !ok {
			return false, lr.Err()
		}
		if t := strings.TrimSpace(s); t != "" && !strings.HasPrefix(t, "#") {
			return false, nil // the first data row
		}
		if decl.read(s, lr.line); decl.base >= 0 {
			return decl.base == 0, nil
		}
	}
}

// svmEntry is one index:value pair of a LIBSVM row (index 1-based).
type svmEntry struct {
	idx int
	val float64
}

// parseLIBSVMLine parses line number line of a LIBSVM file with the rules
// of ReadLIBSVM, appending its pairs to row (sorted by index) and
// returning them with the label text ("" with opt.NoLabels and no label).
// ok is false for a blank or comment-only line. ReadLIBSVM and Scan share
// it.
func parseLIBSVMLine(s string, line int, name string, opt Options, row []svmEntry) (label string, out []svmEntry, ok bool, err error) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return "", row, false, nil
	}
	if !strings.Contains(fields[0], ":") {
		label = fields[0]
		fields = fields[1:]
		if strings.Contains(label, ",") && !opt.NoLabels {
			return "", row, false, lineErr(name, line, "label %q: multi-label rows are not supported; want one label per row", short(label))
		}
	} else if !opt.NoLabels {
		return "", row, false, lineErr(name, line, "row starts with %q: want a label before the index:value pairs (or give --no-labels for unlabelled data)", short(fields[0]))
	}
	if row == nil {
		row = make([]svmEntry, 0, len(fields))
	}
	start := len(row)
	for _, f := range fields {
		k := strings.IndexByte(f, ':')
		if k < 0 {
			return "", row, false, lineErr(name, line, "token %q: want index:value", short(f))
		}
		is, vs := f[:k], f[k+1:]
		if is == "qid" {
			continue
		}
		idx, err := strconv.Atoi(is)
		if err != nil || idx < 0 {
			return "", row, false, lineErr(name, line, "token %q: index %q is not a non-negative integer (LIBSVM indices start at 1; 0 in a zero-based file)", short(f), short(is))
		}
		if opt.NumFeatures > 0 && idx > opt.NumFeatures {
			return "", row, false, lineErr(name, line, "token %q: index %d exceeds the dimension %d set by --features (Options.NumFeatures)", short(f), idx, opt.NumFeatures)
		}
		v, msg := parseNumber(vs)
		if msg != "" {
			return "", row, false, lineErr(name, line, "feature %d: %s", idx, msg)
		}
		row = append(row, svmEntry{idx, v})
	}
	pairs := row[start:]
	slices.SortFunc(pairs, func(a, b svmEntry) int { return a.idx - b.idx })
	for k := 1; k < len(pairs); k++ {
		if pairs[k].idx == pairs[k-1].idx {
			return "", row, false, lineErr(name, line, "index %d appears twice in the row", pairs[k].idx)
		}
	}
	return label, row, true, nil
}

// scatterEntries sets the entries of a dense row (zero on entry) from the
// index:value pairs of a LIBSVM row.
func scatterEntries(dst []float64, row []svmEntry) {
	for _, e := range row {
		dst[e.idx-1] = e.val
	}
}

// checkDenseSize refuses a LIBSVM dimension whose dense rows×p matrix
// and p generated feature names would exceed MaxInputBytes (an index of
// 4 000 000 000 in a two-line file would otherwise exhaust the machine);
// line (0: from --features) is where the largest index is.
// chunk says that rows is Scan's chunk size rather than the file's rows.
// A name ("x123456", a string header and its bytes) takes about as much
// memory as four values, so a one-row file of 700 000 000 features is
// about 28 GB, not the matrix's 5.6 (found by FuzzReadLIBSVM: the process
// was killed).
func checkDenseSize(name string, line, rows, p int, chunk bool) error {
	const nameValues = 4 // the memory of one generated feature name, in values
	if int64(p) <= MaxInputBytes/8/int64(max(rows, 1)+nameValues) {
		return nil
	}
	src := fmt.Sprintf("feature index %d", p)
	if line == 0 {
		src = fmt.Sprintf("dimension %d (--features, Options.NumFeatures)", p)
	}
	what := fmt.Sprintf("%d rows", rows)
	if chunk {
		what = fmt.Sprintf("a chunk of %d rows", rows)
	}
	return lineErr(name, line, "%s makes %s of %d dense features, %.3g GB with their names, more than data.MaxInputBytes (%d bytes) allows; the data are read as a dense matrix, so an index must not exceed the number of features", src, what, p, float64(max(rows, 1)+nameValues)*float64(p)*8/1e9, MaxInputBytes)
}

func errLIBSVMEmpty(name string) error {
	return lineErr(name, 0, "empty file: no data rows")
}

func errLIBSVMNoFeatures(name string) error {
	return lineErr(name, 0, "no features: no row has an index:value pair (give the dimension with --features, Options.NumFeatures)")
}

// WriteLIBSVM writes d as LIBSVM/svmlight text: one line per row, its
// label and the index:value pairs of its non-zero features, indices from
// 1, values in the shortest text that reads back as the same float64; the
// first row also lists its last feature when it is zero, so that a reader
// finds the dimension even when that feature is zero in every row. The
// label is the class name when every name is a number (LIBSVM and
// scikit-learn read labels as numbers), else the class index 0..C−1
// (LIBSVMNumericNames tells which; the caller should give the mapping).
// ReadLIBSVM reads it back as d (the features named f1, f2, …; classes
// that went out as their indices come back named by them). LIBSVM has no
// unlabelled rows: data without labels, or with an unlabelled row, is
// refused.
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	if d == nil || d.X == nil || d.X.IsEmpty() {
		return fmt.Errorf("WriteLIBSVM: no data")
	}
	if err := CheckFinite("rows", d.X); err != nil {
		return err
	}
	n, p := d.X.Dims()
	if d.Y == nil {
		return fmt.Errorf("WriteLIBSVM: dataset %q has no labels, and every LIBSVM row starts with one; write .csv, .npy or .npz instead", d.Name)
	}
	if len(d.Y) != n {
		return fmt.Errorf("WriteLIBSVM: dataset %q has %d rows and %d labels", d.Name, n, len(d.Y))
	}
	names := d.ClassNames
	if !LIBSVMNumericNames(names) {
		names = nil // class indices
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := 0; i < n; i++ {
		c := d.Y[i]
		if c == Unlabeled {
			return fmt.Errorf("WriteLIBSVM: dataset %q: row %d is unlabelled, and LIBSVM has no unlabelled rows; leave such rows out or write .csv", d.Name, i+1)
		}
		if c < 0 || (len(d.ClassNames) > 0 && c >= len(d.ClassNames)) {
			return fmt.Errorf("WriteLIBSVM: dataset %q: row %d has label %d, want 0..%d", d.Name, i+1, c, len(d.ClassNames)-1)
		}
		buf = append(buf[:0], LabelText(c, names)...)
		for j, v := range d.X.RawRowView(i) {
			if v != 0 || (i == 0 && j == p-1) { // the first row's last pair, zero or not, keeps the dimension
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(j+1), 10)
				buf = append(buf, ':')
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// LIBSVMNumericNames reports whether WriteLIBSVM writes these class names
// as the labels: every name a finite decimal number as LIBSVM's strtod
// and scikit-learn's float() read it ("-1", "+1", "2.5"; not hexadecimal),
// no two of them the same number ("1" and "1.0" would merge two classes).
// Otherwise it writes the class indices 0..C−1.
func LIBSVMNumericNames(names []string) bool {
	seen := make(map[float64]bool, len(names))
	for _, n := range names {
		v, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.TrimSpace(n) != n || strings.ContainsAny(n, "xX_") {
			return false
		}
		if v == 0 {
			v = 0 // −0 is 0
		}
		if seen[v] {
			return false // "1" and "1.0": one label for two classes
		}
		seen[v] = true
	}
	return true
}
