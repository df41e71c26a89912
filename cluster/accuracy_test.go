package cluster

import (
	"math/rand/v2"
	"testing"
)

func randomLabels(rng *rand.Rand, n, k int) []int {
	y := make([]int, n)
	for i := range y {
		y[i] = rng.IntN(k)
	}
	return y
}

// bruteAccuracy is eq. 30 by brute force: the table of counts is padded
// to s×s (s = max(clusters, classes)) with zeros and every permutation of
// the s classes is tried, so a surplus cluster or class is matched to a
// padding row or column that counts nothing.
func bruteAccuracy(pred, truth []int) float64 {
	cl, cs := map[int]int{}, map[int]int{}
	for i := range pred {
		if _, ok := cl[pred[i]]; !ok {
			cl[pred[i]] = len(cl)
		}
		if _, ok := cs[truth[i]]; !ok {
			cs[truth[i]] = len(cs)
		}
	}
	s := max(len(cl), len(cs))
	t := make([][]int, s)
	for a := range t {
		t[a] = make([]int, s)
	}
	for i := range pred {
		t[cl[pred[i]]][cs[truth[i]]]++
	}
	perm := make([]int, s)
	for i := range perm {
		perm[i] = i
	}
	best := 0
	var rec func(k int)
	rec = func(k int) {
		if k == s {
			sum := 0
			for a, b := range perm {
				sum += t[a][b]
			}
			best = max(best, sum)
			return
		}
		for i := k; i < s; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return float64(best) / float64(len(pred))
}

// The Hungarian matching equals the brute force over all permutations,
// for up to 6 classes, on random labelings (square and rectangular: more
// clusters than classes and fewer) and on noisy copies of the truth.
func TestAccuracyEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 600; trial++ {
		kl := 1 + rng.IntN(6)
		kc := max(1, kl+rng.IntN(5)-2) // kl−2 … kl+2
		n := 1 + rng.IntN(80)
		truth := randomLabels(rng, n, kl)
		var pred []int
		if trial%2 == 0 {
			pred = randomLabels(rng, n, kc)
		} else {
			// A relabelled truth with errors: the optimum is far from 1/k.
			perm := rng.Perm(max(kc, kl))
			pred = make([]int, n)
			for i, y := range truth {
				pred[i] = perm[y] % kc
				if rng.Float64() < 0.3 {
					pred[i] = rng.IntN(kc)
				}
			}
		}
		// Arbitrary label values: only equality matters.
		for i := range pred {
			pred[i] = 10*pred[i] - 7
		}
		got, err := Accuracy(pred, truth)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteAccuracy(pred, truth); got != want {
			t.Fatalf("trial %d (%d clusters, %d classes, %d rows): Hungarian %v, brute force %v\npred %v\ntruth %v", trial, kc, kl, n, got, want, pred, truth)
		}
	}
}

func TestAccuracyCases(t *testing.T) {
	cases := []struct {
		pred, truth []int
		want        float64
	}{
		{[]int{1, 1, 0, 0}, []int{0, 0, 1, 1}, 1},                   // renamed
		{[]int{0, 0, 0, 0}, []int{0, 0, 1, 1}, 0.5},                 // one cluster
		{[]int{0, 1, 2, 3}, []int{0, 0, 1, 1}, 0.5},                 // more clusters than classes
		{[]int{0, 0, 1, 1, 2}, []int{0, 0, 1, 1, -1}, 1},            // unlabelled row left out
		{[]int{2, 2, 2, 0, 0, 1}, []int{0, 0, 1, 1, 1, 1}, 4.0 / 6}, // greedy would match 2→0 or 2→1 alike
	}
	for i, c := range cases {
		got, err := Accuracy(c.pred, c.truth)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("case %d: accuracy %v, want %v", i, got, c.want)
		}
	}
	if _, err := Accuracy([]int{0}, []int{0, 1}); err == nil {
		t.Error("Accuracy accepted labelings of different lengths")
	}
	if _, err := Accuracy(nil, nil); err == nil {
		t.Error("Accuracy accepted empty labelings")
	}
}

// The matching is one-to-one and its count is the accuracy's numerator.
func TestMatchingIsOneToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		pred, truth := randomLabels(rng, 50, 2+rng.IntN(7)), randomLabels(rng, 50, 2+rng.IntN(7))
		tab, err := NewContingency(pred, truth)
		if err != nil {
			t.Fatal(err)
		}
		match, correct := tab.Matching()
		seen := map[int]bool{}
		sum, matched := 0, 0
		for a, b := range match {
			if b < 0 {
				continue
			}
			if seen[b] {
				t.Fatalf("class %d matched twice: %v", b, match)
			}
			seen[b] = true
			sum += tab.Count[a][b]
			matched++
		}
		if sum != correct || matched != min(len(tab.Clusters), len(tab.Classes)) {
			t.Fatalf("matching %v: sum %d, correct %d, %d pairs", match, sum, correct, matched)
		}
	}
}
