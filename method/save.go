package method

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/version"
)

// FileFormat and FileVersion identify dimred model files. Version 2 adds
// model kinds (Nyström and precomputed-kernel models, multiple-kernel sums)
// to version 1, whose objects it writes unchanged, so version-1 files load
// with the same decoders (tested on files written by the version-1 code).
// Version 3 adds the input feature count, the software that wrote the
// file and a checksum of its content; version-1 and -2 files (which have
// none) still load. Version 4 writes matrices of embed.BinaryMatrixMin
// values or more as little-endian doubles (base64) instead of decimal
// numbers; files of versions 1-3 still load. Version 5 adds
// libsvm_zero_based (Pipeline.LIBSVMZeroBased); files of versions 1-4
// still load. A version adds only fields that older files lack, but an
// older dimred refuses a newer file by its version rather than by a
// checksum of fields it cannot see.
const (
	FileFormat  = "dimred-model"
	FileVersion = 5
)

// File is the JSON document of a saved model: the method and its
// parameters, the engine model that transforms new rows, and optionally
// the fitted preprocessing applied before it (opaque here; written and read
// by package preprocess). Pipeline is the value users save and load; File
// is its form on disk.
type File struct {
	Format       string            `json:"format"`
	Version      int               `json:"version"`
	Software     string            `json:"software,omitempty"`
	Method       string            `json:"method"`
	Params       map[string]string `json:"params,omitempty"`
	Features     int               `json:"features,omitempty"`
	Values       []float64         `json:"values,omitempty"`
	FeatureNames []string          `json:"feature_names,omitempty"`
	ClassNames   []string          `json:"class_names,omitempty"`
	// LIBSVMZeroBased is Pipeline.LIBSVMZeroBased (version 5 on).
	LIBSVMZeroBased bool            `json:"libsvm_zero_based,omitempty"`
	Preprocess      json.RawMessage `json:"preprocess,omitempty"`
	Model           json.RawMessage `json:"model"`
	// Checksum is the SHA-256 of the compact JSON of the file with an
	// empty Checksum (version 3 on).
	Checksum string `json:"checksum,omitempty"`
}

