// Package evaluate runs the experimental protocols of the papers: a
// dimensionality-reduction method is fitted on training rows, training and
// test rows are embedded, and a classifier's test error is measured at
// every output dimension 1..D; the reported figure is the minimum error
// over dimensions and the dimension where it is reached.
//
// Two protocols are supported: stratified k-fold cross-validation (the UCI
// experiments; the error at a dimension is the total number of
// misclassified rows over all folds divided by n) and repeated random
// splits with ν training rows per class (the face experiments of seeds
// 002-004; mean and standard deviation over splits).
//
// The minimum over dimensions picks the dimension on the test rows.
// RunNested runs the same protocol with the dimension (and optionally a
// grid of method parameters) chosen on inner folds of each training part,
// and reports that error beside the minimum (docs/nested.md).
package evaluate

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// seedStream is the second PCG word; fixed so a seed alone determines the
// random stream.
const seedStream = 0x9e3779b97f4a7c15

// repeatSeed returns the seed of repeat r derived from seed (r = 0 gives
// seed itself, so one repeat reproduces StratifiedKFold(y, k, seed)).
func repeatSeed(seed uint64, r int) uint64 {
	return seed + uint64(r)*0xbf58476d1ce4e5b9
}

// byClass returns the rows of each label 0..C-1 in increasing order, or an
// error naming the first row with a negative label.
func byClass(y []int) ([][]int, error) {
	nc := 0
	for i, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("row %d has label %d; evaluation needs labels ≥ 0 (no unlabeled rows)", i+1, v)
		}
		nc = max(nc, v+1)
	}
	rows := make([][]int, nc)
	for i, v := range y {
		rows[v] = append(rows[v], i)
	}
	return rows, nil
}

// StratifiedKFold partitions the rows 0..len(y)-1 into k test folds that
// keep the class proportions. A PCG generator seeded with seed shuffles the
// rows of each class (classes in increasing label order); the rows are then
// dealt round-robin over the folds, each class continuing at the fold where
// the previous one stopped. So every fold gets ⌊n/k⌋ or ⌈n/k⌉ rows, each
// class is split as evenly as possible, and a class with fewer than k rows
// lands in distinct folds (not all in fold 0). Each fold lists its rows in
// increasing order. The same y, k and seed give the same folds.
//
// It is an error if k < 2, k > n, or a label is negative.
func StratifiedKFold(y []int, k int, seed uint64) ([][]int, error) {
	n := len(y)
	if k < 2 || k > n {
		return nil, fmt.Errorf("stratified k-fold: k = %d folds, want 2 ≤ k ≤ %d (the number of rows)", k, n)
	}
	classes, err := byClass(y)
	if err != nil {
		return nil, fmt.Errorf("stratified k-fold: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, seedStream))
	folds := make([][]int, k)
	pos := 0
	for _, rows := range classes {
		rows = slices.Clone(rows)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, i := range rows {
			folds[pos] = append(folds[pos], i)
			pos = (pos + 1) % k
		}
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

// PerClassSplit draws nu training rows at random from each class (the
// protocol of the face experiments, "ν images per person for training");
// every other row is a test row. Labels with no rows are skipped. Both
// lists are in increasing order. The same y, nu and seed give the same
// split.
//
// It is an error if nu < 1, a label is negative, or a class has nu rows or
// fewer (it would leave that class without a test row; the error names the
// class).
func PerClassSplit(y []int, nu int, seed uint64) (train, test []int, err error) {
	if nu < 1 {
		return nil, nil, fmt.Errorf("per-class split: ν = %d training rows per class, want ν ≥ 1", nu)
	}
	if len(y) == 0 {
		return nil, nil, fmt.Errorf("per-class split: no rows")
	}
	classes, err := byClass(y)
	if err != nil {
		return nil, nil, fmt.Errorf("per-class split: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, seedStream))
	for c, rows := range classes {
		if len(rows) == 0 {
			continue
		}
		if len(rows) <= nu {
			return nil, nil, fmt.Errorf("per-class split: class %d has %d rows; ν = %d training rows per class would leave it no test row (need more than ν rows in every class)", c, len(rows), nu)
		}
		rows = slices.Clone(rows)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		train = append(train, rows[:nu]...)
		test = append(test, rows[nu:]...)
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test, nil
}

// BalancedSubset draws m rows with the classes as even as possible: each of
// the C classes present gets ⌊m/C⌋ rows and the first m mod C classes (in
// label order) one more, drawn at random (seeded) within the class; a class
// with fewer rows than its share gives all it has and the shortfall goes to
// the next classes. Unlabeled rows are never drawn. The indices are
// returned in increasing order. Seed 001 evaluates on 800 such rows of
// Letter (26 classes).
func BalancedSubset(y []int, m int, seed uint64) ([]int, error) {
	if m < 1 {
		return nil, fmt.Errorf("balanced subset: %d rows requested, want ≥ 1", m)
	}
	byLabel := map[int][]int{}
	var labels []int
	for i, v := range y {
		if v < 0 {
			continue
		}
		if byLabel[v] == nil {
			labels = append(labels, v)
		}
		byLabel[v] = append(byLabel[v], i)
	}
	slices.Sort(labels)
	classes := make([][]int, len(labels))
	for k, v := range labels {
		classes[k] = byLabel[v]
	}
	var present [][]int
	total := 0
	for _, rows := range classes {
		if len(rows) > 0 {
			present = append(present, rows)
			total += len(rows)
		}
	}
	if m > total {
		return nil, fmt.Errorf("balanced subset: %d rows requested but only %d labelled rows exist", m, total)
	}
	// Water-filling: raise a common share until m rows are allotted.
	share := make([]int, len(present))
	left := m
	for left > 0 {
		open := 0
		for c, rows := range present {
			if share[c] < len(rows) {
				open++
			}
		}
		each := max(left/open, 1)
		for c, rows := range present {
			if left == 0 {
				break
			}
			if take := min(each, len(rows)-share[c], left); take > 0 {
				share[c] += take
				left -= take
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seedStream))
	var out []int
	for c, rows := range present {
		rows = slices.Clone(rows)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		out = append(out, rows[:share[c]]...)
	}
	slices.Sort(out)
	return out, nil
}
