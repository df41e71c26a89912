package reproduce

import (
	"strings"
	"testing"
)

// The embedded rules explain representative far cells of every paper by
// the intended rule (identified by a phrase of its text), leave the cells
// the studies call unexplained without a rule, and never explain a cell
// within 3 points.
func TestDefaultExplanationsCells(t *testing.T) {
	ex, err := DefaultExplanations()
	if err != nil {
		t.Fatal(err)
	}
	seed000 := []string{"dataset", "method"}
	cases := []struct {
		experiment, table, metric string
		keys, vals                []string
		ours, paper               float64
		want                      string // phrase of the intended rule; "" for unexplained
	}{
		// A rule for particular cells wins over the data-set rule after it.
		{"seed000-II-III", "seed000 Table II (NCC)", "error %", seed000, []string{"Australian", "LPP"}, 25.57, 14.20, "within each class"},
		{"seed000-II-III", "seed000 Table III (3-NN)", "error %", seed000, []string{"Australian", "KLPP"}, 22.66, 16.25, "credit-a"},
		{"seed000-II-III", "seed000 Table III (3-NN)", "error %", seed000, []string{"Balance", "KPCA"}, 16.32, 12.95, "distance ties"},
		{"seed000-II-III", "seed000 Table II (NCC)", "error %", seed000, []string{"Balance", "KPCA"}, 16.32, 12.95, ""}, // the ties rule is for 3-NN only
		{"seed000-II-III", "seed000 Table II (NCC)", "error %", seed000, []string{"Ecoli", "PCA"}, 18.15, 24.65, "fold assignment"},
		{"seed000-II-III", "seed000 Table II (NCC)", "error %", seed000, []string{"Glass", "LQMI"}, 42.99, 38.63, "oxide percentages"},
		{"seed000-IV-V", "seed000 Table V (SVM-RBF)", "error %", seed000, []string{"Glass", "LQMI"}, 37.85, 34.67, "oxide percentages"},
		{"seed000-II-III", "seed000 Table III (3-NN)", "error %", seed000, []string{"Glass", "LQMI"}, 39.25, 34.06, "fold-assignment spread"}, // the ridge rule is for NCC and the RBF SVM
		{"seed000-IV-V", "seed000 Table V (SVM-RBF)", "error %", seed000, []string{"Vowel", "KPCA"}, 2.02, 55.05, "embedding scale"},
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Vowel", "KPCA"}, 13.94, 4.84, "LIBSVM itself"},
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Sonar", "KPCA"}, 18.75, 25.49, ""}, // LIBSVM agrees with ours; not explained
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Vowel", "LDA"}, 25.66, 19.29, "10× ours"},
		{"seed000-IV-V", "seed000 Table V (SVM-RBF)", "error %", seed000, []string{"Sonar", "GDA"}, 16.35, 12.53, "kernel convention"},
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Balance", "LDA"}, 12.32, 8.32, "unit-length"},
		{"seed000-IV-V", "seed000 Table V (SVM-RBF)", "error %", seed000, []string{"Vowel", "LPP"}, 35.45, 1.01, "unit-length"}, // before the neighbourhood-graph rule
		{"seed000-IV-V", "seed000 Table V (SVM-RBF)", "error %", seed000, []string{"Vowel", "KLPP"}, 16.16, 2.42, "neighbourhood graph"},
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Glass", "GDA"}, 28.04, 46.89, "regulariser"},
		{"seed000-II-III", "seed000 Table III (3-NN)", "error %", seed000, []string{"Sonar", "LPP"}, 13.94, 22.29, "0/1 edge"},
		{"seed000-IV-V", "seed000 Table IV (SVM-lin)", "error %", seed000, []string{"Sonar", "LPP"}, 18.75, 23.75, "0/1 edge"},
		{"seed000-II-III", "seed000 Table III (3-NN)", "error %", seed000, []string{"Glass", "KLPP"}, 35.51, 31.69, "0/1 edge"},
		{"seed000-VII-VIII", "seed000 Table VIII (3-NN)", "error %", seed000, []string{"YALE", "LPP"}, 30.30, 11.24, "JAFFE"},
		{"seed000-VII-VIII", "seed000 Table VII (NCC)", "error %", seed000, []string{"YALE", "LPP"}, 30.91, 35.34, ""},
		{"seed000-VII-VIII", "seed000 Table VII (NCC)", "error %", seed000, []string{"YALE", "KQMI"}, 15.15, 10.22, ""},
		{"seed000-VII-VIII", "seed000 Table VII (NCC)", "error %", seed000, []string{"YALE", "LDA"}, 16.36, 37.65, "whole set"},
		{"seed000-VII-VIII", "seed000 Table VII (NCC)", "error %", seed000, []string{"ORL", "KPCA"}, 12.75, 18.00, "sweep range"},
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Letter A-B", "KSR"}, 53.57, 90.7, "normalized-cut graph"},
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Letter A-B", "Baseline"}, 92.28, 86.2, "complete Gaussian graph"},
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Ionosphere", "Baseline"}, 57.83, 75.1, "self-tuning"},
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Ionosphere", "SR"}, 50.74, 80.6, ""}, // no graph closes it
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Ionosphere", "KPCA"}, 72.65, 85.2, "self-tuning widths"},
		{"seed002-table2", "seed002 Table 2", "accuracy %", seed000, []string{"Digits 1279", "KPCA"}, 91.23, 94.5, "0/1 weights"},
		{"seed002-table3", "seed002 Table 3", "accuracy %", []string{"train", "method"}, []string{"5×10", "KPCA"}, 79.4, 40.2, "test rows"},
		{"seed002-table3", "seed002 Table 3", "accuracy %", []string{"train", "method"}, []string{"5×10", "MKL-SR"}, 66.6, 79.2, "10/68"},
		{"seed002-table3", "seed002 Table 3", "accuracy %", []string{"train", "method"}, []string{"5×10", "Baseline"}, 64.1, 68.0, ""},
		{"seed002-table3", "seed002 Table 3", "accuracy %", []string{"train", "method"}, []string{"5×10", "SR"}, 64.5, 71.9, "SVM C"},
		{"seed002-table4", "seed002 Table 4", "accuracy %", []string{"labeled", "method"}, []string{"95", "Baseline"}, 32.3, 50.8, "2 414"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"ORL", "3", "kBERE"}, 75.5, 95, "r-graph"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"PIE", "10", "KDA"}, 93.4, 79, "10 persons"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "3", "FDA"}, 38.7, 57, ""},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"ORL", "2", "LPP"}, 56.0, 70, "PCA step"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "3", "LPP"}, 42.5, 61, ""},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"PIE", "5", "kMIE0"}, 58.67, 69, "ratio form"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"PIE", "5", "kMIE"}, 70.36, 67, "10 persons"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "3", "KDA"}, 66.4, 63, "z-scores"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "4", "MIE"}, 65.05, 85, ""},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "3", "kMIE0"}, 55.25, 70, "inner 3-fold CV"},
		{"seed003-table1", "seed003 Table 1", "accuracy %", []string{"dataset", "ν", "method"}, []string{"Yale", "4", "kMIE0"}, 61.05, 84, ""},
		{"seed004-tables1-2", "seed004 Tables 1-2", "accuracy %", seed000, []string{"ExtendedYaleB", "KNDA"}, 98.06, 86.36, "scaling"},
		{"seed004-tables1-2", "seed004 Tables 1-2", "accuracy %", seed000, []string{"ExtendedYaleB", "KLDA"}, 97.97, 86.25, "our KLDA"},
		{"seed004-tables1-2", "seed004 Tables 1-2", "accuracy %", seed000, []string{"ORL", "KLPP"}, 69.75, 79.55, "α = 1 gives 78.65"},
	}
	for _, tc := range cases {
		tab := &TableResult{Name: tc.table, Metric: tc.metric, Keys: tc.keys}
		c := newCell(tc.vals...)
		c.Ran, c.Published, c.Ours, c.Paper = true, true, tc.ours, tc.paper
		status, e := cellStatus(tc.experiment, tab, &c, ex)
		name := tc.experiment + " " + strings.Join(tc.vals, " ")
		switch {
		case !strings.HasPrefix(status, "far"):
			t.Errorf("%s: status %q, the case must be a far cell", name, status)
		case tc.want == "" && e != "unexplained":
			t.Errorf("%s: explained by %q, want no rule", name, e)
		case tc.want != "" && !strings.Contains(e, tc.want):
			t.Errorf("%s: explanation %q, want the rule with %q", name, e, tc.want)
		}
	}

	// A cell within 3 points gets no explanation even where a rule matches.
	tab := &TableResult{Name: "seed000 Table II (NCC)", Metric: "error %", Keys: seed000}
	c := newCell("Soy", "LQMI")
	c.Ran, c.Published, c.Ours, c.Paper = true, true, 7.47, 5.88
	if status, e := cellStatus("seed000-II-III", tab, &c, ex); status != "within 3" || e != "" {
		t.Errorf("Soy LQMI within 3: status %q, explanation %q", status, e)
	}
}

