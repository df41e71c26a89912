// Command dimred-beam fits dimred models from statistics of sharded inputs
// and transforms sharded inputs, as Apache Beam pipelines: in-process on
// Beam's Go runner (Prism, the default), or on Flink, Spark or Dataflow
// through their portable runners (see docs/scale-out.md).
//
// Usage:
//
//	dimred-beam fit -i GLOB -m METHOD [-k K] [-p key=value ...] -o MODEL [--stats FILE] [--dead-letter FILE] [data flags] [Beam flags]
//	dimred-beam fit --from-stats FILE -m METHOD [-k K] [-p key=value ...] -o MODEL
//	dimred-beam transform -i GLOB --model MODEL -o DIR [-k K] [--format-out csv|npy] [--dead-letter FILE] [data flags] [Beam flags]
//	dimred-beam methods
//
// --log sets the runner's log (none by default); -h lists dimred's flags
// and --help-beam Beam's. The Beam flags are the SDK's pipeline options: --runner (prism, the
// default; universal for Flink and Spark job servers; dataflow), --endpoint,
// --environment_type, --environment_config, --job_name, ... and the
// runner-specific ones; they are passed to Beam as they are.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"

	dimredbeam "github.com/dimred/dimred/beam"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "-help") {
		fmt.Fprint(os.Stdout, usage)
		return
	}
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		// No command: Beam starts this binary with its flags alone as a
		// worker of a portable runner (beam.Init then runs the worker and
		// exits); otherwise it is a usage error.
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cleanup := func() {}
	if c, err := dimredbeam.PrivateTemp(); err == nil {
		// Ctrl-C or SIGTERM: the private temporary directory goes too.
		cleanup = c
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			cleanup()
			fmt.Fprintln(os.Stderr, "dimred-beam: interrupted; an output being written when it came may be incomplete")
			os.Exit(130)
		}()
	}
	err := run(os.Args[1], os.Args[2:], os.Stdout, os.Stderr)
	cleanup()
	var ue usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "dimred-beam: %v\n", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintf(os.Stderr, "dimred-beam: %s\n", runnerError(err))
		os.Exit(1)
	}
}

const usage = `usage:
  dimred-beam fit -i GLOB -m METHOD [-k K] [-p key=value ...] -o MODEL [--stats FILE] [--dead-letter FILE] [data flags] [Beam flags]
  dimred-beam fit --from-stats FILE -m METHOD [-k K] [-p key=value ...] -o MODEL
  dimred-beam transform -i GLOB --model MODEL -o DIR [-k K] [--format-out csv|npy] [--dead-letter FILE] [data flags] [Beam flags]
  dimred-beam methods
Run 'dimred-beam fit -h' for the flags; Beam's pipeline options (--runner, --endpoint, ...) are passed through.
`

// logLevels are the values of --log; none is above every level the SDK
// and Prism log at (their errors are returned by the run as well).
var logLevels = map[string]slog.Level{"none": slog.LevelError + 100, "error": slog.LevelError, "warn": slog.LevelWarn, "info": slog.LevelInfo, "debug": slog.LevelDebug}

// logLevel is the level of --log; logGiven says whether it was given.
var (
	logLevel = logLevels["none"]
	logGiven bool
)

// runnerError returns the message of a failed run: without --log, only
// the cause at the end of the runner's report (a DoFn's own error, after
// the stage's plan), which is what the user can act on.
func runnerError(err error) string {
	msg := err.Error()
	const failed = " failed:\n"
	if i := strings.LastIndex(msg, failed); i >= 0 && !logGiven && strings.Contains(msg, "caused by:") {
		return "the pipeline failed: " + strings.TrimSpace(msg[i+len(failed):]) + " (--log error prints the runner's report)"
	}
	return msg
}

type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// inputFlags are the flags of the sharded input.
type inputFlags struct {
	glob, labels, format, labelCol, sep, classes, drop, missing string
	unlabelled                                                  string
	noLabels, noHeader, zeroBased                               bool
	features, chunk                                             int
	deadLetter                                                  string
}

