package cluster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// nmiDirect is the definition, from the joint and marginal probabilities
// of the labels (not from Contingency), with the arithmetic mean.
func nmiDirect(pred, truth []int) float64 {
	n := float64(len(pred))
	pa, pb := map[int]float64{}, map[int]float64{}
	pab := map[[2]int]float64{}
	for i := range pred {
		pa[pred[i]] += 1 / n
		pb[truth[i]] += 1 / n
		pab[[2]int{pred[i], truth[i]}] += 1 / n
	}
	mi := 0.0
	for k, p := range pab {
		mi += p * math.Log(p/(pa[k[0]]*pb[k[1]]))
	}
	h := func(m map[int]float64) float64 {
		s := 0.0
		for _, p := range m {
			s -= p * math.Log(p)
		}
		return s
	}
	return mi / ((h(pa) + h(pb)) / 2)
}

func TestNMIMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 5 + rng.IntN(60)
		kc, kl := 2+rng.IntN(6), 2+rng.IntN(6)
		pred, truth := randomLabels(rng, n, kc), randomLabels(rng, n, kl)
		if len(distinct(pred)) < 2 || len(distinct(truth)) < 2 {
			continue
		}
		got, err := NMI(pred, truth)
		if err != nil {
			t.Fatal(err)
		}
		want := nmiDirect(pred, truth)
		if want < 1e-12 {
			continue // sklearn's rule rounds tiny MI to 0: compared below
		}
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: NMI %.17g, definition %.17g", trial, got, want)
		}
	}
}

