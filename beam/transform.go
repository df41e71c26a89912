package dimredbeam

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
)

// TransformConfig describes a transform: a saved model applied to every
// row of the shards.
type TransformConfig struct {
	Input
	// Model is the model file (written by FitPipeline or dimred fit).
	Model string
	// Output is the directory of the output shards: one CSV file per input
	// shard, named after it (OutputName), with a header row, the label
	// column first ("label": the class name of Options.Classes, else the
	// class index; empty for an unlabeled row; absent with NoLabels) and
	// the embedding columns z1..zk, rows in the order of the input rows. A
	// local directory must exist (dimred-beam transform creates it).
	Output string
	// Format is the output format: "csv" (the default, above) or "npy":
	// the embedding of each shard as a .npy array (float64, C order,
	// "part-3.svm.gz" → "part-3.npy"), and its labels, when the rows have
	// them, in a text file beside it (LabelsName).
	Format string
	// Dims keeps the first Dims dimensions (0: all).
	Dims int
	// DeadLetter: as in FitConfig (malformed rows are left out of the
	// outputs and written there).
	DeadLetter string
	// IgnoreNames takes the shards' columns by position without checking
	// their header against the model's feature names (which a column
	// order other than the fit's fails, method.Pipeline.CheckFeatureNames).
	IgnoreNames bool
}

// Stale returns the files of the local output directory that look like
// output shards (the extension of Format; for npy also the labels files)
// but that this transform does not write: left there by an earlier run
// on other shards, a glob over the directory would read them with the
// new output. Output directories on other file systems are not listed.
func (cfg TransformConfig) Stale(ctx context.Context) ([]string, error) {
	if strings.Contains(cfg.Output, "://") {
		return nil, nil
	}
	shards, err := cfg.Match(ctx)
	if err != nil {
		return nil, err
	}
	writes := map[string]bool{}
	for _, sh := range shards {
		out := path.Base(cfg.outputPath(sh))
		writes[out] = true
		writes[path.Base(LabelsName(out))] = true
	}
	entries, err := os.ReadDir(cfg.Output)
	if err != nil {
		return nil, err
	}
	ext := "." + cmp.Or(cfg.Format, "csv")
	var stale []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && !writes[n] && (strings.HasSuffix(n, ext) || (ext == ".npy" && strings.HasSuffix(n, ".labels.txt"))) {
			stale = append(stale, n)
		}
	}
	return stale, nil
}

// outputPath is the path of the output shard of sh.
func (cfg TransformConfig) outputPath(sh Shard) string {
	return strings.TrimSuffix(cfg.Output, "/") + "/" + outputName(sh.Path, cfg.Format)
}

// OutputName returns the name of the CSV output shard of the input shard
// at p: its base name without the format and compression extensions,
// then ".csv" ("part-3.svm.gz" → "part-3.csv").
func OutputName(p string) string { return outputName(p, "csv") }

// outputName is OutputName with the extension of format ("csv", "npy").
func outputName(p, format string) string {
	if format == "" {
		format = "csv"
	}
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	lower := strings.ToLower(base)
	if strings.HasSuffix(lower, ".gz") {
		base, lower = base[:len(base)-3], lower[:len(lower)-3]
	}
	if ext := path.Ext(lower); ext != "" {
		base = base[:len(base)-len(ext)]
	}
	return base + "." + format
}

