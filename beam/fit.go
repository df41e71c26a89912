package dimredbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/stats"
)

// FitConfig describes a fit from statistics.
type FitConfig struct {
	Input
	// Method and Params name the method and its parameters as the dimred
	// command takes them (-m, -p key=value); the method must fit from
	// statistics (method.StatsFitter).
	Method string
	Params map[string]string
	// Dims is the number of output dimensions (0: the most the method
	// gives).
	Dims int
	// Model is the path of the model file to write (the format of dimred
	// fit -o, read by dimred transform and TransformPipeline).
	Model string
	// Stats, when set, is the path where the merged statistics are written
	// (stats.Moments binary form), to fit other methods or dimensions
	// without reading the shards again.
	Stats string
	// DeadLetter, when set, is the path of a text file that receives every
	// malformed row ("file:line: rule: value", sorted by file and line),
	// which is then left out of the fit; without it the first malformed
	// row fails the pipeline with its file and line. The file is written
	// (empty when every row is good) whenever the pipeline succeeds.
	DeadLetter string
}

// BadRow is a malformed row routed to the dead-letter output.
type BadRow struct {
	File string
	Line int
	Err  string // the reader's message: file:line: rule and value
}

// statsFitter returns the method of cfg, checked to fit from statistics.
func statsFitter(name string, params map[string]string) (method.StatsFitter, error) {
	m, err := method.New(name, params)
	if err != nil {
		return nil, err
	}
	sf, ok := m.(method.StatsFitter)
	if !ok {
		return nil, fmt.Errorf("method %s needs all rows in memory (pairs of rows or a full Gram matrix) and cannot be fitted from statistics of shards; methods that can: %s", name, strings.Join(StatsMethods(), ", "))
	}
	if c, ok := m.(method.StatsChecker); ok {
		if err := c.CheckStats(); err != nil {
			return nil, err
		}
	}
	return sf, nil
}

// StatsMethods returns the names of the methods that fit from statistics
// (method.StatsFitter).
func StatsMethods() []string {
	return method.StatsMethods()
}

// NystromMethods returns the names of the kernel methods that fit from
// statistics of Nyström features with space=nystrom
// (method.NystromStatsFitter, method.MultiNystromStatsFitter).
func NystromMethods() []string {
	return method.NystromStatsMethods()
}

// FitPipeline builds the pipeline of cfg: match the shards, reduce each to
// its statistics (ShardStats), merge them (MomentsFn), fit the model from
// the merged statistics and write it. The method, its parameters and the
// glob are checked here, before anything runs.
func FitPipeline(ctx context.Context, cfg FitConfig) (*beam.Pipeline, error) {
	if cfg.Dims < 0 {
		return nil, fmt.Errorf("dims %d; want ≥ 0 (0: all)", cfg.Dims)
	}
	if cfg.Model == "" {
		return nil, errors.New("no model path given")
	}
	m, err := method.New(cfg.Method, cfg.Params)
	if err != nil {
		return nil, err
	}
	nystrom := method.HasNystromStats(m)
	if nystrom {
		if _, err := nystromSpace(cfg.Method, cfg.Params); err != nil {
			return nil, err
		}
		if cfg.Stats != "" {
			return nil, fmt.Errorf("statistics file %s: the statistics of a Nyström fit (%s) are of its landmarks' features, which cannot be fitted again without the landmarks; Stats is for the linear methods (%s)", cfg.Stats, cfg.Method, strings.Join(StatsMethods(), ", "))
		}
	} else if _, err := statsFitter(cfg.Method, cfg.Params); err != nil {
		return nil, err
	}
	shards, err := cfg.Match(ctx)
	if err != nil {
		return nil, err
	}
	inputs := inputFiles(shards)
	for _, o := range []struct{ what, path string }{{"model file", cfg.Model}, {"statistics file", cfg.Stats}, {"dead-letter file", cfg.DeadLetter}} {
		if err := checkOutput(o.what, o.path, inputs); err != nil {
			return nil, err
		}
	}
	names, err := cfg.Columns(ctx, shards)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkSupervision(shards); err != nil {
		return nil, err
	}
	fit := cfg.fitFn(names)
	if fit.ZeroBased, err = cfg.zeroBased(ctx, shards); err != nil {
		return nil, err
	}
	p, s := beam.NewPipelineWithRoot()
	col := beam.CreateList(s, shards)
	if nystrom {
		nystromFit(s, col, cfg, fit)
	} else {
		partials, bad := ShardStats(s.Scope("stats"), col, cfg.Input, cfg.DeadLetter != "")
		merged := beam.Combine(s.Scope("merge"), &MomentsFn{}, partials)
		beam.ParDo0(s.Scope("fit"), fit, merged)
		if cfg.DeadLetter != "" {
			writeDeadLetter(s.Scope("deadletter"), bad, cfg.DeadLetter)
		}
	}
	return p, nil
}

