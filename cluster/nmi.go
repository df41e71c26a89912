package cluster

import (
	"fmt"
	"math"
)

// NMINorm names the mean of the two entropies that normalizes the mutual
// information in NMIWith.
type NMINorm string

const (
	// Arithmetic: (H(U) + H(V))/2. The default of NMI and of
	// scikit-learn's normalized_mutual_info_score (average_method=
	// "arithmetic" since scikit-learn 0.22); equal to the V-measure.
	Arithmetic NMINorm = "arithmetic"
	// Geometric: √(H(U)·H(V)), the NMI of Strehl and Ghosh (2002) and
	// scikit-learn's default before 0.22.
	Geometric NMINorm = "geometric"
	// Max: max(H(U), H(V)).
	Max NMINorm = "max"
	// Min: min(H(U), H(V)).
	Min NMINorm = "min"
)

// NMI is the normalized mutual information of a clustering pred and the
// true classes truth with the arithmetic normalization,
//
//	NMI = I(U;V) / ((H(U) + H(V))/2),
//	I(U;V) = Σ_ab (n_ab/N)·ln(N·n_ab/(n_a·n_b)),   H(U) = −Σ_a (n_a/N)·ln(n_a/N),
//
// from the contingency table n_ab (NewContingency: rows with a negative
// true label are left out). It is 1 for identical partitions (up to
// renaming) and 0 for independent ones, and equals scikit-learn's
// normalized_mutual_info_score with its default average_method, special
// cases included: both labelings with a single cluster give 1; a zero
// mutual information gives 0 (so does one labeling with a single cluster
// and the other with several).
func NMI(pred, truth []int) (float64, error) { return NMIWith(pred, truth, Arithmetic) }

// NMIWith is NMI with the given normalization.
func NMIWith(pred, truth []int, norm NMINorm) (float64, error) {
	var mean func(a, b float64) float64
	switch norm {
	case Arithmetic, "":
		mean = func(a, b float64) float64 { return (a + b) / 2 }
	case Geometric:
		mean = func(a, b float64) float64 { return math.Sqrt(a * b) }
	case Max:
		mean = math.Max
	case Min:
		mean = math.Min
	default:
		return 0, fmt.Errorf("cluster: unknown NMI normalization %q (known: arithmetic, geometric, max, min)", norm)
	}
	t, err := NewContingency(pred, truth)
	if err != nil {
		return 0, err
	}
	if len(t.Clusters) == 1 && len(t.Classes) == 1 {
		return 1, nil
	}
	mi := t.mutualInfo()
	if mi == 0 {
		return 0, nil
	}
	rows, cols := t.margins()
	return mi / mean(entropy(rows, t.N), entropy(cols, t.N)), nil
}

// margins returns the row (cluster) and column (class) sums.
func (t *Contingency) margins() (rows, cols []int) {
	rows = make([]int, len(t.Clusters))
	cols = make([]int, len(t.Classes))
	for a, r := range t.Count {
		for b, v := range r {
			rows[a] += v
			cols[b] += v
		}
	}
	return rows, cols
}

// mutualInfo is I(U;V) in nats, clipped at 0 (rounding can make an
// exactly independent table slightly negative); terms smaller than the
// machine epsilon are dropped, as scikit-learn's mutual_info_score does.
func (t *Contingency) mutualInfo() float64 {
	rows, cols := t.margins()
	n := float64(t.N)
	mi := 0.0
	for a, r := range t.Count {
		for b, v := range r {
			if v == 0 {
				continue
			}
			p := float64(v) / n
			term := p * math.Log(n*float64(v)/(float64(rows[a])*float64(cols[b])))
			if math.Abs(term) >= eps {
				mi += term // as scikit-learn: terms below ε are rounding noise
			}
		}
	}
	return max(mi, 0)
}

// eps is the float64 machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// entropy is −Σ (c/N)·ln(c/N) over the counts c.
func entropy(counts []int, n int) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log(p)
		}
	}
	return h
}
