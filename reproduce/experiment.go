package reproduce

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dimred/dimred/classify"
)

// Experiment is one published table or figure of the five papers, as a
// value: the data it needs, the published table it sits beside, how long
// it takes, and the run that produces our numbers. Experiments are listed
// in Experiments; `dimred reproduce` runs any selection of them and writes
// one report (WriteReport).
type Experiment struct {
	// Name is unique, e.g. "seed000-II-III"; Paper is "seed000" …
	// "seed004".
	Name, Paper string
	// Title says what is reproduced ("Tables II (NCC) and III (3-NN): …").
	Title string
	// Data are the files it reads, below the data directory.
	Data []string
	// Published are the table files it sits beside, below
	// shared/papers/tables (none for a figure).
	Published []string
	// Minutes and QuickMinutes are measured wall times of the full and the
	// --quick run on this project's 2-core machine (0: not measured); the
	// quick ones from one run of them all on 2026-11-25 (18.7 s in all).
	Minutes, QuickMinutes float64
	// NotRunnable, when set, says why the experiment cannot run here (its
	// data is not in ../shared/data); Run is nil then.
	NotRunnable string
	// Classifiers is the number of fixed classifiers it scores with, the
	// ones RunContext.Classifiers (--classifier) replaces; 0: none. It is
	// the only place the count is written: Run asks the RunContext for
	// the replacements, which checks them against it.
	Classifiers int
	// Run computes our numbers; it is called through Execute (or run),
	// which gives the RunContext the experiment's classifier count.
	Run func(rc *RunContext) (*Outcome, error)
}

// RunContext is what an experiment's Run is given.
type RunContext struct {
	Context context.Context
	// Shared is ../shared (published tables); Data the data directory
	// (default Shared/data).
	Shared, Data string
	// OutDir receives figures (PNG); empty: no figures are drawn.
	OutDir string
	// Quick runs a representative slice (a few sets, methods, repeats).
	Quick bool
	// Seed seeds folds, splits and samples (0: each experiment's
	// published-run default).
	Seed uint64
	// Datasets and Methods restrict the run (paper names; empty: all).
	Datasets, Methods []string
	// Repeats, when > 0, replaces the paper's number of repeats or random
	// splits (the report's choices say so).
	Repeats int
	// Params are parameter settings over every experiment's own (dimred
	// reproduce -p; see Overrides); the report's choices list them.
	Params *Overrides
	// Scale, when set, replaces the preprocessing of the experiments whose
	// paper leaves it open (seed 002 Table 2's rows, seeds 003 and 004's
	// face rows; a preprocess spec such as "zscore" or "none"); the
	// report's choices say where it was applied and where not.
	Scale string
	// Classifiers, when set, replace the classifiers of the experiments
	// that score embeddings with fixed ones, in their order: seed 000's
	// table pairs (two: NCC and 3-NN, or the linear and RBF SVMs), seed
	// 002 Tables 3-4's SVM (one, still fitted on [−1, 1]-scaled columns),
	// the 1-NN of seed 001's Letter curves and of seeds 003 and 004's
	// tables (one). The published columns stay the paper's; the report's
	// choices say where they were applied and where not. Another count
	// than an experiment takes is an error.
	Classifiers []classify.Classifier
	Progress    func(string)

	scaleUsed, classifiersUsed bool
	// fixedClassifiers is the running experiment's Classifiers.
	fixedClassifiers int
}

func (rc *RunContext) progress(format string, args ...any) {
	if rc.Progress != nil {
		rc.Progress(fmt.Sprintf(format, args...))
	}
}

// DataDir is the data directory (Data, or Shared/data).
func (rc *RunContext) DataDir() string {
	if rc.Data != "" {
		return rc.Data
	}
	return filepath.Join(rc.Shared, "data")
}

// repeats is the --repeats override, or def.
func (rc *RunContext) repeats(def int) int {
	if rc.Repeats > 0 {
		return rc.Repeats
	}
	return def
}

// scale returns the preprocessing an experiment runs with: Scale if set
// (marking it applied), else def, the experiment's own.
func (rc *RunContext) scale(def string) string {
	if rc.Scale == "" {
		return def
	}
	rc.scaleUsed = true
	return rc.Scale
}