// TransformPipeline builds the pipeline of cfg. The model file is read and
// checked here, and the output names of the shards must be distinct.
func TransformPipeline(ctx context.Context, cfg TransformConfig) (*beam.Pipeline, error) {
	if cfg.Output == "" {
		return nil, errors.New("no output directory given")
	}
	lm, err := loadModel(ctx, cfg.Model)
	if err != nil {
		return nil, err
	}
	if cfg.Dims < 0 || cfg.Dims > lm.pipe.Dims() {
		return nil, fmt.Errorf("dims %d: the model %s has %d dimensions (0: all)", cfg.Dims, cfg.Model, lm.pipe.Dims())
	}
	shards, err := cfg.Match(ctx)
	if err != nil {
		return nil, err
	}
	switch cfg.Format {
	case "", "csv", "npy":
	default:
		return nil, fmt.Errorf("output format %q; want csv or npy", cfg.Format)
	}
	seen := map[string]string{}
	for _, sh := range shards {
		name := outputName(sh.Path, cfg.Format)
		if other, dup := seen[name]; dup {
			return nil, fmt.Errorf("shards %s and %s would both write %s; give the shards distinct base names", other, sh.Path, name)
		}
		seen[name] = sh.Path
	}
	inputs := inputFiles(shards)
	inputs[canonical(cfg.Model)] = "model file " + cfg.Model
	if err := checkOutput("dead-letter file", cfg.DeadLetter, inputs); err != nil {
		return nil, err
	}
	for _, sh := range shards {
		out := cfg.outputPath(sh)
		outs := []string{out}
		if cfg.Format == "npy" {
			outs = append(outs, LabelsName(out))
		}
		for _, o := range outs {
			if in, ok := inputs[canonical(o)]; ok {
				return nil, fmt.Errorf("output %s (of shard %s) is the %s: writing it would destroy another file of the run; choose another output directory", o, sh.Path, in)
			}
			inputs[canonical(o)] = "output of shard " + sh.Path
		}
	}
	if !cfg.Options.NoLabels && cfg.Options.Classes == nil {
		// Text labels the model names (barolo, …): read by its classes,
		// as dimred transform --stream reads them.
		cfg.Options.Classes = lm.pipe.ScanClasses()
	}
	names, err := cfg.Columns(ctx, shards)
	if err != nil {
		return nil, err
	}
	if !cfg.IgnoreNames {
		if err := lm.pipe.CheckFeatureNames(names); err != nil {
			return nil, fmt.Errorf("shards %s, model %s: %w; reorder the columns, or ignore the names (IgnoreNames, --ignore-names)", cfg.Glob, cfg.Model, err)
		}
	}
	p, s := beam.NewPipelineWithRoot()
	fn := &transformFn{Options: cfg.Options, Chunk: cfg.chunk(), Model: cfg.Model, Output: cfg.Output, Format: cfg.Format, Dims: cfg.Dims, DeadLetter: cfg.DeadLetter != ""}
	_, bad := beam.ParDo2(s.Scope("transform"), fn, beam.CreateList(s, shards))
	if cfg.DeadLetter != "" {
		writeDeadLetter(s.Scope("deadletter"), bad, cfg.DeadLetter)
	}
	return p, nil
}

// loadedModel is a model file: the model and its fitted preprocessing
// (method.Pipeline, as 'dimred transform' reads it).
type loadedModel struct {
	path string
	pipe *method.Pipeline
}

// loadModel reads the model file at p through Beam's file systems.
func loadModel(ctx context.Context, p string) (*loadedModel, error) {
	if p == "" {
		return nil, errors.New("no model file given")
	}
	b, err := readAll(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("model file %s: %w", p, err)
	}
	pipe, err := method.LoadPipeline(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("model file %s: %w", p, err)
	}
	return &loadedModel{path: p, pipe: pipe}, nil
}

// transform embeds the rows x of the input named input.
func (lm *loadedModel) transform(x *mat.Dense, input string) (*mat.Dense, error) {
	if _, c := x.Dims(); c != lm.pipe.Features {
		return nil, fmt.Errorf("input %s has %d features, the model %s was fitted on %d", input, c, lm.path, lm.pipe.Features)
	}
	z, err := lm.pipe.Transform(x)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", input, err)
	}
	return z, nil
}

// transformFn embeds the rows of a shard and writes its output shard.
type transformFn struct {
	Options    data.Options
	Chunk      int
	Model      string
	Output     string
	Format     string
	Dims       int
	DeadLetter bool

	lm *loadedModel
}

func (f *transformFn) Setup(ctx context.Context) error {
	var err error
	f.lm, err = loadModel(ctx, f.Model)
	return err
}

func (f *transformFn) ProcessElement(ctx context.Context, sh Shard, emitRows func(int), emitBad func(BadRow)) error {
	out := TransformConfig{Output: f.Output, Format: f.Format}.outputPath(sh)
	var rows int
	var err error
	if f.Format == "npy" {
		rows, err = f.writeNPY(ctx, sh, out, emitBad)
	} else {
		rows, err = f.writeCSV(ctx, sh, out, emitBad)
	}
	if err != nil {
		return fmt.Errorf("%s → %s: %w", sh.Path, out, err)
	}
	rowsCounter.Inc(ctx, int64(rows))
	emitRows(rows)
	return nil
}

