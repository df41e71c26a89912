package reproduce

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

// A published cell that does not parse is an error naming the file, the
// line, the column and the text; an empty cell (lost in the paper's text)
// is no published value.
func TestReadTableRejectsBadCell(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.tsv")
	if err := os.WriteFile(p, []byte("# title\ndataset\tmethod\terror_pct\tdim\nIris\tLDA\t2.00\t1\nWine\tLDA\t1,5\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadTable(p)
	if err == nil || !strings.Contains(err.Error(), p+":4") || !strings.Contains(err.Error(), "error_pct") || !strings.Contains(err.Error(), `"1,5"`) {
		t.Fatalf("bad cell: err = %v; want file:4, the column and the text", err)
	}
	if err := os.WriteFile(p, []byte("dataset\tmethod\terror_pct\tdim\nIris\tLDA\t\t\nWine\tLDA\t1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTable(p); err == nil || !strings.Contains(err.Error(), p+":3: column dim is missing") {
		t.Fatalf("short row: err = %v", err)
	}
	if err := os.WriteFile(p, []byte("dataset\tmethod\terror_pct\tdim\nIris\tLDA\t\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tab.Lookup("Iris", "LDA"); ok {
		t.Error("an empty published cell was found")
	}
}

// Every published file parses under the strict rules.
func TestReadTableAllPublished(t *testing.T) {
	sh := shared(t, "papers/tables/seed000_tableII_ncc.tsv")
	files, _ := filepath.Glob(filepath.Join(TablesDir(sh), "*.tsv"))
	if len(files) < 11 {
		t.Fatalf("%d published tables, want ≥ 11", len(files))
	}
	for _, f := range files {
		if _, err := ReadTable(f); err != nil {
			t.Error(err)
		}
	}
}

func TestExplanations(t *testing.T) {
	ex, err := DefaultExplanations()
	if err != nil {
		t.Fatal(err)
	}
	tab := &TableResult{Name: "seed000 Table II (NCC)", Metric: "error %", Keys: []string{"dataset", "method"}}
	c := newCell("Zoo", "PCA")
	c.Ran, c.Published, c.Ours, c.Paper = true, true, 5, 28.8
	if e, ok := ex.Explain("seed000-II-III", tab, &c); !ok || !strings.Contains(e.Text, "Zoo") || e.Cause != "data" {
		t.Errorf("Zoo better: %+v, %v", e, ok)
	}
	c.Ours = 40 // worse: the rule is for 'better' only
	if e, ok := ex.Explain("seed000-II-III", tab, &c); ok {
		t.Errorf("Zoo worse explained by %q", e)
	}
	if _, ok := ex.Explain("seed003-table1", tab, &c); ok {
		t.Error("a seed000 rule matched seed003")
	}
	for _, bad := range []struct{ text, want string }{
		{"a\tb\tc\n", "f:1: 3 tab-separated fields"},
		{"seed*\tdataset=x\tsideways\tdata\ttext\n", "f:1: side"},
		{"# c\nseed*\tdataset\tany\tdata\ttext\n", "f:2: condition"},
		{"seed*\tdataset=x\tany\tbad luck\ttext\n", `f:1: cause "bad luck"`},
	} {
		if _, err := ParseExplanations("f", bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.text, err, bad.want)
		}
	}
}

// NaN (no spread, no nested value) survives the JSON of a saved outcome.
func TestOutcomeJSON(t *testing.T) {
	c := newCell("Iris", "LDA")
	c.Ran, c.Ours, c.OursStd = true, 2, 0.5
	o := &Outcome{Experiment: "seed000-II-III", Tables: []TableResult{{Name: "x", Keys: []string{"dataset", "method"}, Cells: []Cell{c}}}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back Outcome
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Tables[0].Cells[0]
	if got.Ours != 2 || got.OursStd != 0.5 || !math.IsNaN(got.Nested) || !math.IsNaN(got.PaperStd) || !math.IsNaN(got.AtPaperDim) {
		t.Errorf("round trip: %+v", got)
	}
}

func TestSelect(t *testing.T) {
	all, err := Select(nil)
	if err != nil || len(all) != len(Experiments()) {
		t.Fatalf("Select(nil) = %d, %v", len(all), err)
	}
	s, err := Select([]string{"seed001", "seed001-orl", "seed004-mnist"})
	if err != nil || len(s) != 3 || s[0].Name != "seed001-letter" || s[2].Name != "seed004-mnist" {
		t.Fatalf("Select = %v, %v", names(s), err)
	}
	if _, err := Select([]string{"seed009"}); err == nil || !strings.Contains(err.Error(), `"seed009"`) {
		t.Errorf("unknown: %v", err)
	}
	seen := map[string]bool{}
	for _, e := range Experiments() {
		if seen[e.Name] {
			t.Errorf("experiment %s listed twice", e.Name)
		}
		seen[e.Name] = true
		if (e.Run == nil) == (e.NotRunnable == "") {
			t.Errorf("%s: a run or a reason it cannot run, not both or neither", e.Name)
		}
	}
}

func names(es []Experiment) []string {
	var n []string
	for _, e := range es {
		n = append(n, e.Name)
	}
	return n
}

// The quick run of every runnable experiment gives a report folder with
// the scorecard, every experiment's section, a CSV per table and the
// figures; a few stored values pin the numbers (each is our re-run of a
// published cell, fixed by the seed); a second run of an experiment gives
// the same numbers.
func TestQuickReport(t *testing.T) {
	if testing.Short() {
		t.Skip("the quick reproduction takes about 40 s")
	}
	sh := shared(t, "papers/tables/seed000_tableII_ncc.tsv", "data/uci/iris.arff", "data/faces/orl_32x32.csv.gz",
		"data/faces/yale_32x32.csv.gz", "data/faces/pie10_32x32.csv.gz", "data/faces/yaleb_32x32.csv.gz", "data/mnist/mnist10k.csv.gz",
		"data/uci/letter.arff", "data/uci/ionosphere.arff")
	out := t.TempDir()
	ex, err := DefaultExplanations()
	if err != nil {
		t.Fatal(err)
	}
	var outs []*Outcome
	for _, e := range Experiments() {
		if e.Run == nil {
			continue
		}
		o, err := Execute(e, &RunContext{Shared: sh, OutDir: out, Quick: true}, "test")
		if err != nil {
			t.Fatal(err)
		}
		if err := SaveOutcome(out, o); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, o)
	}
	loaded, err := LoadOutcomes(out)
	if err != nil || len(loaded) != len(outs) {
		t.Fatalf("LoadOutcomes: %d, %v; want %d", len(loaded), err, len(outs))
	}
	if err := WriteReport(out, loaded, Experiments(), ex, ReportMeta{Command: "dimred reproduce --quick", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	rep := string(b)
	for _, want := range []string{"## Scorecard", "## Findings", "| all papers |", "quick slice",
		"## seed004-table3 — ", "Not runnable here", "seed001_letter.png", "seed004_mnist_knda_2d.png", "seed003_fig1.png",
		"| Iris | LDA | 2.00 (2) | 2.67 | 2.00 ± 3.22 | 2.00 (1) | +0.00 |", // seed 000 Table II, NCC, with nested CV
		"| Wine | LQMI | 0.56 (2) | 0.56 |",
		"nested CV minus the minimum over dimensions",
		"AQMIDA has a lower error than LDA at dimensions",
		"KQMI with a ridge and GDA span the same subspace", // identities: a finding that holds
		"— holds on our runs",
		"Why the cells more than 3 points away are far",
		"| group | > 3 points | data | unstated | paper | spread | unexplained | ≤ 3 now | ≤ 3 among cells not set apart by data | ≤ 3 at most without the paper's data and corrected cells |",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, e := range Experiments() {
		if !strings.Contains(rep, "## "+e.Name+" — ") {
			t.Errorf("report.md has no section for %s", e.Name)
		}
	}
	for _, o := range outs {
		for _, tb := range o.Tables {
			p := filepath.Join(out, "csv", slug(tb.Name)+".csv")
			c, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				continue
			}
			if lines := strings.Count(string(c), "\n"); lines != len(tb.Cells)+1 {
				t.Errorf("%s: %d lines for %d cells", p, lines, len(tb.Cells))
			}
		}
		for _, f := range o.Figures {
			if st, err := os.Stat(filepath.Join(out, f.File)); err != nil || st.Size() < 1000 {
				t.Errorf("figure %s: %v", f.File, err)
			}
		}
	}
	// The same seed gives the same numbers.
	e, _ := Select([]string{"seed000-II-III"})
	again, err := Execute(e[0], &RunContext{Shared: sh, Quick: true}, "test")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(again.Tables)
	b0, _ := json.Marshal(outs[0].Tables)
	if !bytes.Equal(a, b0) {
		t.Error("a second quick run of seed000-II-III gave other numbers")
	}
}

// A table in the report: our value (dimension), ours at the paper's
// dimension, the paper's, the signed difference with two decimals, and a
// mark on exactly the cells more than 3 points away (2.99 and −3.02 are
// the boundary cases), better or worse by the table's metric; '—' where
// the paper has no cell. The scorecard counts the same cells.
// Every experiment stops on an interrupted context: run (quick) with a
// context already cancelled, each returns context.Canceled instead of an
// outcome — the evaluation protocols get the context and the loops that
// do not go through evaluate check it between fits (`dimred reproduce`
// cancels it on Ctrl-C or SIGTERM).
func TestExperimentsStopWhenCancelled(t *testing.T) {
	sh, ctx := everyExperimentCancelled(t)
	for _, e := range Experiments() {
		if e.Run == nil {
			continue
		}
		rc := &RunContext{Shared: sh, OutDir: t.TempDir(), Quick: true, Context: ctx}
		if o, err := e.run(rc); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled run returned %v (outcome %v), want context.Canceled", e.Name, err, o != nil)
		}
	}
}

func TestWriteTableMarkdown(t *testing.T) {
	tab := &TableResult{Name: "T", Metric: "error %", Keys: []string{"dataset", "method"}}
	add := func(ds, m string, ours float64, dim int, at float64, paper float64, pdim int, published bool) {
		c := newCell(ds, m)
		c.Ran, c.Ours, c.OursDim, c.AtPaperDim = true, ours, dim, at
		c.Published, c.Paper, c.PaperDim = published, paper, pdim
		tab.Cells = append(tab.Cells, c)
	}
	add("Iris", "LDA", 4.99, 2, 6, 2, 1, true)
	add("Wine", "PCA", 10, 5, 12.5, 4.5, 4, true)
	add("Zoo", "GDA", 1, 1, 2, 4.02, 2, true)
	add("Sonar", "GDA", 3, 3, math.NaN(), 0, 0, false)
	var b bytes.Buffer
	writeTableMarkdown(&b, "x", tab, nil)
	for _, want := range []string{
		"| dataset | method | ours | ours at paper's dim | paper | Δ |  |",
		"| Iris | LDA | 4.99 (2) | 6.00 | 2.00 (1) | +2.99 |  |",
		"| Wine | PCA | 10.00 (5) | 12.50 | 4.50 (4) | +5.50 | **worse**: unexplained |",
		"| Zoo | GDA | 1.00 (1) | 2.00 | 4.02 (2) | -3.02 | **better**: unexplained |",
		"| Sonar | GDA | 3.00 (3) | — | — |  |  |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	pp, _, total := Scorecard([]*Outcome{{Paper: "p", Tables: []TableResult{*tab}}}, nil)
	if len(pp) != 1 || total.Published != 3 || total.Compared != 3 || total.Within3 != 1 || total.Within5 != 2 || total.Better3 != 1 || total.Worse3 != 1 || total.Unexplained != 2 {
		t.Errorf("scorecard %+v", *total)
	}
	// With rules, the far cells count by cause, and the ceiling leaves
	// out the data and paper causes: 3 compared, 1 within 3, Wine's cell
	// (data) cannot be closed, Zoo's (unstated) can: at most 2 of 3.
	ex, err := ParseExplanations("f", "x\tdataset=Wine\tany\tdata\tother file\nx\tdataset=Zoo\tbetter\tunstated\ta choice\n")
	if err != nil {
		t.Fatal(err)
	}
	_, _, total = Scorecard([]*Outcome{{Experiment: "x", Paper: "p", Tables: []TableResult{*tab}}}, ex)
	if total.Explained != 2 || total.Unexplained != 0 || total.ByCause["data"] != 1 || total.ByCause["unstated"] != 1 {
		t.Errorf("scorecard by cause %+v", *total)
	}
	b.Reset()
	writeCauses(&b, []*Score{total})
	if want := "| all papers | 2 | 1 | 1 | 0 | 0 | 0 | 33 % | 50 % | 67 % |"; !strings.Contains(b.String(), want) {
		t.Errorf("causes table lacks %q:\n%s", want, b.String())
	}
}

// --classifier replaces an experiment's fixed classifiers: seed 003's
// Yale PCA cell under 3-NN equals the table protocol run directly with
// 3-NN (and differs from the 1-NN cell); the report's choices say so; an
// experiment with two classifiers refuses one; one without a fixed
// classifier says it was not applied.
func TestClassifierOverride(t *testing.T) {
	sh := shared(t, "papers/tables/seed003_table1_faces.tsv", "data/faces/yale_32x32.csv.gz", "papers/tables/seed000_tableII_ncc.tsv")
	exps, err := Select([]string{"seed003-table1", "seed000-II-III", "seed003-fig1"})
	if err != nil {
		t.Fatal(err)
	}
	pcaCell := func(o *Outcome) float64 {
		for _, c := range o.Tables[0].Cells {
			if c.Ran && strings.Join(c.Keys, "/") == "Yale/2/PCA" {
				return c.Ours
			}
		}
		t.Fatalf("no Yale/2/PCA cell in %+v", o.Tables[0].Keys)
		return 0
	}
	run := func(cs ...classify.Classifier) *Outcome {
		rc := &RunContext{Shared: sh, Quick: true, Datasets: []string{"Yale"}, Methods: []string{"PCA"}, Classifiers: cs}
		o, err := Execute(exps[0], rc, "test")
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	knn1, knn3 := run(), run(classify.KNN{K: 3})
	ds, err := data.Load(filepath.Join(sh, "data", "faces", "yale_32x32.csv.gz"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pca, err := method.New("pca", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The quick slice: ν = 2, 2 splits, dimensions 1..20, seed 1, unit rows.
	rep, err := perClassSplits(nil, ds, []evaluate.NamedMethod{{Name: "pca", Method: pca}}, classify.KNN{K: 3}, 2, "unit", 2, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := 100 * (1 - rep.Results[0].MinError)
	if got := pcaCell(knn3); math.Abs(got-want) > 1e-9 {
		t.Errorf("Yale ν = 2 PCA under --classifier knn3: %.4f %%, the protocol run directly with 3-NN %.4f %%", got, want)
	}
	if a, b := pcaCell(knn1), pcaCell(knn3); a == b {
		t.Errorf("1-NN and 3-NN cells are equal (%.4f %%): the override did not reach the protocol", a)
	}
	if !slices.ContainsFunc(knn3.Choices, func(s string) bool { return strings.Contains(s, "classifiers set to knn3 by --classifier") }) {
		t.Errorf("choices do not record the override: %q", knn3.Choices)
	}
	rc := &RunContext{Shared: sh, Quick: true, Datasets: []string{"Iris"}, Classifiers: []classify.Classifier{classify.KNN{K: 3}}}
	if _, err := Execute(exps[1], rc, "test"); err == nil || !strings.Contains(err.Error(), "scores with 2") {
		t.Errorf("seed000-II-III with one classifier: %v, want an error naming the two it takes", err)
	}
	o, err := Execute(exps[2], &RunContext{Shared: sh, Classifiers: []classify.Classifier{classify.KNN{K: 3}}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(o.Choices, func(s string) bool { return strings.Contains(s, "not applied") }) {
		t.Errorf("seed003-fig1 choices do not say the classifier was not applied: %q", o.Choices)
	}
}

// Every experiment declares the number of fixed classifiers its run takes
// (Experiment.Classifiers, checked by CheckClassifiers before anything
// runs): with one more the run refuses with the count error, with the
// declared number (or any number, for experiments without fixed
// classifiers) it gets as far as the cancelled context.
func TestExperimentClassifierCounts(t *testing.T) {
	sh, ctx := everyExperimentCancelled(t)
	knn := func(n int) []classify.Classifier {
		cs := make([]classify.Classifier, n)
		for i := range cs {
			cs[i] = classify.KNN{K: 3}
		}
		return cs
	}
	for _, e := range Experiments() {
		if e.Run == nil {
			continue
		}
		for _, n := range []int{e.Classifiers, e.Classifiers + 1} {
			if n == 0 {
				continue
			}
			rc := &RunContext{Shared: sh, OutDir: t.TempDir(), Quick: true, Context: ctx, Classifiers: knn(n)}
			_, err := e.run(rc)
			countErr := err != nil && strings.Contains(err.Error(), "--classifier gives")
			if want := e.Classifiers > 0 && n != e.Classifiers; countErr != want {
				t.Errorf("%s (declares %d) with %d classifiers: %v; want the count error: %v", e.Name, e.Classifiers, n, err, want)
			}
			if n == e.Classifiers && !errors.Is(err, context.Canceled) {
				t.Errorf("%s with its declared %d classifiers: %v; want it to reach the cancelled context", e.Name, n, err)
			}
			if checkErr := CheckClassifiers([]Experiment{e}, n); (checkErr != nil) != countErr {
				t.Errorf("%s with %d classifiers: CheckClassifiers says %v, the run %v", e.Name, n, checkErr, err)
			}
		}
	}
}

// everyExperimentCancelled returns ../shared, with the files every
// experiment's quick run reads checked, and a context already cancelled:
// runs given it stop before their first fit.
func everyExperimentCancelled(t *testing.T) (string, context.Context) {
	t.Helper()
	sh := shared(t, "papers/tables/seed000_tableII_ncc.tsv", "data/uci/iris.arff", "data/faces/orl_32x32.csv.gz",
		"data/faces/yale_32x32.csv.gz", "data/faces/pie10_32x32.csv.gz", "data/faces/yaleb_32x32.csv.gz", "data/mnist/mnist10k.csv.gz",
		"data/uci/letter.arff", "data/uci/ionosphere.arff")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return sh, ctx
}