func addInputFlags(fs *flag.FlagSet) *inputFlags {
	f := &inputFlags{}
	fs.StringVar(&f.glob, "i", "", "input shards: a glob of CSV, TSV, LIBSVM or .npy (C order) files (optionally .gz), on any file system Beam knows")
	fs.StringVar(&f.labels, "shard-labels", "", "labels of .npy shards (--labels is Beam's job labels): a glob of one labels file per shard (.npy vector or text, one label per line), the one whose wildcards match the shard's (x-*.npy's x-7.npy: y-*.npy's y-7.npy)")
	fs.StringVar(&f.format, "format-in", "", "input format, overriding the extension: csv, tsv, libsvm, npy")
	fs.StringVar(&f.labelCol, "label-col", "", "CSV label column, by name or 1-based index (default: the column named label, labels, class, target or gnd, in any case, else the last)")
	fs.StringVar(&f.sep, "sep", "", "CSV field separator (default ',')")
	fs.StringVar(&f.classes, "classes", "", "class names in class order, comma-separated (default: the labels are the class indices 0, 1, ...)")
	fs.BoolVar(&f.noLabels, "no-labels", false, "the data has no labels")
	fs.StringVar(&f.unlabelled, "unlabelled", "", "a label that marks a row without a label, besides an empty one and ?: -1 for scikit-learn's semi-supervised convention")
	fs.BoolVar(&f.noHeader, "no-header", false, "the CSV shards have no header row")
	fs.IntVar(&f.features, "features", 0, "LIBSVM dimension (needed when a shard's first chunk lacks the last features)")
	fs.BoolVar(&f.zeroBased, "zero-based", false, "LIBSVM: indices start at 0 (scikit-learn's default)")
	fs.StringVar(&f.drop, "drop", "", "CSV/TSV columns to leave out (identifiers, names), comma-separated names or 1-based indices")
	fs.StringVar(&f.missing, "missing", "", "CSV/TSV rows with a missing value (empty, ?, NA, N/A, NaN, null): reject (default) or drop")
	fs.IntVar(&f.chunk, "chunk", dimredbeam.DefaultChunk, "rows read at once per shard")
	fs.StringVar(&f.deadLetter, "dead-letter", "", "write malformed rows (file:line: rule) to this file and leave them out, instead of failing")
	return f
}

func (f *inputFlags) input() (dimredbeam.Input, error) {
	if f.glob == "" {
		return dimredbeam.Input{}, usagef("-i GLOB is required")
	}
	if f.chunk < 1 {
		return dimredbeam.Input{}, usagef("--chunk must be ≥ 1, got %d", f.chunk)
	}
	opt := data.Options{Format: f.format, LabelColumn: f.labelCol, NoLabels: f.noLabels, NoHeader: f.noHeader, NumFeatures: f.features, ZeroBased: f.zeroBased, Missing: f.missing, Unlabelled: strings.TrimSpace(f.unlabelled)}
	if f.classes != "" {
		opt.Classes = strings.Split(f.classes, ",")
	}
	if f.drop != "" {
		opt.Drop = strings.Split(f.drop, ",")
	}
	switch f.missing {
	case "", "reject", "drop":
	default:
		return dimredbeam.Input{}, usagef("--missing %q: want reject or drop", f.missing)
	}
	if f.sep != "" {
		r := []rune(f.sep)
		if len(r) != 1 {
			return dimredbeam.Input{}, usagef("--sep must be one character, got %q", f.sep)
		}
		opt.Delimiter = r[0]
	}
	return dimredbeam.Input{Glob: f.glob, Labels: f.labels, Options: opt, Chunk: f.chunk}, nil
}

// newFlags returns a flag set for the command that also holds Beam's
// pipeline options (the flags the SDK registers on flag.CommandLine), and
// its help: dimred's flags, and Beam's named (there are dozens, most for
// one runner), which --help-beam lists in full.
func newFlags(cmd string, stdout io.Writer) (fs *flag.FlagSet, help func()) {
	fs = flag.NewFlagSet("dimred-beam "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are returned and printed once, by main
	beamFlags := map[string]bool{}
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
			beamFlags[f.Name] = true
		}
	})
	helpBeam := fs.Bool("help-beam", false, "list Beam's pipeline options")
	fs.Func("log", "the runner's log on stderr: none (the default: a failure's cause is the last line), error, warn, info or debug", func(v string) error {
		l, ok := logLevels[v]
		if !ok {
			return fmt.Errorf("want none, error, warn, info or debug")
		}
		logLevel, logGiven = l, true
		return nil
	})
	fs.Usage = func() {} // flag calls it on every parse error; help is printed by parseFlags
	help = func() {
		full := *helpBeam
		out := flag.NewFlagSet("", flag.ContinueOnError)
		out.SetOutput(stdout)
		fs.VisitAll(func(f *flag.Flag) {
			if beamFlags[f.Name] == full && f.Name != "help-beam" {
				out.Var(f.Value, f.Name, f.Usage)
			}
		})
		if full {
			fmt.Fprintf(stdout, "Beam's pipeline options, passed to Beam as they are (see docs/scale-out.md):\n")
			out.PrintDefaults()
			return
		}
		for _, l := range strings.Split(usage, "\n") {
			if strings.HasPrefix(l, "  dimred-beam "+cmd+" ") {
				fmt.Fprintf(stdout, "usage:%s\n", strings.TrimPrefix(l, " "))
			}
		}
		out.PrintDefaults()
		fmt.Fprintf(stdout, "\nBeam's pipeline options (%d: --runner prism|universal|dataflow, --endpoint, --environment_type, --job_name, ...) are passed to Beam; --help-beam lists them. See docs/scale-out.md.\n", len(beamFlags))
	}
	return fs, help
}