// Literals from scikit-learn 1.2.1 (testdata/gen_nmi.py, run once with
// /usr/bin/python3): normalized_mutual_info_score with average_method
// arithmetic (its default), geometric, max and min.
func TestNMIMatchesScikitLearn(t *testing.T) {
	cases := []struct {
		pred, truth []int
		want        [4]float64
	}{
		{pred: []int{0, 0, 1, 1, 2, 2}, truth: []int{1, 1, 0, 0, 2, 2}, want: [4]float64{1, 1, 1, 1}},
		{pred: []int{0, 0, 1, 1}, truth: []int{0, 1, 0, 1}, want: [4]float64{0, 0, 0, 0}},
		{pred: []int{0, 0, 0, 0, 0}, truth: []int{0, 1, 2, 0, 1}, want: [4]float64{0, 0, 0, 0}},
		{pred: []int{3, 3, 3}, truth: []int{7, 7, 7}, want: [4]float64{1, 1, 1, 1}},
		{pred: []int{0, 1, 2, 3, 4, 5}, truth: []int{0, 0, 0, 1, 1, 1}, want: [4]float64{0.55788589130226007, 0.62197492492426243, 0.3868528072345418, 1.0000000000000002}},
		{pred: []int{0, 2, 0, 0, 0, 2, 1, 1, 0, 2, 2, 0, 1, 0, 1, 2, 2, 2, 0, 2, 2, 1, 2, 2, 0, 2, 1, 2, 2, 1}, truth: []int{1, 1, 2, 0, 1, 2, 2, 2, 0, 2, 0, 2, 1, 2, 2, 0, 0, 1, 2, 1, 0, 0, 1, 2, 2, 0, 2, 0, 1, 1}, want: [4]float64{0.06739114286249212, 0.067398865757646073, 0.066386193681235536, 0.068426985394422324}},
		{pred: []int{0, 0, 4, 3, 1, 0, 1, 1, 0, 4, 2, 3, 2, 3, 4, 2, 3, 2, 4, 1, 0, 1, 4, 3, 2, 3, 3, 0, 2, 3, 4, 2, 0, 3, 1, 1, 4, 0, 3, 3}, truth: []int{1, 0, 0, 2, 2, 2, 0, 2, 1, 2, 0, 0, 1, 0, 0, 2, 2, 1, 2, 1, 0, 0, 1, 0, 0, 0, 2, 1, 0, 2, 0, 0, 2, 2, 2, 0, 1, 1, 2, 0}, want: [4]float64{0.1034217494654672, 0.10550108425774249, 0.086360416151546479, 0.12888403362979814}},
		{pred: []int{1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0}, truth: []int{1, 0, 1, 3, 2, 1, 0, 3, 5, 3, 3, 0, 1, 3, 2, 3, 1, 3, 5, 4, 3, 1, 0, 1, 1}, want: [4]float64{0.22525126325690953, 0.24438690416826125, 0.16229589130782412, 0.36800043702688379}},
		{pred: []int{5, 4, 4, 4, 1, 2, 2, 2, 2, 0, 1, 4, 4, 5, 1, 3, 3, 4, 1, 0, 5, 0, 5, 4, 3, 1, 4, 2, 5, 4, 3, 1, 3, 5, 1, 4, 3, 2, 0, 5, 2, 2, 5, 5, 2, 2, 1, 5, 1, 2, 3, 0, 5, 5, 4, 0, 1, 3, 0, 3}, truth: []int{2, 0, 5, 1, 0, 1, 5, 3, 4, 5, 2, 5, 3, 0, 4, 5, 1, 1, 3, 5, 1, 4, 2, 4, 4, 0, 5, 1, 3, 1, 4, 3, 4, 1, 5, 4, 1, 5, 0, 3, 3, 2, 3, 0, 2, 4, 1, 4, 1, 1, 0, 0, 2, 0, 0, 1, 0, 4, 4, 4}, want: [4]float64{0.14690330744474214, 0.14690578502696869, 0.14605505649794423, 0.14776146880401708}},
		{pred: []int{2, 1, 2, 0, 1, 3, 0, 3, 0, 1, 1, 2, 0, 0, 2, 3, 1, 2, 1, 0, 3, 1, 0, 3, 2, 3, 3, 0, 0, 0, 3, 1, 3, 2, 2, 1, 0, 3, 1, 3, 3, 2, 1, 1, 2, 1, 1, 0, 2, 3}, truth: []int{2, 1, 1, 0, 2, 5, 6, 6, 5, 5, 2, 5, 3, 0, 0, 0, 5, 6, 0, 0, 1, 4, 3, 3, 3, 4, 5, 6, 6, 0, 4, 6, 5, 1, 3, 1, 5, 6, 5, 6, 4, 4, 2, 3, 2, 4, 4, 4, 1, 5}, want: [4]float64{0.12999030096411537, 0.1317636778976746, 0.11172228890489523, 0.15540020691754214}},
		{pred: []int{2, 0, 2, 3, 1, 1, 0, 0, 1, 3, 1, 0, 0, 3, 1, 0, 3, 0, 2, 3, 3, 2, 0, 2, 3, 3, 2, 3, 0, 2, 1, 3, 3, 2, 2, 2, 2, 0, 3, 3, 1, 1, 3, 1, 2, 2, 1, 3, 0, 1, 1, 2, 3, 1, 2, 1, 3, 3, 3, 0, 0, 2, 2, 3, 0, 2, 0, 3, 0, 3, 2, 0, 3, 2, 2, 0, 1, 1, 3, 3}, truth: []int{2, 0, 2, 3, 1, 1, 0, 0, 0, 3, 1, 0, 0, 3, 1, 0, 0, 0, 2, 3, 3, 2, 0, 2, 3, 3, 1, 3, 0, 3, 1, 3, 3, 2, 2, 2, 2, 0, 3, 1, 1, 1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 2, 3, 1, 2, 1, 3, 3, 3, 0, 0, 2, 2, 3, 0, 2, 3, 3, 0, 3, 2, 0, 3, 2, 2, 0, 1, 0, 3, 3}, want: [4]float64{0.67973187799941626, 0.67973220977004523, 0.67906095335168681, 0.68040412972998543}},
	}
	norms := []NMINorm{Arithmetic, Geometric, Max, Min}
	for i, c := range cases {
		for j, norm := range norms {
			got, err := NMIWith(c.pred, c.truth, norm)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want[j]) > 1e-13 {
				t.Errorf("case %d %s: NMI %.17g, scikit-learn %.17g", i, norm, got, c.want[j])
			}
		}
		def, _ := NMI(c.pred, c.truth)
		if def != mustNMI(t, c.pred, c.truth, Arithmetic) {
			t.Errorf("case %d: NMI is not the arithmetic normalization", i)
		}
	}
}

func mustNMI(t *testing.T, pred, truth []int, norm NMINorm) float64 {
	t.Helper()
	v, err := NMIWith(pred, truth, norm)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNMIErrors(t *testing.T) {
	if _, err := NMI([]int{0, 1}, []int{0}); err == nil {
		t.Error("NMI accepted labelings of different lengths")
	}
	if _, err := NMI([]int{0, 1}, []int{-1, -1}); err == nil {
		t.Error("NMI accepted a truth without labelled rows")
	}
	if _, err := NMIWith([]int{0, 1}, []int{0, 1}, "median"); err == nil {
		t.Error("NMIWith accepted an unknown normalization")
	}
	// Unlabelled rows (−1) are left out.
	v := mustNMI(t, []int{0, 0, 1, 1, 5}, []int{2, 2, 3, 3, -1}, Arithmetic)
	if v != 1 {
		t.Errorf("NMI with an unlabelled row left out = %v, want 1", v)
	}
}