// CheckClassifiers reports, before anything runs, the experiments of exps
// that score with another number of fixed classifiers than the n given
// (--classifier); experiments without fixed classifiers accept any n
// and ignore them.
func CheckClassifiers(exps []Experiment, n int) error {
	if n == 0 {
		return nil
	}
	var bad []string
	for _, e := range exps {
		if e.Run != nil && e.Classifiers > 0 && e.Classifiers != n {
			bad = append(bad, fmt.Sprintf("%s takes %d", e.Name, e.Classifiers))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("--classifier gives %d classifier(s), but %s; run those experiments separately", n, strings.Join(bad, ", "))
	}
	return nil
}

// classifiers returns the --classifier replacement for the running
// experiment's fixed classifiers (what: which they are, for the error), or
// nil to keep its own. The count they must have is the experiment's
// Classifiers.
func (rc *RunContext) classifiers(what string) ([]classify.Classifier, error) {
	if len(rc.Classifiers) == 0 {
		return nil, nil
	}
	if n := rc.fixedClassifiers; len(rc.Classifiers) != n {
		return nil, fmt.Errorf("--classifier gives %d classifier(s) (%s); this experiment scores with %d (%s)", len(rc.Classifiers), classify.Names(rc.Classifiers), n, what)
	}
	rc.classifiersUsed = true
	return rc.Classifiers, nil
}

// classifier is classifiers for the experiments that score with one.
func (rc *RunContext) classifier(what string) (classify.Classifier, error) {
	if rc.fixedClassifiers != 1 {
		return nil, fmt.Errorf("internal error: an experiment declaring %d fixed classifiers asked for one (%s)", rc.fixedClassifiers, what)
	}
	cs, err := rc.classifiers(what)
	if err != nil || cs == nil {
		return nil, err
	}
	return cs[0], nil
}

func (rc *RunContext) seed(def uint64) uint64 {
	if rc.Seed != 0 {
		return rc.Seed
	}
	return def
}

// Outcome is the result of one experiment's run: our tables beside the
// published ones, the figures drawn, and every choice the papers leave
// open, as the report prints them. It is saved as JSON so that a report
// can be assembled from experiments run at different times.
type Outcome struct {
	Experiment string
	Paper      string
	Title      string
	Quick      bool
	Seed       uint64
	// Version is the dimred version that computed it.
	Version string
	// WallSeconds is the run's wall time on the machine that ran it.
	WallSeconds float64
	// Choices are the protocol's settings and the unstated choices made.
	Choices []string
	Tables  []TableResult
	Figures []Figure
	// Findings are conclusions drawn from the numbers by the run itself
	// (computed, never hand-written).
	Findings []string
	// DataFiles are the data files read, with their SHA-256.
	DataFiles []DataFile
}

// DataFile is a data file an experiment read, below the data directory.
type DataFile struct {
	Path   string
	SHA256 string
}

// Figure is a PNG an experiment drew, relative to the output directory.
type Figure struct {
	File, Caption string
}

// TableResult is one published table (or the part of it we can run) with
// our cells beside the published ones.
type TableResult struct {
	Name  string // e.g. "seed000 Table II (NCC)"
	File  string // the published file, below shared/papers/tables ("" if none)
	Title string // its first line
	// Metric is what the cells hold: "error %" or "accuracy %".
	Metric string
	// Keys name the cells' identifying columns, e.g. dataset, method.
	Keys  []string
	Cells []Cell
	// Pivot, when set, is the key whose values the report prints as
	// columns (a curve: one column per method).
	Pivot string `json:",omitempty"`
}

// LowerIsBetter says whether smaller values are better (error rates).
func (t *TableResult) LowerIsBetter() bool { return strings.HasPrefix(t.Metric, "error") }

// Cell is one published cell and ours. Values are percentages.
type Cell struct {
	Keys []string // values of TableResult.Keys
	// Ran: we computed this cell; otherwise Reason says why not.
	Ran    bool
	Reason string `json:",omitempty"`
	Ours   float64
	// OursStd is the spread over repeats or splits (NaN: none).
	OursStd float64
	OursDim int // the dimension of our value (0: not a dimension sweep)
	// AtPaperDim is our value at the paper's dimension (NaN: none).
	AtPaperDim float64
	// Nested is the outer error of nested CV (NaN: not run).
	Nested, NestedStd float64
	Published         bool
	Paper, PaperStd   float64 // PaperStd NaN: not published
	PaperDim          int
	// PaperNote is the published table's note on the cell (e.g.
	// "irregular").
	PaperNote string `json:",omitempty"`
}

// Diff is our value minus the paper's, in points.
func (c *Cell) Diff() float64 { return c.Ours - c.Paper }

// Comparable says whether the cell has both numbers.
func (c *Cell) Comparable() bool { return c.Ran && c.Published }

// Key returns the value of the key column name ("" if absent).
func (t *TableResult) Key(c *Cell, name string) string {
	if i := slices.Index(t.Keys, name); i >= 0 && i < len(c.Keys) {
		return c.Keys[i]
	}
	return ""
}

// MarshalJSON writes NaN as null (JSON has no NaN).
func (c Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	type out struct {
		plain
		OursStd, AtPaperDim, Nested, NestedStd, PaperStd *float64
	}
	f := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(out{plain(c), f(c.OursStd), f(c.AtPaperDim), f(c.Nested), f(c.NestedStd), f(c.PaperStd)})
}

// UnmarshalJSON reads null as NaN.
func (c *Cell) UnmarshalJSON(b []byte) error {
	type plain Cell
	var in struct {
		plain
		OursStd, AtPaperDim, Nested, NestedStd, PaperStd *float64
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*c = Cell(in.plain)
	g := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	c.OursStd, c.AtPaperDim, c.Nested, c.NestedStd, c.PaperStd = g(in.OursStd), g(in.AtPaperDim), g(in.Nested), g(in.NestedStd), g(in.PaperStd)
	return nil
}

// newCell returns a cell with the optional numbers unset.
func newCell(keys ...string) Cell {
	nan := math.NaN()
	return Cell{Keys: keys, OursStd: nan, AtPaperDim: nan, Nested: nan, NestedStd: nan, PaperStd: nan}
}

// Select returns the experiments named by names: a paper ("seed000"), an
// experiment name, or "all"; empty names select every experiment.
func Select(names []string) ([]Experiment, error) {
	all := Experiments()
	if len(names) == 0 {
		return all, nil
	}
	var out []Experiment
	for _, n := range names {
		n = strings.TrimSpace(n)
		found := false
		for _, e := range all {
			if n == "all" || strings.EqualFold(e.Name, n) || strings.EqualFold(e.Paper, n) {
				found = true
				if !slices.ContainsFunc(out, func(o Experiment) bool { return o.Name == e.Name }) {
					out = append(out, e)
				}
			}
		}
		if !found {
			var known []string
			for _, e := range all {
				known = append(known, e.Name)
			}
			return nil, fmt.Errorf("experiment %q: no such paper or experiment (papers seed000-seed004; experiments %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// Missing returns the data files of e absent from dataDir.
func (e *Experiment) Missing(dataDir string) []string {
	var miss []string
	for _, f := range e.Data {
		if _, err := os.Stat(filepath.Join(dataDir, f)); err != nil {
			miss = append(miss, f)
		}
	}
	return miss
}

// canceled returns ctx's error, or nil for a nil context: loops of the
// experiments that do not run through evaluate (whose Protocol.Context
// they set) check it between fits, so that an interrupted run stops soon.
func canceled(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// run calls e.Run with rc set up for e (its classifier count).
func (e Experiment) run(rc *RunContext) (*Outcome, error) {
	rc.fixedClassifiers = e.Classifiers
	return e.Run(rc)
}

// Execute runs e, times it and records the data files' checksums.
func Execute(e Experiment, rc *RunContext, version string) (*Outcome, error) {
	if e.Run == nil {
		return nil, fmt.Errorf("experiment %s cannot run here: %s", e.Name, e.NotRunnable)
	}
	if miss := e.Missing(rc.DataDir()); len(miss) > 0 {
		return nil, fmt.Errorf("experiment %s: data file %s is not in %s", e.Name, strings.Join(miss, ", "), rc.DataDir())
	}
	if rc.Context == nil {
		rc.Context = context.Background()
	}
	if rc.OutDir != "" {
		if err := os.MkdirAll(rc.OutDir, 0o755); err != nil {
			return nil, err
		}
	}
	rc.Params.Reset()
	rc.scaleUsed, rc.classifiersUsed = false, false
	start := time.Now()
	o, err := e.run(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name, err)
	}
	if err := rc.Context.Err(); err != nil {
		return nil, err
	}
	o.Experiment, o.Paper, o.Title, o.Quick, o.Version = e.Name, e.Paper, e.Title, rc.Quick, version
	if rc.Repeats > 0 {
		o.Choices = append(o.Choices, fmt.Sprintf("repeats / random splits set to %d by --repeats (not the paper's number)", rc.Repeats))
	}
	switch {
	case rc.Scale != "" && rc.scaleUsed:
		o.Choices = append(o.Choices, fmt.Sprintf("preprocessing set to %q by --scale, in place of the one listed above", rc.Scale))
	case rc.Scale != "":
		o.Choices = append(o.Choices, fmt.Sprintf("--scale %q not applied: this experiment has no preprocessing setting it replaces", rc.Scale))
	}
	switch {
	case len(rc.Classifiers) > 0 && rc.classifiersUsed:
		o.Choices = append(o.Choices, fmt.Sprintf("classifiers set to %s by --classifier, in place of the ones listed above (the published columns are the paper's classifiers')", classify.Names(rc.Classifiers)))
	case len(rc.Classifiers) > 0:
		o.Choices = append(o.Choices, fmt.Sprintf("--classifier %s not applied: this experiment has no fixed classifier it replaces", classify.Names(rc.Classifiers)))
	}
	if rc.Params != nil {
		line := fmt.Sprintf("method parameters set on the command line, over the paper's: -p %s", strings.Join(rc.Params.Settings, " -p "))
		if unused := rc.Params.Unused(); len(unused) > 0 {
			line += fmt.Sprintf("; matched no method of this experiment: -p %s", strings.Join(unused, " -p "))
		}
		o.Choices = append(o.Choices, line)
	}
	o.WallSeconds = time.Since(start).Seconds()
	files := e.Data
	if rc.Quick || len(rc.Datasets) > 0 {
		files = readFiles(files, o)
	}
	for _, f := range files {
		sum, err := fileSHA256(filepath.Join(rc.DataDir(), f))
		if err != nil {
			return nil, err
		}
		o.DataFiles = append(o.DataFiles, DataFile{Path: f, SHA256: sum})
	}
	return o, nil
}

// readFiles returns the data files of an experiment that a --quick or
// --datasets run read: those whose name holds the name of a data set of
// a cell that ran ("uci/wine.arff" for Wine), so that the report does not
// list sixteen files for the two read; all of them unless every data set
// that ran has a file so named (figures, names that differ from files).
func readFiles(files []string, o *Outcome) []string {
	var sets []string
	for _, t := range o.Tables {
		for _, c := range t.Cells {
			if ds := strings.ToLower(t.Key(&c, "dataset")); c.Ran && ds != "" && !slices.Contains(sets, ds) {
				sets = append(sets, ds)
			}
		}
	}
	var read []string
	for _, ds := range sets {
		n := len(read)
		for _, f := range files {
			if strings.Contains(strings.ToLower(filepath.Base(f)), ds) && !slices.Contains(read, f) {
				read = append(read, f)
			}
		}
		if len(read) == n {
			return files // a data set without a file of its name
		}
	}
	if len(read) == 0 {
		return files
	}
	return read
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ResultsDir is where a report folder keeps each experiment's Outcome.
func ResultsDir(out string) string { return filepath.Join(out, "results") }

// SaveOutcome writes o as results/<experiment>.json below out.
func SaveOutcome(out string, o *Outcome) error {
	dir := ResultsDir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(o, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+o.Experiment+".json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, o.Experiment+".json"))
}

// LoadOutcomes reads every saved Outcome below out, in the order of
// Experiments; unknown or unreadable files are errors naming the file.
func LoadOutcomes(out string) ([]*Outcome, error) {
	var res []*Outcome
	for _, e := range Experiments() {
		p := filepath.Join(ResultsDir(out), e.Name+".json")
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var o Outcome
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if o.Experiment != e.Name {
			return nil, fmt.Errorf("%s: holds experiment %q", p, o.Experiment)
		}
		res = append(res, &o)
	}
	return res, nil
}
