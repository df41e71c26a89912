package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Scan streams the rows of the CSV, TSV, LIBSVM or NumPy .npy file at path
// (gzipped if the name ends in ".gz") to fn in chunks of chunkRows rows
// (the last chunk may be shorter), without holding more than one chunk in
// memory: a fit from statistics (package stats) can then read a file
// larger than memory. The format comes from the file name or opt.Format as
// in Load; ARFF, .npz and MATLAB files are not streamed (use Load). A .npy
// array must be in C order (np.save's default; a Fortran-order matrix is
// an error); its values are decoded as Load decodes them, and its labels
// file (opt.LabelsFile), one label per row, is read whole first, so its
// labels are Load's.
//
// Every row is parsed by the code of ReadCSV and ReadLIBSVM, with the same
// rules and the same error messages (file:line, FormatError). Where Load
// needs the whole file, Scan has its own rule:
//
//   - Labels. Load numbers the classes after reading every label; Scan
//     cannot, so without opt.Classes a label must be a non-negative whole
//     number and is used as the class index itself ("0" is class 0, "+2",
//     "02", "2.0" and np.savetxt's "2.000000000000000000e+00" are class
//     2); "" and "?" are Unlabeled, and so is opt.Unlabelled's mark
//     (scikit-learn's −1). Any other label is an error
//     advising to set opt.Classes, whose rule is Load's: the label is the
//     index of its text in opt.Classes. Scan and Load give the same labels
//     when the labels are 0..C−1 with every class present, or when
//     opt.Classes is set; labels 1..C (as in MATLAB data sets) become
//     classes 1..C under Scan, class 0 having no rows, and 0..C−1 under
//     Load: pass opt.Classes = ["1", ..., "C"] to get Load's numbering.
//   - LIBSVM dimension. The dimension is opt.NumFeatures when set, else the
//     largest index in the first chunk; a later row with a larger index is
//     an error naming its line and advising to set opt.NumFeatures.
//     (Load takes the largest index in the whole file, so the two agree
//     when the first chunk holds it.)
//
// fn receives x (rows × features) and y (one label per row, Unlabeled for
// a row without one; nil with opt.NoLabels). x and y are reused for the
// next chunk once fn returns: fn must copy what it keeps. An error from fn
// stops the scan and is returned as it is.
//
// Because Scan streams, fn may already have received the chunks before a
// malformed row when Scan returns that row's error (a full LIBSVM chunk is
// passed on when the next data row has parsed), and when a file has
// several problems Scan reports the first it meets, which need not be the
// one Load reports: Load decompresses the whole file before parsing, and
// checks labels against opt.Classes after parsing every row.
func Scan(path string, opt Options, chunkRows int, fn func(x *mat.Dense, y []int) error) error {
	format, opt, err := scanFormat(path, opt, chunkRows, fn)
	if err != nil {
		return err
	}
	in, err := openInput(path)
	if err != nil {
		return err
	}
	defer in.Close()
	return scan(in, path, format, opt, chunkRows, fn, nil)
}

// ScanReader is Scan on an open input r whose display name is name: the
// name gives the format (as a path does for Scan, unless opt.Format is
// set), gzip decompression when it ends in ".gz", and the file in every
// error. It reads inputs that are not local files, such as the shards of
// a distributed pipeline opened through its file system.
//
// bad, when not nil, makes the scan skip malformed data rows instead of
// stopping at the first: it receives the error of each such row (a
// *FormatError naming the file and line, with the message Scan would
// return), and the scan goes on with the next row; an error returned by
// bad stops the scan and is returned as it is. A row is malformed when it
// breaks a rule of the row itself: a ragged CSV row, a field that is not a
// finite number, a refused label, a malformed CSV record (bad quoting), a
// LIBSVM token that is not index:value, a repeated or out-of-range index.
// Errors that concern the whole input still stop the scan whatever bad
// is: no header or no data rows, a read or decompression error, and a
// LIBSVM first chunk without features. With bad nil, ScanReader stops at
// the first malformed row, as Scan does.
func ScanReader(r io.Reader, name string, opt Options, chunkRows int, fn func(x *mat.Dense, y []int) error, bad func(err *FormatError) error) error {
	format, opt, err := scanFormat(name, opt, chunkRows, fn)
	if err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%s: ScanReader needs an input; got nil", name)
	}
	if r, err = decompressed(r, name); err != nil {
		return err
	}
	return scan(r, name, format, opt, chunkRows, fn, bad)
}

