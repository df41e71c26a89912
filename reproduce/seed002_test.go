package reproduce

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/cluster"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

// Table 2's data sets have the sizes of seed 002 Table 1 (n, d, classes):
// the class selections and the optdigits test part are right.
func TestSeed002ClusterSetsSizes(t *testing.T) {
	sh := shared(t, "data/uci/ionosphere.arff", "data/uci/letter.arff", "data/uci/satellite.arff", "data/uci/optdigits.arff")
	want := map[string][3]int{
		"Ionosphere": {351, 34, 2}, "Letter A-B": {1555, 16, 2}, "Satellite C1-C2": {2236, 36, 2},
		"Digits 0689": {713, 64, 4}, "Digits 1279": {718, 64, 4},
	}
	for _, s := range Seed002ClusterSets {
		ds, err := LoadSeed002ClusterSet(filepath.Join(sh, "data"), s)
		if err != nil {
			t.Fatal(err)
		}
		n, d := ds.Dims()
		if got := [3]int{n, d, ds.NumClasses()}; got != want[s.Paper] {
			t.Errorf("%s: n, d, classes = %v, want %v (seed 002 Table 1)", s.Paper, got, want[s.Paper])
		}
	}
	if _, err := LoadSeed002ClusterSet(filepath.Join(sh, "data"), Seed002ClusterSet{"x", "uci/letter.arff", []string{"AA"}, 0}); err == nil || !strings.Contains(err.Error(), `"AA"`) {
		t.Errorf("unknown class: err = %v", err)
	}
}

