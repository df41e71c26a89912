package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
)

// Tuned is a method whose one hyperparameter is chosen, at every fit, by
// cross-validation on the labelled rows it is given: for each candidate
// value, Folds stratified folds of the labelled rows are hidden in turn
// (their labels set to −1, so a semi-supervised method still sees the
// rows), the method is fitted, Classifier is trained on the embedding of
// the other labelled rows and scored on the hidden ones; the value with
// the fewest errors summed over folds wins (ties: the earlier value), and
// the method is refitted with it on all the rows. Nothing outside the
// fit's own rows is seen, so inside an evaluation protocol the choice
// never uses a test row. Seed 002 §4.3 selects MKL-SR's δ this way.
type Tuned struct {
	// Build returns the method with the hyperparameter set to a value.
	Build func(value string) (method.Method, error)
	// Values are the candidates, in order of preference on ties.
	Values []string
	// Folds is the number of inner folds (0: 3).
	Folds int
	// Classifier scores the embeddings (nil: 1-NN).
	Classifier classify.Classifier
	// Seed seeds the inner folds.
	Seed uint64
	// Chosen, when not nil, is told the value each fit chose.
	Chosen func(value string)
	// Context, when not nil, cancels the fit: every inner fit runs with it
	// (method.WithContext), and none starts once it is done. An
	// evaluation protocol sets it from Protocol.Context.
	Context context.Context
}

// build returns the method with value, running with t.Context.
func (t Tuned) build(value string) (method.Method, error) {
	m, err := t.Build(value)
	if err != nil || t.Context == nil {
		return m, err
	}
	return method.WithContext(m, t.Context), nil
}

// DimensionDependent implements method.DimensionDependent: a tuned method
// refits per dimension when the method it builds does (checked on the
// first value). The inner choice is made at the dimension fitted, so in a
// sweep of a nested method the value chosen at the largest dimension
// serves the smaller ones.
func (t Tuned) DimensionDependent() bool {
	if t.Build == nil || len(t.Values) == 0 {
		return false
	}
	m, err := t.Build(t.Values[0])
	return err == nil && method.RefitsPerDimension(m)
}

// Fit chooses the value by inner cross-validation and fits with it.
func (t Tuned) Fit(x *mat.Dense, y []int, dims int) (method.Model, error) {
	if len(t.Values) == 0 || t.Build == nil {
		return nil, fmt.Errorf("tuned: no candidate values")
	}
	k := t.Folds
	if k == 0 {
		k = 3
	}
	c := t.Classifier
	if c == nil {
		c = classify.KNN{K: 1}
	}
	labelled := data.LabelledRows(y)
	ylab := make([]int, len(labelled))
	for r, i := range labelled {
		ylab[r] = y[i]
	}
	folds, err := StratifiedKFold(ylab, k, t.Seed)
	if err != nil {
		return nil, fmt.Errorf("tuned: inner %d-fold split of the %d labelled rows: %w", k, len(labelled), err)
	}
	best, bestMiss := 0, math.MaxInt
	for vi, v := range t.Values {
		m, err := t.build(v)
		if err != nil {
			return nil, fmt.Errorf("tuned: value %q: %w", v, err)
		}
		miss := 0
		for f, fold := range folds {
			if t.Context != nil && t.Context.Err() != nil {
				return nil, t.Context.Err()
			}
			n, err := innerMisses(m, c, x, y, labelled, fold, dims)
			if err != nil {
				return nil, fmt.Errorf("tuned: value %q, inner fold %d of %d: %w", v, f+1, k, err)
			}
			miss += n
		}
		if miss < bestMiss {
			best, bestMiss = vi, miss
		}
	}
	if t.Chosen != nil {
		t.Chosen(t.Values[best])
	}
	m, err := t.build(t.Values[best])
	if err != nil {
		return nil, err
	}
	return m.Fit(x, y, dims)
}

// innerMisses fits m with the labels of the rows labelled[fold] hidden and
// counts c's errors on them, c trained on the other labelled rows.
func innerMisses(m method.Method, c classify.Classifier, x *mat.Dense, y, labelled, fold []int, dims int) (int, error) {
	yin := slices.Clone(y)
	hidden := make([]int, len(fold))
	for r, j := range fold {
		hidden[r] = labelled[j]
		yin[labelled[j]] = -1
	}
	_, z, err := method.FitTransform(m, x, yin, dims)
	if err != nil {
		return 0, err
	}
	var train []int
	for _, i := range labelled {
		if yin[i] >= 0 {
			train = append(train, i)
		}
	}
	rows := func(idx []int) (*mat.Dense, []int) {
		_, d := z.Dims()
		out := mat.NewDense(len(idx), d, nil)
		ys := make([]int, len(idx))
		for r, i := range idx {
			out.SetRow(r, z.RawRowView(i))
			ys[r] = y[i]
		}
		return out, ys
	}
	ztr, ytr := rows(train)
	zte, yte := rows(hidden)
	return classify.Misclassified(c, ztr, ytr, zte, yte)
}
