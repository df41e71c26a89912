package dimredbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // file paths without a scheme
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// Shard is one input file of a pipeline. Index is its position in the
// sorted list of the files the glob matched: the statistics of the shards
// are merged in a fixed tree over these indices (MomentsFn), so the result
// does not depend on the order in which a runner processes them.
type Shard struct {
	Index int
	Path  string
	// Labels is the labels file of a .npy shard (Input.Labels), empty
	// when the labels are in the rows or there are none.
	Labels string
}

// Input describes the sharded input of a pipeline.
type Input struct {
	// Glob matches the shards: a path pattern of any file system Beam
	// knows (local paths, gs://, s3://, ... with their packages imported).
	Glob string
	// Options are the reader options (format, label column, classes,
	// LIBSVM dimension, ...): the rules of data.Scan. Set Classes when the
	// labels are not the class indices 0..C−1, and NumFeatures for LIBSVM
	// shards, whose dimension Scan otherwise takes from each shard's first
	// chunk.
	Options data.Options
	// Chunk is the number of rows read at once per shard (0: 10000).
	Chunk int
	// Labels matches the labels files of .npy shards, which hold only
	// the features: one file per shard (a .npy vector of integers or
	// strings, or text with one label per line, optionally .gz), the one
	// whose wildcards match what the shard's glob's wildcards match
	// (x-*.npy's x-007.npy with y-*.npy's y-007.npy).
	// The labels are numbered as the labels of CSV shards are
	// (data.ScanReaderLabels): non-negative integers are the class
	// indices, or set Options.Classes. Empty: CSV, TSV and LIBSVM shards
	// carry their labels in their rows, and .npy shards have none.
	Labels string
}

// DefaultChunk is the default Input.Chunk.
const DefaultChunk = 10000

func (in Input) chunk() int {
	if in.Chunk == 0 {
		return DefaultChunk
	}
	return in.Chunk
}

// Match returns the shards matched by in.Glob, sorted by path. It is an
// error if none matches, or if Chunk is negative.
func (in Input) Match(ctx context.Context) ([]Shard, error) {
	if in.Chunk < 0 {
		return nil, fmt.Errorf("input: chunk of %d rows; want ≥ 1 (0: %d)", in.Chunk, DefaultChunk)
	}
	if in.Glob == "" {
		return nil, fmt.Errorf("input: no glob given")
	}
	paths, err := list(ctx, in.Glob)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.Glob, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("input %s: no file matches", in.Glob)
	}
	shards := make([]Shard, len(paths))
	for i, p := range paths {
		shards[i] = Shard{Index: i, Path: p}
	}
	if in.Labels == "" {
		return shards, nil
	}
	if err := in.checkLabels(paths); err != nil {
		return nil, err
	}
	labels, err := list(ctx, in.Labels)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", in.Labels, err)
	}
	if len(labels) != len(paths) {
		return nil, fmt.Errorf("labels %s: %d files for the %d shards of %s; want one labels file per shard", in.Labels, len(labels), len(paths), in.Glob)
	}
	isShard := make(map[string]bool, len(paths))
	for _, p := range paths {
		isShard[p] = true
	}
	for _, l := range labels {
		if isShard[l] {
			return nil, fmt.Errorf("labels %s: %s is also matched by the shards' glob %s", in.Labels, l, in.Glob)
		}
	}
	pairs, err := pairByWildcards(in.Glob, paths, in.Labels, labels)
	if err != nil {
		return nil, err
	}
	for i := range shards {
		shards[i].Labels = pairs[i]
	}
	return shards, nil
}