// A Table 2 cell recomputed by hand: SR fitted without labels on the
// scaled rows, normalized cut, k-means seeds 1..3, accuracy by Hungarian
// matching; and the published cell beside it.
func TestSeed002Table2Cell(t *testing.T) {
	sh := shared(t, "data/uci/ionosphere.arff", "papers/tables/seed002_table2_clustering.tsv")
	cells, err := Seed002(Seed002Options{Shared: sh, Tables: []string{"2"}, Datasets: []string{"Ionosphere"}, Methods: []string{"SR", "Baseline"}, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || cells[0].Method != "Baseline" || cells[1].Method != "SR" {
		t.Fatalf("cells %+v, want Baseline and SR", cells)
	}
	sr := cells[1]
	if !sr.Found || sr.Paper != 80.6 || sr.PaperStd != 0.5 || sr.Dim != 2 {
		t.Errorf("SR cell %+v: want the published 80.6 ± 0.5 and 2 dimensions", sr)
	}
	ds, err := data.Load(filepath.Join(sh, "data/uci/ionosphere.arff"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pipe, _ := preprocess.Parse("unit")
	f, err := pipe.Fit(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := f.Apply(ds.X)
	m, err := method.New("sr", map[string]string{"graph": "unsupervised", "ridge": "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, z, err := method.FitTransform(m, x, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	nc := cluster.NormalizedCut{K: 2}
	emb, err := nc.Embed(z)
	if err != nil {
		t.Fatal(err)
	}
	var acc []float64
	for s := uint64(1); s <= 3; s++ {
		km, err := nc.KMeansFor(s).Fit(emb.Rows)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := cluster.Accuracy(km.Labels, ds.Y)
		acc = append(acc, 100*a)
	}
	if mean, _ := meanStd(acc); math.Abs(mean-sr.Mean) > 1e-9 {
		t.Errorf("SR accuracy %v, recomputed %v", sr.Mean, mean)
	}
}

// svmScaled equals the SVM fitted on columns scaled to [−1, 1] by hand
// (training minimum → −1, maximum → 1, test rows by the same map).
func TestSVMScaled(t *testing.T) {
	x := mat.NewDense(8, 2, []float64{0, 100, 1, 300, 2, 200, 3, 400, 10, 0, 11, 50, 12, 20, 13, 10})
	y := []int{0, 0, 0, 0, 1, 1, 1, 1}
	test := mat.NewDense(3, 2, []float64{1.5, 250, 12.5, 30, 7, 150})
	svm := classify.SVM{Kernel: classify.SVMLinear, C: 1}
	p, err := svmScaled{svm}.Fit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	scale := func(m *mat.Dense) *mat.Dense {
		r, _ := m.Dims()
		out := mat.NewDense(r, 2, nil)
		for i := 0; i < r; i++ {
			out.Set(i, 0, 2*(m.At(i, 0)-0)/13-1)
			out.Set(i, 1, 2*(m.At(i, 1)-0)/400-1)
		}
		return out
	}
	q, err := svm.Fit(scale(x), y)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := q.Predict(scale(test))
	if !slices.Equal(got, want) {
		t.Errorf("scaled SVM predicts %v, by hand %v", got, want)
	}
}

// A Table 3 cell recomputed by hand on one split: SR (c − 1 dimensions)
// on unit-length rows of the [0, 1] pixels, the scaled linear SVM on the
// embedding; Table 4's row keys (labelled counts) find published cells.
func TestSeed002FacesSmall(t *testing.T) {
	sh := shared(t, "data/faces/pie10_32x32.csv.gz", "data/faces/yaleb_32x32.csv.gz",
		"papers/tables/seed002_table3_pie_supervised.tsv", "papers/tables/seed002_table4_yaleb_semisupervised.tsv")
	cells, err := Seed002(Seed002Options{Shared: sh, Tables: []string{"3"}, Methods: []string{"SR"}, Repeats: 1, PerClass: []int{5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 || cells[0].Row != "5×10" || !cells[0].Found || cells[0].Paper != 71.9 || cells[0].Dim != 9 {
		t.Fatalf("cells %+v, want one SR cell, row 5×10, published 71.9, 9 dimensions", cells)
	}
	ds, err := data.Load(filepath.Join(sh, "data/faces/pie10_32x32.csv.gz"), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds.X.Scale(1.0/255, ds.X)
	tr, te, err := evaluate.PerClassSplit(ds.Y, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, b := ds.Subset(tr), ds.Subset(te)
	pipe, _ := preprocess.Parse("unit")
	f, err := pipe.Fit(a.X)
	if err != nil {
		t.Fatal(err)
	}
	xa, _ := f.Apply(a.X)
	xb, _ := f.Apply(b.X)
	m, _ := method.New("sr", map[string]string{"ridge": "1"})
	fit, za, err := method.FitTransform(m, xa, a.Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	zb, err := fit.Transform(xb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := svmScaled{classify.SVM{Kernel: classify.SVMLinear, C: 1}}.Fit(za, a.Y)
	if err != nil {
		t.Fatal(err)
	}
	pred, _ := p.Predict(zb)
	if acc := 100 * (1 - classify.ErrorRate(pred, b.Y)); math.Abs(acc-cells[0].Mean) > 1e-9 {
		t.Errorf("Table 3 SR cell %v, recomputed %v", cells[0].Mean, acc)
	}

	cells, err = Seed002(Seed002Options{Shared: sh, Tables: []string{"4"}, Methods: []string{"Baseline"}, Repeats: 1, PerClass: []int{5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 || cells[0].Row != "95" || !cells[0].Found || cells[0].Paper != 50.8 || cells[0].Dim != 1024 {
		t.Errorf("Table 4 cells %+v, want the baseline at row 95 (published 50.8) on 1024 pixels", cells)
	}
	if cells[0].PaperStd != 2.3 {
		t.Errorf("published std %.1f, want 2.3", cells[0].PaperStd)
	}
}

// Each seed 002 table's report lists the choices that concern it: those
// naming it (Table 2; Tables 3-4 for 3 and 4) and the general ones, and
// every choice goes to some table.
func TestSeed002ChoicesFor(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range []struct {
		table      string
		has, hasnt []string
	}{
		{"2", []string{"UCI rows (Table 2)", "Gaussian width 1", "Table 2 KPCA"}, []string{"face rows", "Tables 3-4:", "Table 3:", "Table 4:"}},
		{"3", []string{"face rows (Tables 3-4)", "Gaussian width 1", "Tables 3-4:", "Table 3:"}, []string{"UCI rows", "Table 2", "Table 4:"}},
		{"4", []string{"face rows (Tables 3-4)", "Tables 3-4:", "Table 4:"}, []string{"UCI rows", "Table 3:"}},
	} {
		got := seed002ChoicesFor(tc.table)
		text := strings.Join(got, "\n")
		for _, h := range tc.has {
			if !strings.Contains(text, h) {
				t.Errorf("Table %s: no choice %q", tc.table, h)
			}
		}
		for _, h := range tc.hasnt {
			if slices.ContainsFunc(got, func(c string) bool { return strings.HasPrefix(c, h) }) {
				t.Errorf("Table %s: a choice of another table, %q", tc.table, h)
			}
		}
		for _, c := range got {
			seen[c] = true
		}
	}
	if len(seen) != len(seed002Choices) {
		t.Errorf("%d of %d choices reach a table", len(seen), len(seed002Choices))
	}
}
