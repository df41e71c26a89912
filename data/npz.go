package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NumPy's .npz archives (np.savez, np.savez_compressed): a zip file of
// .npy arrays, one per keyword. Python users keep a data set as one such
// file (np.savez("digits.npz", X=X, y=y)), so dimred reads the features
// from one array and the labels from another, and writes an embedding
// back the same way (X and y), which np.load and dimred itself read. The
// zip container is the standard library's archive/zip and each member
// goes through the .npy decoder of npy.go (its dtypes, byte orders,
// Fortran order and error messages); npyio's npz package would give
// neither those messages nor the string labels below.

// NPZFeatureNames are the arrays tried, in order, for the features of a
// .npz file when Options.NPZFeatures is empty; NPZLabelNames those tried
// for the labels when Options.NPZLabels is empty. arr_0 and arr_1 are
// the names np.savez gives positional arrays (np.savez(f, X, y)).
var (
	NPZFeatureNames = []string{"X", "x", "data", "features", "fea", "arr_0"}
	NPZLabelNames   = []string{"y", "Y", "labels", "label", "target", "targets", "gnd", "arr_1"}
)

// ReadNPZ reads a NumPy .npz archive from r; name is the file named in
// errors. The features are the array opt.NPZFeatures (else the first of
// NPZFeatureNames present, else the archive's only array): a 2-D array of
// numbers, or 1-D for one feature. The labels are the array opt.NPZLabels
// (else the first of NPZLabelNames present): a vector of integers or of
// fixed-width strings (NumPy's "<U…" and "S…" dtypes), "" or "?" for an
// unlabelled row. An archive with other arrays but no label array is an
// error listing them, unless opt.NoLabels. A string vector named
// feature_names names the features, and one named target_names the
// classes of integer labels 0..C−1 (as scikit-learn's Bunch has them);
// one that cannot is named in Dataset.Notes.
func ReadNPZ(r io.Reader, name string, opt Options) (*Dataset, error) {
	if err := checkOptions(name, opt); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &FormatError{File: name, Offset: -1, Msg: "read error", Err: err}
	}
	return readNPZ(b, name, opt)
}

// openNPZ opens the bytes of a .npz file as a zip archive; the error
// tells a damaged archive from a file that is none.
func openNPZ(b []byte, name string) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		msg := "not a NumPy .npz file (a zip archive of .npy arrays)"
		if len(b) >= 4 && bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			msg = "unreadable zip archive (truncated or damaged?)"
		}
		return nil, &FormatError{File: name, Offset: -1, Msg: msg, Err: err}
	}
	return zr, nil
}

