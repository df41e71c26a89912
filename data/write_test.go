package data

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile replaces the target only when the write succeeds; a failure
// keeps the old content and removes the temporary file; .gz compresses.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	os.WriteFile(p, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := WriteFile(p, func(w io.Writer) error { w.Write([]byte("half")); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("content %q after a failed write", b)
	}
	if err := WriteFile(p, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	gz := filepath.Join(dir, "out.csv.gz")
	if err := WriteFile(gz, func(w io.Writer) error { _, err := w.Write([]byte("zipped")); return err }); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(gz)
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); string(b) != "zipped" {
		t.Errorf("gz content %q", b)
	}
	f.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2 (no temporary left)", len(entries))
	}
	// Special files are written in place.
	if err := WriteFile(os.DevNull, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	for _, c := range []struct{ path, want string }{{"a.csv", "csv"}, {"a.TSV.gz", "tsv"}, {"a.npy.gz", "npy"}, {"a.json", ""}} {
		got, err := OutputFormat(c.path)
		if got != c.want || (c.want == "") != (err != nil) {
			t.Errorf("OutputFormat(%s) = %q, %v", c.path, got, err)
		}
	}
}

// A small compressed input that expands beyond MaxInputBytes is refused,
// as a gzipped file and as a stream.
func TestMaxInputBytes(t *testing.T) {
	defer func(v int64) { MaxInputBytes = v }(MaxInputBytes)
	MaxInputBytes = 1 << 20
	p := filepath.Join(t.TempDir(), "bomb.csv.gz")
	err := WriteFile(p, func(w io.Writer) error {
		w.Write([]byte("a,label\n"))
		_, err := w.Write(make([]byte, 2<<20))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, Options{}); err == nil || !strings.Contains(err.Error(), "MaxInputBytes") {
		t.Errorf("Load: %v", err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	if _, err := ReadFrom(f, "stdin", Options{}); err == nil || !strings.Contains(err.Error(), "MaxInputBytes") {
		t.Errorf("ReadFrom: %v", err)
	}
}
