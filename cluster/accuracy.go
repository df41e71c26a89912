package cluster

import (
	"fmt"
	"slices"
)

// Contingency is the table T of two labelings of the same rows: Count[a][b]
// is the number of rows in cluster Clusters[a] and class Classes[b]
// (T(C_k, L_m) of seed 002 eq. 30). Clusters and Classes are the distinct
// label values, ascending.
type Contingency struct {
	Clusters, Classes []int
	Count             [][]int
	// N is the number of rows counted.
	N int
}

// NewContingency tabulates pred (clusters) against truth (classes). Rows
// whose true label is negative (−1: unlabeled) are left out. It returns an
// error when the lengths differ or no row is labelled.
func NewContingency(pred, truth []int) (*Contingency, error) {
	if len(pred) != len(truth) {
		return nil, fmt.Errorf("cluster: %d predicted labels for %d true labels; want one per row", len(pred), len(truth))
	}
	var clusters, classes []int
	for i, t := range truth {
		if t >= 0 {
			clusters = append(clusters, pred[i])
			classes = append(classes, t)
		}
	}
	if len(classes) == 0 {
		return nil, fmt.Errorf("cluster: no row has a true label (all %d are negative)", len(truth))
	}
	t := &Contingency{Clusters: distinct(clusters), Classes: distinct(classes), N: len(classes)}
	t.Count = make([][]int, len(t.Clusters))
	for a := range t.Count {
		t.Count[a] = make([]int, len(t.Classes))
	}
	for i := range classes {
		a, _ := slices.BinarySearch(t.Clusters, clusters[i])
		b, _ := slices.BinarySearch(t.Classes, classes[i])
		t.Count[a][b]++
	}
	return t, nil
}

func distinct(v []int) []int {
	s := slices.Clone(v)
	slices.Sort(s)
	return slices.Compact(s)
}

// Matching returns the one-to-one matching of clusters to classes that
// maximises the number of rows on matched pairs: match[a] is the index in
// Classes of the class matched to cluster a, or −1 when there are more
// clusters than classes and cluster a is left unmatched (its rows then
// count as errors). It also returns that number of rows. The matching is
// found by the Hungarian algorithm in O(k³) for k = max(clusters, classes).
func (t *Contingency) Matching() (match []int, correct int) {
	nc, nl := len(t.Clusters), len(t.Classes)
	transpose := nc > nl // assign wants rows ≤ columns
	r, c := nc, nl
	if transpose {
		r, c = nl, nc
	}
	cost := make([][]float64, r)
	for i := range cost {
		cost[i] = make([]float64, c)
		for j := range cost[i] {
			if transpose {
				cost[i][j] = -float64(t.Count[j][i])
			} else {
				cost[i][j] = -float64(t.Count[i][j])
			}
		}
	}
	col := assign(cost)
	match = make([]int, nc)
	for a := range match {
		match[a] = -1
	}
	for i, j := range col {
		a, b := i, j
		if transpose {
			a, b = j, i
		}
		match[a] = b
		correct += t.Count[a][b]
	}
	return match, correct
}

// Accuracy is the clustering accuracy of seed 002 eq. 30,
//
//	Acc = (1/N)·max over one-to-one matchings (C_k ↔ L_m) of Σ T(C_k, L_m),
//
// the fraction of rows whose cluster is matched to their class under the
// best matching (Hungarian algorithm, Contingency.Matching). The numbers of
// clusters and classes may differ: the surplus ones stay unmatched. Rows
// with a negative true label are left out. Label values are arbitrary
// integers (only equality matters).
func Accuracy(pred, truth []int) (float64, error) {
	t, err := NewContingency(pred, truth)
	if err != nil {
		return 0, err
	}
	_, correct := t.Matching()
	return float64(correct) / float64(t.N), nil
}