// parseInput parses the flags of a command and returns its input.
func parseInput(fs *flag.FlagSet, help func(), in *inputFlags, args []string) (dimredbeam.Input, error) {
	if err := parseFlags(fs, help, args); err != nil {
		return dimredbeam.Input{}, err
	}
	return in.input()
}

// parseFlags parses the flags of a command and starts Beam. -h and
// --help-beam print the help on stdout and return flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, help func(), args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) || (err == nil && fs.Lookup("help-beam").Value.String() == "true") {
		help()
		return flag.ErrHelp
	}
	if err != nil {
		return usagef("%v (run '%s -h' for the flags)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	beam.Init() // after the flags, as the SDK asks
	// Init set the SDK's logger (Prism's too, in this process) at level
	// info: the runner's progress and each failure's plan several times.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel})))
	return nil
}

func run(cmd string, args []string, stdout, stderr io.Writer) error {
	switch cmd {
	case "fit":
		return runFit(args, stdout, stderr)
	case "transform":
		return runTransform(args, stdout, stderr)
	case "methods":
		fmt.Fprintf(stdout, "methods fitted from statistics of shards: %s\n", strings.Join(dimredbeam.StatsMethods(), ", "))
		fmt.Fprintf(stdout, "kernel methods with -p space=nystrom (landmarks picked by a first pass): %s\n", strings.Join(dimredbeam.NystromMethods(), ", "))
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usagef("unknown command %q\n%s", cmd, usage)
}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs, help := newFlags("fit", stdout)
	in := addInputFlags(fs)
	name := fs.String("m", "", "method (see 'dimred-beam methods')")
	dims := fs.Int("k", 0, "output dimensions (0: the most the method gives)")
	out := fs.String("o", "", "model file to write")
	statsPath := fs.String("stats", "", "also write the merged statistics (binary) to this file (linear methods), which --from-stats fits again")
	fromStats := fs.String("from-stats", "", "fit from the statistics file of an earlier fit's --stats instead of shards (no -i): other methods or dimensions of the same rows")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value (repeatable; see 'dimred methods -v')")
	if err := parseFlags(fs, help, args); err != nil {
		return err
	}
	if *name == "" || *out == "" {
		return usagef("-m METHOD and -o MODEL are required")
	}
	kv, err := paramMap(params)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if *fromStats != "" {
		var shardFlags []string
		fs.Visit(func(f *flag.Flag) {
			if shardFlag[f.Name] {
				dash := "--"
				if len(f.Name) == 1 {
					dash = "-"
				}
				shardFlags = append(shardFlags, dash+f.Name)
			}
		})
		if len(shardFlags) > 0 {
			return usagef("--from-stats fits from the statistics alone: %s not taken with it (--classes names the classes)", strings.Join(shardFlags, ", "))
		}
		cfg := dimredbeam.FitConfig{Method: *name, Params: kv, Dims: *dims, Model: *out}
		if in.classes != "" {
			cfg.Options.Classes = strings.Split(in.classes, ",")
		}
		if err := dimredbeam.FitStatsFile(ctx, cfg, *fromStats); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "fitted %s from the statistics in %s%s; model written to %s\n", *name, *fromStats, dimsText(*out), *out)
		return nil
	}
	input, err := in.input()
	if err != nil {
		return err
	}
	cfg := dimredbeam.FitConfig{Input: input, Method: *name, Params: kv, Dims: *dims, Model: *out, Stats: *statsPath, DeadLetter: in.deadLetter}
	p, err := dimredbeam.FitPipeline(ctx, cfg)
	if err != nil {
		return err
	}
	of, err := runDescribed(ctx, p, input.Glob, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fitted %s from statistics of %s%s; model written to %s\n", *name, of, dimsText(*out), *out)
	return nil
}

// shardFlag are the flags about reading shards, which fit --from-stats
// does not take (it reads none).
var shardFlag = map[string]bool{"i": true, "shard-labels": true, "format-in": true, "label-col": true, "sep": true, "no-labels": true,
	"no-header": true, "features": true, "chunk": true, "dead-letter": true, "drop": true, "missing": true, "zero-based": true, "unlabelled": true, "stats": true}

// paramMap returns the -p flags as a map.
func paramMap(params []string) (map[string]string, error) {
	kv := map[string]string{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, usagef("-p %q: want key=value", p)
		}
		kv[k] = v
	}
	return kv, nil
}