// decompressed returns r decompressed when name ends in ".gz" or its
// bytes start as gzip's do (standard input, say), else r.
func decompressed(r io.Reader, name string) (io.Reader, error) {
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		return newGzipInput(r, nil, name)
	}
	return sniffGzip(r, name)
}

// ScanReaderLabels is ScanReader for a .npy input whose labels are read
// from labels (a .npy vector of integers or strings, or text with one
// label per line, as ReadLabels reads; labelsName names it in errors),
// one per row of the array. The labels are numbered by Scan's rule (a
// non-negative integer is its class index; with opt.Classes, the index of
// its text), not by Load's, which numbers the classes one file holds:
// the labels of several inputs read this way agree on the class numbers,
// as the labels of CSV inputs read by Scan do. This is how the shards of
// a Beam pipeline carry their labels. A refused label stops the scan
// (it is an error of the labels file, not a malformed row).
func ScanReaderLabels(r io.Reader, name string, labels io.Reader, labelsName string, opt Options, chunkRows int, fn func(x *mat.Dense, y []int) error, bad func(err *FormatError) error) error {
	if labels == nil {
		return fmt.Errorf("%s: ScanReaderLabels needs a labels input; got nil", name)
	}
	if opt.NoLabels || opt.LabelsFile != "" {
		return fmt.Errorf("%s: labels read from %s cannot be combined with Options.NoLabels or Options.LabelsFile", name, labelsName)
	}
	format, _, err := scanFormat(name, opt, chunkRows, fn)
	if err != nil {
		return err
	}
	if format != FormatNPY {
		return fmt.Errorf("%s: a labels file (%s) goes with .npy data; %s data holds its labels in its rows", name, labelsName, format)
	}
	opt.scanLabels = &scanLabels{r: labels, name: labelsName}
	return ScanReader(r, name, opt, chunkRows, fn, bad)
}

// scanLabels is the labels input of ScanReaderLabels.
type scanLabels struct {
	r    io.Reader
	name string
}

// readScanLabels reads the n labels of l and numbers them with s.label.
func (s *scanner) readScanLabels(l *scanLabels, n int) ([]int, error) {
	r, err := decompressed(l.r, l.name)
	if err != nil {
		return nil, err
	}
	b, err := readAllLimited(r, l.name)
	if err != nil {
		return nil, err
	}
	texts, isNPY, err := labelTexts(b, l.name, n)
	if err != nil {
		return nil, err
	}
	y := make([]int, n)
	for i, t := range texts {
		c, msg := s.label(t)
		if msg != "" {
			return nil, labelErr(l.name, isNPY, i+1, msg)
		}
		y[i] = c
	}
	return y, nil
}