// Columns checks the shards before a pipeline reads them: every shard
// has the same format (Options.Format, else the extension: a .npy shard
// among CSV shards would be read without labels), and every CSV or TSV
// shard has the same header (the feature names, in the same order: their
// rows are added up by position, so a shard whose columns were reordered
// would give a wrong model without a word). It returns the feature names
// (nil for LIBSVM and .npy shards, which have none), which the model file
// keeps and a transform checks. Only the headers are read.
func (in Input) Columns(ctx context.Context, shards []Shard) ([]string, error) {
	var format, first string
	for _, sh := range shards {
		f, err := data.FormatOf(sh.Path, in.Options.Format)
		if err != nil {
			return nil, fmt.Errorf("shard %s: %w", sh.Path, err)
		}
		switch {
		case format == "":
			format, first = f, sh.Path
		case f != format:
			return nil, fmt.Errorf("shard %s is %s but shard %s is %s; every shard must have the same format", sh.Path, f, first, format)
		}
	}
	if format != data.FormatCSV && format != data.FormatTSV {
		return nil, nil
	}
	heads := make([][]string, len(shards))
	errs := make([]error, len(shards))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // headers of remote shards read 8 at a time
	for i, sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := openRead(ctx, sh.Path)
			if err != nil {
				errs[i] = fmt.Errorf("shard %s: %w", sh.Path, err)
				return
			}
			defer r.Close()
			heads[i], errs[i] = data.ReadHeader(r, sh.Path, in.Options)
		}()
	}
	wg.Wait()
	for i, sh := range shards {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if i == 0 || slices.Equal(heads[i], heads[0]) {
			continue
		}
		for j := range min(len(heads[i]), len(heads[0])) {
			if heads[i][j] != heads[0][j] {
				return nil, fmt.Errorf("shard %s has column %q where shard %s has %q (feature %d): every shard must have the same columns in the same order", sh.Path, heads[i][j], shards[0].Path, heads[0][j], j+1)
			}
		}
		return nil, fmt.Errorf("shard %s has %d features, shard %s has %d: every shard must have the same columns", sh.Path, len(heads[i]), shards[0].Path, len(heads[0]))
	}
	if data.GeneratedNames(heads[0]) {
		return nil, nil
	}
	return heads[0], nil
}