// each passes the embedding of every chunk of the shard (its first Dims
// columns) and the chunk's labels to fn, and returns the rows embedded.
func (f *transformFn) each(ctx context.Context, sh Shard, emitBad func(BadRow), fn func(z *mat.Dense, y []int) error) (int, error) {
	rows := 0
	opt := f.Options
	if opt.NumFeatures == 0 && isLIBSVM(sh.Path, opt.Format) {
		// A sparse shard whose last features are zero in every row is
		// read at the model's width, as 'dimred transform' reads it.
		opt.NumFeatures = f.lm.pipe.Features
	}
	if f.lm.pipe.LIBSVMZeroBased && isLIBSVM(sh.Path, opt.Format) {
		opt.ZeroBasedDefault = true // as the fit read its shards, unless the shard's header says one-based
	}
	err := scanShard(ctx, sh, opt, f.Chunk, func(x *mat.Dense, y []int) error {
		z, err := f.lm.transform(x, sh.Path)
		if err != nil {
			return err
		}
		n, k := z.Dims()
		if f.Dims > 0 {
			k = f.Dims
			z = z.Slice(0, n, 0, k).(*mat.Dense)
		}
		rows += n
		return fn(z, y)
	}, badRows(f.DeadLetter, emitBad))
	return rows, err
}

// writeCSV writes the shard's output as CSV to out: a header row, the
// label column first when the rows have labels.
func (f *transformFn) writeCSV(ctx context.Context, sh Shard, out string, emitBad func(BadRow)) (rows int, err error) {
	err = writeAtomic(ctx, out, func(wc io.Writer) error {
		w := bufio.NewWriterSize(wc, 1<<16)
		var rw *data.RowWriter
		var err error
		rows, err = f.each(ctx, sh, emitBad, func(z *mat.Dense, y []int) error {
			if rw == nil {
				_, k := z.Dims()
				names := make([]string, k)
				for j := range names {
					names[j] = "z" + strconv.Itoa(j+1)
				}
				var err error
				if rw, err = data.NewRowWriter(w, "csv", sh.Path, k, names, f.Options.Classes, y != nil); err != nil {
					return err
				}
			}
			return rw.Write(z, y)
		})
		if err == nil && rw != nil {
			err = rw.Flush()
		}
		if err == nil {
			err = w.Flush()
		}
		return err
	})
	return rows, err
}

// writeNPY writes the shard's embedding to out as a .npy array (float64,
// C order), and its labels, when the rows have them, to the text file
// LabelsName(out), one per line. A .npy header holds the row count, so the
// array is written to a local temporary file first (NPYWriter writes the
// count last) and then copied to out, which may be on any file system.
func (f *transformFn) writeNPY(ctx context.Context, sh Shard, out string, emitBad func(BadRow)) (int, error) {
	tmp, err := os.CreateTemp("", "dimred-beam-*.npy")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	k := f.lm.pipe.Dims()
	if f.Dims > 0 {
		k = f.Dims
	}
	nw, err := data.NewNPYWriter(tmp, out, k)
	if err != nil {
		return 0, err
	}
	var labels []int
	hasLabels := false
	rows, err := f.each(ctx, sh, emitBad, func(z *mat.Dense, y []int) error {
		hasLabels = hasLabels || y != nil
		labels = append(labels, y...)
		return nw.Write(z, nil)
	})
	if err == nil {
		err = nw.Flush()
	}
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err == nil {
		err = copyTo(ctx, out, tmp)
	}
	switch {
	case err == nil && hasLabels:
		name := LabelsName(out)
		err = writeAtomic(ctx, name, func(w io.Writer) error { return data.WriteLabels(w, name, labels, f.Options.Classes) })
	case err == nil:
		// No labels: a labels file an earlier run left beside out
		// would now describe other rows.
		if fs, ferr := filesystem.New(ctx, out); ferr == nil {
			removeQuietly(ctx, fs, LabelsName(out), true)
			fs.Close()
		}
	}
	return rows, err
}

// LabelsName is the name of the labels file written beside a .npy output
// shard: "x-3.npy" → "x-3.labels.txt" (text, one label per line: the
// class name with Options.Classes, else the class index; empty for an
// unlabelled row: data.WriteLabels), which dimred's --labels and
// dimred-beam's --shard-labels read, and which a glob of the .npy shards
// does not match. It is written only when the rows have labels; without
// them a labels file an earlier run left there is removed (on file
// systems that can remove).
func LabelsName(npyPath string) string {
	return strings.TrimSuffix(npyPath, ".npy") + ".labels.txt"
}

func init() {
	register.DoFn4x1[context.Context, Shard, func(int), func(BadRow), error](&transformFn{})
	register.Emitter1[int]()
}

// isLIBSVM reports whether the shard at path is read as LIBSVM (format,
// else its extension).
func isLIBSVM(path, format string) bool {
	f, _ := data.FormatOf(path, format)
	return f == data.FormatLIBSVM
}
