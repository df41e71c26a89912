// Package cli implements the dimred command line. Do is the whole program
// (main only calls it), so every command is tested in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dimred/dimred/internal/version"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/param"
	"github.com/dimred/dimred/preprocess"
)

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// ctx is cancelled by Ctrl-C (SIGINT) or SIGTERM: long commands stop
	// and write nothing.
	ctx context.Context
	// quiet (--quiet on any command) silences progress on stderr.
	quiet bool
	// now is the clock of progress lines (nil: time.Now).
	now func() time.Time
}

type command struct {
	name, usage, summary string
	run                  func(e *env, args []string) error
}

func commands() []command {
	return []command{
		{"methods", "methods [-v]", "list the methods (-v: with their parameters and defaults)", runMethods},
		{"fit", "fit -m METHOD -i DATA [-k DIMS] [-p key=value ...] [--scale SPEC] -o MODEL", "fit the preprocessing and a method and save them as one model file", runFit},
		{"transform", "transform --model MODEL -i DATA|- [-o OUT.csv|.tsv|.npy|.npz|.mat|.libsvm[.gz]|-] [-k DIMS] [--plot EMBEDDING.png]", "embed new rows with a saved model (its preprocessing first)", runTransform},
		{"info", infoUsage, "what a model file holds (method, parameters, preprocessing, classes, the map, its size, the values), or what dimred reads from a data file", runInfo},
		{"score", "score -i DATA [--model MODEL] [--sigma S] [--standardize=false]", "quadratic mutual information I_Q(Z;Y) of an embedding and its labels (seed 000 eq. 11-14)", runScore},
		{"cluster", clusterUsage, "normalized-cut clustering of a method's embedding: accuracy (seed 002 eq. 30) and NMI", runCluster},
		{"eval", "eval -i DATA -m m1,m2 -c ncc,knn3 [--cv 10 | --train-per-class NU --repeats R] [--seed N] [--scale minmax] [--nested [--inner-folds 5] [--grid key=v1,v2]...] [-j N] [--plot CURVES.png] [--quiet] [--format text|csv|json|markdown]", "error rate against output dimension under a paper's protocol", runEval},
		{"demo", "demo [-o DIR]", "run the methods on built-in data, print a comparison and write 2-D plots", runDemo},
		{"reproduce", reproduceUsage, "re-run the papers' tables and figures into a report beside the published numbers", runReproduce},
		{"convert", "convert -i DATA -o OUT.csv|.tsv|.npy|.npz|.mat|.libsvm[.gz]|- [--labels-out FILE]", "read a data file and write it in another format (by extension)", runConvert},
		{"datasets", "datasets", "list the built-in data sets (use as -i builtin:NAME)", runDatasets},
		{"bench", benchUsage, "time the performance workloads (--peer: beside NumPy/SciPy/scikit-learn)", runBench},
	}
}

// Do runs the dimred command line with args (without the program name) and
// returns the exit status: 0 on success, 1 on a failed run, 2 on a usage
// error, 130 when interrupted (Ctrl-C or SIGTERM: the command stops and
// writes no output).
func Do(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ctx, done := interruptible(sig, func() { signal.Stop(sig) }, stderr)
	defer done()
	return doContext(ctx, args, stdin, stdout, stderr)
}

// interruptible returns a context cancelled by the first signal on sig.
// That signal also calls release (signal.Stop), so that a second Ctrl-C
// gets the default behaviour and ends the process at once: a fit stops at
// its next check of the context, and one step of it (a dense
// eigen-decomposition at 10 000 rows) can take many minutes. done ends
// the watch and releases the signals.
func interruptible(sig <-chan os.Signal, release func(), stderr io.Writer) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-sig:
			release()
			fmt.Fprintln(stderr, "dimred: interrupted: stopping at the next check (some long steps finish first); Ctrl-C again to quit at once")
			cancel()
		case <-quit:
		}
	}()
	return ctx, func() {
		close(quit)
		<-finished
		release()
		cancel()
	}
}