// dimsText returns " → k dimensions" of the model file at path when it is
// a local file (else "").
func dimsText(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	_, m, err := method.Load(f, path)
	if err != nil {
		return ""
	}
	if m.Dims() == 1 {
		return " → 1 dimension"
	}
	return fmt.Sprintf(" → %d dimensions", m.Dims())
}

// runDescribed runs the pipeline p over the shards of glob and returns
// glob with what the run read ("part-*.csv (178 rows, …)"; rowsText),
// or glob alone when the runner reports no metrics. name is the method
// of a fit ("": a transform, whose unlabelled rows are not left out).
func runDescribed(ctx context.Context, p *beam.Pipeline, glob, name string) (string, error) {
	counts, err := dimredbeam.RunCounts(ctx, p)
	if err != nil || !counts.Known {
		return glob, err
	}
	if name == "" {
		counts.Unlabelled = 0
	}
	return fmt.Sprintf("%s (%s)", glob, rowsText(counts, name)), nil
}

// rowsText says how many rows a pipeline read: "178 rows", with the
// unlabelled ones (left out by a supervised method) unless no row has a
// label, and the malformed ones sent to the dead-letter file.
func rowsText(c dimredbeam.Counts, name string) string {
	s := fmt.Sprintf("%d rows", c.Rows)
	info, err := method.Lookup(name)
	supervised := err == nil && info.Supervised()
	if c.Unlabelled > 0 && (c.Unlabelled < c.Rows || supervised) {
		s += fmt.Sprintf(", of which %d unlabelled", c.Unlabelled)
		if supervised {
			s += " and left out"
		}
	}
	if c.Bad > 0 {
		s += fmt.Sprintf("; %d malformed rows left out, in the dead-letter file", c.Bad)
	}
	return s
}

func runTransform(args []string, stdout, stderr io.Writer) error {
	fs, help := newFlags("transform", stdout)
	in := addInputFlags(fs)
	model := fs.String("model", "", "model file (dimred-beam fit or dimred fit)")
	out := fs.String("o", "", "output directory: one file per input shard")
	format := fs.String("format-out", "csv", "output format: csv (label column first) or npy (the embedding; labels, if any, in NAME.labels.txt beside it)")
	dims := fs.Int("k", 0, "keep only the first k dimensions (0: all)")
	ignoreNames := fs.Bool("ignore-names", false, "take the CSV columns by position, without checking the header against the model's feature names")
	input, err := parseInput(fs, help, in, args)
	if err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return usagef("--model MODEL and -o DIR are required")
	}
	ctx := context.Background()
	cfg := dimredbeam.TransformConfig{Input: input, Model: *model, Output: *out, Format: *format, Dims: *dims, DeadLetter: in.deadLetter, IgnoreNames: *ignoreNames}
	p, err := dimredbeam.TransformPipeline(ctx, cfg)
	if err != nil {
		return err
	}
	var stale []string
	if !strings.Contains(*out, "://") { // a local directory
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if stale, err = cfg.Stale(ctx); err != nil {
			return err
		}
	}
	of, err := runDescribed(ctx, p, input.Glob, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "transformed %s with %s; output shards written to %s\n", of, *model, *out)
	if len(stale) > 0 {
		more := ""
		if len(stale) > 5 {
			more = fmt.Sprintf(" and %d more", len(stale)-5)
			stale = stale[:5]
		}
		fmt.Fprintf(stderr, "dimred-beam transform: %s also holds %s%s, which this run did not write (from an earlier run?)\n", *out, strings.Join(stale, ", "), more)
	}
	return nil
}