func readNPZ(b []byte, name string, opt Options) (*Dataset, error) {
	zr, err := openNPZ(b, name)
	if err != nil {
		return nil, err
	}
	members := map[string]*zip.File{}
	var keys []string
	for _, f := range zr.File {
		key, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok || f.FileInfo().IsDir() {
			continue // np.savez writes only .npy members
		}
		if _, dup := members[key]; dup {
			return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("the archive holds two arrays named %q", short(key))}
		}
		members[key] = f
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, &FormatError{File: name, Offset: -1, Msg: "the archive holds no .npy arrays"}
	}
	listing := func() string { return quoteList(keys, 20) }

	featKey, err := pickNPZ(name, members, opt.NPZFeatures, NPZFeatureNames, "feature", "--npz-x (Options.NPZFeatures)", listing)
	if err != nil {
		return nil, err
	}
	if featKey == "" {
		if len(keys) != 1 {
			return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("no feature array: none of the archive's arrays %s is named %s; name it with --npz-x (Options.NPZFeatures)", listing(), strings.Join(NPZFeatureNames, ", "))}
		}
		featKey = keys[0]
	}
	fa, fname, err := npzArray(name, b, members[featKey])
	if err != nil {
		return nil, err
	}
	x, err := fa.matrix(fname)
	if err != nil {
		return nil, err
	}
	n, p := x.Dims()
	d := &Dataset{Name: datasetName(name), X: x, FeatureNames: defaultNames(p)}
	if f := members[npzFeatureNamesKey]; f != nil && featKey != npzFeatureNamesKey {
		names, why, err := npzNames(name, b, f, p)
		if err != nil {
			return nil, err
		}
		if why != "" {
			d.Notes = append(d.Notes, fmt.Sprintf("array %q does not name the features: %s", npzFeatureNamesKey, why))
		} else {
			d.FeatureNames = names
		}
	}
	if opt.NoLabels {
		return d, nil
	}
	others := slices.DeleteFunc(slices.Clone(NPZLabelNames), func(k string) bool { return k == featKey })
	labelKey, err := pickNPZ(name, members, opt.NPZLabels, others, "label", "--npz-y (Options.NPZLabels)", listing)
	if err != nil {
		return nil, err
	}
	if labelKey == featKey && labelKey != "" {
		return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("array %q cannot be both the features and the labels", short(labelKey))}
	}
	if labelKey == "" {
		arrays := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == npzFeatureNamesKey || k == npzTargetNamesKey })
		if len(arrays) == 1 {
			return d, nil // the features alone (and their names): unlabelled data
		}
		return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("no label array: the archive holds %s, none of them named %s; name it with --npz-y (Options.NPZLabels), or read the data unlabelled with --no-labels (Options.NoLabels)", listing(), strings.Join(others, ", "))}
	}
	la, lname, err := npzArray(name, b, members[labelKey])
	if err != nil {
		return nil, err
	}
	texts, err := la.labelTexts(lname)
	if err != nil {
		return nil, err
	}
	if len(texts) != n {
		return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("label array %q has %d entries but feature array %q has %d rows", short(labelKey), len(texts), short(featKey), n)}
	}
	classes := opt.Classes
	if f := members[npzTargetNamesKey]; f != nil && labelKey != npzTargetNamesKey && la.strs == nil {
		names, why, err := npzNames(name, b, f, -1)
		if err != nil {
			return nil, err
		}
		for i, t := range texts {
			if unlabelledText(t, opt.Unlabelled) {
				texts[i] = "" // no class to name (--unlabelled -1: scikit-learn's mark)
			}
		}
		if why == "" {
			why = nameIndices(texts, names)
		}
		switch {
		case why != "":
			d.Notes = append(d.Notes, fmt.Sprintf("array %q does not name the classes: %s", npzTargetNamesKey, why))
		case classes == nil:
			classes = names
			fallthrough
		default:
			for i, t := range texts {
				if t != "" {
					c, _ := strconv.Atoi(t)
					texts[i] = names[c]
				}
			}
		}
	}
	y, cn, err := encodeLabels(texts, classes, opt.Unlabelled)
	if err != nil {
		var le *labelError
		if errors.As(err, &le) {
			return nil, &FormatError{File: lname, Offset: -1, Msg: fmt.Sprintf("label %d: %s", le.Row+1, le.Msg)}
		}
		return nil, err
	}
	d.Y, d.ClassNames = y, cn
	return d, nil
}

// The arrays that name the features and the classes of a .npz archive,
// as scikit-learn's Bunch has them (np.savez(f, X=b.data, y=b.target,
// feature_names=b.feature_names, target_names=b.target_names)).
const (
	npzFeatureNamesKey = "feature_names"
	npzTargetNamesKey  = "target_names"
)

// npzNames decodes the archive's member f as names: a vector of strings,
// distinct and not empty, of length want (-1: any). why says what keeps it
// from being names ("" when it is); err is a damaged array's error.
func npzNames(name string, b []byte, f *zip.File, want int) (names []string, why string, err error) {
	a, where, err := npzArray(name, b, f)
	if err != nil {
		return nil, "", err
	}
	if a.strs == nil {
		return nil, "it holds numbers, not strings", nil
	}
	if len(a.shape) != 1 {
		return nil, fmt.Sprintf("%s has shape %v, not a vector", where, a.shape), nil
	}
	if want >= 0 && len(a.strs) != want {
		return nil, fmt.Sprintf("it has %d names for %d", len(a.strs), want), nil
	}
	seen := map[string]bool{}
	for _, s := range a.strs {
		if s == "" || seen[s] || strings.TrimSpace(s) != s || s == "?" {
			return nil, fmt.Sprintf("name %q is empty, repeated, \"?\" or has surrounding spaces", short(s)), nil
		}
		seen[s] = true
	}
	return a.strs, "", nil
}