// doContext is Do with the context that interrupts it.
func doContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "dimred: internal error: %v\nplease report this with the command line that caused it\n", r)
			status = 1
		}
	}()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	if len(args) > 1 && (args[0] == "--quiet" || args[0] == "-quiet") {
		// "Every command takes --quiet": before the command too (help
		// and version print nothing it would silence).
		args = args[1:]
		if args[0] != "help" && args[0] != "-h" && args[0] != "--help" && args[0] != "version" && args[0] != "--version" && args[0] != "-version" {
			args = append(args, "--quiet")
		}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) == 2 && args[0] == "help" {
			args = []string{args[1], "-h"} // help COMMAND
		} else {
			usage(stdout)
			if len(args) == 0 {
				return 2
			}
			return 0
		}
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, version.String())
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(e, args[1:])
			if err == nil {
				return 0
			}
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				var ia interruptedAfter
				if errors.As(err, &ia) {
					fmt.Fprintf(stderr, "dimred %s: interrupted; %s\n", c.name, ia.written)
				} else {
					fmt.Fprintf(stderr, "dimred %s: interrupted; no output written\n", c.name)
				}
				return 130
			}
			var ue usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(stderr, "dimred %s: %v\nusage: dimred %s\n", c.name, err, c.usage)
				return 2
			}
			fmt.Fprintf(stderr, "dimred %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "dimred: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// interruptedAfter is an interruption that came after a command had
// written part of its output (written says what): doContext names it
// instead of saying that nothing was written.
type interruptedAfter struct {
	err     error
	written string
}

func (e interruptedAfter) Error() string { return e.err.Error() }
func (e interruptedAfter) Unwrap() error { return e.err }

func usage(w io.Writer) {
	fmt.Fprintln(w, "dimred: supervised dimensionality reduction by graph embedding")
	fmt.Fprintln(w, "\nusage: dimred COMMAND [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, paperNames(c.summary))
	}
	fmt.Fprintln(w, "\nrun 'dimred COMMAND -h' (or 'dimred help COMMAND') for a command's description, examples and flags;")
	fmt.Fprintln(w, "'dimred --version' for the version. Every command takes --quiet (no progress on stderr).")
}

// usageError marks errors in the command line itself (exit status 2).
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// newFlags returns a flag set whose errors are returned (Do prints them
// with the usage line on stderr), and whose -h prints the command's help
// on stdout (printHelp; a command may set its own fs.Usage).
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.Usage = func() { printHelp(fs.Output(), fs) }
	fs.BoolVar(&e.quiet, "quiet", false, "no progress lines on stderr")
	return fs
}

// parse parses the flags of a command that takes no positional
// arguments; flags may follow a stray argument, which is then reported.
func parse(fs *flag.FlagSet, args []string) error {
	stray, err := parseArgs(fs, args)
	if err == nil && len(stray) > 0 {
		return usagef("unexpected argument %q: this command takes flags only", stray[0])
	}
	return err
}

// parseArgs parses flags anywhere among args and returns the other
// (positional) arguments in order.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	help := fs.Usage
	fs.Usage = func() {}
	out := fs.Output()
	fs.SetOutput(io.Discard)
	var stray []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(out)
			help()
			return nil, err
		}
		if err != nil {
			return nil, usageError{err}
		}
		if fs.NArg() == 0 {
			break
		}
		stray = append(stray, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return stray, nil
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// precomputedScale returns the preprocessing of a run of methods with
// parameters kvs, and whether one of them takes a precomputed kernel
// (-p space=precomputed): its input rows are a Gram matrix, which no
// scaling applies to (min-max scaling its columns made it unsymmetric,
// and the fit failed with "the Gram matrix is not symmetric"). The
// default --scale then becomes none, and any other --scale is an error.
// Every method of the run must then take the Gram matrix: another method
// would get its columns as features.
func precomputedScale(fs *flag.FlagSet, scale string, kvs []map[string]string) (string, bool, error) {
	pre := 0
	for _, kv := range kvs {
		if kv["space"] == "precomputed" {
			pre++
		}
	}
	switch {
	case pre == 0:
		return scale, false, nil
	case pre < len(kvs):
		return "", true, usagef("-p space=precomputed for %d of the %d methods: the input rows are a Gram matrix for every method or for none (the others would take its columns as features); run them apart", pre, len(kvs))
	}
	if flagGiven(fs, "scale") {
		if p, err := preprocess.Parse(scale); err != nil || len(p) > 0 {
			return "", true, usagef("--scale %s with -p space=precomputed: the input rows are a Gram matrix, whose columns are not features to scale; leave --scale out (none)", scale)
		}
	}
	return "none", true, nil
}

// multiFlag collects repeated -p key=value flags.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// routeParams splits the -p flags among the selected methods
// (method.Route); its errors are usage errors.
func routeParams(flags []string, selected []method.Info) (map[string]map[string]string, error) {
	return routeFlag("-p", flags, selected)
}

// routeFlag is routeParams for the key=value flags of option name (named
// in errors): -p, --grid.
func routeFlag(name string, flags []string, selected []method.Info) (map[string]map[string]string, error) {
	out, err := method.Route(name, flags, selected)
	if err != nil {
		return nil, usageError{err}
	}
	return out, nil
}

// newMethod builds a method from its routed parameters; a value that
// breaks a parameter's rule is a usage error naming the -p flag.
func newMethod(name string, kv map[string]string) (method.Method, error) {
	m, err := method.New(name, kv)
	var pe *param.Error
	if errors.As(err, &pe) {
		return nil, usagef("%s: -p %s=%s: %s", pe.Owner, pe.Name, pe.Value, pe.Reason())
	}
	if err != nil {
		return nil, usageError{err}
	}
	return m, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// forceFlag declares --force: run a fit whose memory estimate is above
// the memory available (announceFit, evalWorkers).
func forceFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("force", false, "run even when a fit's memory estimate is above the memory available (refused otherwise; the estimate errs high)")
}
