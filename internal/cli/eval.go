package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

func runEval(e *env, args []string) error {
	fs := newFlags(e, "eval")
	force := forceFlag(fs)
	df := addDataFlags(e, fs)
	methods := fs.String("m", "pca,lda,kpca,gda", "methods, comma-separated (see 'dimred methods')")
	classifiers := fs.String("c", "ncc,knn3", "classifiers, comma-separated: ncc, knnK (e.g. knn1, knn3), svm-linear, svm-rbf, SVMs with parameters after a colon (e.g. svm-rbf:C=100,sigma=1; see docs/classifiers.md)")
	cv := fs.Int("cv", 0, "stratified k-fold cross-validation with k folds (default 10 unless --train-per-class)")
	nu := fs.Int("train-per-class", 0, "random splits with this many training rows per class (faces protocol) instead of CV")
	repeats := fs.Int("repeats", 1, "number of repeated CV runs or random splits (mean and std reported)")
	seed := fs.Uint64("seed", 0, "seed of every random choice")
	scale := fs.String("scale", defaultScale, "preprocessing fitted on each training split: none, minmax, zscore, unit, pca:0.99, or a comma list (e.g. unit,pca:0.99)")
	maxDims := fs.Int("max-dims", defaultEvalDims, "evaluate dimensions 1..max-dims (0: all the method gives — n−1 for kernel PCA, which needs every eigenpair)")
	dimList := fs.String("dims", "", "evaluate only these dimensions, e.g. 2,5,10 or 1-10,20,50 (instead of --max-dims): methods that refit per dimension (MIE, BERE, MKL-SR) are fitted once per listed dimension, SVMs trained at the listed ones only")
	format := fs.String("format", "text", "output: text, csv, json or markdown")
	subsample := fs.Int("subsample", 0, "evaluate on this many rows drawn with the classes as even as possible (seeded by --subsample-seed)")
	subSeed := fs.Uint64("subsample-seed", 1, "seed of --subsample")
	jobs := fs.Int("j", 0, "fits run at once (0: one per CPU), lowered when the estimated memory of that many fits exceeds the available memory")
	var params, grid multiFlag
	fs.Var(&params, "p", "method parameter key=value for every method that has it, or method.key=value (repeatable)")
	nested := fs.Bool("nested", false, "nested CV: choose the dimension (and the --grid values) on inner folds of each training part and report the outer error beside the minimum over dimensions")
	innerFolds := fs.Int("inner-folds", evaluate.DefaultInnerFolds, "with --nested: stratified inner folds of each training part (every class needs this many training rows)")
	choose := fs.Bool("choose-classifier", false, "with --nested: the -c classifiers are candidates too, chosen with the dimension on the inner folds (e.g. -c knn1,knn3,knn5: k by cross-validation); one result per method")
	plotPath := fs.String("plot", "", "also draw the error against the dimension, one line per method and classifier (±1 std over --repeats), to this file: .png, .svg or .pdf")
	fs.Var(&grid, "grid", "with --nested: candidate values key=v1,v2,... (or method.key=v1,v2,...) chosen with the dimension on the inner folds; repeatable, the product of all is searched; routed as -p")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !*nested && (len(grid) > 0 || flagGiven(fs, "inner-folds") || *choose) {
		return usagef("--grid, --inner-folds and --choose-classifier need --nested")
	}
	if *nested && *plotPath != "" {
		return usagef("--plot draws the error curves of a run without --nested (nested CV reports one outer error per method, not a curve)")
	}
	if err := checkPlot(*plotPath, df.input, df.labels); err != nil {
		return err
	}
	if *innerFolds < 2 {
		return usagef("--inner-folds %d: want ≥ 2", *innerFolds)
	}
	if *cv != 0 && *nu != 0 {
		return usagef("--cv and --train-per-class exclude each other")
	}
	if *cv == 1 {
		return usagef("--cv must be ≥ 2 folds (or 0 for the default %d), got 1", evaluate.DefaultFolds)
	}
	for _, f := range []struct {
		flag     string
		v, least int
	}{{"--cv", *cv, 0}, {"--train-per-class", *nu, 0}, {"--repeats", *repeats, 1}, {"--max-dims", *maxDims, 0}, {"-j", *jobs, 0}, {"--subsample", *subsample, 0}} {
		if f.v < f.least {
			return usagef("%s must be ≥ %d, got %d", f.flag, f.least, f.v)
		}
	}
	if !validFormat(*format) {
		return usagef("--format %q: want one of %s", *format, strings.Join(evaluate.Formats, ", "))
	}
	proto := evaluate.Protocol{Preprocess: *scale, Folds: *cv, PerClass: *nu, Repeats: *repeats, Seed: *seed, MaxDims: *maxDims}
	if flagGiven(fs, "dims") {
		if flagGiven(fs, "max-dims") {
			return usagef("--dims and --max-dims exclude each other: the list names every dimension evaluated")
		}
		dims, err := evaluate.ParseDims(*dimList)
		if err != nil {
			return usagef("--dims: %v", err)
		}
		proto.Dims = dims
		proto.MaxDims = 0
	}
	names := splitList(*methods)
	if len(names) == 0 {
		return usagef("-m: no method given")
	}
	ms, kvs, err := buildMethods(names, params)
	if err != nil {
		return err
	}
	if proto.Preprocess, proto.Precomputed, err = precomputedScale(fs, *scale, kvs); err != nil {
		return err
	}
	for i, m := range ms {
		proto.Methods = append(proto.Methods, evaluate.NamedMethod{Name: names[i], Method: m})
	}
	cs, err := classify.ParseList(*classifiers)
	if err != nil {
		return usageError{err}
	}
	proto.Classifiers = cs
	var gps []evaluate.GridParam // checked before the data is read
	if *nested {
		if gps, err = gridParams(grid, names); err != nil {
			return err
		}
		if err := gridAgainstP(grid, params); err != nil {
			return err
		}
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	if ds.Y == nil {
		return df.errNoLabels("eval measures a classifier's error on them")
	}
	if *subsample > 0 {
		idx, err := evaluate.BalancedSubset(ds.Y, *subsample, *subSeed)
		if err != nil {
			return fmt.Errorf("--subsample: %w", err)
		}
		n0, _ := ds.Dims()
		ds = ds.Subset(idx)
		if proto.Precomputed {
			gramColumns(ds, idx, n0)
		}
	}
	prog := e.newProgress("eval")
	proto.Progress = func(done, total int) { prog.update(done, total, "fits") }
	proto.Step = prog.step
	proto.Context = e.ctx
	nopts := evaluate.NestedOptions{InnerFolds: *innerFolds, Grid: gps, ChooseClassifier: *choose}
	perSplit := len(proto.Methods)
	if *nested {
		if perSplit, err = nopts.FitsPerSplit(proto.Methods); err != nil {
			return usageError{err} // a --grid value or combination the method refuses
		}
	}
	if proto.Workers, err = evalWorkers(prog, e.stderr, *jobs, ds, &proto, kvs, perSplit, *force); err != nil {
		return err
	}
	if *nested {
		rep, err := evaluate.RunNested(ds, proto, nopts)
		var ge *evaluate.GridError
		if errors.As(err, &ge) {
			return usageError{err} // a --grid value or combination the method refuses
		}
		if err != nil {
			return err
		}
		var results []evaluate.Result // the dimensions reported: the minimum's and every fold's
		for _, r := range rep.Results {
			results = append(results, r.MinOverDims)
			for _, f := range r.Folds {
				results = append(results, evaluate.Result{Method: r.Method, Dims: f.Dims})
			}
		}
		names, dims := evaluatedDims(results)
		noteUnreachedDims(e, proto.Dims, names, dims, len(gps) > 0)
		return evaluate.WriteNested(e.stdout, rep, *format)
	}
	rep, err := evaluate.Run(ds, proto)
	if err != nil {
		return err
	}
	names, dims := evaluatedDims(rep.Results)
	noteUnreachedDims(e, proto.Dims, names, dims, false)
	if err := evaluate.Write(e.stdout, rep, *format); err != nil {
		return err
	}
	if *plotPath == "" {
		return nil
	}
	if err := plotCurves(*plotPath, ds.Name+": error against dimension", rep); err != nil {
		return err
	}
	fmt.Fprintf(e.progressLog(), "eval: curves written to %s\n", *plotPath)
	return nil
}

// noteUnreachedDims says on stderr which dimensions of --dims a method
// does not reach (3 for LDA on three classes): its dims column shows them
// missing, which is easy to miss. A fit that reaches none of them is
// evaluated at its largest dimension instead (evaluate.Protocol.Dims),
// which the note names. evaluated lists, per method in order, the
// dimension lists its results were evaluated at (nested CV: every
// fold's and the minimum over dimensions'); with grid, those are of the
// grid values chosen, which the note says.
func noteUnreachedDims(e *env, want []int, methods []string, evaluated map[string][][]int, grid bool) {
	if len(want) == 0 {
		return
	}
	for _, name := range methods {
		var missing []string
		for _, k := range want {
			if !slices.ContainsFunc(evaluated[name], func(l []int) bool { return slices.Contains(l, k) }) {
				missing = append(missing, strconv.Itoa(k))
			}
		}
		var instead []string // the largest dimensions of fits that reached none
		for _, l := range evaluated[name] {
			if d := strconv.Itoa(l[0]); len(l) == 1 && !slices.Contains(want, l[0]) && !slices.Contains(instead, d) {
				instead = append(instead, d)
			}
		}
		who := name
		if grid { // what is reported: the grid values chosen; others may reach the list
			who += " at the grid values chosen"
		}
		switch {
		case len(instead) > 0 && len(missing) == len(want):
			fmt.Fprintf(e.stderr, "eval: %s does not reach dimension %s of --dims (it gives %s); evaluated at %s instead\n", who, strings.Join(missing, ","), strings.Join(instead, ","), strings.Join(instead, ","))
		case len(instead) > 0:
			fmt.Fprintf(e.stderr, "eval: %s does not reach dimension %s of --dims with some grid values (they give %s); those are evaluated at %s\n", name, evaluate.DimsText(want), strings.Join(instead, ","), strings.Join(instead, ","))
		case len(missing) > 0:
			fmt.Fprintf(e.stderr, "eval: %s does not reach dimension %s of --dims (it gives fewer); not evaluated there\n", who, strings.Join(missing, ","))
		}
	}
}

// evaluatedDims returns, per method, the dimension lists of a report's
// results (noteUnreachedDims).
func evaluatedDims(results []evaluate.Result) ([]string, map[string][][]int) {
	var names []string
	m := map[string][][]int{}
	for _, r := range results {
		if _, seen := m[r.Method]; !seen {
			names = append(names, r.Method)
		}
		m[r.Method] = append(m[r.Method], r.Dims)
	}
	return names, m
}

// gridParams routes the --grid flags among the methods named on -m as -p
// is routed (key=… to every method that has key, method.key=… to one),
// keeping the keys in the order of their first --grid flag, which is the
// order of the search (the first key varies slowest).
func gridParams(flags []string, names []string) ([]evaluate.GridParam, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	infos := make([]method.Info, len(names))
	for i, n := range names {
		info, err := method.Lookup(n)
		if err != nil {
			return nil, usageError{err}
		}
		infos[i] = info
	}
	routed, err := routeFlag("--grid", flags, infos)
	if err != nil {
		return nil, err
	}
	var order []string
	for _, kv := range flags {
		k, _, _ := strings.Cut(kv, "=")
		if _, key, ok := strings.Cut(k, "."); ok {
			k = key
		}
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	var out []evaluate.GridParam
	for i, info := range infos {
		for _, k := range order {
			if v, ok := routed[info.Name][k]; ok {
				vs := splitList(v)
				if len(vs) == 0 {
					return nil, usagef("--grid %s=%s: no values; give key=v1,v2,...", k, v)
				}
				if k == "space" && slices.Contains(vs, "precomputed") {
					return nil, usagef("--grid space=%s: a precomputed kernel makes the input rows a Gram matrix, for every candidate or none; give -p space=precomputed", v)
				}
				out = append(out, evaluate.GridParam{Method: names[i], Key: k, Values: vs})
			}
		}
	}
	return out, nil
}

// gridAgainstP refuses a --grid flag and a -p flag that set one key (or
// sigma against gamma, which exclude each other) for the same methods: the
// grid's candidates would replace the -p value without a word. A grid
// flag scoped to one method (gda.sigma=…) over an unscoped -p flag of the
// same key (sigma=1) is fine: the scoped one wins for that method, as in
// -p (not over gamma=…, which -p refuses too).
func gridAgainstP(grid, params []string) error {
	split := func(flag string) (scope, key string) {
		k, _, _ := strings.Cut(flag, "=")
		if m, key, ok := strings.Cut(k, "."); ok {
			return strings.ToLower(m), key
		}
		return "", k
	}
	clash := func(a, b string) bool {
		return a == b || (a == "sigma" || a == "gamma") && (b == "sigma" || b == "gamma")
	}
	for _, g := range grid {
		gm, gk := split(g)
		for _, p := range params {
			pm, pk := split(p)
			// A scoped grid key over the same unscoped -p key wins for
			// its method, as in -p; sigma over gamma would not (they
			// exclude each other there too).
			if !clash(gk, pk) || gm != "" && (pm == "" && gk == pk || pm != "" && pm != gm) {
				continue
			}
			return usagef("--grid %s and -p %s both set %s: the grid's values would replace -p's; give the key in one of them (a --grid METHOD.key=… over a general -p key is fine)", g, p, pk)
		}
	}
	return nil
}

func validFormat(f string) bool {
	switch strings.ToLower(f) {
	case "text", "txt", "csv", "json", "markdown", "md":
		return true
	}
	return false
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultScale is the preprocessing fit and eval use unless --scale is
// given: min-max to [−1, 1] fitted on the training rows, so that one
// feature's unit cannot dominate distances and kernels.
const defaultScale = "minmax"

// defaultEvalDims caps the dimensions eval sweeps by default. Methods whose
// dimension is bounded by the classes (C−1) are unaffected; for the others
// (PCA, KPCA, the LPP family) the engine then computes only the leading
// pairs instead of every eigenpair of an n×n problem: with 10 000 rows,
// seconds instead of hours. The papers' tables use at most the input
// dimension, which the reproduction protocols pass explicitly.
const defaultEvalDims = 100
