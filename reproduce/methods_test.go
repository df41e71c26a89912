package reproduce

import (
	"reflect"
	"strings"
	"testing"
)

// Run-wide settings go to every method that has the key, scoped ones to
// their method only and over the unscoped; the experiment's own settings
// stay unless overridden; unknown keys and methods are errors.
func TestOverrides(t *testing.T) {
	ov := NewOverrides([]string{"lda.norm=constraint", "norm=unit", "sigma=2", "sklpp.k=3"})
	for _, tc := range []struct {
		name string
		base map[string]string
		want map[string]string
	}{
		{"lda", nil, map[string]string{"norm": "constraint"}},
		{"gda", map[string]string{"sigma": "1", "alpha": "0.1"}, map[string]string{"sigma": "2", "alpha": "0.1", "norm": "unit"}},
		{"aqmida", map[string]string{"seed": "3"}, map[string]string{"seed": "3", "sigma": "2"}}, // has no norm
	} {
		if got := ov.apply(tc.name, tc.base); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (*Overrides)(nil).apply("lda", map[string]string{"ridge": "1"}); !reflect.DeepEqual(got, map[string]string{"ridge": "1"}) {
		t.Errorf("no overrides: %v", got)
	}
	if err := ov.Check(); err != nil {
		t.Errorf("valid settings: %v", err)
	}
	// lda, gda and aqmida used every setting but sklpp.k.
	if got := ov.Unused(); !reflect.DeepEqual(got, []string{"sklpp.k=3"}) {
		t.Errorf("unused %v, want [sklpp.k=3]", got)
	}
	ov.Reset()
	if got := ov.Unused(); len(got) != 4 {
		t.Errorf("after Reset: unused %v, want all four", got)
	}
	for _, tc := range []struct {
		ov   *Overrides
		want string
	}{
		{NewOverrides([]string{"nrm=unit"}), "did you mean norm?"},
		{NewOverrides([]string{"lda.sigma=1"}), "unknown parameter sigma for lda"},
		{NewOverrides([]string{"xyz.norm=unit"}), `unknown method "xyz"`},
		{NewOverrides([]string{"norm"}), "not key=value"},
	} {
		if err := tc.ov.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to contain %q", tc.ov, err, tc.want)
		}
	}
}

// RunContext.Scale (dimred reproduce --scale) replaces the face rows'
// preprocessing of seed 003 — the same cells as a run with Seed003Options.Scale
// set directly, different from the unit-length rows — and the report's
// choices say so; an experiment whose preprocessing is fixed says it was
// not applied.
func TestRunContextScale(t *testing.T) {
	sh := shared(t, "data/faces/yale_32x32.csv.gz", "papers/tables/seed003_table1_faces.tsv", "data/uci/iris.arff", "data/uci/wine.arff",
		"data/uci/glass.arff", "data/uci/ionosphere.arff", "data/uci/vowel.arff")
	exps := map[string]Experiment{}
	for _, e := range Experiments() {
		exps[e.Name] = e
	}
	cell := func(o *Outcome) float64 {
		for _, c := range o.Tables[0].Cells {
			if c.Ran {
				return c.Ours
			}
		}
		t.Fatal("no cell ran")
		return 0
	}
	rc := &RunContext{Shared: sh, Quick: true, Methods: []string{"PCA"}, Scale: "zscore"}
	z, err := Execute(exps["seed003-table1"], rc, "test")
	if err != nil {
		t.Fatal(err)
	}
	rc.Scale = ""
	u, err := Execute(exps["seed003-table1"], rc, "test")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Seed003(Seed003Options{Shared: sh, Sets: []string{"Yale"}, Nus: []int{2}, Methods: []string{"PCA"}, Repeats: 2, MaxDims: 20, Scale: "zscore"})
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * (1 - rows[0].Ours.MinError); cell(z) != want || cell(u) == want {
		t.Errorf("Yale ν=2 PCA: --scale zscore %.4f, unit rows %.4f; Seed003 with Scale zscore %.4f", cell(z), cell(u), want)
	}
	has := func(o *Outcome, s string) bool {
		for _, c := range o.Choices {
			if strings.Contains(c, s) {
				return true
			}
		}
		return false
	}
	if !has(z, `preprocessing set to "zscore" by --scale`) || has(u, "--scale") {
		t.Errorf("choices with --scale %q, without %q", z.Choices, u.Choices)
	}
	rc.Scale = "zscore"
	id, err := Execute(exps["identities"], rc, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !has(id, `--scale "zscore" not applied`) {
		t.Errorf("identities' choices %q do not say --scale was not applied", id.Choices)
	}
}
