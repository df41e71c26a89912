package cli

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/internal/version"
	"github.com/dimred/dimred/preprocess"
	"github.com/dimred/dimred/reproduce"
)

const reproduceUsage = "reproduce [PAPER|EXPERIMENT …] [--experiment NAME] [--shared ../shared] [--data DIR] [--out DIR [--report-only]] [--quick] [--list] [--seed N] [--repeats N] [--datasets A,B] [-m A,B] [-p key=value]... [--scale SPEC] [--classifier LIST]"

// runReproduce runs experiments of reproduce.Experiments (papers or
// experiment names; all by default) and writes the report: into --out
// (report.md, csv/, figures, results/) or, without --out, the tables on
// stdout.
func runReproduce(e *env, args []string) error {
	fs := newFlags(e, "reproduce")
	shared := fs.String("shared", "../shared", "the shared directory (published tables; data below it unless --data)")
	dataDir := fs.String("data", "", "the data directory (default: SHARED/data)")
	out := fs.String("out", "", "report folder: report.md, csv/, PNG figures, results/ (each experiment's numbers, so later runs add to the report)")
	experiment := fs.String("experiment", "", "experiment names, comma-separated (see --list); adds to the positional papers/experiments")
	quick := fs.Bool("quick", false, "a representative slice of each experiment (a few sets, methods and repeats): minutes, not hours")
	reportOnly := fs.Bool("report-only", false, "run nothing: rewrite --out's report.md and csv/ from its saved results (after editing explanations or the report's layout)")
	list := fs.Bool("list", false, "list every experiment, the data it needs, whether it is present, and the expected run time")
	seed := fs.Uint64("seed", 0, "seed of folds, splits and samples (0: each experiment's published-run default)")
	sets := fs.String("datasets", "", "restrict every experiment to these data sets (paper names, comma-separated)")
	repeats := fs.Int("repeats", 0, "replace the papers' numbers of repeats or random splits (0: the paper's; the report says so)")
	methods := fs.String("m", "", "restrict every experiment to these methods (paper names, comma-separated)")
	scale := fs.String("scale", "", "preprocessing in place of the experiments' own where the paper leaves it open (seed 002 Table 2's rows, seeds 003-004's face rows): none, minmax, zscore, unit, pca:0.99 or a comma list; the report says where it was applied")
	classifiers := fs.String("classifier", "", "classifiers in place of the experiments' fixed ones, comma-separated as in eval -c: two for seed 000's table pairs, one for seed 002 Tables 3-4's SVM (still on [−1, 1]-scaled columns) and for the 1-NN of seed 001's Letter curves and seeds 003-004's tables; the published columns stay the paper's and the report says where it was applied")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value over the papers' settings, for every method that has it, or method.key=value (our method names, e.g. lda.norm=unit; seed 000's KLPP and LPP columns are sklpp and slpp); repeatable; the report lists them and any that matched no method of an experiment")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	names := append(pos, splitList(*experiment)...)
	exps, err := reproduce.Select(names)
	if err != nil {
		return usageError{err}
	}
	rc := &reproduce.RunContext{Context: e.ctx, Shared: *shared, Data: *dataDir, OutDir: *out, Quick: *quick, Seed: *seed, Repeats: *repeats,
		Datasets: splitList(*sets), Methods: splitList(*methods), Params: reproduce.NewOverrides(params), Scale: *scale}
	if *classifiers != "" {
		if rc.Classifiers, err = classify.ParseList(*classifiers); err != nil {
			return usageError{fmt.Errorf("--classifier: %w", err)}
		}
		if err := reproduce.CheckClassifiers(exps, len(rc.Classifiers)); err != nil {
			return usageError{err}
		}
	}
	if *scale != "" {
		if _, err := preprocess.Parse(*scale); err != nil {
			return usageError{fmt.Errorf("--scale: %w", err)}
		}
	}
	if err := rc.Params.Check(); err != nil {
		return usageError{err}
	}
	if *repeats < 0 {
		return usagef("--repeats: %d, want ≥ 0", *repeats)
	}
	if *list {
		return reproduce.WriteList(e.stdout, reproduce.Experiments(), rc.DataDir())
	}
	if _, err := os.Stat(*shared); err != nil {
		return fmt.Errorf("--shared %s: %w (the papers' tables and data live there)", *shared, err)
	}
	ex, err := reproduce.DefaultExplanations()
	if err != nil {
		return err
	}
	prog := e.newProgress("reproduce")
	rc.Progress = func(stage string) { prog.note("running %s", stage) }
	if *reportOnly {
		if *out == "" {
			return usagef("--report-only needs --out DIR (the report folder to rewrite)")
		}
		exps = nil
	}
	explicit := len(names) > 0
	var outs []*reproduce.Outcome
	for _, x := range exps {
		if x.Run == nil {
			if explicit && len(exps) == 1 {
				return fmt.Errorf("experiment %s cannot run here: %s", x.Name, x.NotRunnable)
			}
			prog.note("skipping %s: not runnable here (%s)", x.Name, x.NotRunnable)
			continue
		}
		if miss := x.Missing(rc.DataDir()); len(miss) > 0 {
			if explicit {
				return fmt.Errorf("experiment %s: data file %s is not in %s", x.Name, strings.Join(miss, ", "), rc.DataDir())
			}
			prog.note("skipping %s: %s not in %s", x.Name, strings.Join(miss, ", "), rc.DataDir())
			continue
		}
		rc.Progress(x.Name)
		o, err := reproduce.Execute(x, rc, version.String())
		if err != nil {
			if e.ctx.Err() != nil && *out != "" && len(outs) > 0 {
				return interruptedAfter{err, fmt.Sprintf("the results of the %d experiment(s) finished before it are saved in %s (report.md is not rewritten; --report-only rewrites it)", len(outs), reproduce.ResultsDir(*out))}
			}
			return err
		}
		if *out != "" {
			if err := reproduce.SaveOutcome(*out, o); err != nil {
				return err
			}
		}
		outs = append(outs, o)
	}
	for _, n := range filterNotes(rc.Datasets, rc.Methods, outs) {
		fmt.Fprintf(e.stderr, "dimred reproduce: note: %s\n", n)
	}
	meta := reproduce.ReportMeta{Command: "dimred " + strings.Join(append([]string{"reproduce"}, args...), " "), Version: version.String()}
	if *out == "" {
		return reproduce.WriteReportTo(e.stdout, outs, exps, ex, meta)
	}
	all, err := reproduce.LoadOutcomes(*out)
	if err != nil {
		return err
	}
	if len(all) == 0 && *reportOnly {
		return fmt.Errorf("--report-only: %s holds no saved results (%s/*.json): run experiments with --out %s first", *out, reproduce.ResultsDir(*out), *out)
	}
	if err := reproduce.WriteReport(*out, all, reproduce.Experiments(), ex, meta); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s/report.md (%d experiment%s)\n", *out, len(all), plural(len(all)))
	return nil
}

