package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/par"
)

// The data-driven RBF width (sigma=auto).
//
// An RBF kernel with neither Sigma nor Gamma set has its width chosen from
// the training rows when a method fits (Resolve): σ = AutoWidthFactor ×
// the median Euclidean distance between pairs of training rows, over all
// pairs of a seeded sample of at most AutoWidthSample rows (every row when
// there are fewer). The fitted model stores the resolved σ, so new rows are
// mapped with the width the model was fitted with. The factor was chosen by
// measurement on the UCI, face and MNIST data (docs/parameters.md).
const (
	AutoWidthFactor = 0.5
	AutoWidthSample = 1000
)

// autoWidthSeed fixes the sample of rows, so the width (and the fit) is
// the same on every run.
const autoWidthSeed = 0x5349474d41 // "SIGMA"

// RBFAuto returns the RBF kernel whose width is chosen from the training
// rows (sigma=auto; see Resolve).
func RBFAuto() Kernel { return Kernel{Type: "rbf"} }

// IsAuto reports whether k, or a term of a sum, is an RBF kernel whose
// width is still to be chosen from data.
func (k Kernel) IsAuto() bool {
	if k.Type == "sum" {
		return slices.ContainsFunc(k.Terms, Kernel.IsAuto)
	}
	return k.isRBF() && k.Sigma == 0 && k.Gamma == 0
}

func (k Kernel) isRBF() bool {
	kd, err := lookupKind(k.Type)
	return err == nil && kd.Name == "rbf"
}

// Resolve returns k with every automatic RBF width replaced by the width
// the training rows x give (MedianDistance × AutoWidthFactor); a kernel
// without one is returned unchanged.
func (k Kernel) Resolve(x *mat.Dense) (Kernel, error) {
	return k.ResolveContext(context.Background(), x)
}

// ResolveContext is Resolve that stops between blocks of the distances
// when ctx is cancelled (about 0.4 s at 5 000 × 784 rows), returning
// ctx's error.
func (k Kernel) ResolveContext(ctx context.Context, x *mat.Dense) (Kernel, error) {
	if !k.IsAuto() {
		return k, nil
	}
	if k.Type == "sum" {
		out := k
		out.Terms = make([]Kernel, len(k.Terms))
		for i, t := range k.Terms {
			var err error
			if out.Terms[i], err = t.ResolveContext(ctx, x); err != nil {
				return k, err
			}
		}
		return out, nil
	}
	med, err := medianDistance(ctx, x, AutoWidthSample)
	if cerr := ctx.Err(); cerr != nil {
		return k, cerr
	}
	if errors.Is(err, errAllEqual) {
		// Every width gives the same Gram matrix (all ones): σ = 1, and
		// the method reports the degenerate data in its own words.
		k.Sigma = 1
		return k, nil
	}
	if err != nil {
		return k, fmt.Errorf("kernel rbf: sigma=auto: %w", err)
	}
	k.Sigma = AutoWidthFactor * med
	return k, nil
}

// MedianDistance returns the median Euclidean distance between distinct
// pairs of rows of x, over every pair of a seeded sample of at most
// sample rows (all rows when there are fewer; sample ≤ 1: all rows). Pairs
// of equal rows count, unless the median would be one of them: then the
// median of the non-zero distances is returned, so duplicated rows cannot
// give a zero width. It
// is an error when x has fewer than two distinct rows or a non-finite
// value (or an error wrapping errAllEqual when every sampled row is the
// same).
func MedianDistance(x *mat.Dense, sample int) (float64, error) {
	return medianDistance(context.Background(), x, sample)
}

// medianDistance is MedianDistance whose blocks are skipped once ctx is
// cancelled (the caller then returns ctx's error).
func medianDistance(ctx context.Context, x *mat.Dense, sample int) (float64, error) {
	n, _ := x.Dims()
	if n < 2 {
		return 0, fmt.Errorf("need at least 2 rows to measure distances, got %d", n)
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if sample > 1 && n > sample {
		rng := rand.New(rand.NewPCG(autoWidthSeed, uint64(n)))
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:sample]
		slices.Sort(rows)
	}
	// Rows of the pair triangle in blocks, in parallel; each block keeps
	// its own distances, joined in row order (the median does not depend
	// on the order, and the first non-finite pair is found as in a serial
	// scan).
	m := len(rows)
	const block = 32
	nb := (m + block - 1) / block
	parts := make([][]float64, nb)
	zeroParts := make([]int, nb)
	bad := make([][2]int, nb)
	par.Blocks(m, block, func(lo, hi int) {
		b := lo / block
		bad[b] = [2]int{-1, -1}
		if ctx.Err() != nil {
			return
		}
		var dist []float64
		for a := lo; a < hi; a++ {
			i := rows[a]
			xi := x.RawRowView(i)
			for _, j := range rows[a+1:] {
				xj := x.RawRowView(j)
				s := 0.0
				for c, v := range xi {
					d := v - xj[c]
					s += d * d
				}
				if math.IsNaN(s) || math.IsInf(s, 0) {
					bad[b] = [2]int{i, j}
					return
				}
				if s == 0 {
					zeroParts[b]++
					continue
				}
				dist = append(dist, math.Sqrt(s))
			}
		}
		parts[b] = dist
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	zeros := 0
	dist := make([]float64, 0, m*(m-1)/2)
	for b := range parts {
		if bad[b][0] >= 0 {
			return 0, nonFinite(x, bad[b][0], bad[b][1])
		}
		dist = append(dist, parts[b]...)
		zeros += zeroParts[b]
	}
	if len(dist) == 0 {
		return 0, errAllEqual
	}
	slices.Sort(dist)
	total := len(dist) + zeros
	if zeros > (total-1)/2 {
		return median(dist), nil
	}
	// the median of all pairs: the zeros come first in sorted order
	lo, hi := (total-1)/2-zeros, total/2-zeros
	return (dist[lo] + dist[hi]) / 2, nil
}

// errAllEqual: the sampled rows are all equal.
var errAllEqual = errors.New("all rows are equal")

// nonFinite names the first non-finite value of row i or j of x.
func nonFinite(x *mat.Dense, rows ...int) error {
	for _, i := range rows {
		for c, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &data.NonFiniteError{What: "training rows", Row: i + 1, Col: c + 1, Value: v}
			}
		}
	}
	return errors.New("a squared distance overflows; scale the data")
}

func median(sorted []float64) float64 {
	n := len(sorted)
	return (sorted[(n-1)/2] + sorted[n/2]) / 2
}
