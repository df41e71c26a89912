package evaluate

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is the outcome of Run; its JSON form is the CLI's JSON output.
type Report struct {
	// Dataset is the dataset's name.
	Dataset string `json:"dataset"`
	// N and D are the number of rows and columns of the dataset.
	N int `json:"n"`
	D int `json:"d"`
	// Classes is the number of classes with at least one row.
	Classes int `json:"classes"`
	// Protocol describes the protocol (Protocol.Describe); it is printed by
	// the text and markdown formats and not part of the JSON.
	Protocol string `json:"-"`
	// Results has one entry per method × classifier.
	Results []Result `json:"results"`
}

// Result is the evaluation of one method with one classifier.
type Result struct {
	Method     string `json:"method"`
	Classifier string `json:"classifier"`
	// MinError is the smallest error over dimensions, a fraction in [0, 1].
	MinError float64 `json:"min_error"`
	// BestDim is the smallest dimension (1-based) where MinError is reached.
	BestDim int `json:"best_dim"`
	// ErrorsByDim[k-1] is the error (a fraction) with k dimensions; with
	// Dims set, ErrorsByDim[i] is the error at Dims[i].
	ErrorsByDim []float64 `json:"errors_by_dim"`
	// StdByDim is the standard deviation of the error over repeats, indexed
	// as ErrorsByDim; nil unless the protocol has more than one repeat.
	StdByDim []float64 `json:"std_by_dim,omitempty"`
	// Dims lists the dimensions of ErrorsByDim when they are not 1..len:
	// those of Protocol.Dims the method reached (its largest dimension
	// when it reached none), or with FullDim its one full dimension. nil means ErrorsByDim[k-1] is at dimension k.
	Dims []int `json:"dims,omitempty"`
}

// Dim returns the dimension of ErrorsByDim[i].
func (r *Result) Dim(i int) int {
	if r.Dims != nil {
		return r.Dims[i]
	}
	return i + 1
}

// index returns the position of dimension k in ErrorsByDim, or −1.
func (r *Result) index(k int) int {
	if r.Dims != nil {
		return slices.Index(r.Dims, k)
	}
	if k < 1 || k > len(r.ErrorsByDim) {
		return -1
	}
	return k - 1
}

// StdAtBest returns the standard deviation at BestDim, and false when the
// result has none.
func (r *Result) StdAtBest() (float64, bool) {
	i := r.index(r.BestDim)
	if i < 0 || i >= len(r.StdByDim) {
		return 0, false
	}
	return r.StdByDim[i], true
}

// Formats lists the names Write accepts.
var Formats = []string{"text", "csv", "json", "markdown"}