// Every rule names an existing experiment, known key columns and, for
// tables, data sets and methods, names the drivers use: a misspelt
// condition would silently match nothing.
func TestDefaultExplanationsNames(t *testing.T) {
	ex, err := DefaultExplanations()
	if err != nil {
		t.Fatal(err)
	}
	exps, err := Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]map[string]bool{"dataset": {}, "method": {}}
	add := func(k string, names ...string) {
		for _, n := range names {
			known[k][strings.ToLower(n)] = true
		}
	}
	for _, s := range Seed000Sets {
		add("dataset", s.Paper)
	}
	for _, s := range Seed000FaceSets {
		add("dataset", s.Paper)
	}
	for _, s := range Seed002ClusterSets {
		add("dataset", s.Paper)
	}
	for _, s := range Seed003Sets {
		add("dataset", s.Paper)
	}
	for _, s := range Seed004Sets {
		add("dataset", s.Paper)
	}
	for _, l := range [][]PaperMethod{Seed000Methods, Seed003Methods, Seed004Methods} {
		for _, m := range l {
			add("method", m.Paper)
		}
	}
	add("method", Seed002Table2Methods...)
	add("method", Seed002Table3Methods...)
	add("method", Seed002Table4Methods...)
	// Table names: seed 000's as its driver builds them (the only tables
	// the rules name).
	tables := map[string]bool{}
	for _, tp := range Seed000Tables {
		sh := shared(t, "papers/tables/"+tp.Files[0], "papers/tables/"+tp.Files[1])
		for k := range 2 {
			tab, err := seed000Table(&RunContext{Shared: sh}, tp, k, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			tables[tab.Name] = true
		}
	}
	keys := map[string]bool{"table": true, "dataset": true, "method": true, "ν": true, "train": true, "labeled": true, "graph": true, "claim": true, "features": true}
	for _, r := range ex.rules {
		matched := false
		for _, e := range exps {
			matched = matched || matchValue(r.experiment, e.Name)
		}
		if !matched {
			t.Errorf("line %d: experiment %q matches no experiment", r.line, r.experiment)
		}
		for k, v := range r.when {
			if !keys[k] {
				t.Errorf("line %d: condition key %q is no table's key", r.line, k)
			}
			if k == "table" {
				for _, alt := range strings.Split(v, "|") {
					if !tables[strings.TrimSpace(alt)] {
						t.Errorf("line %d: table %q is not a table the drivers write", r.line, alt)
					}
				}
			}
			if known[k] == nil || v == "*" {
				continue
			}
			for _, alt := range strings.Split(v, "|") {
				if !known[k][strings.ToLower(strings.TrimSpace(alt))] {
					t.Errorf("line %d: %s %q is not a name the drivers use", r.line, k, alt)
				}
			}
		}
	}
}
