// Package classify holds the classifiers used to evaluate embeddings:
// nearest class centroid, k nearest neighbours, and linear and RBF support
// vector machines (SVM: LIBSVM's C-SVC, one-vs-one).
//
// Evaluation classifies the test rows at every output dimension 1..D of an
// embedding. Classifiers that implement Sweeper (NCC, KNN) do this in one
// pass (squared distances grow one coordinate at a time); SweepErrors and
// SweepMisclassified use that pass when available and otherwise fit and
// predict once per dimension, the dimensions in parallel (SVM), and
// SweepAll shares one pass among all the k-NN classifiers of a list.
//
// Distances are Euclidean. Predict computes them blockwise with matrix
// products (‖a‖² + ‖b‖² − 2a·b, clamped at 0); the sweeps accumulate
// (aⱼ − bⱼ)² directly. Distances within TieTolerance (1e-9 of the query's
// scale) of each other are tied, and ties go to the lowest label (NCC) or
// training index (k-NN), so the two routes agree, and the answer does not
// follow the last bits of points that coincide in theory; they can differ
// only where two distances lie within rounding of that tolerance's edge.
package classify

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/progress"
)

// Classifier is a configured, unfitted classifier.
type Classifier interface {
	// Name is the CLI name, for example "ncc" or "knn3".
	Name() string
	// Fit learns from rows X with labels y in 0..C-1 (no -1).
	Fit(X *mat.Dense, y []int) (Predictor, error)
}

// Names lists the classifiers' names, comma-separated ("knn1, knn3").
func Names(cs []Classifier) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name()
	}
	return strings.Join(names, ", ")
}

// ContextFitter is implemented by classifiers whose fit can be long (SVM:
// millions of SMO iterations at a large C) and stops when its context is
// cancelled, returning the context's error.
type ContextFitter interface {
	Classifier
	FitContext(ctx context.Context, X *mat.Dense, y []int) (Predictor, error)
}

