package reproduce

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dimred/dimred/classify"
)

// ReportMeta is what the report says about the run that produced it.
type ReportMeta struct {
	// Command is the command line that regenerates the report.
	Command string
	// Version is dimred's version string.
	Version string
	// noFolder: the report goes to a stream (WriteReportTo), not a folder.
	noFolder bool
}

// Score counts the comparable cells of a group by |ours − paper| in
// points, and which side is better by more than 3 points.
type Score struct {
	Group                                   string
	Published, Compared, NotRun             int
	Within1, Within3, Within5               int
	Better3, Worse3, Explained, Unexplained int
	// ByCause counts the explained far cells by Reason.Cause.
	ByCause map[string]int
}

func (s *Score) add(t *TableResult, c *Cell, r Reason, explained bool) {
	if !c.Published {
		return
	}
	s.Published++
	if !c.Ran {
		s.NotRun++
		return
	}
	s.Compared++
	d := math.Abs(c.Diff())
	if d <= 1 {
		s.Within1++
	}
	if d <= 3 {
		s.Within3++
	}
	if d <= 5 {
		s.Within5++
	}
	if d > 3 {
		if better(t, c) {
			s.Better3++
		} else {
			s.Worse3++
		}
		if explained {
			s.Explained++
			if s.ByCause == nil {
				s.ByCause = map[string]int{}
			}
			s.ByCause[r.Cause]++
		} else {
			s.Unexplained++
		}
	}
}

// better says whether our value beats the paper's.
func better(t *TableResult, c *Cell) bool {
	if t.LowerIsBetter() {
		return c.Ours < c.Paper
	}
	return c.Ours > c.Paper
}

// Scorecard returns the scores per paper and per (paper, method), in
// first-seen order, and the total.
func Scorecard(outs []*Outcome, ex *Explanations) (perPaper, perMethod []*Score, total *Score) {
	total = &Score{Group: "all papers"}
	idx := map[string]*Score{}
	get := func(list *[]*Score, key string) *Score {
		if s, ok := idx[key]; ok {
			return s
		}
		s := &Score{Group: key}
		idx[key] = s
		*list = append(*list, s)
		return s
	}
	for _, o := range outs {
		for ti := range o.Tables {
			t := &o.Tables[ti]
			for ci := range t.Cells {
				c := &t.Cells[ci]
				r, explained := ex.Explain(o.Experiment, t, c)
				total.add(t, c, r, explained)
				get(&perPaper, o.Paper).add(t, c, r, explained)
				if m := t.Key(c, "method"); m != "" {
					get(&perMethod, o.Paper+" "+m).add(t, c, r, explained)
				}
			}
		}
	}
	return perPaper, perMethod, total
}