// checksum returns the SHA-256 of the compact JSON of f without its
// checksum. Compact JSON of the same values is the same bytes (map keys
// sorted, raw fields compacted), whatever the file's indentation. The
// model, which can be gigabytes (a kernel model of 10 000 rows keeps up
// to 10 000×9 999 coefficients), is hashed where it lies when it is
// already compact, instead of through copies of it.
func (f File) checksum(bl *embed.Blobs) (string, error) {
	h := sha256.New()
	if err := f.writeCompact(h, bl); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeCompact writes json.Marshal(f) without its checksum to w: the
// envelope through json.Marshal, the model's raw bytes as they are when
// they are compact JSON that Marshal would not change (compactRaw). When
// the model's large strings were lifted into bl, their original text is
// written in place of the references; such a model must be compact.
func (f File) writeCompact(w io.Writer, bl *embed.Blobs) error {
	f.Checksum = ""
	model := f.Model
	if !compactRaw(model) {
		if bl != nil {
			return fmt.Errorf("model file: a model with lifted matrices is not compact JSON")
		}
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	head, tail, err := f.envelope(false)
	if err != nil {
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	if err := bl.WriteOriginal(w, model); err != nil {
		return err
	}
	_, err = w.Write(tail)
	return err
}

// envelope returns f's JSON (indented with one space, or compact) cut
// where the model's value goes: "model" is the last field but the
// checksum, so head ends with its key and tail holds what follows.
func (f File) envelope(indent bool) (head, tail []byte, err error) {
	f.Model = json.RawMessage("0")
	var b []byte
	key := []byte(`"model":0`)
	if indent {
		b, err = json.MarshalIndent(f, "", " ")
		key = []byte("\n \"model\": 0")
	} else {
		b, err = json.Marshal(f)
	}
	if err != nil {
		return nil, nil, err
	}
	at := bytes.LastIndex(b, key)
	if at < 0 {
		return nil, nil, fmt.Errorf("model file: internal error: no model field in %.80q", b)
	}
	cut := at + len(key) - 1 // before the placeholder 0
	return b[:cut], b[cut+1:], nil
}

// readAll reads r to its end into one buffer, sized from the file's
// length when r is a file (a model file can be a gigabyte; growing a
// buffer, as json.Decoder does, copied it over and over). The buffer is
// made, not grown: a grown buffer is cleared first, which for a gigabyte
// took 2 s, while fresh memory from make is read into as it is.
func readAll(r io.Reader) ([]byte, error) {
	st, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return io.ReadAll(r)
	}
	fi, err := st.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return io.ReadAll(r)
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF: // the file shrank
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	rest, err := io.ReadAll(r) // the file grew
	if len(rest) > 0 {
		buf = append(buf, rest...)
	}
	return buf, err
}

// compactRaw reports whether raw (valid JSON) is already what
// json.Marshal writes for it: no whitespace, and none of the characters
// Marshal escapes in strings (<, >, &, U+2028, U+2029).
func compactRaw(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	// Two searches: ContainsAny with non-ASCII characters decodes every
	// rune, 5 s of a gigabyte model's load.
	return !bytes.ContainsAny(raw, " \t\n\r<>&") && !bytes.Contains(raw, []byte("\u2028")) && !bytes.Contains(raw, []byte("\u2029"))
}

// Save writes f (with its engine model) as a model file; meta gives the
// metadata (Method defaults to f.Name, Features to the model's input
// columns). Pipeline.Save is the usual way to save a model. The metadata
// are indented, one field a line; the model is one line of compact JSON.
// Its binary matrices are never part of one buffer of JSON: the model is
// marshalled with references in their place (embed.MarshalModelLifted),
// and their base64 is made as the checksum and the file are written.
func Save(w io.Writer, meta File, f *Fitted) error {
	b, bl, err := embed.MarshalModelLifted(f.Model)
	if err != nil {
		return err
	}
	meta.Format, meta.Version, meta.Model = FileFormat, FileVersion, b
	if meta.Method == "" {
		meta.Method = f.Name
	}
	if meta.Software == "" {
		meta.Software = version.String()
	}
	meta.Values, meta.Checksum = f.Values, ""
	// One pass over the model: the checksum (of the compact file, whose
	// model is these same bytes) is summed as the model is written, and
	// written after it, in the tail.
	compactHead, compactTail, err := meta.envelope(false)
	if err != nil {
		return err
	}
	head, _, err := meta.envelope(true)
	if err != nil {
		return err
	}
	if !compactRaw(b) {
		return fmt.Errorf("model file: internal error: the model's JSON is not compact")
	}
	h := sha256.New()
	h.Write(compactHead)
	if _, err := w.Write(head); err != nil {
		return err
	}
	if err := bl.WriteOriginal(io.MultiWriter(w, h), b); err != nil {
		return err
	}
	h.Write(compactTail)
	meta.Checksum = hex.EncodeToString(h.Sum(nil))
	_, tail, err := meta.envelope(true)
	if err != nil {
		return err
	}
	_, err = w.Write(append(tail, '\n'))
	return err
}

// Load reads a model file written by Save; name is used in errors. It
// refuses a file that is not a dimred model, was written by a newer
// version, fails its checksum, names an unknown method or holds an
// invalid model. A file that carries preprocessing is refused too: its
// model alone would map raw rows wrongly; LoadPipeline reads it and
// applies the preprocessing, and is what users want.
func Load(r io.Reader, name string) (*File, *Fitted, error) {
	f, fitted, err := load(r, name)
	if err != nil {
		return nil, nil, err
	}
	if len(f.Preprocess) > 0 {
		return nil, nil, fmt.Errorf("model file %s carries the preprocessing it was fitted after; load it with method.LoadPipeline, which applies it", name)
	}
	return f, fitted, nil
}

// nullNumber returns the path of the first null inside a JSON array of
// raw ("" when there is none or raw is empty): the models' arrays hold
// numbers (or arrays or objects), never null.
func nullNumber(raw json.RawMessage, path string) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "" // the decoding proper reports it
	}
	var walk func(v any, path string) string
	walk = func(v any, path string) string {
		switch t := v.(type) {
		case []any:
			for i, e := range t {
				if e == nil {
					return fmt.Sprintf("%s[%d]", path, i)
				}
				if at := walk(e, fmt.Sprintf("%s[%d]", path, i)); at != "" {
					return at
				}
			}
		case map[string]any:
			keys := slices.Sorted(maps.Keys(t))
			for _, k := range keys {
				if at := walk(t[k], path+"."+k); at != "" {
					return at
				}
			}
		}
		return ""
	}
	return walk(v, path)
}