// fitContext fits c, through FitContext when c has it; another classifier
// is not started once ctx is cancelled.
func fitContext(ctx context.Context, c Classifier, X *mat.Dense, y []int) (Predictor, error) {
	if f, ok := c.(ContextFitter); ok {
		return f.FitContext(ctx, X, y)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.Fit(X, y)
}

// Predictor is a fitted classifier.
type Predictor interface {
	Predict(X *mat.Dense) ([]int, error)
}

// Sweeper is implemented by classifiers that can classify on every leading
// prefix of the columns at once.
type Sweeper interface {
	Classifier
	// Sweep returns, for k = 1..maxDim, the number of rows of testZ
	// misclassified when the classifier is fitted on the first k columns of
	// trainZ (labels ytrain) and applied to the first k columns of testZ
	// (true labels ytest): miss[k-1]. The result equals the per-dimension
	// Fit/Predict loop, except where a distance lies within rounding of
	// the tie tolerance's edge (TieTolerance).
	Sweep(trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([]int, error)
}

// SweepMisclassified returns the number of misclassified test rows at each
// dimension k = 1..maxDim, using only the first k columns of trainZ and
// testZ. It uses c's Sweep when c is a Sweeper and otherwise fits and
// predicts once per dimension.
func SweepMisclassified(c Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([]int, error) {
	if c == nil {
		return nil, fmt.Errorf("classify: nil classifier")
	}
	if s, ok := c.(Sweeper); ok {
		return s.Sweep(trainZ, ytrain, testZ, ytest, maxDim)
	}
	dims := make([]int, max(maxDim, 0))
	for k := range dims {
		dims[k] = k + 1
	}
	miss, err := fitAt(context.Background(), []Classifier{c}, trainZ, ytrain, testZ, ytest, dims, maxDim)
	if err != nil {
		return nil, err
	}
	return miss[0], nil
}

// fitAt fits and scores every classifier of cs at every dimension of dims
// (ascending, the largest top): miss[i][t] is the count of cs[i] on the
// first dims[t] columns. Each fit is independent and they run in
// parallel, so the counts do not depend on GOMAXPROCS. Once ctx is
// cancelled no fit starts and a running one stops (ContextFitter); the
// error is then ctx's. With a reporter in ctx (package progress) and at
// least progress.MinOrder training rows, a meter reports the share of the
// fits done.
func fitAt(ctx context.Context, cs []Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, dims []int, top int) ([][]int, error) {
	if err := checkSweep(cs[0].Name(), trainZ, ytrain, testZ, ytest, top); err != nil {
		return nil, err
	}
	ntr, _ := trainZ.Dims()
	nte, _ := testZ.Dims()
	miss := make([][]int, len(cs))
	for i := range miss {
		miss[i] = make([]int, len(dims))
	}
	errs := make([]error, len(cs)*len(dims))
	meter := progress.Start(ctx, ntr, "%s on %d training rows: %d fits (%d dimensions)", Names(cs), ntr, len(errs), len(dims))
	var done atomic.Int64
	par.Tasks(len(errs), func(u int) {
		i, t := u/len(dims), u%len(dims)
		k := dims[t]
		tr := trainZ.Slice(0, ntr, 0, k).(*mat.Dense)
		te := testZ.Slice(0, nte, 0, k).(*mat.Dense)
		if miss[i][t], errs[u] = MisclassifiedContext(ctx, cs[i], tr, ytrain, te, ytest); errs[u] == nil {
			meter.Done(float64(done.Add(1)) / float64(len(errs)))
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return miss, nil
}

// Misclassified fits c on the rows of trainZ (labels ytrain) and returns
// the number of rows of testZ it predicts wrongly (true labels ytest). An
// error names the classifier and the dimension.
func Misclassified(c Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int) (int, error) {
	return MisclassifiedContext(context.Background(), c, trainZ, ytrain, testZ, ytest)
}

// MisclassifiedContext is Misclassified whose fit stops when ctx is
// cancelled (ContextFitter), with ctx's error.
func MisclassifiedContext(ctx context.Context, c Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int) (int, error) {
	if c == nil || trainZ == nil || testZ == nil {
		return 0, fmt.Errorf("classify: Misclassified needs a classifier, training and test rows (got classifier %v, training %v, test %v)", c != nil, trainZ != nil, testZ != nil)
	}
	_, k := trainZ.Dims()
	nte, _ := testZ.Dims()
	if len(ytest) != nte {
		return 0, fmt.Errorf("classifier %s: %d test labels for %d test rows", c.Name(), len(ytest), nte)
	}
	p, err := fitContext(ctx, c, trainZ, ytrain)
	if err != nil && ctx.Err() != nil {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("classifier %s at dimension %d: %w", c.Name(), k, err)
	}
	pred, err := p.Predict(testZ)
	if err != nil {
		return 0, fmt.Errorf("classifier %s at dimension %d: %w", c.Name(), k, err)
	}
	if len(pred) != nte {
		return 0, fmt.Errorf("classifier %s at dimension %d: %d predictions for %d rows", c.Name(), k, len(pred), nte)
	}
	miss := 0
	for i, v := range pred {
		if v != ytest[i] {
			miss++
		}
	}
	return miss, nil
}

// SweepAll is SweepMisclassified for several classifiers on the same
// embedding: miss[i] belongs to cs[i]. The k-NN classifiers among cs share
// one pass (the k nearest for a smaller k are the first k of the nearest
// for the largest k), so evaluating knn1 and knn3 together costs about as
// much as one of them. An error names the classifier.
func SweepAll(cs []Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([][]int, error) {
	miss := make([][]int, len(cs))
	var ks []int
	var kpos []int
	for i, c := range cs {
		if c == nil {
			return nil, fmt.Errorf("classify: classifier %d is nil", i+1)
		}
		if k, ok := c.(KNN); ok {
			if len(ks) == 0 {
				if err := checkSweep(k.Name(), trainZ, ytrain, testZ, ytest, maxDim); err != nil {
					return nil, err
				}
			}
			ntr, _ := trainZ.Dims()
			if err := k.check(ntr); err != nil {
				return nil, err
			}
			ks = append(ks, k.K)
			kpos = append(kpos, i)
			continue
		}
		m, err := SweepMisclassified(c, trainZ, ytrain, testZ, ytest, maxDim)
		if err != nil {
			return nil, err
		}
		miss[i] = m
	}
	if len(ks) > 0 {
		for j, m := range knnSweep(ks, trainZ, ytrain, testZ, ytest, maxDim) {
			miss[kpos[j]] = m
		}
	}
	return miss, nil
}

// SweepAt is SweepAll at the listed dimensions only: miss[i][j] is the
// number of test rows cs[i] misclassifies on the first dims[j] columns.
// dims must be ascending, distinct and within 1..the training columns.
// Classifiers that sweep in one pass (NCC, k-NN) sweep to the largest
// listed dimension and keep the listed ones, the counts SweepAll gives
// there; the others (SVM) are fitted at the listed dimensions only, in
// parallel, so a short list saves most of their fits.
func SweepAt(cs []Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, dims []int) ([][]int, error) {
	return SweepAtContext(context.Background(), cs, trainZ, ytrain, testZ, ytest, dims)
}

// SweepAtContext is SweepAt whose per-dimension fits stop when ctx is
// cancelled (the error is then ctx's) and report their progress through
// ctx's reporter (package progress).
func SweepAtContext(ctx context.Context, cs []Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, dims []int) ([][]int, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("classify: no dimensions to evaluate")
	}
	for j, k := range dims {
		if k < 1 || (j > 0 && k <= dims[j-1]) {
			return nil, fmt.Errorf("classify: dimensions %v: want ascending, distinct values ≥ 1", dims)
		}
	}
	top := dims[len(dims)-1]
	var one, many []int // positions in cs: one-pass sweepers, per-dimension fits
	for i, c := range cs {
		if c == nil {
			return nil, fmt.Errorf("classify: classifier %d is nil", i+1)
		}
		if _, knn := c.(KNN); knn {
			one = append(one, i)
		} else if _, ok := c.(Sweeper); ok {
			one = append(one, i)
		} else {
			many = append(many, i)
		}
	}
	miss := make([][]int, len(cs))
	if len(one) > 0 {
		sub := make([]Classifier, len(one))
		for j, i := range one {
			sub[j] = cs[i]
		}
		all, err := SweepAll(sub, trainZ, ytrain, testZ, ytest, top)
		if err != nil {
			return nil, err
		}
		for j, i := range one {
			miss[i] = make([]int, len(dims))
			for t, k := range dims {
				miss[i][t] = all[j][k-1]
			}
		}
	}
	if len(many) == 0 {
		return miss, nil
	}
	sub := make([]Classifier, len(many))
	for j, i := range many {
		sub[j] = cs[i]
	}
	fitted, err := fitAt(ctx, sub, trainZ, ytrain, testZ, ytest, dims, top)
	if err != nil {
		return nil, err
	}
	for j, i := range many {
		miss[i] = fitted[j]
	}
	return miss, nil
}

// SweepErrors is SweepMisclassified divided by the number of test rows:
// the error rate (a fraction) at each dimension 1..maxDim.
func SweepErrors(c Classifier, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) ([]float64, error) {
	miss, err := SweepMisclassified(c, trainZ, ytrain, testZ, ytest, maxDim)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(miss))
	for i, m := range miss {
		out[i] = float64(m) / float64(len(ytest))
	}
	return out, nil
}

// ErrorRate returns the fraction of positions where pred and truth differ.
// It returns NaN when the lengths differ or are zero (no rate is defined).
func ErrorRate(pred, truth []int) float64 {
	if len(pred) != len(truth) || len(pred) == 0 {
		return math.NaN()
	}
	miss := 0
	for i, v := range pred {
		if v != truth[i] {
			miss++
		}
	}
	return float64(miss) / float64(len(pred))
}

// ValidNames describes the names Parse accepts.
const ValidNames = `"ncc", "knnK" or "Knn" for K ≥ 1 (for example "knn1", "knn3", "1nn", "3nn"), "svm-linear[:C=…]", "svm-rbf[:C=…,sigma=…|gamma=…]"`

// Parse returns the classifier with the given CLI name (case-insensitive):
// "ncc" for NCC, "knnK" or "Knn" (K ≥ 1, for example "knn1",
// "knn3", "1nn", "3nn") for KNN{K: K}, and "svm-linear" or "svm-rbf" for
// SVM, optionally followed by a colon and comma-separated parameters
// C, sigma or gamma (RBF), tol, cache, shrinking — for example
// "svm-rbf:C=100,sigma=1" (seed 000's RBF SVM) or "svm-linear:C=100".
// The error lists the valid names, or names the parameter and its rule.
func Parse(name string) (Classifier, error) {
	base, params, hasParams := strings.Cut(strings.TrimSpace(name), ":")
	s := strings.ToLower(strings.TrimSpace(base))
	switch s {
	case "svm-linear":
		return parseSVM(SVMLinear, params)
	case "svm-rbf":
		return parseSVM(SVMRBF, params)
	}
	if hasParams {
		if _, err := Parse(base); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("classifier %q: %s takes no parameters", name, s)
	}
	if s == "ncc" {
		return NCC{}, nil
	}
	var num string
	switch {
	case strings.HasPrefix(s, "knn"):
		num = s[3:]
	case strings.HasSuffix(s, "nn"):
		num = s[:len(s)-2]
	default:
		return nil, fmt.Errorf("unknown classifier %q; valid names: %s", name, ValidNames)
	}
	k, err := strconv.Atoi(num)
	if err != nil || num == "" || strings.Trim(num, "0123456789") != "" {
		return nil, fmt.Errorf("unknown classifier %q; valid names: %s", name, ValidNames)
	}
	if k < 1 {
		return nil, fmt.Errorf("classifier %q: k = %d, want k ≥ 1", name, k)
	}
	return KNN{K: k}, nil
}

// ParseList parses a comma-separated list of classifier names, for example
// "ncc,knn1,knn3" or "knn3,svm-rbf:C=100,sigma=1,svm-linear:C=100": an
// item with '=' and no ':' continues the parameters of the item before
// it (no classifier name holds '=').
func ParseList(names string) ([]Classifier, error) {
	var items []string
	for _, n := range strings.Split(names, ",") {
		if k := len(items); k > 0 && strings.Contains(n, "=") && !strings.Contains(n, ":") {
			items[k-1] += "," + n
			continue
		}
		items = append(items, n)
	}
	var out []Classifier
	seen := map[string]string{}
	for _, n := range items {
		c, err := Parse(n)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[c.Name()]; ok {
			return nil, fmt.Errorf("classifier %q is %s again (given as %q): each classifier once", strings.TrimSpace(n), c.Name(), first)
		}
		seen[c.Name()] = strings.TrimSpace(n)
		out = append(out, c)
	}
	return out, nil
}

// checkTrain validates training rows and labels.
func checkTrain(name string, X *mat.Dense, y []int) error {
	if X == nil {
		return fmt.Errorf("classifier %s: training data is nil", name)
	}
	if err := data.CheckFinite("classifier "+name+": training data", X); err != nil {
		return err
	}
	if err := data.CheckDistanceRange("classifier "+name+": training data", X); err != nil {
		return err
	}
	r, _ := X.Dims()
	if len(y) != r {
		return fmt.Errorf("classifier %s: %d training labels for %d rows", name, len(y), r)
	}
	for i, v := range y {
		if v < 0 {
			return fmt.Errorf("classifier %s: training row %d has label %d, want a class 0..C-1 (unlabeled rows cannot train a classifier)", name, i+1, v)
		}
	}
	return nil
}

// checkTest validates rows to classify against the training width.
func checkTest(name string, X *mat.Dense, cols int) error {
	if X == nil {
		return fmt.Errorf("classifier %s: input is nil", name)
	}
	if _, c := X.Dims(); c != cols {
		return fmt.Errorf("classifier %s: input has %d columns, trained on %d", name, c, cols)
	}
	if err := data.CheckFinite("classifier "+name+": input", X); err != nil {
		return err
	}
	return data.CheckDistanceRange("classifier "+name+": input", X)
}

// checkSweep validates the arguments of a sweep.
func checkSweep(name string, trainZ *mat.Dense, ytrain []int, testZ *mat.Dense, ytest []int, maxDim int) error {
	if err := checkTrain(name, trainZ, ytrain); err != nil {
		return err
	}
	_, c := trainZ.Dims()
	if maxDim < 1 || maxDim > c {
		return fmt.Errorf("classifier %s: sweep to dimension %d, want 1..%d (the training columns)", name, maxDim, c)
	}
	if testZ == nil {
		return fmt.Errorf("classifier %s: test data is nil", name)
	}
	if err := data.CheckFinite("classifier "+name+": test data", testZ); err != nil {
		return err
	}
	if err := data.CheckDistanceRange("classifier "+name+": test data", testZ); err != nil {
		return err
	}
	r, tc := testZ.Dims()
	if tc < maxDim {
		return fmt.Errorf("classifier %s: test data has %d columns, sweep needs %d", name, tc, maxDim)
	}
	if len(ytest) != r {
		return fmt.Errorf("classifier %s: %d test labels for %d rows", name, len(ytest), r)
	}
	for i, v := range ytest {
		if v < 0 {
			return fmt.Errorf("classifier %s: test row %d has label %d, want a class 0..C-1", name, i+1, v)
		}
	}
	return nil
}
