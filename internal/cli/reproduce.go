package cli

import (
	"fmt"
	"os"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/reproduce"
)

func runReproduce(e *env, args []string) error {
	if len(args) > 0 && args[0] == "seed001" {
		return runReproduce001(e, args[1:])
	}
	if len(args) > 0 && args[0] == "seed004" {
		return runReproduce004(e, args[1:])
	}
	if len(args) > 0 && args[0] == "seed003" {
		return runReproduce003(e, args[1:])
	}
	if len(args) == 0 || args[0] != "seed000" {
		return usagef("which experiment? available: seed000 (Tables II-III, UCI sets, NCC and 3-NN; --tables IV-V: linear and RBF SVM), seed001 (Letter curves, ORL projections), seed004 (ORL, Extended Yale B, MNIST)")
	}
	fs := newFlags(e, "reproduce seed000")
	shared := fs.String("shared", "../shared", "the shared directory (data and published tables)")
	sets := fs.String("datasets", "", "paper data set names, comma-separated (default: every Table I row with a file)")
	methods := fs.String("m", "", "paper method columns, comma-separated, e.g. GDA,KPCA (default: every implemented one)")
	seed := fs.Uint64("seed", 0, "seed of the fold assignment")
	format := fs.String("format", "text", "text or markdown")
	allDims := fs.Bool("all-dims", false, "sweep every dimension a method gives (default: 1..d, as the paper's tables imply)")
	repeats := fs.Int("repeats", 1, "repeat the 10-fold CV with different fold assignments; report mean±std")
	tables := fs.String("tables", "II-III", "table pair: II-III (NCC, 3-NN) or IV-V (linear SVM, RBF SVM; C = 100, σ = 1)")
	classifiers := fs.String("c", "", "replace the table pair's two classifiers (e.g. svm-linear:C=100,svm-rbf:C=100,gamma=1); the published columns stay")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value or method.key=value (repeatable)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if _, err := os.Stat(*shared); err != nil {
		return fmt.Errorf("--shared %s: %w (the papers' tables and data live there)", *shared, err)
	}
	if _, err := reproduce.LookupSeed000Table(*tables); err != nil {
		return usageError{err}
	}
	opt := reproduce.Options{Shared: *shared, Datasets: splitList(*sets), Methods: splitList(*methods), Seed: *seed, AllDims: *allDims, Repeats: *repeats, Tables: *tables}
	if *classifiers != "" {
		cs, err := classify.ParseList(*classifiers)
		if err != nil {
			return usageError{err}
		}
		if len(cs) != 2 {
			return usagef("-c: %d classifiers, want 2 (one per table of the pair)", len(cs))
		}
		opt.Classifiers = cs
	}
	selected := reproduce.Seed000Selected(opt.Methods)
	routed, err := routeParams(params, selected)
	if err != nil {
		return err
	}
	for _, info := range selected {
		if _, err := newMethod(info.Name, routed[info.Name]); err != nil {
			return err
		}
	}
	opt.Params = func(name string) map[string]string { return routed[name] }
	if isTerminal(e.stderr) {
		opt.Progress = func(ds string) { fmt.Fprintf(e.stderr, "running %s...\n", ds) }
	}
	rows, err := reproduce.Seed000(opt)
	if err != nil {
		return err
	}
	return reproduce.WriteSeed000(e.stdout, rows, *format == "markdown" || *format == "md")
}

func runReproduce001(e *env, args []string) error {
	fs := newFlags(e, "reproduce seed001")
	shared := fs.String("shared", "../shared", "the shared directory (data)")
	out := fs.String("o", "", "directory for the PNG figures (none if empty)")
	rows := fs.Int("rows", 800, "rows of Letter, classes as even as possible")
	repeats := fs.Int("repeats", 10, "repeats of the 5-fold CV")
	seed := fs.Uint64("seed", 1, "seed of the Letter subset")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	r, err := reproduce.Seed001(reproduce.Seed001Options{Shared: *shared, OutDir: *out, Rows: *rows, Repeats: *repeats, Seed: *seed})
	if err != nil {
		return err
	}
	return reproduce.WriteSeed001(e.stdout, r)
}

func runReproduce004(e *env, args []string) error {
	fs := newFlags(e, "reproduce seed004")
	shared := fs.String("shared", "../shared", "the shared directory (data and published tables)")
	out := fs.String("o", "", "directory for the PNG figures (none if empty)")
	sets := fs.String("datasets", "ORL", "ORL and/or ExtendedYaleB (≈ 17 min on 2 cores)")
	methods := fs.String("m", "", "paper method names, e.g. KNDA,DNDA,PCA (default: all of Tables 1-2)")
	repeats := fs.Int("repeats", 10, "random splits")
	seed := fs.Uint64("seed", 1, "seed of the splits and of the MNIST sample")
	scale := fs.String("scale", "unit", "preprocessing fitted on each training split (the paper does not say)")
	mnist := fs.Bool("mnist", false, "also write the 2-D KNDA embedding of 100 MNIST digits per class (needs -o)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	opt := reproduce.Seed004Options{Shared: *shared, OutDir: *out, Sets: splitList(*sets), Methods: splitList(*methods),
		Repeats: *repeats, Seed: *seed, Scale: *scale, MNIST: *mnist}
	if isTerminal(e.stderr) {
		opt.Progress = func(s string) { fmt.Fprintf(e.stderr, "running %s...\n", s) }
	}
	rows, err := reproduce.Seed004(opt)
	if err != nil {
		return err
	}
	return reproduce.WriteSeed004(e.stdout, rows)
}
