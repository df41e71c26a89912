package dimredbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"

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

// checkLabels checks, before anything runs, that labels files may go with
// the shards paths: .npy shards (by extension or Options.Format), labels
// not turned off, no single labels file.
func (in Input) checkLabels(paths []string) error {
	switch {
	case in.Options.NoLabels:
		return fmt.Errorf("input: labels files %s given with Options.NoLabels", in.Labels)
	case in.Options.LabelsFile != "":
		return fmt.Errorf("input: labels files %s given with Options.LabelsFile %s; the shards' labels come from one or the other", in.Labels, in.Options.LabelsFile)
	}
	for _, p := range paths {
		f := strings.ToLower(in.Options.Format)
		if f == "" {
			f = strings.TrimPrefix(path.Ext(strings.TrimSuffix(strings.ToLower(p), ".gz")), ".")
		}
		if f != data.FormatNPY {
			return fmt.Errorf("input: labels files %s go with .npy shards; shard %s is %s, whose rows hold their labels", in.Labels, p, f)
		}
	}
	return nil
}

// pairByWildcards returns, for each path of shards (matched by the glob
// shardGlob), the labels file (matched by labelsGlob) whose wildcards
// match the same texts: x-*.npy's x-007.npy goes with y-*.txt's
// y-007.txt, part-*/x.npy's part-3/x.npy with labels/part-*.npy's
// labels/part-3.npy; a wildcard that ends a glob matches the name without
// its extensions (y-*: y-007.npy matches "007"). Pairing by position in
// sorted order could swap two shards whose names sort otherwise than
// their labels' (a.npy, a0.npy and a_y.txt, a0_y.txt) without a row count
// to tell.
func pairByWildcards(shardGlob string, shards []string, labelsGlob string, labels []string) ([]string, error) {
	sre, err := globRegexp(shardGlob)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", shardGlob, err)
	}
	lre, err := globRegexp(labelsGlob)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", labelsGlob, err)
	}
	key := func(re *regexp.Regexp, glob, p string) (string, bool) {
		m := re.FindStringSubmatch(p)
		if m == nil {
			return "", false
		}
		m = m[1:]
		if strings.HasSuffix(glob, "*") && len(m) > 0 {
			// A wildcard that ends the glob (y-*) matches the name
			// without its extensions (y-007.npy, y-007.txt.gz: "007").
			if dot := strings.IndexByte(m[len(m)-1], '.'); dot >= 0 {
				m[len(m)-1] = m[len(m)-1][:dot]
			}
		}
		return strings.Join(m, "\x00"), true
	}
	byKey := make(map[string]string, len(labels))
	for _, l := range labels {
		k, ok := key(lre, labelsGlob, l)
		if !ok {
			return nil, fmt.Errorf("labels %s: cannot tell what its wildcards match in %s", labelsGlob, l)
		}
		if other, dup := byKey[k]; dup {
			return nil, fmt.Errorf("labels %s: %s and %s would both be the labels of one shard (their wildcards match %q)", labelsGlob, other, l, strings.ReplaceAll(k, "\x00", "|"))
		}
		byKey[k] = l
	}
	pairs := make([]string, len(shards))
	for i, p := range shards {
		k, ok := key(sre, shardGlob, p)
		if !ok {
			return nil, fmt.Errorf("input %s: cannot tell what its wildcards match in %s", shardGlob, p)
		}
		l, found := byKey[k]
		if !found {
			return nil, fmt.Errorf("labels %s: no labels file for shard %s: a shard's labels file is the one whose wildcards match the same text (%q here), e.g. x-*.npy with y-*.npy", labelsGlob, p, strings.ReplaceAll(k, "\x00", "|"))
		}
		pairs[i] = l
	}
	return pairs, nil
}

// globRegexp returns a regular expression matching what glob matches
// (path.Match's syntax: *, ?, [class], \ escapes; and ** across
// directories, as some file systems have it), with a group for each
// wildcard.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				b.WriteString("(.*)")
				i++
			} else {
				b.WriteString("([^/]*)")
			}
		case '?':
			b.WriteString("([^/])")
		case '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in the glob")
			}
			class := glob[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("([" + strings.ReplaceAll(class, `\`, `\\`) + "])")
			i += end + 1
		case '\\':
			if i+1 < len(glob) {
				i++
			}
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
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
// replacing it.
func copyTo(ctx context.Context, path string, r io.Reader) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Close()
}