// filterNotes returns what a user of --datasets and -m should know after
// the run (outs): that the two together selected no cell; a name that
// matched no cell the experiments ran, with the names they did run (in
// the table column "dataset" or "method"); an experiment that does not
// take the filter (its cells outside it: seed 001's Letter figure
// compares AQMIDA with PCA and LDA whatever -m says).
func filterNotes(datasets, methods []string, outs []*reproduce.Outcome) []string {
	var notes []string
	ran, tables := 0, 0
	for _, o := range outs {
		tables += len(o.Tables)
		for _, t := range o.Tables {
			for _, c := range t.Cells {
				if c.Ran {
					ran++
				}
			}
		}
	}
	if ran == 0 && tables > 0 && (len(datasets) > 0 || len(methods) > 0) { // figures alone have no cells to select
		return []string{fmt.Sprintf("no table cell ran: %s left nothing to run in the experiments' tables", filterText(datasets, methods))}
	}
	for _, f := range []struct {
		flag, key string
		names     []string
	}{{"--datasets", "dataset", datasets}, {"-m", "method", methods}} {
		if len(f.names) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, n := range f.names {
			want[strings.ToLower(strings.TrimSpace(n))] = true
		}
		have := map[string]string{}
		for _, o := range outs {
			if len(o.Tables) > 0 && !slices.ContainsFunc(o.Tables, func(t reproduce.TableResult) bool { return slices.Contains(t.Keys, f.key) }) {
				notes = append(notes, fmt.Sprintf("%s does not apply to %s (its tables have no %s column)", f.flag, o.Experiment, f.key))
			}
			var outside []string
			for _, t := range o.Tables {
				for _, c := range t.Cells {
					v := t.Key(&c, f.key)
					if !c.Ran || v == "" {
						continue
					}
					have[strings.ToLower(v)] = v
					if !want[strings.ToLower(v)] && !slices.Contains(outside, v) {
						outside = append(outside, v)
					}
				}
			}
			if len(outside) > 0 {
				notes = append(notes, fmt.Sprintf("%s does not restrict %s, which ran %s too", f.flag, o.Experiment, strings.Join(outside, ", ")))
			}
		}
		var miss []string
		for _, n := range f.names {
			if _, ok := have[strings.ToLower(strings.TrimSpace(n))]; !ok {
				miss = append(miss, n)
			}
		}
		if len(miss) > 0 && len(have) > 0 {
			all := slices.Sorted(maps.Values(have))
			if len(all) > 30 {
				all = append(all[:30], "…")
			}
			notes = append(notes, fmt.Sprintf("%s %s matched no table cell of the experiments run (their %ss: %s)", f.flag, strings.Join(miss, ","), f.key, strings.Join(all, ", ")))
		}
	}
	return notes
}

// filterText names the filters given: "--datasets A and -m B".
func filterText(datasets, methods []string) string {
	var parts []string
	if len(datasets) > 0 {
		parts = append(parts, "--datasets "+strings.Join(datasets, ","))
	}
	if len(methods) > 0 {
		parts = append(parts, "-m "+strings.Join(methods, ","))
	}
	return strings.Join(parts, " and ")
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