// nameIndices says why names cannot name the labels texts (numeric label
// texts, "" unlabelled): every label must be an index 0..len(names)−1.
func nameIndices(texts, names []string) string {
	for _, t := range texts {
		if t == "" {
			continue
		}
		if c, err := strconv.Atoi(t); err != nil || c < 0 || c >= len(names) {
			return fmt.Sprintf("label %q is not an index 0..%d of its %d names", short(t), len(names)-1, len(names))
		}
	}
	return ""
}

// pickNPZ returns the array of the given role: want when it is set (an
// error when the archive lacks it), else the first of defaults present,
// else "".
func pickNPZ(name string, members map[string]*zip.File, want string, defaults []string, role, flag string, listing func() string) (string, error) {
	if want != "" {
		if _, ok := members[want]; !ok {
			return "", &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("no %s array %q (%s); the archive holds %s", role, short(want), flag, listing())}
		}
		return want, nil
	}
	for _, k := range defaults {
		if _, ok := members[k]; ok {
			return k, nil
		}
	}
	return "", nil
}

// npzArray decodes one member of the archive b; the name it returns for
// errors is "file.npz[key.npy]".
func npzArray(name string, b []byte, f *zip.File) (*npyArray, string, error) {
	where := name + "[" + short(f.Name) + "]"
	if f.UncompressedSize64 > uint64(MaxInputBytes) {
		return nil, where, &FormatError{File: where, Offset: -1, Msg: fmt.Sprintf("the array is %d bytes uncompressed, more than the %d bytes a reader holds (data.MaxInputBytes)", f.UncompressedSize64, MaxInputBytes)}
	}
	if f.Method == zip.Store && f.CompressedSize64 == f.UncompressedSize64 {
		// np.savez stores its arrays: decode them where they lie in the
		// file, after the CRC check Open's reader would make.
		if off, err := f.DataOffset(); err == nil && off >= 0 && uint64(off)+f.CompressedSize64 <= uint64(len(b)) {
			member := b[off : off+int64(f.CompressedSize64)]
			if crc32.ChecksumIEEE(member) != f.CRC32 {
				return nil, where, &FormatError{File: where, Offset: -1, Msg: "cannot read the archive member (truncated or damaged?)", Err: zip.ErrChecksum}
			}
			a, err := decodeNPY(member, where)
			return a, where, err
		}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, where, &FormatError{File: where, Offset: -1, Msg: "cannot open the archive member", Err: err}
	}
	defer rc.Close()
	// Room for the stated size, but no more than deflate can expand the
	// stored bytes to: a small member cannot claim gigabytes of memory.
	size := min(f.UncompressedSize64, 1100*f.CompressedSize64+4096)
	buf := bytes.NewBuffer(make([]byte, 0, size))
	// The limit guards against a member whose header understates its size.
	if _, err := io.Copy(buf, io.LimitReader(rc, MaxInputBytes+1)); err != nil {
		return nil, where, &FormatError{File: where, Offset: -1, Msg: "cannot read the archive member (truncated or damaged?)", Err: err}
	}
	if int64(buf.Len()) > MaxInputBytes {
		return nil, where, &FormatError{File: where, Offset: -1, Msg: fmt.Sprintf("the array expands beyond the %d bytes a reader holds (data.MaxInputBytes)", MaxInputBytes)}
	}
	a, err := decodeNPY(buf.Bytes(), where)
	return a, where, err
}

