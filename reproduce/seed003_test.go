package reproduce

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Seed 003 Table 1 on a small case (Yale, ν = 3, three splits, four
// methods, 20 dimensions): every published cell is found with its value,
// every accuracy is far above chance (1/15), and MIE₀, BERE and kMIE beat
// PCA, as in the paper. (Our FDA does not at ν = 3: 0.40 against PCA's
// 0.47 on these splits; docs/reproduction.md.) The full table runs behind
// `dimred reproduce seed003` (docs/reproduction.md).
func TestSeed003Small(t *testing.T) {
	sh := shared(t, "data/faces/yale_32x32.csv.gz", "papers/tables/seed003_table1_faces.tsv")
	rows, err := Seed003(Seed003Options{Shared: sh, Sets: []string{"Yale"}, Nus: []int{3},
		Methods: []string{"PCA", "FDA", "MIE0", "BERE", "kMIE"}, Repeats: 3, MaxDims: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	acc := map[string]float64{}
	paper := map[string]float64{"PCA": .52, "FDA": .57, "MIE0": .67, "BERE": .69, "kMIE": .73}
	for _, r := range rows {
		if !r.Found || r.PaperAcc != paper[r.Method] || r.Nu != 3 {
			t.Errorf("%s/%s ν=%d: published %v (found %v), want %v", r.Set, r.Method, r.Nu, r.PaperAcc, r.Found, paper[r.Method])
		}
		acc[r.Method] = 1 - r.Ours.MinError
		if _, ok := r.Ours.StdAtBest(); !ok {
			t.Errorf("%s: no standard deviation over the splits", r.Method)
		}
	}
	for m, a := range acc {
		if !(a > 0.3) {
			t.Errorf("%s: accuracy %.3f; chance is 0.067", m, a)
		}
		if (m == "MIE0" || m == "BERE" || m == "kMIE") && !(a > acc["PCA"]) {
			t.Errorf("%s: accuracy %.3f not above PCA's %.3f", m, a, acc["PCA"])
		}
	}
	t.Logf("accuracies %v", acc)
	for _, r := range rows {
		if r.Method == "MIE0" && (!r.Found || r.PaperAcc != 0.67 || r.PaperStd != 0.019) {
			t.Errorf("published Yale ν=3 MIE0 cell %.2f ± %.3f (found %v), want 0.67 ± 0.019", r.PaperAcc, r.PaperStd, r.Found)
		}
	}
}

// The table's MIE column is the EM fitted for each dimension, not the
// first columns of one fit: on Yale with ν = 2 (30 training rows, at most
// 29 dimensions) MIE differs from MIE₀ below the full rank, and at the
// full rank, where the EM's embedding is an isometry of the rows and it
// returns MIE₀, the two agree split for split. (The sweep once took the
// first k columns of the full-rank fit, and MIE equalled MIE₀ everywhere.)
func TestSeed003MIEPerDimension(t *testing.T) {
	sh := shared(t, "data/faces/yale_32x32.csv.gz", "papers/tables/seed003_table1_faces.tsv")
	rows, err := Seed003(Seed003Options{Shared: sh, Sets: []string{"Yale"}, Nus: []int{2},
		Methods: []string{"MIE0", "MIE"}, Repeats: 2, MaxDims: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	e0, e := rows[0].Ours.ErrorsByDim, rows[1].Ours.ErrorsByDim
	if len(e0) != 29 || len(e) != 29 {
		t.Fatalf("%d and %d dimensions swept, want 29 (n − 1)", len(e0), len(e))
	}
	differ := 0
	for k := range e {
		if e[k] != e0[k] {
			differ++
		}
	}
	if differ < 5 {
		t.Errorf("MIE's errors differ from MIE₀'s at %d of 29 dimensions: the EM is not refitted per dimension", differ)
	}
	if e[28] != e0[28] {
		t.Errorf("at the full rank MIE's error %.4f differs from MIE₀'s %.4f; the EM should return MIE₀ there", e[28], e0[28])
	}
}

// Seed 003 Fig. 1 is written as a PNG of three panels.
func TestSeed003Fig1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fig1.png")
	if err := Seed003Fig1(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 1500 || cfg.Height != 400 {
		t.Fatalf("figure: %v, %d×%d; want a 1500×400 PNG", err, cfg.Width, cfg.Height)
	}
}

// The re-run's baselines follow the MFA paper's protocol: FDA is
// Fisherfaces and MFA runs after PCA to n − C components (45 training rows
// of 15 classes: 30), the kernel methods get the table's RBF width, and
// the MIE family keeps its defaults.
func TestSeed003Params(t *testing.T) {
	for _, tc := range []struct {
		name string
		want map[string]string
	}{
		{"mfa", map[string]string{"pca": "30"}},
		{"lda", map[string]string{"fisherfaces": "true", "norm": "unit"}},
		{"gda", map[string]string{"kernel": "rbf", "sigma": "1"}},
		{"kmfa", map[string]string{"kernel": "rbf", "sigma": "1"}},
		{"mie0", map[string]string{}},
		{"lpp", map[string]string{}},
	} {
		p, err := seed003Params(tc.name, 1, 45, 15)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, p, tc.want)
		}
		for k, v := range tc.want {
			if p[k] != v {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, p[k], v)
			}
		}
	}
}
