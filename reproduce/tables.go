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
	Title   string
	Columns []string
	Rows    []map[string]string
}

// ReadTable reads one TSV file of ../shared/papers/tables: a '#' comment
// line with the title, a header line, then one row per cell.
func ReadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Table{}
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
				row[t.Columns[i]] = strings.TrimSpace(c)
			}
			t.Rows = append(t.Rows, row)
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
		if strings.EqualFold(r["dataset"], dataset) && strings.EqualFold(r["method"], method) {
			v, err := strconv.ParseFloat(r["error_pct"], 64)
			if err != nil {
				return Published{}, false
			}
			d, _ := strconv.Atoi(r["dim"])
			return Published{Value: v, Dim: d, Note: r["note"]}, true
		}
	}
	return Published{}, false
}

// TablesDir returns ../shared/papers/tables below shared.
func TablesDir(shared string) string { return filepath.Join(shared, "papers", "tables") }
