// Package reproduce re-runs the papers' experiments with dimred's own code
// on the data in ../shared/data and sets the results beside the published
// numbers, which it reads at run time from ../shared/papers/tables (never
// copied into the repository).
package reproduce

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Table is a published result table: its title (the file's comment line)
// and its rows as column-name → text maps.
type Table struct {
	Path    string
	Title   string
	Columns []string
	Rows    []map[string]string
	Lines   []int // Lines[i] is the file line of Rows[i]
}

// numericColumns are the published tables' columns that hold numbers;
// ReadTable refuses a row whose cell in one of them does not parse.
var numericColumns = map[string]bool{
	"error_pct": true, "dim": true, "acc_pct": true, "std": true, "acc": true,
	"rate_pct": true, "train_per_person": true, "labeled": true, "table": true,
}

// ReadTable reads one TSV file of ../shared/papers/tables: a '#' comment
// line with the title, a header line, then one row per cell.
func ReadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Table{Path: path}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(s, "#"):
			if t.Title == "" {
				t.Title = strings.TrimSpace(strings.TrimPrefix(s, "#"))
			}
		case strings.TrimSpace(s) == "":
		case t.Columns == nil:
			t.Columns = strings.Split(s, "\t")
		default:
			cells := strings.Split(s, "\t")
			if len(cells) > len(t.Columns) {
				return nil, fmt.Errorf("%s:%d: %d cells for %d columns", path, line, len(cells), len(t.Columns))
			}
			row := map[string]string{}
			for i, c := range cells {
				c = strings.TrimSpace(c)
				col := t.Columns[i]
				if numericColumns[col] && c != "" { // empty: a cell the paper's text lost
					if _, err := strconv.ParseFloat(c, 64); err != nil {
						return nil, fmt.Errorf("%s:%d: column %s: %q is not a number (a published cell must parse)", path, line, col, c)
					}
				}
				row[col] = c
			}
			for _, col := range t.Columns[len(cells):] {
				if numericColumns[col] {
					return nil, fmt.Errorf("%s:%d: column %s is missing (%d cells for %d columns)", path, line, col, len(cells), len(t.Columns))
				}
			}
			t.Rows = append(t.Rows, row)
			t.Lines = append(t.Lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Columns == nil {
		return nil, fmt.Errorf("%s: no header line", path)
	}
	return t, nil
}

// Published is one published cell: error % (or accuracy) and dimension.
type Published struct {
	Value float64
	Dim   int
	Note  string
}

// Lookup returns the published error_pct and dim of (dataset, method).
func (t *Table) Lookup(dataset, method string) (Published, bool) {
	for _, r := range t.Rows {
		if strings.EqualFold(r["dataset"], dataset) && strings.EqualFold(r["method"], method) && r["error_pct"] != "" {
			// ReadTable checked both cells.
			v, _ := strconv.ParseFloat(r["error_pct"], 64)
			d, _ := strconv.Atoi(r["dim"])
			return Published{Value: v, Dim: d, Note: r["note"]}, true
		}
	}
	return Published{}, false
}

// TablesDir returns ../shared/papers/tables below shared.
func TablesDir(shared string) string { return filepath.Join(shared, "papers", "tables") }

// dataRoot is the data directory: dataDir, or shared/data when empty.
func dataRoot(shared, dataDir string) string {
	if dataDir != "" {
		return dataDir
	}
	return filepath.Join(shared, "data")
}
