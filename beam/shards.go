package dimredbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

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
	// strings, or text with one label per line, optionally .gz), paired
	// with the shards in sorted order (x-000.npy with y-000.npy, ...).
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
	if in.Options.NoLabels {
		return nil, fmt.Errorf("input: labels files %s given with Options.NoLabels", in.Labels)
	}
	labels, err := list(ctx, in.Labels)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", in.Labels, err)
	}
	if len(labels) != len(paths) {
		return nil, fmt.Errorf("labels %s: %d files for the %d shards of %s; want one labels file per shard, paired in sorted order", in.Labels, len(labels), len(paths), in.Glob)
	}
	data := make(map[string]bool, len(paths))
	for _, p := range paths {
		data[p] = true
	}
	for i, l := range labels {
		if data[l] {
			return nil, fmt.Errorf("labels %s: %s is also matched by the shards' glob %s", in.Labels, l, in.Glob)
		}
		shards[i].Labels = l
	}
	return shards, nil
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