// WriteReport writes the report folder dir: report.md, one CSV per table
// below csv/, beside the figures the experiments drew and their saved
// outcomes (results/). experiments are every experiment (to list those
// not run and those that cannot run).
func WriteReport(dir string, outs []*Outcome, experiments []Experiment, ex *Explanations, meta ReportMeta) error {
	if err := os.MkdirAll(filepath.Join(dir, "csv"), 0o755); err != nil {
		return err
	}
	for _, o := range outs {
		for ti := range o.Tables {
			t := &o.Tables[ti]
			var b bytes.Buffer
			if err := WriteTableCSV(&b, o.Experiment, t, ex); err != nil {
				return err
			}
			if err := writeFileAtomic(filepath.Join(dir, "csv", slug(t.Name)+".csv"), b.Bytes()); err != nil {
				return err
			}
		}
	}
	var b bytes.Buffer
	writeReportMarkdown(&b, outs, experiments, ex, meta)
	return writeFileAtomic(filepath.Join(dir, "report.md"), b.Bytes())
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// slug makes a file name of a table name.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// angles reports whether the table's values are angles (the subspace
// identities: identities hold when they are near 0 rad), not error or
// accuracy percentages.
func (t *TableResult) angles() bool { return strings.Contains(t.Metric, "angle") }

// WriteTableCSV writes one table: its keys, our value, spread and
// dimension, our value at the paper's dimension, nested CV, the paper's
// value, spread and dimension, the difference and its explanation.
func WriteTableCSV(w io.Writer, experiment string, t *TableResult, ex *Explanations) error {
	cw := csv.NewWriter(w)
	head := append(append([]string{}, t.Keys...), "ours", "ours_std", "ours_dim", "ours_at_paper_dim", "nested", "nested_std",
		"paper", "paper_std", "paper_dim", "diff", "status", "explanation")
	if err := cw.Write(head); err != nil {
		return err
	}
	for ci := range t.Cells {
		c := &t.Cells[ci]
		rec := append([]string{}, c.Keys...)
		num := func(v float64, ok bool) string {
			if !ok || math.IsNaN(v) {
				return ""
			}
			if t.angles() { // 1e-12 rad is the finding; four decimals print 0.0000
				return strconv.FormatFloat(v, 'g', 3, 64)
			}
			return strconv.FormatFloat(v, 'f', 4, 64)
		}
		dim := func(d int) string {
			if d <= 0 {
				return ""
			}
			return strconv.Itoa(d)
		}
		status, expl := cellStatus(experiment, t, c, ex)
		rec = append(rec, num(c.Ours, c.Ran), num(c.OursStd, c.Ran), dim(c.OursDim), num(c.AtPaperDim, true),
			num(c.Nested, true), num(c.NestedStd, true),
			num(c.Paper, c.Published), num(c.PaperStd, c.Published), dim(c.PaperDim), num(c.Diff(), c.Comparable()), status, expl)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellStatus classifies a cell (within 1/3 points, far, not run, ours
// only) and gives its explanation.
func cellStatus(experiment string, t *TableResult, c *Cell, ex *Explanations) (string, string) {
	switch {
	case !c.Ran:
		return "not run", c.Reason
	case !c.Published:
		return "ours only", ""
	}
	d := math.Abs(c.Diff())
	switch {
	case d <= 1:
		return "within 1", ""
	case d <= 3:
		return "within 3", ""
	}
	e, ok := ex.Explain(experiment, t, c)
	side := "worse"
	if better(t, c) {
		side = "better"
	}
	if !ok {
		return "far, " + side, "unexplained"
	}
	return "far, " + side, e.Text
}

// WriteReportTo writes the report's markdown (tables, scorecard,
// findings; figures as links) to w.
func WriteReportTo(w io.Writer, outs []*Outcome, experiments []Experiment, ex *Explanations, meta ReportMeta) error {
	meta.noFolder = true
	writeReportMarkdown(w, outs, experiments, ex, meta)
	return nil
}

func writeReportMarkdown(w io.Writer, outs []*Outcome, experiments []Experiment, ex *Explanations, meta ReportMeta) {
	fmt.Fprintf(w, "# Reproduction report\n\n")
	if meta.noFolder {
		fmt.Fprintf(w, "Written by `%s` (%s); the published numbers are read at run time from `../shared/papers/tables/`. ", meta.Command, meta.Version)
		fmt.Fprintf(w, "With `--out DIR` the report, its CSV tables, figures and each experiment's numbers (`results/`) go to a folder, to which later runs add.\n\n")
	} else {
		fmt.Fprintf(w, "Last written by `%s` (%s); this folder is only written by `dimred reproduce`, never edited by hand, and a run of some experiments keeps the others' saved numbers; ", meta.Command, meta.Version)
		fmt.Fprintf(w, "the published numbers are read at run time from `../shared/papers/tables/`. ")
		fmt.Fprintf(w, "Each experiment's numbers are kept in `results/`; `dimred reproduce all --out DIR` re-runs them all, `--experiment NAME` one, `--report-only` rewrites this file from `results/`.\n\n")
	}
	wall, quick := 0.0, false
	for _, o := range outs {
		wall += o.WallSeconds
		quick = quick || o.Quick
	}
	fmt.Fprintf(w, "Experiments in this report: %d of %d; their summed wall time on the machine that ran them: %s.", len(outs), len(experiments), duration(wall))
	if quick {
		fmt.Fprintf(w, " **Some experiments ran with --quick (a reduced slice): their numbers are not the full protocol.**")
	}
	fmt.Fprintf(w, "\n\nIn every table, Δ is ours − paper in points; a cell more than 3 points away carries a one-line explanation (or says *unexplained*). ")
	fmt.Fprintf(w, "Error tables: lower is better; accuracy tables: higher is better. ")
	fmt.Fprintf(w, "NCC and k-NN count distances within %s of the coordinates' size as tied and give such ties to the lowest label or training row (docs/classifiers.md, \"Ties\"), so such a tie, between points that coincide in exact arithmetic, is not decided by the last bits of a build (the pure-Go and OpenBLAS builds give every number of seed 000's Tables II-III and VII-VIII identically).\n\n",
		strings.Replace(fmt.Sprintf("%g", classify.TieTolerance), "e-0", "e-", 1))

	perPaper, perMethod, total := Scorecard(outs, ex)
	fmt.Fprintf(w, "## Scorecard\n\n")
	if total.Published == 0 {
		fmt.Fprintf(w, "No published cells in this report.\n\n")
	}
	if total.Published > 0 {
		writeScores(w, append(perPaper, total))
		fmt.Fprintf(w, "\nWhy the cells more than 3 points away are far (the cause of each cell's explanation; *data*: our file is not the paper's version of the data set, or (Zoo, Ecoli) a plain baseline on it beats every published cell of the set, so the paper's numbers cannot be reached from it; *paper*: the published cell contradicts the paper's own numbers or text, or rests on a protocol we do not repeat; *unstated*: a choice the paper leaves open, measured to move the cell; *spread*: within the measured spread of an unstated random choice):\n\n")
		writeCauses(w, append(perPaper, total))
		fmt.Fprintf(w, "\n<details><summary>Per method</summary>\n\n")
		writeScores(w, perMethod)
		fmt.Fprintf(w, "\n</details>\n\n")
	}

	fmt.Fprintf(w, "## Findings\n\n")
	for _, o := range outs {
		for _, f := range o.Findings {
			fmt.Fprintf(w, "- %s: %s\n", o.Experiment, f)
		}
		for ti := range o.Tables {
			if f := rankFinding(&o.Tables[ti]); f != "" {
				fmt.Fprintf(w, "- %s\n", f)
			}
		}
	}
	fmt.Fprintln(w)

	ran := map[string]*Outcome{}
	for _, o := range outs {
		ran[o.Experiment] = o
	}
	for _, e := range experiments {
		o := ran[e.Name]
		fmt.Fprintf(w, "## %s — %s\n\n", e.Name, e.Title)
		switch {
		case e.NotRunnable != "":
			fmt.Fprintf(w, "Not runnable here: %s.\n\n", e.NotRunnable)
			continue
		case o == nil:
			fmt.Fprintf(w, "Not in this report (run `dimred reproduce --experiment %s --out DIR`; expected %s).\n\n", e.Name, minutes(e.Minutes))
			continue
		}
		q := ""
		if o.Quick {
			q = " — **quick slice, not the full protocol**"
		}
		fmt.Fprintf(w, "Wall time %s, seed %d, %s%s.\n\n", duration(o.WallSeconds), o.Seed, o.Version, q)
		if len(o.Choices) > 0 {
			fmt.Fprintf(w, "Protocol and choices:\n\n")
			for _, c := range o.Choices {
				fmt.Fprintf(w, "- %s\n", c)
			}
			fmt.Fprintln(w)
		}
		for ti := range o.Tables {
			writeTableMarkdown(w, o.Experiment, &o.Tables[ti], ex)
		}
		for _, f := range o.Figures {
			fmt.Fprintf(w, "![%s](%s)\n\n*%s*\n\n", f.Caption, f.File, f.Caption)
		}
		if len(o.DataFiles) > 0 {
			fmt.Fprintf(w, "<details><summary>Data files (SHA-256)</summary>\n\n")
			for _, d := range o.DataFiles {
				fmt.Fprintf(w, "- `%s` %s\n", d.Path, d.SHA256)
			}
			fmt.Fprintf(w, "\n</details>\n\n")
		}
	}
}

// writeCauses writes the far cells of each group by cause; the share
// within 3 points among the cells no data-version explanation sets apart
// (a cell within 3 points is never set apart, so this is the agreement on
// the data the papers used, as far as we can tell); and the largest share
// within 3 points a re-run on this data could reach: every far cell whose
// cause is a choice or the spread brought within 3 points, the data and
// paper causes left (they are not the re-run's to close).
func writeCauses(w io.Writer, scores []*Score) {
	fmt.Fprintf(w, "| group | > 3 points |")
	for _, c := range Causes {
		fmt.Fprintf(w, " %s |", c)
	}
	fmt.Fprintf(w, " unexplained | ≤ 3 now | ≤ 3 among cells not set apart by data | ≤ 3 at most without the paper's data and corrected cells |\n|---|---|")
	for range Causes {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintf(w, "---|---|---|---|\n")
	for _, s := range scores {
		if s.Compared == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d |", s.Group, s.Explained+s.Unexplained)
		for _, c := range Causes {
			fmt.Fprintf(w, " %d |", s.ByCause[c])
		}
		ceiling := s.Compared - s.ByCause["data"] - s.ByCause["paper"]
		sameData := "—"
		if m := s.Compared - s.ByCause["data"]; m > 0 {
			sameData = fmt.Sprintf("%.0f %%", 100*float64(s.Within3)/float64(m))
		}
		fmt.Fprintf(w, " %d | %.0f %% | %s | %.0f %% |\n", s.Unexplained, 100*float64(s.Within3)/float64(s.Compared), sameData, 100*float64(ceiling)/float64(s.Compared))
	}
}

func writeScores(w io.Writer, scores []*Score) {
	fmt.Fprintf(w, "| group | published | not runnable | compared | ≤ 1 | ≤ 3 | ≤ 5 | better by > 3 | worse by > 3 | explained / > 3 |\n|---|---|---|---|---|---|---|---|---|---|\n")
	pc := func(a, b int) string {
		if b == 0 {
			return "—"
		}
		return fmt.Sprintf("%d (%.0f %%)", a, 100*float64(a)/float64(b))
	}
	for _, s := range scores {
		if s.Published == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s | %s | %d | %d | %d / %d |\n", s.Group, s.Published, s.NotRun, s.Compared,
			pc(s.Within1, s.Compared), pc(s.Within3, s.Compared), pc(s.Within5, s.Compared), s.Better3, s.Worse3, s.Explained, s.Explained+s.Unexplained)
	}
}

func writeTableMarkdown(w io.Writer, experiment string, t *TableResult, ex *Explanations) {
	fmt.Fprintf(w, "### %s (%s)\n\n", t.Name, t.Metric)
	if t.File != "" {
		fmt.Fprintf(w, "Published: `%s` — %s\n\n", t.File, t.Title)
	}
	if t.Pivot != "" {
		writePivotMarkdown(w, t)
		return
	}
	hasNested, hasAtDim, hasPaper := false, false, false
	for _, c := range t.Cells {
		hasNested = hasNested || !math.IsNaN(c.Nested)
		hasAtDim = hasAtDim || !math.IsNaN(c.AtPaperDim)
		hasPaper = hasPaper || c.Published
	}
	head := append([]string{}, t.Keys...)
	head = append(head, "ours")
	if hasAtDim {
		head = append(head, "ours at paper's dim")
	}
	if hasNested {
		head = append(head, "nested CV")
	}
	if hasPaper {
		head = append(head, "paper", "Δ", "")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for ci := range t.Cells {
		c := &t.Cells[ci]
		row := append([]string{}, c.Keys...)
		switch {
		case c.Ran && t.angles():
			row = append(row, fmt.Sprintf("%.1e", c.Ours))
		case c.Ran:
			row = append(row, valueDim(c.Ours, c.OursStd, c.OursDim))
		default:
			row = append(row, "—")
		}
		if hasAtDim {
			row = append(row, valueDim(c.AtPaperDim, math.NaN(), 0))
		}
		if hasNested {
			row = append(row, valueDim(c.Nested, c.NestedStd, 0))
		}
		if hasPaper {
			status, expl := cellStatus(experiment, t, c, ex)
			p, d := "—", ""
			if c.Published {
				p = valueDim(c.Paper, c.PaperStd, c.PaperDim)
				if strings.HasPrefix(c.PaperNote, "irregular") {
					p += " †"
				}
			}
			if c.Comparable() {
				d = fmt.Sprintf("%+.2f", c.Diff())
			}
			note := expl
			if strings.HasPrefix(status, "far") {
				note = "**" + strings.TrimPrefix(status, "far, ") + "**: " + expl
			}
			row = append(row, p, d, mdCell(note))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func valueDim(v, sd float64, dim int) string {
	if math.IsNaN(v) {
		return "—"
	}
	s := fmt.Sprintf("%.2f", v)
	if !math.IsNaN(sd) {
		s += fmt.Sprintf(" ± %.2f", sd)
	}
	if dim > 0 {
		s += fmt.Sprintf(" (%d)", dim)
	}
	return s
}

// rankFinding compares, per row of a table with a method key, which method
// is best in the paper and in our run, and says how often they agree.
func rankFinding(t *TableResult) string {
	mi := -1
	for i, k := range t.Keys {
		if k == "method" {
			mi = i
		}
	}
	if mi < 0 {
		return ""
	}
	type best struct {
		ours, paper       string
		oursV, paperV     float64
		nOurs, nPaper     int
		oursSet, paperSet bool
		nested            string
		nestedV           float64
		nestedSet         bool
	}
	rows := map[string]*best{}
	var order []string
	lower := t.LowerIsBetter()
	beats := func(a, b float64) bool {
		if lower {
			return a < b
		}
		return a > b
	}
	for _, c := range t.Cells {
		if !c.Comparable() {
			continue
		}
		var rk []string
		for i, k := range c.Keys {
			if i != mi {
				rk = append(rk, k)
			}
		}
		key := strings.Join(rk, ", ")
		b, ok := rows[key]
		if !ok {
			b = &best{}
			rows[key] = b
			order = append(order, key)
		}
		m := c.Keys[mi]
		if !b.oursSet || beats(c.Ours, b.oursV) {
			b.ours, b.oursV, b.oursSet = m, c.Ours, true
		}
		if !math.IsNaN(c.Nested) && (!b.nestedSet || beats(c.Nested, b.nestedV)) {
			b.nested, b.nestedV, b.nestedSet = m, c.Nested, true
		}
		if !b.paperSet || beats(c.Paper, b.paperV) {
			b.paper, b.paperV, b.paperSet = m, c.Paper, true
		}
	}
	if len(order) < 2 {
		return ""
	}
	paperWins, ourWins := map[string]int{}, map[string]int{}
	agree := 0
	for _, k := range order {
		b := rows[k]
		paperWins[b.paper]++
		ourWins[b.ours]++
		if b.ours == b.paper {
			agree++
		}
	}
	top := func(m map[string]int) string {
		type kv struct {
			k string
			v int
		}
		var l []kv
		for k, v := range m {
			l = append(l, kv{k, v})
		}
		sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || (l[i].v == l[j].v && l[i].k < l[j].k) })
		var s []string
		for i, x := range l {
			if i == 3 {
				break
			}
			s = append(s, fmt.Sprintf("%s %d", x.k, x.v))
		}
		return strings.Join(s, ", ")
	}
	nestedWins := map[string]int{}
	for _, k := range order {
		if b := rows[k]; b.nestedSet {
			nestedWins[b.nested]++
		}
	}
	nested := ""
	if len(nestedWins) > 0 {
		nested = "; ours by nested CV: " + top(nestedWins)
	}
	return fmt.Sprintf("%s: best method per row (ties: the first in the table's order) — paper: %s; ours: %s%s (of %d rows; the paper's and our best agree in %d)", t.Name, top(paperWins), top(ourWins), nested, len(order), agree)
}

func duration(s float64) string {
	switch {
	case s < 1:
		return "under 1 s"
	case s < 90:
		return fmt.Sprintf("%.0f s", s)
	case s < 5400:
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

func minutes(m float64) string {
	if m <= 0 {
		return "not measured"
	}
	return duration(60 * m)
}

// WriteList prints every experiment: whether it runs here (its data
// present below dataDir), the expected wall times, what it reproduces and
// the data it reads.
func WriteList(w io.Writer, experiments []Experiment, dataDir string) error {
	for _, e := range experiments {
		miss := e.Missing(dataDir)
		switch {
		case e.NotRunnable != "":
			fmt.Fprintf(w, "%s  [not runnable]\n    %s\n    why: %s\n", e.Name, e.Title, e.NotRunnable)
			continue
		case len(miss) > 0:
			fmt.Fprintf(w, "%s  [data missing]  full %s, --quick %s\n", e.Name, minutes(e.Minutes), minutes(e.QuickMinutes))
		default:
			fmt.Fprintf(w, "%s  [runs here]  full %s, --quick %s\n", e.Name, minutes(e.Minutes), minutes(e.QuickMinutes))
		}
		fmt.Fprintf(w, "    %s\n", e.Title)
		switch {
		case len(e.Data) == 0:
			fmt.Fprintf(w, "    data: built in\n")
		case len(miss) > 0:
			fmt.Fprintf(w, "    data: %s; missing below %s: %s\n", strings.Join(e.Data, ", "), dataDir, strings.Join(miss, ", "))
		default:
			fmt.Fprintf(w, "    data: %s (present)\n", strings.Join(e.Data, ", "))
		}
	}
	_, err := fmt.Fprintln(w, "\nPublished cells whose data set is not here (JAFFE, KANADE, Liver, Thyroid, … in seed 000; the 68-person PIE of seeds 002-003 runs on our 10-person file) are listed in the report as not run, with the reason.")
	return err
}

// writePivotMarkdown writes a table of our values only with the values of
// the key t.Pivot as columns (e.g. one column per method of a curve).
func writePivotMarkdown(w io.Writer, t *TableResult) {
	pi := slices.Index(t.Keys, t.Pivot)
	var cols, rows []string
	val := map[[2]string]string{}
	for _, c := range t.Cells {
		var rk []string
		for i, k := range c.Keys {
			if i != pi {
				rk = append(rk, k)
			}
		}
		r, col := strings.Join(rk, ", "), c.Keys[pi]
		if !slices.Contains(cols, col) {
			cols = append(cols, col)
		}
		if !slices.Contains(rows, r) {
			rows = append(rows, r)
		}
		if c.Ran {
			val[[2]string{r, col}] = valueDim(c.Ours, c.OursStd, 0)
		}
	}
	var rest []string
	for i, k := range t.Keys {
		if i != pi {
			rest = append(rest, k)
		}
	}
	head := append([]string{strings.Join(rest, ", ")}, cols...)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		line := []string{r}
		for _, col := range cols {
			v := val[[2]string{r, col}]
			if v == "" {
				v = "—"
			}
			line = append(line, v)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	fmt.Fprintln(w)
}