// WriteNPZ writes d to w as a NumPy .npz archive (uncompressed, as
// np.savez writes): the rows as the float64 array X and, when d has
// labels, the array y of their class names: int64 when every name is an
// integer and no row is unlabelled, else fixed-width unicode strings ("" for
// an unlabelled row). ReadNPZ and np.load read it back.
func WriteNPZ(w io.Writer, d *Dataset) error {
	if d == nil || d.X == nil || d.X.IsEmpty() {
		return fmt.Errorf("Write npz: no data")
	}
	if err := CheckFinite("rows", d.X); err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	add := func(key string, write func(io.Writer) error) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		return write(f)
	}
	if err := add("X", func(w io.Writer) error { return writeNPYMatrix(w, d.X) }); err != nil {
		return err
	}
	if d.Y != nil {
		if n, _ := d.X.Dims(); len(d.Y) != n {
			return fmt.Errorf("Write npz: %d labels for %d rows", len(d.Y), n)
		}
		if err := checkClassNames("Write npz", d.name(), d.ClassNames, noTrim); err != nil {
			return err
		}
		texts := make([]string, len(d.Y))
		for i, c := range d.Y {
			if c < Unlabeled || (len(d.ClassNames) > 0 && c >= len(d.ClassNames)) {
				return fmt.Errorf("Write npz: row %d has label %d; the data has %d class names", i+1, c, len(d.ClassNames))
			}
			texts[i] = LabelText(c, d.ClassNames) // the class index without names, as WriteCSV
		}
		if err := add("y", func(w io.Writer) error { return writeLabelArray(w, texts) }); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeLabelArray writes texts as a .npy vector: int64 when every text is
// an integer, else NumPy's fixed-width unicode ("<U…", UTF-32).
func writeLabelArray(w io.Writer, texts []string) error {
	ints := make([]int64, len(texts))
	for i, t := range texts {
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil || strconv.FormatInt(v, 10) != t {
			return writeUnicodeNPY(w, texts)
		}
		ints[i] = v
	}
	return writeNPYInts(w, ints)
}

// writeUnicodeNPY writes texts as a 1-D .npy array of dtype "<U{width}",
// width the longest text in code points (at least 1).
func writeUnicodeNPY(w io.Writer, texts []string) error {
	width := 1
	for _, t := range texts {
		width = max(width, utf8.RuneCountInString(t))
	}
	if _, err := w.Write(npyHeader("<U"+strconv.Itoa(width), len(texts))); err != nil {
		return err
	}
	item := make([]byte, 4*width)
	for _, t := range texts {
		clear(item)
		k := 0
		for _, r := range t {
			binary.LittleEndian.PutUint32(item[k:], uint32(r))
			k += 4
		}
		if _, err := w.Write(item); err != nil {
			return err
		}
	}
	return nil
}

// Contents lists the arrays of a NumPy .npz archive or the variables of a
// MATLAB .mat file at path as "name (shape type)", in file order: what
// --npz-x/--npz-y or --mat-fea/--mat-gnd can name. Other formats hold
// one table and give nil. A member whose header cannot be read is listed
// with the reason.
func Contents(path string, opt Options) ([]string, error) {
	format, _, err := resolveFormat(path, opt)
	if err != nil {
		return nil, err
	}
	if format != FormatNPZ && format != FormatMAT {
		return nil, nil
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if format == FormatMAT {
		vars, err := parseMAT(b, path)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(vars))
		for i := range vars {
			out[i] = vars[i].describe()
		}
		return out, nil
	}
	zr, err := openNPZ(b, path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range zr.File {
		key, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok || f.FileInfo().IsDir() {
			continue
		}
		out = append(out, key+" ("+npzMemberShape(f)+")")
	}
	return out, nil
}

// npzMemberShape reads the header of an archive member: "178×13 <f8".
func npzMemberShape(f *zip.File) string {
	rc, err := f.Open()
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer rc.Close()
	head := make([]byte, npyHeadLimit)
	n, _ := io.ReadFull(rc, head)
	h, err := parseNPYHead(head[:n], f.Name)
	if err != nil {
		return "unreadable header"
	}
	dims := make([]string, len(h.shape))
	for i, d := range h.shape {
		dims[i] = strconv.Itoa(d)
	}
	if len(dims) == 0 {
		dims = []string{"scalar"}
	}
	return strings.Join(dims, "×") + " " + h.typ
}
