// Command dimred-beam fits dimred models from statistics of sharded inputs
// and transforms sharded inputs, as Apache Beam pipelines: in-process on
// Beam's Go runner (Prism, the default), or on Flink, Spark or Dataflow
// through their portable runners (see docs/scale-out.md).
//
// Usage:
//
//	dimred-beam fit -i GLOB -m METHOD [-k K] [-p key=value ...] -o MODEL [--stats FILE] [--dead-letter FILE] [data flags] [Beam flags]
//	dimred-beam transform -i GLOB --model MODEL -o DIR [-k K] [--format-out csv|npy] [--dead-letter FILE] [data flags] [Beam flags]
//	dimred-beam methods
//
// The Beam flags are the SDK's pipeline options: --runner (prism, the
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
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "dimred-beam: %v\n", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintf(os.Stderr, "dimred-beam: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage:
  dimred-beam fit -i GLOB -m METHOD [-k K] [-p key=value ...] -o MODEL [--stats FILE] [--dead-letter FILE] [data flags] [Beam flags]
  dimred-beam transform -i GLOB --model MODEL -o DIR [-k K] [--format-out csv|npy] [--dead-letter FILE] [data flags] [Beam flags]
  dimred-beam methods
Run 'dimred-beam fit -h' for the flags; Beam's pipeline options (--runner, --endpoint, ...) are passed through.
`

type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// inputFlags are the flags of the sharded input.
type inputFlags struct {
	glob, labels, format, labelCol, sep, classes string
	noLabels, noHeader                           bool
	features, chunk                              int
	deadLetter                                   string
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
	fs.BoolVar(&f.noHeader, "no-header", false, "the CSV shards have no header row")
	fs.IntVar(&f.features, "features", 0, "LIBSVM dimension (needed when a shard's first chunk lacks the last features)")
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
	opt := data.Options{Format: f.format, LabelColumn: f.labelCol, NoLabels: f.noLabels, NoHeader: f.noHeader, NumFeatures: f.features}
	if f.classes != "" {
		opt.Classes = strings.Split(f.classes, ",")
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
// pipeline options (the flags the SDK registers on flag.CommandLine).
func newFlags(cmd string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("dimred-beam "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	return fs
}

// parseInput parses the flags of a command and returns its input.
func parseInput(fs *flag.FlagSet, in *inputFlags, args []string) (dimredbeam.Input, error) {
	if err := fs.Parse(args); err != nil {
		return dimredbeam.Input{}, usageError{err}
	}
	if fs.NArg() > 0 {
		return dimredbeam.Input{}, usagef("unexpected argument %q", fs.Arg(0))
	}
	beam.Init() // after the flags, as the SDK asks
	return in.input()
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
	fs := newFlags("fit", stderr)
	in := addInputFlags(fs)
	name := fs.String("m", "", "method (see 'dimred-beam methods')")
	dims := fs.Int("k", 0, "output dimensions (0: the most the method gives)")
	out := fs.String("o", "", "model file to write")
	statsPath := fs.String("stats", "", "also write the merged statistics (binary) to this file")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value (repeatable; see 'dimred methods -v')")
	input, err := parseInput(fs, in, args)
	if err != nil {
		return err
	}
	if *name == "" || *out == "" {
		return usagef("-m METHOD and -o MODEL are required")
	}
	kv := map[string]string{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return usagef("-p %q: want key=value", p)
		}
		kv[k] = v
	}
	ctx := context.Background()
	cfg := dimredbeam.FitConfig{Input: input, Method: *name, Params: kv, Dims: *dims, Model: *out, Stats: *statsPath, DeadLetter: in.deadLetter}
	p, err := dimredbeam.FitPipeline(ctx, cfg)
	if err != nil {
		return err
	}
	if err := dimredbeam.Run(ctx, p); err != nil {
		return err
	}
	f, err := os.Open(*out)
	if err == nil { // a local model file: report its dimensions
		defer f.Close()
		if _, m, err := method.Load(f, *out); err == nil {
			unit := "dimensions"
			if m.Dims() == 1 {
				unit = "dimension"
			}
			fmt.Fprintf(stdout, "fitted %s from statistics of %s → %d %s; model written to %s\n", *name, input.Glob, m.Dims(), unit, *out)
			return nil
		}
	}
	fmt.Fprintf(stdout, "fitted %s from statistics of %s; model written to %s\n", *name, input.Glob, *out)
	return nil
}

func runTransform(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("transform", stderr)
	in := addInputFlags(fs)
	model := fs.String("model", "", "model file (dimred-beam fit or dimred fit)")
	out := fs.String("o", "", "output directory: one file per input shard")
	format := fs.String("format-out", "csv", "output format: csv (label column first) or npy (the embedding; labels, if any, in NAME.labels.txt beside it)")
	dims := fs.Int("k", 0, "keep only the first k dimensions (0: all)")
	input, err := parseInput(fs, in, args)
	if err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return usagef("--model MODEL and -o DIR are required")
	}
	if !strings.Contains(*out, "://") { // a local directory
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	ctx := context.Background()
	p, err := dimredbeam.TransformPipeline(ctx, dimredbeam.TransformConfig{Input: input, Model: *model, Output: *out, Format: *format, Dims: *dims, DeadLetter: in.deadLetter})
	if err != nil {
		return err
	}
	if err := dimredbeam.Run(ctx, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "transformed %s with %s; output shards written to %s\n", input.Glob, *model, *out)
	return nil
}