// Write writes r in the named format: "text", "csv", "json" or "markdown"
// (also "md").
func Write(w io.Writer, r *Report, format string) error {
	switch strings.ToLower(format) {
	case "text", "txt":
		return WriteText(w, r)
	case "csv":
		return WriteCSV(w, r)
	case "json":
		return WriteJSON(w, r)
	case "markdown", "md":
		return WriteMarkdown(w, r)
	}
	return fmt.Errorf("evaluate: unknown output format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

func (r *Report) hasStd() bool {
	for i := range r.Results {
		if r.Results[i].StdByDim != nil {
			return true
		}
	}
	return false
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) }

// summaryRows returns the header and rows of the summary table (errors in
// percent).
func (r *Report) summaryRows() ([]string, [][]string) {
	std := r.hasStd()
	head := []string{"method", "classifier", "min error %"}
	if std {
		head = append(head, "std %")
	}
	head = append(head, "best dim", "dims")
	var rows [][]string
	for i := range r.Results {
		res := &r.Results[i]
		row := []string{res.Method, res.Classifier, pct(res.MinError)}
		if std {
			s := ""
			if v, ok := res.StdAtBest(); ok {
				s = pct(v)
			}
			row = append(row, s)
		}
		dims := strconv.Itoa(len(res.ErrorsByDim))
		if res.Dims != nil {
			dims = DimsText(res.Dims)
		}
		row = append(row, strconv.Itoa(res.BestDim), dims)
		rows = append(rows, row)
	}
	return head, rows
}

func (r *Report) title() string {
	return reportTitle(r.Dataset, r.N, r.D, r.Classes, r.Protocol)
}

func reportTitle(dataset string, n, d, classes int, protocol string) string {
	s := fmt.Sprintf("%s: n = %d, d = %d, %d classes", dataset, n, d, classes)
	if protocol != "" {
		s += "; " + protocol
	}
	return s
}

// WriteText writes a one-line header and an aligned table of the minimum
// error (percent), its standard deviation when repeated, the best dimension
// and the dimensions evaluated (their number, or their list when they are
// not 1..D).
func WriteText(w io.Writer, r *Report) error {
	head, rows := r.summaryRows()
	return writeTextTable(w, r.title(), head, rows)
}

// writeTextTable writes title on a line and an aligned table.
func writeTextTable(w io.Writer, title string, head []string, rows [][]string) error {
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// WriteMarkdown writes the header as a paragraph and the summary as a
// GitHub-flavoured Markdown table.
func WriteMarkdown(w io.Writer, r *Report) error {
	head, rows := r.summaryRows()
	return writeMarkdownTable(w, r.title(), head, rows)
}

// writeMarkdownTable writes title as a bold paragraph and a table whose
// first two columns (method, classifier) are left-aligned, the others
// right-aligned.
func writeMarkdownTable(w io.Writer, title string, head []string, rows [][]string) error {
	var b strings.Builder
	b.WriteString("**" + mdEscape(title) + "**\n\n")
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i < 2 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		for i := range row {
			row[i] = mdEscape(row[i])
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`).Replace(s)
}

// WriteCSV writes the error curves in long form, one line per method,
// classifier and dimension:
//
//	dataset,method,classifier,dim,error[,std]
//
// error (and std, present when any result is repeated) are fractions.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	std := r.hasStd()
	head := []string{"dataset", "method", "classifier", "dim", "error"}
	if std {
		head = append(head, "std")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, res := range r.Results {
		for k, e := range res.ErrorsByDim {
			row := []string{r.Dataset, res.Method, res.Classifier, strconv.Itoa(res.Dim(k)), strconv.FormatFloat(e, 'g', -1, 64)}
			if std {
				s := ""
				if k < len(res.StdByDim) {
					s = strconv.FormatFloat(res.StdByDim[k], 'g', -1, 64)
				}
				row = append(row, s)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes r as indented JSON (see the field tags of Report and
// Result).
func WriteJSON(w io.Writer, r *Report) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteNested writes a nested report in the named format (see Formats):
// text and markdown give the summary table (nestedRows), csv the same
// summary with fractions (WriteNestedCSV), json every field including the
// per-fold choices.
func WriteNested(w io.Writer, r *NestedReport, format string) error {
	switch strings.ToLower(format) {
	case "text", "txt":
		head, rows := r.nestedRows()
		return writeTextTable(w, r.title(), head, rows)
	case "markdown", "md":
		head, rows := r.nestedRows()
		return writeMarkdownTable(w, r.title(), head, rows)
	case "csv":
		return WriteNestedCSV(w, r)
	case "json":
		return writeJSON(w, r)
	}
	return fmt.Errorf("evaluate: unknown output format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

func (r *NestedReport) title() string {
	return reportTitle(r.Dataset, r.N, r.D, r.Classes, r.Protocol)
}

// hasGrid reports whether any result chose grid values or the classifier
// (the report's "chosen grid" and "at grid" columns).
func (r *NestedReport) hasGrid() bool {
	for i := range r.Results {
		if _, k := r.Results[i].ClassifierMode(); len(r.Results[i].Grid) > 0 || k > 0 {
			return true
		}
	}
	return false
}

func (r *NestedReport) hasRepeats() bool {
	for i := range r.Results {
		for _, f := range r.Results[i].Folds {
			if f.Repeat > 0 {
				return true
			}
		}
	}
	return false
}

// dimText is "2" when every fold chose 2, else "median (min–max)".
func dimText(res *NestedResult) string {
	med, lo, hi := res.DimSummary()
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%s (%d–%d)", strconv.FormatFloat(med, 'f', -1, 64), lo, hi)
}

// gridText is "sigma=1 (7/10), alpha=0.1 (10/10)": each key's most
// frequent choice and in how many folds ("" without a grid).
func gridText(res *NestedResult) string {
	vals, counts := res.ParamsMode()
	var parts []string
	for _, gp := range res.Grid {
		parts = append(parts, fmt.Sprintf("%s=%s (%d/%d)", gp.Key, vals[gp.Key], counts[gp.Key], len(res.Folds)))
	}
	if c, k := res.ClassifierMode(); k > 0 {
		parts = append(parts, fmt.Sprintf("classifier=%s (%d/%d)", c, k, len(res.Folds)))
	}
	return strings.Join(parts, ", ")
}

// paramsText is "sigma=1 alpha=0.1" in the grid's key order.
func paramsText(grid []GridParam, kv map[string]string) string {
	var parts []string
	for _, gp := range grid {
		parts = append(parts, gp.Key+"="+kv[gp.Key])
	}
	if c, ok := kv["classifier"]; ok {
		parts = append(parts, "classifier="+c)
	}
	return strings.Join(parts, " ")
}

// nestedRows returns the header and rows of the nested summary (errors in
// percent): the nested error with its spread over folds (and repeats),
// the dimensions chosen, the grid values chosen most often, and the
// minimum over dimensions of the same run beside it.
func (r *NestedReport) nestedRows() ([]string, [][]string) {
	grid, reps := r.hasGrid(), r.hasRepeats()
	head := []string{"method", "classifier", "nested error %", "fold std %"}
	if reps {
		head = append(head, "repeat std %")
	}
	head = append(head, "chosen dim")
	if grid {
		head = append(head, "chosen grid (folds)")
	}
	head = append(head, "min over dims %", "at dim")
	if grid {
		head = append(head, "at grid")
	}
	var rows [][]string
	for i := range r.Results {
		res := &r.Results[i]
		row := []string{res.Method, res.Classifier, pct(res.Error), pct(res.FoldStd)}
		if reps {
			row = append(row, pct(res.Std))
		}
		row = append(row, dimText(res))
		if grid {
			row = append(row, gridText(res))
		}
		row = append(row, pct(res.MinOverDims.MinError), strconv.Itoa(res.MinOverDims.BestDim))
		if grid {
			row = append(row, paramsText(res.Grid, res.MinParams))
		}
		rows = append(rows, row)
	}
	return head, rows
}

// WriteNestedCSV writes one line per method and classifier:
//
//	dataset,method,classifier,nested_error,std,fold_std,dim_median,dim_min,dim_max,grid_choice,min_error,best_dim,best_grid
//
// errors are fractions; std is over repeats (0 with one); grid_choice is
// the most frequent value of each key with its fold count ("sigma=1
// (7/10)"), best_grid the grid values of min_error ("" without a grid).
func WriteNestedCSV(w io.Writer, r *NestedReport) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"dataset", "method", "classifier", "nested_error", "std", "fold_std",
		"dim_median", "dim_min", "dim_max", "grid_choice", "min_error", "best_dim", "best_grid"}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i := range r.Results {
		res := &r.Results[i]
		med, lo, hi := res.DimSummary()
		if err := cw.Write([]string{r.Dataset, res.Method, res.Classifier, f(res.Error), f(res.Std), f(res.FoldStd),
			f(med), strconv.Itoa(lo), strconv.Itoa(hi), gridText(res),
			f(res.MinOverDims.MinError), strconv.Itoa(res.MinOverDims.BestDim), paramsText(res.Grid, res.MinParams)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