// canonical returns a path in a form that is the same for every name of
// one local file (absolute, symbolic links resolved, also those of the
// directory of a file that does not exist yet); other file systems'
// paths (scheme://...) as they are.
func canonical(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// inputFiles returns the canonical paths of the shards and their labels
// files, each with what it is, for checkOutput.
func inputFiles(shards []Shard) map[string]string {
	inputs := make(map[string]string, len(shards))
	for _, sh := range shards {
		inputs[canonical(sh.Path)] = "shard " + sh.Path
		if sh.Labels != "" {
			inputs[canonical(sh.Labels)] = "labels file " + sh.Labels
		}
	}
	return inputs
}

// checkOutput checks, before anything runs, an output file p (what names
// it; "" passes): not one of files, the inputs and the outputs checked
// before it (checked for every file system), and on the local file
// system not a directory. The pipeline would otherwise destroy an input
// or another output, or fail only after reading every shard, naming a
// temporary file. It then adds p to files. (A missing directory is not
// an error: Beam's local file system creates it.)
func checkOutput(what, p string, files map[string]string) error {
	if p == "" {
		return nil
	}
	if in, ok := files[canonical(p)]; ok {
		return fmt.Errorf("%s %s is the %s: writing it would destroy another file of the run; choose another output", what, p, in)
	}
	if !strings.Contains(p, "://") {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return fmt.Errorf("%s %s is a directory; give a file name", what, p)
		}
		// A directory that exists must take a new file (the output is
		// written to a temporary name beside it, then renamed); one that
		// does not is created by the file system, unless a file stands
		// where one of its directories would be.
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			if st, err := os.Stat(dir); err == nil {
				if !st.IsDir() {
					return fmt.Errorf("%s %s: %s is a file, not a directory", what, p, dir)
				}
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
		if st, err := os.Stat(filepath.Dir(p)); err == nil && st.IsDir() {
			f, err := os.CreateTemp(filepath.Dir(p), ".dimred-beam-probe-*")
			if err != nil {
				return fmt.Errorf("%s %s: cannot write in its directory: %w", what, p, err)
			}
			f.Close()
			os.Remove(f.Name())
		}
	}
	files[canonical(p)] = what + " " + p
	return nil
}

// checkLabels checks, before anything runs, that labels files may go with
// the shards paths: .npy shards (by Options.Format or the extension),
// labels not turned off, no single labels file.
func (in Input) checkLabels(paths []string) error {
	switch {
	case in.Options.NoLabels:
		return fmt.Errorf("input: labels files %s given with Options.NoLabels (--no-labels): one or the other", in.Labels)
	case in.Options.LabelsFile != "":
		return fmt.Errorf("input: labels files %s given with Options.LabelsFile %s; the shards' labels come from one or the other", in.Labels, in.Options.LabelsFile)
	}
	for _, p := range paths {
		f, err := data.FormatOf(p, in.Options.Format)
		if err != nil {
			return fmt.Errorf("input: labels files %s go with .npy shards: %w", in.Labels, err)
		}
		if f != data.FormatNPY {
			return fmt.Errorf("input: labels files %s go with .npy shards; shard %s is %s, whose rows hold their labels", in.Labels, p, f)
		}
	}
	return nil
}

// pairByWildcards returns, for each path of shards (matched by the glob
// shardGlob), the labels file (matched by labelsGlob) whose wildcards
// match the same text: what is left of a path once its glob's literal
// start (up to the first wildcard) and end (after the last) are taken
// off. x-*.npy's x-007.npy goes with y-*.txt's y-007.txt ("007"),
// part-*/x.npy's part-3/x.npy with labels/part-*.npy's labels/part-3.npy
// ("3"); when a glob ends with a wildcard the text loses its extensions
// (y-*: y-007.npy and y-007.txt.gz give "007"). Pairing by position in
// sorted order could swap two shards whose names sort otherwise than
// their labels' (a.npy, a0.npy and a_y.txt, a0_y.txt) without a row
// count to tell.
func pairByWildcards(shardGlob string, shards []string, labelsGlob string, labels []string) ([]string, error) {
	keys := func(what, glob string, paths []string) (map[string]string, []string, error) {
		byKey := make(map[string]string, len(paths))
		list := make([]string, len(paths))
		for i, p := range paths {
			k, ok := wildcardText(glob, p)
			if !ok {
				return nil, nil, fmt.Errorf("%s %s: cannot tell what its wildcards match in %s", what, glob, p)
			}
			if other, dup := byKey[k]; dup {
				return nil, nil, fmt.Errorf("%s %s: the wildcards match the same text %q in %s and %s, so they would share one labels file", what, glob, k, other, p)
			}
			byKey[k], list[i] = p, k
		}
		return byKey, list, nil
	}
	_, shardKeys, err := keys("input", shardGlob, shards)
	if err != nil {
		return nil, err
	}
	labelsByKey, _, err := keys("labels", labelsGlob, labels)
	if err != nil {
		return nil, err
	}
	pairs := make([]string, len(shards))
	for i, k := range shardKeys {
		l, found := labelsByKey[k]
		if !found {
			return nil, fmt.Errorf("labels %s: no labels file for shard %s: a shard's labels file is the one whose wildcards match the same text (%q here), e.g. x-*.npy with y-*.npy", labelsGlob, shards[i], k)
		}
		pairs[i] = l
	}
	return pairs, nil
}

// wildcardText returns what the wildcards of glob match in p, a path the
// glob matched: p without the glob's literal start and end (escapes
// removed); without its extensions when the glob ends with a wildcard. A
// local glob is cleaned first, as the file system's listing cleans the
// paths it returns (./y-*.npy lists y-1.npy).
func wildcardText(glob, p string) (string, bool) {
	if !strings.Contains(glob, "://") {
		glob = filepath.Clean(glob)
	}
	first, last := -1, -1                 // byte offsets of the first wildcard and just past the last
	escapes := filepath.Separator != '\\' // on Windows \ separates
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			if escapes {
				i++
			}
		case '*', '?':
			if first < 0 {
				first = i
			}
			last = i + 1
		case '[':
			if i+2 > len(glob) {
				return "", false
			}
			end := strings.IndexByte(glob[i+2:], ']') // a ] first in the class is literal
			if end < 0 {
				return "", false
			}
			if first < 0 {
				first = i
			}
			i += end + 2
			last = i + 1
		}
	}
	if first < 0 {
		return "", p == unescape(glob)
	}
	prefix, suffix := unescape(glob[:first]), unescape(glob[last:])
	if len(p) < len(prefix)+len(suffix) || !strings.HasPrefix(p, prefix) || !strings.HasSuffix(p, suffix) {
		return "", false
	}
	text := p[len(prefix) : len(p)-len(suffix)]
	if last == len(glob) {
		text = strings.TrimSuffix(text, ".gz")
		for _, ext := range []string{".npy", ".txt", ".csv", ".tsv"} {
			text = strings.TrimSuffix(text, ext)
		}
	}
	return text, true
}

