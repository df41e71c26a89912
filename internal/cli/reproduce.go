package cli

import (
	"fmt"
	"os"
	"strconv"

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
	if len(args) > 0 && args[0] == "seed002" {
		return runReproduce002(e, args[1:])
	}
	if len(args) > 0 && args[0] == "seed003" {
		return runReproduce003(e, args[1:])
	}
	if len(args) == 0 || args[0] != "seed000" {
		return usagef("which experiment? available: seed000 (Tables II-III, UCI sets, NCC and 3-NN; --tables IV-V: linear and RBF SVM), seed001 (Letter curves, ORL projections), seed002 (Table 2 clustering, Tables 3-4 PIE and Yale B with SVM), seed003 (Table 1: MIE/BERE on Yale, ORL, PIE; Fig. 1), seed004 (ORL, Extended Yale B, MNIST)")
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
	opt.Progress = e.reproduceProgress()
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
	opt.Progress = e.reproduceProgress()
	rows, err := reproduce.Seed004(opt)
	if err != nil {
		return err
	}
	return reproduce.WriteSeed004(e.stdout, rows)
}

func runReproduce002(e *env, args []string) error {
	fs := newFlags(e, "reproduce seed002")
	shared := fs.String("shared", "../shared", "the shared directory (data and published tables)")
	tables := fs.String("tables", "2,3,4", "tables: 2 (clustering, UCI), 3 (PIE, supervised), 4 (Extended Yale B, semi-supervised); Table 4 takes ≈ 15 min on 2 cores")
	sets := fs.String("datasets", "", "Table 2 rows, comma-separated, e.g. Ionosphere,Digits 0689 (default: all)")
	methods := fs.String("m", "", "paper columns, comma-separated, e.g. SR,KSR,MKL-SR (default: all)")
	runs := fs.Int("runs", 20, "Table 2: clusterings per reduction (k-means seeds seed, seed+1, …)")
	kpcaDims := fs.Int("kpca-dims", 20, "Table 2: KPCA's dimensions tried (the best is reported, as the paper does)")
	repeats := fs.Int("repeats", 30, "Tables 3-4: random splits")
	perClass := fs.String("per-class", "5,10,20,30,40", "Tables 3-4: training images per person")
	seed := fs.Uint64("seed", 1, "seed of the splits and of the first k-means run")
	classifier := fs.String("c", "svm-linear:C=1", "Tables 3-4: the classifier on the reduced data (the paper's SVM is unspecified)")
	scale := fs.String("scale", "unit", "Table 2: preprocessing of the UCI rows, fitted on all rows (unit, minmax, zscore, …; the paper does not say)")
	sensitivity := fs.Bool("sensitivity", false, "also Table 2 under six normalized-cut graphs and SR graph sizes p = 7, 15")
	format := fs.String("format", "text", "text or markdown")
	if err := parse(fs, args); err != nil {
		return err
	}
	opt := reproduce.Seed002Options{Shared: *shared, Tables: splitList(*tables), Datasets: splitList(*sets), Methods: splitList(*methods),
		Runs: *runs, KPCADims: *kpcaDims, ClusterScale: *scale, Repeats: *repeats, Seed: *seed, Sensitivity: *sensitivity}
	for _, t := range opt.Tables {
		if t != "2" && t != "3" && t != "4" {
			return usagef("--tables: %q, want 2, 3 or 4", t)
		}
	}
	switch {
	case *runs < 1 || *repeats < 1 || *kpcaDims < 1:
		return usagef("--runs, --repeats and --kpca-dims must be ≥ 1, got %d, %d and %d", *runs, *repeats, *kpcaDims)
	}
	for _, s := range splitList(*perClass) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 2 {
			return usagef("--per-class: %q, want whole numbers ≥ 2", s)
		}
		opt.PerClass = append(opt.PerClass, v)
	}
	c, err := classify.Parse(*classifier)
	if err != nil {
		return usageError{err}
	}
	opt.Classifier = c
	if _, err := os.Stat(*shared); err != nil {
		return fmt.Errorf("--shared %s: %w (the papers' tables and data live there)", *shared, err)
	}
	opt.Progress = e.reproduceProgress()
	cells, err := reproduce.Seed002(opt)
	if err != nil {
		return err
	}
	if err := reproduce.WriteSeed002(e.stdout, cells, *format == "markdown" || *format == "md"); err != nil {
		return err
	}
	if !*sensitivity {
		return nil
	}
	rows, err := reproduce.Seed002Sensitivity(opt)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nTable 2 sensitivity: accuracy % (mean ± std over the runs) by normalized-cut graph")
	return reproduce.WriteSeed002Sensitivity(e.stdout, rows)
}

// reproduceProgress reports each stage of a reproduction on stderr
// (timestamped lines when stderr is not a terminal; nothing with --quiet).
func (e *env) reproduceProgress() func(string) {
	prog := e.newProgress("reproduce")
	return func(stage string) { prog.note("running %s", stage) }
}