// zeroBased reports whether the fit reads LIBSVM shards zero-based
// without an index 0 having to occur, which the model records for files
// of new rows (method.Pipeline.LIBSVMZeroBased, as 'dimred fit' does):
// with --zero-based (Options.ZeroBased), or when every shard's header
// comment says "Column indices are zero-based".
func (in Input) zeroBased(ctx context.Context, shards []Shard) (bool, error) {
	if in.Options.ZeroBased || len(shards) == 0 {
		return in.Options.ZeroBased, nil
	}
	for _, sh := range shards {
		if !isLIBSVM(sh.Path, in.Options.Format) {
			return false, nil
		}
		r, err := openRead(ctx, sh.Path)
		if err != nil {
			return false, fmt.Errorf("shard %s: %w", sh.Path, err)
		}
		zero, err := data.LIBSVMZeroBasedReader(r, sh.Path, in.Options)
		r.Close()
		if err != nil || !zero {
			return false, err
		}
	}
	return true, nil
}

// fitFn returns the last step of the fit, which writes a model file with
// the shards' feature names (Input.Columns).
func (cfg FitConfig) fitFn(names []string) *fitFn {
	return &fitFn{Method: cfg.Method, Params: cfg.Params, Dims: cfg.Dims, Model: cfg.Model, Stats: cfg.Stats, Classes: cfg.Options.Classes, Features: names, ZeroBased: cfg.Options.ZeroBased}
}

// FitStatsFile fits cfg's method from a statistics file written by an
// earlier fit (FitConfig.Stats, dimred-beam fit --stats) and writes the
// model to cfg.Model, without reading any shard and without a pipeline:
// other methods or dimensions of the same rows. The statistics hold no
// feature names, so neither does the model, nor class names: give them
// as cfg.Options.Classes (the rest of cfg.Input, and cfg.Stats, are not
// used).
func FitStatsFile(ctx context.Context, cfg FitConfig, statsPath string) error {
	if cfg.Dims < 0 {
		return fmt.Errorf("dims %d; want ≥ 0 (0: all)", cfg.Dims)
	}
	if cfg.Model == "" {
		return errors.New("no model path given")
	}
	if m, err := method.New(cfg.Method, cfg.Params); err == nil && method.HasNystromStats(m) {
		return fmt.Errorf("statistics file %s: %s with space=nystrom fits from its landmarks' features, not from the rows' statistics a statistics file holds; fit it from the shards", statsPath, cfg.Method)
	}
	if _, err := statsFitter(cfg.Method, cfg.Params); err != nil {
		return err
	}
	in := map[string]string{canonical(statsPath): "statistics file " + statsPath}
	if err := checkOutput("model file", cfg.Model, in); err != nil {
		return err
	}
	b, err := readAll(ctx, statsPath)
	if err != nil {
		return fmt.Errorf("statistics file %s: %w", statsPath, err)
	}
	f := cfg.fitFn(nil)
	f.Stats = ""
	if err := f.ProcessElement(ctx, b); err != nil {
		return fmt.Errorf("statistics file %s: %w", statsPath, err)
	}
	return nil
}