// load reads a model file. Its large binary matrices are lifted out
// before encoding/json reads the rest (embed.LiftBlobs: a 1.15 GB file
// loads in a few seconds instead of 28); when that route fails for any
// reason, the file is read again as it is, and only that reading's result
// or error is returned.
func load(r io.Reader, name string) (*File, *Fitted, error) {
	b, err := readAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("model file %s: %w", name, err)
	}
	if lifted, bl := embed.LiftBlobs(b); bl != nil {
		f, fitted, err := decodeFile(lifted, bl, name)
		if err == nil && bl.Complete() == nil {
			return f, fitted, nil
		}
		// A damaged gigabyte file is rejected at once when its error is
		// the one the file read as it is would give (a checksum mismatch,
		// say), instead of after a second, slow reading.
		var ee envelopeError
		if errors.As(err, &ee) && ee.original {
			return nil, nil, err
		}
	}
	return decodeFile(b, nil, name)
}

// envelopeError is an error decodeFile finds before it decodes the model:
// in the file's format, version, checksum or method. When original is
// set, every lifted string lay in the model (embed.Blobs.Within), so the
// envelope and the model's text decodeFile checked were the file's own,
// and the error is the one decodeFile gives on the file read as it is.
type envelopeError struct {
	error
	original bool
}

func (e envelopeError) Unwrap() error { return e.error }

// checkEnvelope checks what a file says of itself before its model is
// decoded: format, version, checksum (nulls where a version without one
// has numbers) and method. bl holds the model's lifted strings (nil:
// none were).
//
// It returns the error and whether the file decided it: not so when the
// checksum could not be computed (a lifted model that is not compact
// JSON), which the file read as it is would not meet.
func (f *File) checkEnvelope(bl *embed.Blobs, name string) (decided bool, err error) {
	if f.Format != FileFormat {
		return true, fmt.Errorf("model file %s: format %q, want %q", name, f.Format, FileFormat)
	}
	if f.Version > FileVersion {
		return true, fmt.Errorf("model file %s: version %d was written by a newer dimred (%s); this build (%s) reads versions 1..%d", name, f.Version, f.Software, version.String(), FileVersion)
	}
	if f.Version < 1 {
		return true, fmt.Errorf("model file %s: version %d is not a model file version (this build reads 1..%d)", name, f.Version, FileVersion)
	}
	if f.Version < 3 {
		// No checksum: a hand-edited null where a number was would load
		// as 0 (Go's JSON leaves a null float untouched).
		if at := nullNumber(f.Model, "model"); at != "" {
			return true, fmt.Errorf("model file %s: %s is null where a number belongs; a version-%d file has no checksum, so the file was edited or damaged", name, at, f.Version)
		}
		if at := nullNumber(f.Preprocess, "preprocess"); at != "" {
			return true, fmt.Errorf("model file %s: %s is null where a number belongs; a version-%d file has no checksum, so the file was edited or damaged", name, at, f.Version)
		}
	}
	if f.Version >= 3 {
		if f.Checksum == "" {
			return true, fmt.Errorf("model file %s: version %d files carry a checksum, and this one has none: it was edited or damaged", name, f.Version)
		}
		want, cerr := f.checksum(bl)
		if cerr != nil {
			return false, fmt.Errorf("model file %s: %w", name, cerr)
		}
		if f.Checksum != want {
			return true, fmt.Errorf("model file %s: checksum %s does not match its content (%s): the file was changed or damaged", name, f.Checksum, want)
		}
	}
	if _, lerr := Lookup(f.Method); lerr != nil {
		return true, fmt.Errorf("model file %s: %w", name, lerr)
	}
	return false, nil
}

// decodeFile decodes the model file b whose large matrices were lifted
// into bl (nil: none were).
func decodeFile(b []byte, bl *embed.Blobs, name string) (*File, *Fitted, error) {
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("model file %s: not a dimred model or truncated (%v)", name, err)
	}
	if decided, err := f.checkEnvelope(bl, name); err != nil {
		return nil, nil, envelopeError{err, decided && bl.Within(f.Model)}
	}
	var (
		m   embed.Model
		err error
	)
	if bl != nil {
		m, err = embed.DecodeModel(f.Model, bl)
	} else {
		m, err = embed.UnmarshalModel(f.Model)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("model file %s: %w", name, err)
	}
	if f.Features > 0 && f.Preprocess == nil && m.InDims() != f.Features {
		return nil, nil, fmt.Errorf("model file %s: %d features, but its model takes %d", name, f.Features, m.InDims())
	}
	return &f, &Fitted{Model: m, Name: f.Method, Values: f.Values}, nil
}
