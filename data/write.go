package data

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OutputFormats are the formats Write writes, by file extension
// (OutputFormat), each optionally followed by .gz.
var OutputFormats = []string{"csv", "tsv", "npy", "npz", "mat", "libsvm"}

// OutputFormat returns the format of an output path from its extension:
// .csv, .tsv, .npy, .npz, .mat or .libsvm (also .svm, .svmlight: "libsvm"),
// optionally followed by .gz.
func OutputFormat(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
	if f, ok := formatByExt[ext]; ok && slices.Contains(OutputFormats, f) { // the readers' extensions, but ARFF
		return f, nil
	}
	return "", fmt.Errorf("output %s: unknown extension %q; want .csv, .tsv, .npy, .npz, .mat or .libsvm (.svm, .svmlight), optionally followed by .gz", path, ext)
}

// Write writes d to w in format: "csv" and "tsv" with the label column
// first (WriteCSV, WriteTSV), "npy" the rows only, as a float64 array
// (the labels are not part of it), "npz" the rows and labels as the
// arrays X and y of a NumPy archive (WriteNPZ), "mat" the rows and labels
// as the variables fea and gnd of a MATLAB file (WriteMAT), "libsvm" the
// labels and non-zero features as LIBSVM text (WriteLIBSVM).
func Write(w io.Writer, format string, d *Dataset) error {
	switch format {
	case "csv":
		return WriteCSV(w, d)
	case "tsv":
		return WriteTSV(w, d)
	case "npy":
		if d == nil || d.X == nil || d.X.IsEmpty() {
			return fmt.Errorf("Write npy: no data")
		}
		if err := CheckFinite("rows", d.X); err != nil {
			return err
		}
		return writeNPYMatrix(w, d.X)
	case "npz":
		return WriteNPZ(w, d)
	case "mat":
		return WriteMAT(w, d)
	case "libsvm":
		return WriteLIBSVM(w, d)
	}
	return fmt.Errorf("Write: unknown format %q; want %s", format, strings.Join(OutputFormats, ", "))
}

// WriteFile writes path with write, through gzip when the name ends in
// ".gz", atomically: into a temporary file in the same directory that is
// renamed over path only once everything is written and closed, so a
// failed or interrupted run leaves no half-written file and never
// truncates an existing one. A path that exists and is not a regular
// file (/dev/null, a named pipe) is written in place.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return fmt.Errorf("output %s: its directory %s does not exist (or is not a directory)", path, dir)
		}
		return fmt.Errorf("output %s: cannot create a file in %s: %w", path, dir, errors.Unwrap(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	var w io.Writer = seekWriter{bw, tmp}
	var zw *gzip.Writer
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	if err = write(w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// seekWriter is WriteFile's buffered writer on its temporary file: it can
// seek (after flushing what it holds), so that a writer of a header
// whose numbers are known only at the end (NPYWriter) can go back to it.
type seekWriter struct {
	*bufio.Writer
	f *os.File
}

// Seek flushes the buffer and seeks in the file.
func (s seekWriter) Seek(off int64, whence int) (int64, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	return s.f.Seek(off, whence)
}