// checkSupervision refuses, before anything runs, a supervised method
// (method.Info.Supervision) on shards that carry no labels: .npy shards
// without Input.Labels, or Options.NoLabels. Their rows would all be
// unlabelled and the fit would fail only after reading every shard, with
// "0 classes present".
func (cfg FitConfig) checkSupervision(shards []Shard) error {
	info, err := method.Lookup(cfg.Method)
	if err != nil || !info.Supervised() {
		return err
	}
	if cfg.Options.NoLabels {
		return fmt.Errorf("%s is supervised and the shards are read without labels (Options.NoLabels, --no-labels)", cfg.Method)
	}
	if cfg.Labels == "" && len(shards) > 0 { // one format (Columns)
		if f, _ := data.FormatOf(shards[0].Path, cfg.Options.Format); f == data.FormatNPY {
			return fmt.Errorf("%s is supervised and the .npy shards hold only features: give their labels files (Input.Labels, --shard-labels)", cfg.Method)
		}
	}
	return nil
}

// Run runs a pipeline on the runner chosen by Beam's --runner flag (the
// in-process Prism runner by default), with the other pipeline options
// of Beam's flags.
func Run(ctx context.Context, p *beam.Pipeline) error {
	_, err := RunCounts(ctx, p)
	return err
}

// Counts are what a pipeline of this package read, from the runner's
// metrics: the rows fitted or transformed, of them the unlabelled ones
// (fits only), and the malformed rows sent to the dead-letter file.
// Known is false when the runner reports no metrics.
type Counts struct {
	Rows, Unlabelled, Bad int64
	Known                 bool
}

// The counters behind Counts, incremented once per pipeline (fit: from
// the merged statistics) or once per shard (transform), never per pass
// over the shards.
var (
	rowsCounter       = beam.NewCounter("dimred", "rows")
	unlabelledCounter = beam.NewCounter("dimred", "unlabelled")
	badCounter        = beam.NewCounter("dimred", "bad_rows")
)

// RunCounts is Run, and returns what the pipeline read.
func RunCounts(ctx context.Context, p *beam.Pipeline) (Counts, error) {
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil || res == nil {
		return Counts{}, err
	}
	var c Counts
	for _, r := range res.Metrics().AllMetrics().Counters() {
		if r.Namespace() != "dimred" {
			continue
		}
		c.Known = true
		switch r.Name() {
		case "rows":
			c.Rows += r.Result()
		case "unlabelled":
			c.Unlabelled += r.Result()
		case "bad_rows":
			c.Bad += r.Result()
		}
	}
	return c, nil
}

// ShardStats reduces every shard of col to the Partial of its statistics.
// With deadLetter, malformed rows go to the second output (BadRow)
// instead of failing the pipeline; the second output is empty otherwise.
func ShardStats(s beam.Scope, col beam.PCollection, in Input, deadLetter bool) (partials, bad beam.PCollection) {
	return beam.ParDo2(s, &statsFn{Options: in.Options, Chunk: in.chunk(), DeadLetter: deadLetter}, col)
}

// statsFn reads one shard into its statistics.
type statsFn struct {
	Options    data.Options
	Chunk      int
	DeadLetter bool
}

func (f *statsFn) ProcessElement(ctx context.Context, sh Shard, emit func(Partial), emitBad func(BadRow)) error {
	return shardMoments(ctx, sh, f.Options, f.Chunk, f.DeadLetter, nil, emit, emitBad)
}

// shardMoments accumulates the statistics of the rows of sh (mapped by
// features when not nil) and emits them as a leaf; with deadLetter the
// malformed rows go to emitBad.
func shardMoments(ctx context.Context, sh Shard, opt data.Options, chunk int, deadLetter bool, features func(context.Context, *mat.Dense) (*mat.Dense, error), emit func(Partial), emitBad func(BadRow)) error {
	var m stats.Moments
	err := scanShard(ctx, sh, opt, chunk, func(x *mat.Dense, y []int) error {
		if features != nil {
			var err error
			if x, err = features(ctx, x); err != nil {
				return fmt.Errorf("%s: %w", sh.Path, err)
			}
		}
		if err := m.Add(x, y); err != nil {
			return fmt.Errorf("%s: %w", sh.Path, err)
		}
		return nil
	}, badRows(deadLetter, emitBad))
	if err != nil {
		return err
	}
	emit(Leaf(sh, &m))
	return nil
}

