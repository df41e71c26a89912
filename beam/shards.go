package dimredbeam

import (
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
	fs, err := filesystem.New(ctx, in.Glob)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.Glob, err)
	}
	defer fs.Close()
	paths, err := fs.List(ctx, in.Glob)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.Glob, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("input %s: no file matches", in.Glob)
	}
	sort.Strings(paths)
	shards := make([]Shard, len(paths))
	for i, p := range paths {
		shards[i] = Shard{Index: i, Path: p}
	}
	return shards, nil
}

// scanShard streams the rows of sh to fn in chunks of chunk rows with the
// rules of data.Scan. With bad nil a malformed row stops the scan with its
// file:line error; otherwise bad receives that error and the row is
// skipped.
func scanShard(ctx context.Context, sh Shard, opt data.Options, chunk int, fn func(x *mat.Dense, y []int) error, bad func(*data.FormatError) error) error {
	fs, err := filesystem.New(ctx, sh.Path)
	if err != nil {
		return fmt.Errorf("shard %s: %w", sh.Path, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, sh.Path)
	if err != nil {
		return fmt.Errorf("shard %s: %w", sh.Path, err)
	}
	defer r.Close()
	return data.ScanReader(r, sh.Path, opt, chunk, fn, bad)
}

// readAll reads the file at path through Beam's file systems.
func readAll(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// writeFile writes b to path through Beam's file systems (replacing it:
// a retried bundle writes the same bytes again).
func writeFile(ctx context.Context, path string, b []byte) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Close()
}
