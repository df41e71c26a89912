package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads a delimited text table with a header row from r; name is
// the file name used in errors and for Dataset.Name. The separator is
// opt.Delimiter, else a tab if opt.Format is "tsv", else a comma. The label column is
// chosen by opt.LabelColumn (default: "label", else "class", else the last
// column); every other column must hold finite numbers. A label cell that
// is empty or "?" is Unlabeled. The classes are ordered numerically if all
// labels are integers, else as sorted strings, unless opt.Classes fixes
// them; ClassNames holds the label texts. Fields may be quoted as in RFC
// 4180; blank lines are skipped.
func ReadCSV(r io.Reader, name string, opt Options) (*Dataset, error) {
	rows, err := newCSVRows(r, name, opt)
	if err != nil {
		return nil, err
	}
	var (
		vals   []float64
		labels []string
		lines  []int
	)
	for {
		var label string
		var line int
		var ok bool
		vals, label, line, ok, _, err = rows.next(vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if rows.labelCol >= 0 {
			labels = append(labels, label)
		}
		lines = append(lines, line)
	}
	n := len(lines)
	if n == 0 {
		if rows.dropped > 0 {
			return nil, lineErr(name, 0, "no data rows left: all %d rows have missing values (--missing drop)", rows.dropped)
		}
		return nil, rows.noRowsErr()
	}

	d := &Dataset{
		Name:         datasetName(name),
		X:            mat.NewDense(n, rows.nfeat, vals),
		FeatureNames: rows.featNames,
		DroppedRows:  rows.dropped,
	}
	if rows.labelCol >= 0 {
		y, classes, err := encodeLabels(labels, opt.Classes, opt.Unlabelled)
		if err != nil {
			var le *labelError
			if errors.As(err, &le) {
				return nil, rows.labelErr(lines[le.Row], le.Msg)
			}
			return nil, err
		}
		d.Y, d.ClassNames = y, classes
	}
	d.Notes = rows.notes(n, len(d.ClassNames), opt)
	return d, nil
}

// notes says what the reader guessed that may be wrong (Dataset.Notes):
// a header row whose fields are all numbers that do not count the
// columns (np.savetxt output read as if its first row named the columns),
// and a label column taken by the last-column rule that has a class for
// more than half of the n rows (a feature, where the labels are in a
// column of another name or in none), and a feature column named "" or
// "Unnamed: …" (a pandas index).
func (c *csvRows) notes(n, classes int, opt Options) []string {
	var out []string
	if !opt.NoHeader && numericHeader(c.header) {
		first := fmt.Sprintf("%q", short(c.header[0]))
		if len(c.header) > 1 {
			first += fmt.Sprintf(", %q, …", short(c.header[1]))
		}
		out = append(out, fmt.Sprintf("%s: the header row's fields are all numbers (%s): if the file has no header, give --no-header (its first row is being read as the column names, not as data)", c.name, first))
	}
	for j, h := range c.header {
		if opt.NoHeader || j == c.labelCol || (c.skip != nil && c.skip[j]) {
			continue
		}
		if t := strings.TrimSpace(h); t == "" || strings.HasPrefix(t, "Unnamed: ") {
			out = append(out, fmt.Sprintf("%s: column %d, named %q, is read as a feature; if it is an index (pandas' to_csv without index=False writes one), leave it out with --drop %d: a row number can give the class away", c.name, j+1, h, j+1))
		}
	}
	if c.labelCol >= 0 && opt.LabelColumn == "" && !opt.NoHeader && !namedLabel(c.header[c.labelCol]) && classes > max(10, n/2) {
		out = append(out, fmt.Sprintf("%s: the labels were taken from the last column, %q (no column is named %s), and it has %d classes for %d rows: if it is a feature, name the label column with --label-col, or give --no-labels", c.name, c.header[c.labelCol], strings.Join(labelNames, ", "), classes, n))
	}
	return out
}

// numericHeader reports whether every field of a header parses as a
// number and the fields are not the column numbers 0..p−1 or 1..p in some
// order (pandas' default names, a label column moved).
func numericHeader(h []string) bool {
	seen := make(map[string]bool, len(h))
	for _, f := range h {
		if _, err := strconv.ParseFloat(f, 64); err != nil {
			return false
		}
		seen[f] = true
	}
	counts0, counts1 := len(seen) == len(h), len(seen) == len(h)
	for j := range h {
		counts0 = counts0 && seen[strconv.Itoa(j)]
		counts1 = counts1 && seen[strconv.Itoa(j+1)]
	}
	return len(h) > 0 && !counts0 && !counts1
}

// csvRows reads the data rows of a delimited text table one at a time,
// with the rules of ReadCSV; ReadCSV and Scan share it.
type csvRows struct {
	name      string
	cr        *csv.Reader
	header    []string // column names (x0, x1, ... without a header row)
	featNames []string
	ncols     int
	nfeat     int
	labelCol  int      // -1 when the data has no labels
	first     []string // the first record when it is data (NoHeader)
	firstLine int
	skip      []bool // columns left out (Options.Drop)
	dropMiss  bool   // Options.Missing "drop": rows with a missing value are left out
	dropped   int    // rows left out so far
}

// newCSVRows reads the header of the table in r (or, with opt.NoHeader,
// its first record) and resolves the label column.
func newCSVRows(r io.Reader, name string, opt Options) (*csvRows, error) {
	cr := csv.NewReader(r)
	switch {
	case opt.Delimiter != 0:
		cr.Comma = opt.Delimiter
	case strings.EqualFold(opt.Format, FormatTSV):
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = !unicode.IsSpace(cr.Comma)
	c := &csvRows{name: name, cr: cr, labelCol: -1}

	first, err := cr.Read()
	if err == io.EOF {
		return nil, lineErr(name, 0, "empty file: no header row and no data")
	}
	if err != nil {
		return nil, c.readErr(err)
	}
	ncols := len(first)
	if ncols > 0 {
		first[0] = strings.TrimPrefix(first[0], "\ufeff") // UTF-8 byte order mark
	}
	var header []string
	if opt.NoHeader {
		header = defaultNames(ncols)
		c.first = first
		c.firstLine, _ = cr.FieldPos(0)
	} else {
		header = make([]string, ncols)
		for j, h := range first {
			header[j] = strings.Clone(strings.TrimSpace(h))
		}
		// np.savetxt(header=…) writes the header after its comment mark
		// "# ", which is no part of the first column's name.
		if rest, ok := strings.CutPrefix(header[0], "# "); ok && strings.TrimSpace(rest) != "" {
			header[0] = strings.TrimSpace(rest)
		}
	}

	labelCol := -1
	if !opt.NoLabels {
		switch {
		case opt.LabelColumn != "":
			if opt.NoHeader {
				k, err := strconv.Atoi(strings.TrimSpace(opt.LabelColumn))
				if err != nil || k < 1 || k > ncols {
					return nil, lineErr(name, 1, "label column %q: without a header the label column must be a 1-based index in 1..%d", opt.LabelColumn, ncols)
				}
				labelCol = k - 1
			} else {
				labelCol, err = resolveColumn(opt.LabelColumn, header, "column")
				if err != nil {
					return nil, lineErr(name, 1, "label column %q not found: %v", opt.LabelColumn, err)
				}
			}
		case opt.NoHeader:
			labelCol = ncols - 1
		default:
			labelCol = defaultLabelColumn(header)
		}
	}

	skip := make([]bool, ncols)
	for _, spec := range opt.Drop {
		j, err := resolveColumn(strings.TrimSpace(spec), header, "column")
		if err != nil {
			return nil, lineErr(name, 1, "--drop %q: %v", spec, err)
		}
		if j == labelCol {
			return nil, lineErr(name, 1, "--drop %q: column %q is the label column and cannot be dropped (give --no-labels for unlabelled data, or another --label-col)", spec, header[j])
		}
		skip[j] = true
	}
	nfeat := ncols
	if labelCol >= 0 {
		nfeat--
	}
	for _, sk := range skip {
		if sk {
			nfeat--
		}
	}
	if nfeat < 1 {
		hint := sepHint(strings.Join(first, ""), cr.Comma)
		if ncols > 0 && strings.HasPrefix(strings.TrimSpace(first[0]), "#") {
			hint = "; the first line starts with '#': CSV has no comment lines, remove it" + hint
		}
		return nil, lineErr(name, 1, "no feature columns: the header has %d column(s) (%s) and the label column takes one%s", ncols, quoteList(header, 10), hint)
	}
	featNames := make([]string, 0, nfeat)
	for j, h := range header {
		if j != labelCol && !skip[j] {
			featNames = append(featNames, h)
		}
	}
	if opt.NoHeader && len(opt.Drop) == 0 {
		// Without dropped columns the features are x0, x1, … in order;
		// with them they keep the generated names of their columns, which
		// --drop may have named (x1 is the second column, dropped or not).
		featNames = defaultNames(nfeat)
	}
	c.header, c.featNames, c.ncols, c.nfeat, c.labelCol = header, featNames, ncols, nfeat, labelCol
	c.skip, c.dropMiss = skip, opt.Missing == "drop"
	return c, nil
}

// next appends the features of the next data row to vals and returns them
// with the row's label text (trimmed; "" without a label column) and its
// line. ok is false at the end of the input. On error, rowBad says whether
// the error concerns this row only (a ragged row, a field that is not a
// number, a malformed record: the next call reads the row after it) rather
// than the input (a read or decompression error); vals may then hold some
// of the row's fields.
func (c *csvRows) next(vals []float64) (out []float64, label string, line int, ok, rowBad bool, err error) {
	for {
		start := len(vals)
		out, label, line, ok, rowBad, err = c.record(vals)
		if err == nil || !c.dropMiss || !errors.Is(err, errMissing) {
			return out, label, line, ok, rowBad, err
		}
		vals = out[:start] // a row with a missing value: left out
		c.dropped++
	}
}

// errMissing marks the error of a field holding a missing value
// (missingText), which Options.Missing "drop" turns into a dropped row.
var errMissing = errors.New("missing value")

// missingError is the FormatError of a missing value: errors.Is(err,
// errMissing) holds, and errors.As finds the FormatError.
type missingError struct{ *FormatError }

func (e missingError) Is(target error) bool { return target == errMissing }
func (e missingError) Unwrap() error        { return e.FormatError }

// missingText reports whether a CSV field (trimmed) is a missing value:
// empty, "?", "NA", "N/A", "NaN" or "null" (any case), as spreadsheets,
// R, pandas and Weka write them.
func missingText(s string) bool {
	switch strings.ToLower(s) {
	case "", "?", "na", "n/a", "nan", "null":
		return true
	}
	return false
}

// record reads one record (see next).
func (c *csvRows) record(vals []float64) (out []float64, label string, line int, ok, rowBad bool, err error) {
	rec := c.first
	if rec != nil {
		c.first = nil
		line = c.firstLine
	} else {
		rec, err = c.cr.Read()
		if err == io.EOF {
			return vals, "", 0, false, false, nil
		}
		if err != nil {
			var pe *csv.ParseError
			return vals, "", 0, false, errors.As(err, &pe), c.readErr(err)
		}
		line, _ = c.cr.FieldPos(0)
	}
	if len(rec) != c.ncols {
		if len(rec) < c.ncols {
			return vals, "", 0, false, true, lineErr(c.name, line, "ragged row: %d fields where the header has %d; column %q is missing", len(rec), c.ncols, short(c.header[len(rec)]))
		}
		return vals, "", 0, false, true, lineErr(c.name, line, "ragged row: %d fields where the header has %d; extra value %q", len(rec), c.ncols, short(rec[c.ncols]))
	}
	for j, s := range rec {
		if j == c.labelCol {
			label = strings.Clone(strings.TrimSpace(s))
			continue
		}
		if c.skip[j] {
			continue
		}
		v, msg := parseNumber(s)
		if msg != "" {
			l, _ := c.cr.FieldPos(j)
			if missingText(strings.TrimSpace(s)) {
				return vals, "", 0, false, true, missingError{&FormatError{File: c.name, Line: l, Offset: -1,
					Msg: fmt.Sprintf("column %q: missing value %q; a number is required (--missing drop, Options.Missing \"drop\", leaves such rows out)", short(c.header[j]), short(strings.TrimSpace(s)))}}
			}
			msg += sepHint(s, c.cr.Comma)
			if !strings.Contains(msg, "--drop") && !strings.HasPrefix(msg, "value") {
				msg += fmt.Sprintf("; if the column is not a feature (an identifier, a name), leave it out with --drop %q (Options.Drop)", short(c.header[j]))
			}
			return vals, "", 0, false, true, lineErr(c.name, l, "column %q: %s", short(c.header[j]), msg)
		}
		vals = append(vals, v)
	}
	return vals, label, line, true, false, nil
}

// sepHint is the end of an error message about text that is one field
// under the separator comma but looks like a row or header of a file with
// another separator (a semicolon, as spreadsheets write in locales whose
// decimal point is a comma; a tab; a bar), or like a number with a decimal
// comma; "" otherwise.
func sepHint(text string, comma rune) string {
	for _, sep := range []rune{';', '\t', '|'} {
		if sep == comma || !strings.ContainsRune(text, sep) {
			continue
		}
		if sep == '\t' && comma != ',' {
			// --sep takes precedence over the format: it must go.
			return "; it holds tabs: a tab-separated file? give --format-in tsv without --sep (Options.Format, with Options.Delimiter 0)"
		}
		if sep == '\t' {
			return "; it holds tabs: a tab-separated file? give --format-in tsv (Options.Format)"
		}
		return fmt.Sprintf("; it holds %q: a file separated by %q? give --sep '%c' (Options.Delimiter)", sep, sep, sep)
	}
	if comma != ',' && strings.ContainsRune(text, ',') {
		if _, err := strconv.ParseFloat(strings.Replace(strings.TrimSpace(text), ",", ".", 1), 64); err == nil {
			return "; numbers take a decimal point, not a decimal comma"
		}
	}
	return ""
}

// readErr wraps an error of the CSV reader. Errors that already name the
// file (decompression errors) are returned as they are.
func (c *csvRows) readErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := "malformed CSV"
		if pe.StartLine != pe.Line && errors.Is(pe.Err, csv.ErrQuote) {
			// A quote left open swallows the rest of the file: the record
			// that opened it is where to look, not where the reader gave up.
			return &FormatError{File: c.name, Line: pe.StartLine, Offset: -1, Msg: fmt.Sprintf("malformed CSV: a quoted field opened in this record is not closed (the reader ran on to line %d)", pe.Line), Err: pe.Err}
		}
		return &FormatError{File: c.name, Line: pe.Line, Offset: -1, Msg: msg, Err: pe.Err}
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	return &FormatError{File: c.name, Offset: -1, Msg: "read error", Err: err}
}

// labelErr is the error for the label of the row at line.
func (c *csvRows) labelErr(line int, msg string) error {
	return lineErr(c.name, line, "column %q: %s", short(c.header[c.labelCol]), msg)
}

// noRowsErr is the error for a table without data rows.
func (c *csvRows) noRowsErr() error {
	return lineErr(c.name, 0, "no data rows after the header")
}

// defaultLabelColumn returns the column named "label", else "class" (any
// case), else the last column.
func defaultLabelColumn(header []string) int {
	for _, want := range labelNames {
		for j, h := range header {
			if strings.EqualFold(h, want) {
				return j
			}
		}
	}
	return len(header) - 1
}

// labelNames are the names, in order of preference and in any case, of
// the column the CSV and TSV readers take for the labels (else the last):
// scikit-learn calls it target, MATLAB's face sets gnd.
var labelNames = []string{"label", "labels", "class", "target", "gnd"}

// namedLabel reports whether h is one of labelNames.
func namedLabel(h string) bool {
	for _, want := range labelNames {
		if strings.EqualFold(h, want) {
			return true
		}
	}
	return false
}

// WriteCSV writes d as comma-separated text with a header row. When d.Y is
// not nil the first column is named "label" and holds ClassNames[y] (or
// the number y when ClassNames is empty), with an empty cell for Unlabeled
// rows; the feature columns follow, named by FeatureNames (x0, x1, ... if
// it is empty). Numbers are written in the shortest form that parses back
// to the same float64.
//
// Load (or ReadCSV) reads the file back to the same X, FeatureNames, Y and
// ClassNames when every class occurs and ClassNames is in the order the
// reader gives (numeric for integer names, else sorted); otherwise read it
// back with Options.Classes set to d.ClassNames. Data written without
// labels must be read back with Options.NoLabels.
//
// WriteCSV refuses NaN and Inf values, labels out of range, and class names
// that would not read back as themselves (empty, "?", or with surrounding
// spaces).
func WriteCSV(w io.Writer, d *Dataset) error { return writeDelimited(w, d, ',') }

// WriteTSV is WriteCSV with tab-separated fields.
func WriteTSV(w io.Writer, d *Dataset) error { return writeDelimited(w, d, '\t') }

func writeDelimited(w io.Writer, d *Dataset, sep rune) error {
	if d == nil || d.X == nil {
		return fmt.Errorf("WriteCSV: dataset %q has no data", d.name())
	}
	n, p := d.X.Dims()
	if d.Y != nil && len(d.Y) != n {
		return fmt.Errorf("WriteCSV: dataset %q has %d labels for %d rows", d.name(), len(d.Y), n)
	}
	rw, err := newRowWriter(w, sep, d.name(), p, d.FeatureNames, d.ClassNames, d.Y != nil)
	if err != nil {
		return err
	}
	if err := rw.Write(d.X, d.Y); err != nil {
		return err
	}
	return rw.Flush()
}

// RowWriter writes rows chunk by chunk in the form WriteCSV and WriteTSV
// give a whole data set: a header row (the label column first when the
// rows are labelled, then the column names), then each chunk's rows as
// they come, so that a stream of any length is written without holding
// it. The label of a row is its class name when class names are given,
// else its class index, and empty for Unlabeled; numbers are written in
// the shortest form that parses back to the same float64.
type RowWriter struct {
	cw      *csv.Writer
	name    string
	names   []string
	classes []string
	labels  bool
	rows    int
	rec     []string
	buf     []byte
}

// checkClassNames refuses class names that a reader would not read back
// as themselves: empty or "?" (an unlabelled row's) in every format, and
// the spaces trim removes in the format's own reading (CSV trims both
// ends, a .mat char matrix pads the end); what names the writer, name the
// data.
func checkClassNames(what, name string, classes []string, trim func(string) string) error {
	for c, s := range classes {
		if isMissingLabel(s) || trim(s) != s {
			return fmt.Errorf("%s: dataset %q: class %d is named %q, which would read back as a different label", what, name, c, s)
		}
	}
	return nil
}

// noTrim is checkClassNames' trim for a format that keeps names whole.
func noTrim(s string) string { return s }

// LabelText is the text of label c in a label column or a labels file:
// its class name when classes are given, else the class index; "" for
// Unlabeled (which the readers read back as unlabelled). c must be
// Unlabeled or a class index (below len(classes) when they are given).
func LabelText(c int, classes []string) string {
	switch {
	case c == Unlabeled:
		return ""
	case len(classes) > 0:
		return classes[c]
	}
	return strconv.Itoa(c)
}

// NewRowWriter returns a writer of rows of p columns to w in format "csv"
// or "tsv", and writes the header row. names are the column names (nil:
// x0..x(p−1)); classes the class names (nil: labels written as class
// indices); labels says whether the rows carry labels (a label column).
// name names the data in errors. Class names that would not read back as
// themselves are refused, as WriteCSV refuses them.
func NewRowWriter(w io.Writer, format, name string, p int, names, classes []string, labels bool) (*RowWriter, error) {
	switch format {
	case "csv":
		return newRowWriter(w, ',', name, p, names, classes, labels)
	case "tsv":
		return newRowWriter(w, '\t', name, p, names, classes, labels)
	}
	return nil, fmt.Errorf("RowWriter: format %q; want csv or tsv", format)
}

func newRowWriter(w io.Writer, sep rune, name string, p int, names, classes []string, labels bool) (*RowWriter, error) {
	switch len(names) {
	case 0:
		names = defaultNames(p)
	case p:
	default:
		return nil, fmt.Errorf("WriteCSV: dataset %q has %d feature names for %d columns", name, len(names), p)
	}
	if labels {
		if err := checkClassNames("WriteCSV", name, classes, strings.TrimSpace); err != nil {
			return nil, err
		}
	}
	r := &RowWriter{cw: csv.NewWriter(w), name: name, names: names, classes: classes, labels: labels, rec: make([]string, 0, p+1)}
	r.cw.Comma = sep
	if labels {
		r.rec = append(r.rec, "label")
	}
	r.rec = append(r.rec, names...)
	if err := r.cw.Write(r.rec); err != nil {
		return nil, err
	}
	return r, nil
}

// Write writes the rows of x (the writer's columns) with labels y (one per
// row when the writer has a label column, else nil). Rows are numbered in
// errors from the first row written. NaN and Inf values and labels out of
// range are refused.
func (r *RowWriter) Write(x *mat.Dense, y []int) error {
	n, p := x.Dims()
	if p != len(r.names) {
		return fmt.Errorf("WriteCSV: dataset %q: a chunk of %d columns; the header has %d", r.name, p, len(r.names))
	}
	if r.labels != (y != nil) || (y != nil && len(y) != n) {
		return fmt.Errorf("WriteCSV: dataset %q: %d labels for a chunk of %d rows (label column: %v)", r.name, len(y), n, r.labels)
	}
	for i := 0; i < n; i++ {
		rec := r.rec[:0]
		if r.labels {
			v := y[i]
			if v < Unlabeled || (len(r.classes) > 0 && v >= len(r.classes)) {
				return fmt.Errorf("WriteCSV: dataset %q: row %d has label %d, want -1 (unlabeled) or 0..%d", r.name, r.rows+i+1, v, len(r.classes)-1)
			}
			rec = append(rec, LabelText(v, r.classes))
		}
		for j := 0; j < p; j++ {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("WriteCSV: dataset %q: row %d, column %q is %v; values must be finite", r.name, r.rows+i+1, r.names[j], v)
			}
			r.buf = strconv.AppendFloat(r.buf[:0], v, 'g', -1, 64)
			rec = append(rec, string(r.buf))
		}
		if err := r.cw.Write(rec); err != nil {
			return err
		}
	}
	r.rows += n
	return nil
}

// Flush writes any buffered rows to the underlying writer and returns the
// first write error met.
func (r *RowWriter) Flush() error {
	r.cw.Flush()
	return r.cw.Error()
}