// badRows returns the handler of malformed rows of a shard: nil (the first
// fails the pipeline) without deadLetter, else one that emits them.
func badRows(deadLetter bool, emitBad func(BadRow)) func(*data.FormatError) error {
	if !deadLetter {
		return nil
	}
	return func(e *data.FormatError) error {
		emitBad(BadRow{File: e.File, Line: e.Line, Err: e.Error()})
		return nil
	}
}

// fitFn fits the model from the merged statistics and writes it.
type fitFn struct {
	Method  string
	Params  map[string]string
	Dims    int
	Model   string
	Stats   string
	Classes []string
	// Features are the feature names of the shards (nil: none).
	Features []string
	// ZeroBased records LIBSVM shards read zero-based
	// (method.Pipeline.LIBSVMZeroBased).
	ZeroBased bool
}

func (f *fitFn) ProcessElement(ctx context.Context, b []byte) error {
	m, err := f.statistics(ctx, b)
	if err != nil {
		return err
	}
	sf, err := statsFitter(f.Method, f.Params)
	if err != nil {
		return err
	}
	fitted, err := sf.FitStats(m, f.Dims)
	if err != nil {
		return err
	}
	return f.save(ctx, fitted.(*method.Fitted))
}

// statistics decodes the merged statistics, and writes them when asked.
func (f *fitFn) statistics(ctx context.Context, b []byte) (*stats.Moments, error) {
	m := new(stats.Moments)
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	if m.N() == 0 {
		return nil, errors.New("fit: no rows in the shards (every row malformed?)")
	}
	if c := m.Classes(); len(f.Classes) > 0 && len(f.Classes) < c {
		// A scan with class names refuses other labels; statistics
		// from a file (FitStatsFile) were not scanned with these.
		return nil, fmt.Errorf("fit: %d class names (%s) for statistics of %d classes", len(f.Classes), strings.Join(f.Classes, ","), c)
	}
	rowsCounter.Inc(ctx, int64(m.N()))
	unlabelledCounter.Inc(ctx, int64(m.N()-m.LabeledN()))
	if f.Stats != "" {
		if err := writeFile(ctx, f.Stats, b); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// save writes the model file.
func (f *fitFn) save(ctx context.Context, fitted *method.Fitted) error {
	var buf bytes.Buffer
	meta := method.File{Method: f.Method, Params: f.Params, ClassNames: f.Classes, FeatureNames: f.Features, LIBSVMZeroBased: f.ZeroBased}
	if err := method.Save(&buf, meta, fitted); err != nil {
		return err
	}
	return writeFile(ctx, f.Model, buf.Bytes())
}

// writeDeadLetter writes the rows of bad, sorted by file and line, to
// path. The rows are a side input of a DoFn on an impulse: the runner
// computes all of them before it runs the DoFn, and the file is written
// (empty when no row is bad) whenever the pipeline succeeds.
func writeDeadLetter(s beam.Scope, bad beam.PCollection, path string) {
	beam.ParDo0(s, &deadLetterFn{Path: path}, beam.Impulse(s), beam.SideInput{Input: bad})
}

type deadLetterFn struct{ Path string }

func (f *deadLetterFn) ProcessElement(ctx context.Context, _ []byte, bad func(*BadRow) bool) error {
	var rows []BadRow
	var r BadRow
	for bad(&r) {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(a, b int) bool {
		if rows[a].File != rows[b].File {
			return rows[a].File < rows[b].File
		}
		return rows[a].Line < rows[b].Line
	})
	badCounter.Inc(ctx, int64(len(rows)))
	var buf bytes.Buffer
	for _, r := range rows {
		buf.WriteString(strings.ReplaceAll(r.Err, "\n", " "))
		buf.WriteByte('\n')
	}
	return writeFile(ctx, f.Path, buf.Bytes())
}

func init() {
	register.DoFn4x1[context.Context, Shard, func(Partial), func(BadRow), error](&statsFn{})
	register.Emitter1[Partial]()
	register.Emitter1[BadRow]()
	register.DoFn2x1[context.Context, []byte, error](&fitFn{})
	register.DoFn3x1[context.Context, []byte, func(*BadRow) bool, error](&deadLetterFn{})
	register.Iter1[BadRow]()
	beam.RegisterType(reflect.TypeOf(Shard{}))
	beam.RegisterType(reflect.TypeOf(BadRow{}))
}