// unescape removes a glob's backslash escapes from its literal text (none
// on Windows, where \ separates).
func unescape(s string) string {
	if filepath.Separator == '\\' || !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// list returns the files glob matches, sorted.
func list(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	paths, err := fs.List(ctx, glob)
	sort.Strings(paths)
	return paths, err
}

// scanShard streams the rows of sh to fn in chunks of chunk rows with the
// rules of data.Scan, the labels from sh.Labels when it is set. With bad
// nil a malformed row stops the scan with its file:line error; otherwise
// bad receives that error and the row is skipped.
func scanShard(ctx context.Context, sh Shard, opt data.Options, chunk int, fn func(x *mat.Dense, y []int) error, bad func(*data.FormatError) error) error {
	r, err := openRead(ctx, sh.Path)
	if err != nil {
		return fmt.Errorf("shard %s: %w", sh.Path, err)
	}
	defer r.Close()
	if sh.Labels == "" || opt.NoLabels {
		return data.ScanReader(r, sh.Path, opt, chunk, fn, bad)
	}
	l, err := openRead(ctx, sh.Labels)
	if err != nil {
		return fmt.Errorf("labels of shard %s: %w", sh.Path, err)
	}
	defer l.Close()
	return data.ScanReaderLabels(r, sh.Path, l, sh.Labels, opt, chunk, fn, bad)
}

// openRead opens the file at path through Beam's file systems.
func openRead(ctx context.Context, path string) (io.ReadCloser, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	return closeBoth{r, fs}, nil
}

// closeBoth closes a file and then its file system.
type closeBoth struct {
	io.ReadCloser
	fs io.Closer
}

func (c closeBoth) Close() error {
	err := c.ReadCloser.Close()
	if ferr := c.fs.Close(); err == nil {
		err = ferr
	}
	return err
}

// readAll reads the file at path through Beam's file systems.
func readAll(ctx context.Context, path string) ([]byte, error) {
	r, err := openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// writeFile writes b to path through Beam's file systems (replacing it:
// a retried bundle writes the same bytes again).
func writeFile(ctx context.Context, path string, b []byte) error {
	return copyTo(ctx, path, bytes.NewReader(b))
}

// copyTo writes what r holds to path through Beam's file systems,
// replacing it (writeAtomic).
func copyTo(ctx context.Context, path string, r io.Reader) error {
	return writeAtomic(ctx, path, func(w io.Writer) error {
		if _, err := io.Copy(w, r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// writeAtomic writes path through Beam's file systems with write,
// replacing it. On a file system that can rename (local paths) the bytes
// go to a temporary name beside path that is renamed over it once they
// are all written, as dimred's own outputs are: an interrupted or failed
// write leaves the old file whole (and at worst a file named
// path.partial-…), never a truncated one. Object stores (gs://, s3://)
// make an object visible only once it is closed.
func writeAtomic(ctx context.Context, path string, write func(io.Writer) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	rn, atomic := fs.(filesystem.Renamer)
	target := path
	if atomic {
		target = fmt.Sprintf("%s.partial-%d-%d", path, os.Getpid(), rand.Uint32())
	}
	w, err := fs.OpenWrite(ctx, target)
	if err != nil {
		return err
	}
	if err := write(w); err != nil { // the writer's own error, as it is
		w.Close()
		removeQuietly(ctx, fs, target, atomic)
		return err
	}
	err = w.Close()
	if err == nil && atomic {
		err = rn.Rename(ctx, target, path)
	}
	if err != nil {
		removeQuietly(ctx, fs, target, atomic)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// removeQuietly removes path when remove is set and the file system can
// (a best effort: errors are ignored).
func removeQuietly(ctx context.Context, fs filesystem.Interface, path string, remove bool) {
	if rm, ok := fs.(filesystem.Remover); ok && remove {
		rm.Remove(ctx, path)
	}
}