// ScanHeader returns the feature names of the CSV or TSV file at path as
// Scan would read it with opt (the header without the label column; the
// generated x0, x1, … with opt.NoHeader), reading no further than the
// header: what a streaming consumer checks the columns against before
// the first chunk. LIBSVM files have no names (nil).
func ScanHeader(path string, opt Options) ([]string, error) {
	if _, _, err := resolveFormat(path, opt); err != nil {
		return nil, err
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return ReadHeader(in, path, opt)
}

// ReadHeader is ScanHeader for an input read from r (named name, whose
// extension or opt.Format gives its format; decompressed as ScanReader
// decompresses): the shards of a pipeline on any file system.
func ReadHeader(r io.Reader, name string, opt Options) ([]string, error) {
	format, opt, err := resolveFormat(name, opt)
	if err != nil {
		return nil, err
	}
	if format != FormatCSV && format != FormatTSV {
		return nil, nil
	}
	if r, err = decompressed(r, name); err != nil {
		return nil, err
	}
	rows, err := newCSVRows(r, name, opt)
	if err != nil {
		return nil, err
	}
	return rows.featNames, nil
}

// scanFormat checks the arguments of Scan and ScanReader and returns the
// format of the input named name.
func scanFormat(name string, opt Options, chunkRows int, fn func(x *mat.Dense, y []int) error) (string, Options, error) {
	format, opt, err := resolveFormat(name, opt)
	if err != nil {
		return "", opt, err
	}
	switch format {
	case FormatCSV, FormatTSV, FormatLIBSVM, FormatNPY:
	default:
		return "", opt, fmt.Errorf("%s: Scan streams CSV, TSV, LIBSVM and NumPy .npy files; %s files are not streamed: read it whole (dimred without --stream; data.Load in Go), or convert it (dimred convert -i FILE -o FILE.csv)", name, strings.ToUpper(format))
	}
	if chunkRows < 1 {
		return "", opt, fmt.Errorf("%s: Scan chunk size is %d rows; want at least 1", name, chunkRows)
	}
	if fn == nil {
		return "", opt, fmt.Errorf("%s: Scan needs a function to receive the chunks; got nil", name)
	}
	return format, opt, nil
}

// scan streams the decompressed input in of the given format.
func scan(in io.Reader, name, format string, opt Options, chunkRows int, fn func(x *mat.Dense, y []int) error, bad func(*FormatError) error) error {
	s := &scanner{name: name, opt: opt, chunkRows: chunkRows, fn: fn, bad: bad}
	if opt.Classes != nil {
		s.classIdx = classIndex(opt.Classes)
	}
	switch format {
	case FormatLIBSVM:
		return s.libsvm(in)
	case FormatNPY:
		return s.npy(in)
	}
	return s.csv(in)
}

// scanner holds the chunk being filled by Scan.
type scanner struct {
	name      string
	opt       Options
	chunkRows int
	fn        func(x *mat.Dense, y []int) error
	bad       func(*FormatError) error // ScanReader's handler of malformed rows; nil: stop
	classIdx  map[string]int           // classIndex(opt.Classes), nil without them

	vals  []float64 // the chunk's rows, row-major
	y     []int     // the chunk's labels, nil without labels
	rows  int       // rows in the chunk
	total int       // rows passed to fn so far
}

// label returns the label Scan gives to the label text t (see Scan), or a
// message saying why t is refused.
func (s *scanner) label(t string) (int, string) {
	if unlabelledText(t, s.opt.Unlabelled) {
		return Unlabeled, ""
	}
	if s.opt.Classes != nil {
		return lookupClass(t, s.classIdx, s.opt.Classes)
	}
	v, whole := wholeNumber(t) // "3", "3.0", np.savetxt's "3.000000000000000000e+00"
	c := int(v)
	if !whole || v < 0 {
		hint := ""
		if whole && v == -1 {
			hint = "; if -1 marks unlabelled rows (scikit-learn's semi-supervised convention), give --unlabelled -1 (Options.Unlabelled)"
		}
		return 0, fmt.Sprintf("label %q is not a class index 0, 1, 2, ...: Scan cannot see every label before its first chunk, so it uses integer labels 0..C-1 as class indices; name the classes of other labels with Options.Classes (dimred-beam --classes), or read the file without --stream (dimred), or give --no-labels%s", t, hint)
	}
	if s.opt.MaxClasses > 0 && c >= s.opt.MaxClasses {
		return 0, fmt.Sprintf("label %q is past the %d classes this scan takes (Options.MaxClasses): integer labels are class indices, and per-class statistics of that many classes would not fit in memory; name the classes with Options.Classes (dimred-beam --classes), or read the file without --stream (dimred numbers the classes it sees)", t, s.opt.MaxClasses)
	}
	return c, ""
}

// rowErr handles err, the error of one malformed row: without a handler
// it is returned (the scan stops); with one, the handler gets it and the
// row is skipped (nil is returned) unless the handler returns an error.
func (s *scanner) rowErr(err error) error {
	var fe *FormatError
	if s.bad == nil || !errors.As(err, &fe) {
		return err
	}
	return s.bad(fe)
}

// emit passes the chunk of d-column rows to fn and empties it.
func (s *scanner) emit(d int) error {
	if s.rows == 0 {
		return nil
	}
	x := mat.NewDense(s.rows, d, s.vals[:s.rows*d])
	var y []int
	if s.y != nil {
		y = s.y[:s.rows]
	}
	if err := s.fn(x, y); err != nil {
		return err
	}
	s.total += s.rows
	s.rows, s.vals, s.y = 0, s.vals[:0], s.y[:0]
	return nil
}

// csv streams a CSV or TSV table.
func (s *scanner) csv(in io.Reader) error {
	rows, err := newCSVRows(in, s.name, s.opt)
	if err != nil {
		return err
	}
	for {
		var (
			text string
			line int
			ok   bool
		)
		var rowBad bool
		keep := len(s.vals)
		s.vals, text, line, ok, rowBad, err = rows.next(s.vals)
		if err != nil {
			if !rowBad {
				return err
			}
			s.vals = s.vals[:keep] // drop the row's parsed fields
			if err := s.rowErr(err); err != nil {
				return err
			}
			continue
		}
		if !ok {
			break
		}
		if rows.labelCol >= 0 {
			c, msg := s.label(text)
			if msg != "" {
				s.vals = s.vals[:keep]
				if err := s.rowErr(rows.labelErr(line, msg)); err != nil {
					return err
				}
				continue
			}
			s.y = append(s.y, c)
		}
		if s.rows++; s.rows == s.chunkRows {
			if err := s.emit(rows.nfeat); err != nil {
				return err
			}
		}
	}
	if s.total+s.rows == 0 {
		return rows.noRowsErr()
	}
	return s.emit(rows.nfeat)
}

// libsvm streams a LIBSVM file. The pairs of the chunk's rows are kept
// until the chunk is full, since the dimension of the first chunk is known
// only then.
func (s *scanner) libsvm(in io.Reader) error {
	var (
		pairs  []svmEntry // the pairs of the chunk's rows, one row after another
		ends   []int      // ends[i]: end of row i in pairs
		p      = s.opt.NumFeatures
		maxIdx int
		maxLn  int // line of the largest index
		first  int // line of the first data row
		lastLn int // line of the last data row of the first chunk
	)
	if p > 0 {
		if err := checkDenseSize(s.name, 0, s.chunkRows, p, true); err != nil {
			return err
		}
	}
	flush := func(atEOF bool) error {
		if s.rows == 0 {
			return nil
		}
		if p == 0 {
			if maxIdx == 0 {
				if atEOF {
					return errLIBSVMNoFeatures(s.name)
				}
				return lineErr(s.name, 0, "no features in the first chunk (lines %d..%d): no row has an index:value pair, and Scan fixes the dimension of LIBSVM data at its first chunk; give the dimension with --features (Options.NumFeatures)", first, lastLn)
			}
			p = maxIdx
			if err := checkDenseSize(s.name, maxLn, s.chunkRows, p, true); err != nil {
				return err
			}
		}
		s.vals = slices.Grow(s.vals[:0], s.rows*p)[:s.rows*p]
		clear(s.vals)
		start := 0
		for i, end := range ends {
			scatterEntries(s.vals[i*p:(i+1)*p], pairs[start:end])
			start = end
		}
		pairs, ends = pairs[:0], ends[:0]
		return s.emit(p)
	}

	lr := newLineReader(in, s.name)
	decl, seen := noBase, false // the header's declared base; a data row seen
	zero := noBase.zeroBased(s.opt)
	for {
		text, ok := lr.next()
		if !ok {
			break
		}
		if !seen {
			decl.read(text, lr.line)
			zero = decl.zeroBased(s.opt)
		}
		start := len(pairs)
		label, row, ok, err := parseLIBSVMLine(text, lr.line, s.name, s.opt, pairs)
		seen = seen || ok
		if err == nil && ok && zero {
			for k := start; k < len(row); k++ {
				row[k].idx++ // 1-based from here on
			}
			if s.opt.NumFeatures > 0 && len(row) > start && row[len(row)-1].idx > s.opt.NumFeatures {
				err = lineErr(s.name, lr.line, "index %d (zero-based: %s) exceeds the dimension %d set by --features (Options.NumFeatures)", row[len(row)-1].idx-1, decl.zeroWhy(s.opt, false), s.opt.NumFeatures)
			}
		} else if err == nil && ok && len(row) > start && row[start].idx == 0 {
			if err = decl.checkZero(s.name, lr.line); err == nil {
				err = lineErr(s.name, lr.line, "index 0: a zero-based file (scikit-learn's dump_svmlight_file writes one by default), which a scan cannot tell from its first rows; give --zero-based (Options.ZeroBased), or read it without --stream (indices are then shifted when an index 0 occurs)")
			}
		}
		if err != nil {
			pairs = row[:start] // drop the row's pairs
			if err := s.rowErr(err); err != nil {
				return err
			}
			continue
		}
		if !ok {
			continue
		}
		c := Unlabeled
		if !s.opt.NoLabels {
			var msg string
			if c, msg = s.label(label); msg != "" {
				pairs = row[:start]
				if err := s.rowErr(lineErr(s.name, lr.line, "%s", msg)); err != nil {
					return err
				}
				continue
			}
		}
		if s.rows == s.chunkRows { // a full chunk, and more rows to come
			if err := flush(false); err != nil {
				return err
			}
			start, row = 0, append(pairs[:0], row[start:]...)
		}
		pairs = row
		if n := len(pairs); n > start {
			top := pairs[n-1].idx // the row's pairs are sorted
			if p > 0 && top > p {
				pairs = pairs[:start]
				if err := s.rowErr(lineErr(s.name, lr.line, "index %d exceeds the dimension %d that Scan took from the largest index in the first chunk (lines %d..%d); give the dimension of the file with --features (Options.NumFeatures)", top, p, first, lastLn)); err != nil {
					return err
				}
				continue
			}
			if top > maxIdx {
				maxIdx, maxLn = top, lr.line
			}
		}
		if !s.opt.NoLabels {
			s.y = append(s.y, c)
		}
		if s.total == 0 {
			if s.rows == 0 {
				first = lr.line
			}
			lastLn = lr.line
		}
		ends = append(ends, len(pairs))
		s.rows++
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if s.total+s.rows == 0 {
		return errLIBSVMEmpty(s.name)
	}
	return flush(true)
}

// npyHeadLimit bounds the header of a streamed .npy file (np.save writes
// a few hundred bytes).
const npyHeadLimit = 1 << 20

// npy streams a NumPy .npy array of C order (2-D rows × features, or 1-D:
// one feature), decoded a chunk of rows at a time. The labels come from
// opt.LabelsFile, read whole before the first chunk (one label per row),
// so they are numbered by Load's rule, not the integer-index rule of the
// text formats.
func (s *scanner) npy(in io.Reader) error {
	prefix := make([]byte, 12)
	k, err := io.ReadFull(in, prefix)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return &FormatError{File: s.name, Offset: int64(k), Msg: "read error", Err: err}
	}
	prefix = prefix[:k]
	end, err := npyHeaderEnd(prefix, s.name)
	if err != nil {
		return err
	}
	if end > npyHeadLimit {
		return offsetErr(s.name, 8, "a .npy header of %d bytes; np.save writes a few hundred (is this a .npy file?)", end)
	}
	head := make([]byte, max(end, int64(len(prefix))))
	copy(head, prefix)
	if m, err := io.ReadFull(in, head[len(prefix):]); err != nil && end > int64(len(prefix)) {
		return offsetErr(s.name, int64(len(prefix)+m), "truncated .npy header: it claims to end at byte %d, the file has %d bytes", end, len(prefix)+m)
	}
	h, err := parseNPYHead(head, s.name)
	if err != nil {
		return err
	}
	r := io.MultiReader(bytes.NewReader(head[h.dataOff:]), in) // a header shorter than the prefix leaves data bytes in it
	var rows, d int64
	switch len(h.shape) {
	case 1:
		rows, d = int64(h.shape[0]), 1
	case 2:
		rows, d = int64(h.shape[0]), int64(h.shape[1])
	default:
		return offsetErr(s.name, 0, "array has shape %v; want a 1-D or 2-D array", h.shape)
	}
	if rows <= 0 || d <= 0 {
		return offsetErr(s.name, 0, "array of shape %v is empty", h.shape)
	}
	if h.fortran && rows > 1 && d > 1 {
		return offsetErr(s.name, 0, "the array is in Fortran (column) order, which cannot be read a chunk of rows at a time; save it with np.save(f, np.ascontiguousarray(x)), or read it without streaming")
	}
	if _, isStr := parseStringDescr(h.typ); isStr {
		return offsetErr(s.name, 8, "the array holds strings (dtype %q); features must be numbers", h.typ)
	}
	num, err := numericDescr(h.typ, s.name)
	if err != nil {
		return err
	}
	if d > int64(MaxInputBytes)/8/int64(s.chunkRows) {
		return offsetErr(s.name, 8, "rows of %d features make a chunk of %d rows larger than data.MaxInputBytes (%d bytes); give a smaller chunk", d, s.chunkRows, MaxInputBytes)
	}
	var labels []int
	if s.opt.scanLabels != nil {
		labels, err = s.readScanLabels(s.opt.scanLabels, int(rows))
	} else {
		labels, _, err = labelsFile(s.opt, int(rows))
	}
	if err != nil {
		return err
	}
	size := int64(num.size)
	buf := make([]byte, int64(s.chunkRows)*d*size)
	vals := make([]float64, int64(s.chunkRows)*d)
	for row := int64(0); row < rows; {
		k := min(int64(s.chunkRows), rows-row)
		m, err := io.ReadFull(r, buf[:k*d*size])
		if err != nil {
			at := h.dataOff + row*d*size + int64(m)
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return offsetErr(s.name, at, "truncated file: shape %v of %s needs %d data bytes from offset %d; the data ends in row %d", h.shape, h.typ, rows*d*size, h.dataOff, row+int64(m)/(d*size)+1)
			}
			return &FormatError{File: s.name, Offset: at, Msg: "read error", Err: err}
		}
		num.conv(vals[:k*d], buf)
	rowsLoop:
		for i := int64(0); i < k; i++ {
			x := vals[i*d : (i+1)*d]
			for j, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					at := h.dataOff + ((row+i)*d+int64(j))*size
					if err := s.rowErr(offsetErr(s.name, at, "row %d, column %d is %v; values must be finite", row+i+1, j+1, v)); err != nil {
						return err
					}
					continue rowsLoop
				}
			}
			s.vals = append(s.vals, x...)
			if labels != nil {
				s.y = append(s.y, labels[row+i])
			}
			if s.rows++; s.rows == s.chunkRows {
				if err := s.emit(int(d)); err != nil {
					return err
				}
			}
		}
		row += k
	}
	if m, _ := io.ReadFull(r, buf[:1]); m > 0 {
		return afterDataErr(s.name, 0, h, h.dataOff+rows*d*size, -1)
	}
	return s.emit(int(d))
}
