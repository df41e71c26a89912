package evaluate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
	"github.com/dimred/dimred/progress"
)

// DefaultFolds is the number of cross-validation folds when neither Folds
// nor PerClass is set: 10, as in the papers' UCI experiments.
const DefaultFolds = 10

// NamedMethod is a configured method with the name shown in results.
type NamedMethod struct {
	Name   string
	Method method.Method
}

// Protocol describes an experiment. The zero value of every field except
// Methods and Classifiers means a documented default, so
//
//	Protocol{Methods: ms, Classifiers: cs}
//
// is single 10-fold stratified cross-validation with seed 0, no
// preprocessing and every dimension the methods can produce.
type Protocol struct {
	// Preprocess is a preprocess spec ("minmax", "unit,pca:0.99", ...);
	// "" and "none" mean no preprocessing. It is fitted on the training
	// rows of each split only.
	Preprocess string
	// Methods are the dimensionality-reduction methods to compare.
	Methods []NamedMethod
	// Classifiers are applied to every method's embedding.
	Classifiers []classify.Classifier

	// Folds is k for stratified k-fold cross-validation (k ≥ 2). Zero
	// means DefaultFolds unless PerClass is set; setting both is an error.
	Folds int
	// PerClass, when > 0, selects repeated random splits with PerClass
	// training rows per class (PerClassSplit) instead of cross-validation.
	PerClass int
	// Repeats is the number of random splits (PerClass) or of complete
	// cross-validation runs with different fold assignments; 0 means 1.
	// With more than one, results carry the standard deviation.
	Repeats int
	// Seed seeds every random choice. Repeat r uses a seed derived from
	// Seed and r (repeat 0 uses Seed itself).
	Seed uint64

	// Unlabeled, in [0, 1), hides the labels of that fraction of each
	// class's training rows (rounded down, chosen at random with the
	// split's seed) from the methods, which then see them as −1: the
	// semi-supervised protocol of seed 002 §4.3 ("we only use one half
	// data as labeled data", Unlabeled = 0.5). Classifiers are trained on
	// the embeddings of the labelled training rows only.
	Unlabeled float64

	// Precomputed says the rows are a precomputed n×n Gram matrix
	// (methods with space=precomputed): each split then gives its
	// methods the Gram matrix of its training rows, K[train, train], and
	// the kernel values of its test rows against them, K[test, train]
	// (scikit-learn's cross-validation of precomputed kernels does the
	// same), where it otherwise takes whole rows. The matrix must be
	// square, and Preprocess none.
	Precomputed bool

	// MaxDims caps the number of output dimensions evaluated; 0 means all
	// the method produces. Each method is fitted with dims = MaxDims; if
	// that fails (a method that cannot produce so many), it is refitted
	// with dims = 0 (its maximum) and the first MaxDims columns are used.
	MaxDims int
	// FullDim evaluates each method only at its full number of output
	// dimensions (capped by MaxDims) instead of at every k = 1..D: for
	// methods whose dimension the protocol fixes (seed 002: c − 1 for the
	// spectral-regression family) and for classifiers that refit per
	// dimension (SVM), where the sweep would cost D fits. Results then hold
	// one error, ErrorsByDim[0], at dimension Result.BestDim.
	FullDim bool
	// Dims, when set, lists the output dimensions to evaluate (ascending,
	// distinct, each ≥ 1) instead of every k = 1..MaxDims. Each method is
	// fitted with the largest listed dimension and scored at the listed
	// ones only; a method that refits per dimension is fitted once per
	// listed k, so a short list makes its sweep affordable (one MIE fit on
	// 10 000 rows takes minutes). Classifiers that sweep in one pass (NCC,
	// k-NN) give the counts of the full sweep at those dimensions; SVMs
	// are fitted at them only. Listed dimensions above what a method
	// produces are dropped for that method; one that reaches none of them
	// (LDA's C − 1 below the list) is evaluated at its own largest
	// dimension, the same on every split and fit or an error. Results
	// carry the dimensions evaluated in Result.Dims. Dims excludes MaxDims and
	// FullDim.
	Dims []int

	// Workers is the number of splits×methods evaluated concurrently; 0
	// means runtime.GOMAXPROCS(0). Methods, classifiers and their fitted
	// models must be safe for concurrent use; set Workers = 1 otherwise.
	// Results do not depend on Workers or GOMAXPROCS.
	Workers int
	// Progress, when not nil, is called after each (split, method) unit
	// finishes, with the number done so far and the total. Calls are
	// serialised and done increases by one each call.
	Progress func(done, total int)
	// Step, when not nil, receives a line after each fit of a method that
	// refits per dimension (method.RefitsPerDimension), for which one
	// (split, method) unit is as many fits as dimensions swept:
	// "mie, fold 3: 7/20 fits of the dimension sweep"; and, through the
	// fits' context (package progress), the lines of the library's long
	// steps inside every fit on at least progress.MinOrder training rows,
	// prefixed the same way: "sklpp, fold 3 of 10: eigen-decomposition of
	// order 9000: tridiagonal reduction, 40 % (…)". Calls may come from
	// several workers at once.
	Step func(msg string)
	// Context, when not nil, cancels the run: no new fit starts, running
	// fits stop soon after (method.FitContext), and Run returns its error.
	Context context.Context
}

// Describe returns a one-line description of the protocol, for example
// "10-fold stratified CV, seed 1, preprocessing minmax".
func (p *Protocol) Describe() string {
	reps := max(p.Repeats, 1)
	var s string
	if p.PerClass > 0 {
		s = fmt.Sprintf("%d random split(s) with %d training rows per class", reps, p.PerClass)
	} else {
		k := p.Folds
		if k == 0 {
			k = DefaultFolds
		}
		s = fmt.Sprintf("%d-fold stratified CV", k)
		if reps > 1 {
			s = fmt.Sprintf("%d × %s", reps, s)
		}
	}
	s += fmt.Sprintf(", seed %d", p.Seed)
	if pre := p.Preprocess; pre != "" && pre != "none" {
		s += ", preprocessing " + pre
	}
	if p.Precomputed {
		s += ", rows of a precomputed Gram matrix (K[train, train], K[test, train] per split)"
	}
	if p.MaxDims > 0 {
		s += fmt.Sprintf(", at most %d dimensions", p.MaxDims)
	}
	if p.FullDim {
		s += ", each method at its full dimension only"
	}
	if len(p.Dims) > 0 {
		s += ", dimensions " + DimsText(p.Dims)
	}
	return s
}

func (p *Protocol) validate() (preprocess.Pipeline, error) {
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("evaluate: no methods to evaluate")
	}
	for i, m := range p.Methods {
		if m.Method == nil {
			return nil, fmt.Errorf("evaluate: method %d (%q) is nil", i+1, m.Name)
		}
		if m.Name == "" {
			return nil, fmt.Errorf("evaluate: method %d has no name", i+1)
		}
		for j := range i {
			if p.Methods[j].Name == m.Name {
				return nil, fmt.Errorf("evaluate: methods %d and %d are both named %q: the results are told apart by name", j+1, i+1, m.Name)
			}
		}
	}
	if len(p.Classifiers) == 0 {
		return nil, fmt.Errorf("evaluate: no classifiers")
	}
	for i, c := range p.Classifiers {
		if c == nil {
			return nil, fmt.Errorf("evaluate: classifier %d is nil", i+1)
		}
	}
	switch {
	case p.Folds < 0 || p.Folds == 1:
		return nil, fmt.Errorf("evaluate: Folds = %d, want k ≥ 2 (or 0 for the default %d)", p.Folds, DefaultFolds)
	case p.PerClass < 0:
		return nil, fmt.Errorf("evaluate: PerClass = %d, want ν ≥ 1 (or 0 for cross-validation)", p.PerClass)
	case p.Folds > 0 && p.PerClass > 0:
		return nil, fmt.Errorf("evaluate: both Folds (%d) and PerClass (%d) are set; choose cross-validation or per-class splits", p.Folds, p.PerClass)
	case p.Repeats < 0:
		return nil, fmt.Errorf("evaluate: Repeats = %d, want ≥ 1 (or 0 for 1)", p.Repeats)
	case p.MaxDims < 0:
		return nil, fmt.Errorf("evaluate: MaxDims = %d, want ≥ 1 (or 0 for all)", p.MaxDims)
	case !(p.Unlabeled >= 0 && p.Unlabeled < 1):
		return nil, fmt.Errorf("evaluate: Unlabeled = %v, want a fraction in [0, 1)", p.Unlabeled)
	case p.Workers < 0:
		return nil, fmt.Errorf("evaluate: Workers = %d, want ≥ 1 (or 0 for GOMAXPROCS)", p.Workers)
	case len(p.Dims) > 0 && p.MaxDims > 0:
		return nil, fmt.Errorf("evaluate: both Dims (%s) and MaxDims (%d) are set; give the list or the cap", DimsText(p.Dims), p.MaxDims)
	case len(p.Dims) > 0 && p.FullDim:
		return nil, fmt.Errorf("evaluate: both Dims (%s) and FullDim are set; FullDim evaluates one dimension per method", DimsText(p.Dims))
	}
	for i, k := range p.Dims {
		if k < 1 || (i > 0 && k <= p.Dims[i-1]) {
			return nil, fmt.Errorf("evaluate: Dims = %s: want ascending, distinct dimensions ≥ 1 (entry %d is %d)", DimsText(p.Dims), i+1, k)
		}
	}
	pre, err := preprocess.Parse(p.Preprocess)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	return pre, nil
}

// split is one train/test partition.
type split struct {
	name        string // "fold 3 of 10", "repeat 2, fold 3 of 10", "split 4 of 20"
	repeat      int
	fold        int // the fold's index within its repeat (0 for a per-class split)
	train, test []int
}

func makeSplits(y []int, p *Protocol) ([]split, error) {
	reps := max(p.Repeats, 1)
	var out []split
	for r := 0; r < reps; r++ {
		seed := repeatSeed(p.Seed, r)
		if p.PerClass > 0 {
			tr, te, err := PerClassSplit(y, p.PerClass, seed)
			if err != nil {
				return nil, fmt.Errorf("evaluate: %w", err)
			}
			out = append(out, split{name: fmt.Sprintf("split %d of %d", r+1, reps), repeat: r, train: tr, test: te})
			continue
		}
		k := p.Folds
		if k == 0 {
			k = DefaultFolds
		}
		folds, err := StratifiedKFold(y, k, seed)
		if err != nil {
			return nil, fmt.Errorf("evaluate: %w", err)
		}
		inTest := make([]bool, len(y))
		for f, test := range folds {
			clear(inTest)
			for _, i := range test {
				inTest[i] = true
			}
			train := make([]int, 0, len(y)-len(test))
			for i := range y {
				if !inTest[i] {
					train = append(train, i)
				}
			}
			name := fmt.Sprintf("fold %d of %d", f+1, k)
			if reps > 1 {
				name = fmt.Sprintf("repeat %d, %s", r+1, name)
			}
			out = append(out, split{name: name, repeat: r, fold: f, train: train, test: test})
		}
	}
	return out, nil
}

// prepared holds a split's preprocessed rows, computed once and released
// when the split's last method is done.
type prepared struct {
	once          sync.Once
	trainX, testX *mat.Dense
	ytrain, ytest []int
	// ymethod are the training labels the methods see (ytrain with the
	// Unlabeled fraction hidden); labelled indexes the rows classifiers
	// train on (nil: all).
	ymethod  []int
	labelled []int
	err      error
	left     atomic.Int32
}

// unitResult is the outcome of one (split, method) unit.
type unitResult struct {
	dims int     // number of dimensions evaluated on this split (1 with FullDim)
	list []int   // the dimensions evaluated (FullDim, Protocol.Dims); nil: 1..dims
	miss [][]int // per classifier, misclassified test rows at each evaluated dimension
	// beyond: the method reaches none of Protocol.Dims, so list is its
	// own largest dimension alone.
	beyond bool
	err    error
}

// dim returns the pos-th (1-based) dimension the unit evaluated.
func (u *unitResult) dim(pos int) int {
	if u.list != nil {
		return u.list[pos-1]
	}
	return pos
}

// Run evaluates every method × classifier of p on ds and returns one Result
// per pair, methods in order, classifiers in order within each method.
//
// For each split the preprocessing is fitted on the training rows, each
// method is fitted once on the preprocessed training rows with the largest
// number of dimensions, and the classifier's test errors for dimension
// k = 1..D use the first k embedding columns. D is the smallest number of
// dimensions the method produced over all splits (capped by MaxDims). A
// method whose k-dimensional fit is not the first k columns of a larger
// one (method.RefitsPerDimension: the EM of MIE, BERE, kMIE and kBERE,
// MKL-SR) is fitted again for every k < D and scored on that fit, which
// costs D fits per split.
//
// Cross-validation pools the folds: the error at dimension k is the total
// number of misclassified rows over all folds divided by n. With
// Repeats > 1 the figure is the mean over repeats, and StdByDim is the
// sample standard deviation (divisor R−1). Per-class splits report the mean
// and (with Repeats > 1) the sample standard deviation of the per-split
// test error rates.
//
// MinError is the smallest mean error over dimensions and BestDim the
// smallest dimension reaching it (errors within 1e-12 count as equal).
//
// Splits and methods run in parallel (see Workers) but results are
// identical for any GOMAXPROCS. The first error (in split, method order) is
// returned, naming the method, classifier and split.
func Run(ds *data.Dataset, p Protocol) (*Report, error) {
	st, err := start(ds, &p)
	if err != nil {
		return nil, err
	}
	name, present, n, d, pre, splits := st.name, st.classes, st.n, st.d, st.pre, st.splits

	nm, nc := len(p.Methods), len(p.Classifiers)
	preps := make([]*prepared, len(splits))
	for s := range preps {
		preps[s] = &prepared{}
		preps[s].left.Store(int32(nm))
	}
	results, err := runUnits(&p, len(splits)*nm, func(u int) unitJob {
		s, m := u/nm, u%nm
		return unitJob{pr: preps[s], fill: func(pr *prepared) { prepare(pr, ds, pre, splits[s], &p, s) },
			proto: &p, m: m, where: splits[s].name}
	})
	if err != nil {
		return nil, graph.NameClass(err, ds.ClassNames)
	}

	rep := &Report{Dataset: name, N: n, D: d, Classes: present, Protocol: p.Describe()}
	for m := 0; m < nm; m++ {
		dims, list, err := commonDims(&p, p.Methods[m].Name, splits, func(s int) *unitResult { return &results[s*nm+m] })
		if err != nil {
			return nil, err
		}
		for c := 0; c < nc; c++ {
			rep.Results = append(rep.Results, aggregate(&p, splits, results, nm, m, c, dims, list, n))
		}
	}
	return rep, nil
}

// started is what Run and RunNested start from: the dataset's display
// name, classes present and size, the parsed preprocessing and the splits.
type started struct {
	name    string
	classes int
	n, d    int
	pre     preprocess.Pipeline
	splits  []split
}

// start checks ds and p and makes the splits.
func start(ds *data.Dataset, p *Protocol) (*started, error) {
	name, classes, err := checkDataset(ds)
	if err != nil {
		return nil, err
	}
	st := &started{name: name, classes: classes}
	st.n, st.d = ds.Dims()
	if st.pre, err = p.validate(); err != nil {
		return nil, err
	}
	if p.Precomputed {
		if st.n != st.d {
			return nil, fmt.Errorf("evaluate: precomputed kernel: the rows must be the n×n Gram matrix, got %d×%d", st.n, st.d)
		}
		if len(st.pre) > 0 {
			return nil, fmt.Errorf("evaluate: precomputed kernel: preprocessing %q would change the Gram matrix; use none", p.Preprocess)
		}
	}
	if p.PerClass == 0 {
		if err := checkSingletons(ds, name); err != nil {
			return nil, err
		}
	}
	if st.splits, err = makeSplits(ds.Y, p); err != nil {
		return nil, err
	}
	return st, nil
}

// checkDataset checks that ds can be evaluated (every row labelled, at
// least two classes) and returns its display name and number of classes.
func checkDataset(ds *data.Dataset) (name string, classes int, err error) {
	if ds == nil || ds.X == nil {
		return "", 0, fmt.Errorf("evaluate: no dataset")
	}
	if err := ds.Validate(); err != nil {
		return "", 0, fmt.Errorf("evaluate: %w", err)
	}
	name = ds.Name
	if name == "" {
		name = "input"
	}
	if ds.Y == nil {
		return "", 0, fmt.Errorf("evaluate: dataset %q has no labels", name)
	}
	for i, v := range ds.Y {
		if v < 0 {
			return "", 0, fmt.Errorf("evaluate: dataset %q: row %d is unlabeled; evaluation needs a label on every row", name, i+1)
		}
	}
	for _, c := range data.ClassCounts(ds.Y) {
		if c > 0 {
			classes++
		}
	}
	if classes < 2 {
		return "", 0, fmt.Errorf("evaluate: dataset %q has %d class(es); classification needs at least 2", name, classes)
	}
	return name, classes, nil
}

// checkSingletons refuses a class of one row under cross-validation: the
// fold that tests the row trains without its class, so no classifier can
// get it right, and the fits of that fold see one class fewer (LDA loses
// a dimension), which would leave a number that measures neither. (A
// class smaller than the folds but of two rows or more is fine:
// stratified folds give every training part one of its rows.)
func checkSingletons(ds *data.Dataset, name string) error {
	for c, count := range data.ClassCounts(ds.Y) {
		if count != 1 {
			continue
		}
		label := strconv.Itoa(c)
		if c < len(ds.ClassNames) {
			label = fmt.Sprintf("%q", ds.ClassNames[c])
		}
		row := slices.Index(ds.Y, c)
		return fmt.Errorf("evaluate: dataset %q: class %s has one row (row %d); in cross-validation the fold that tests it trains without the class, so it cannot be classified: drop the class or give it more rows", name, label, row+1)
	}
	return nil
}

// unitJob is what one unit of work fits: method m of proto on the rows
// of pr, which fill computes on first use (pr.once) and which are
// released after the last of pr.left units; where names the split in
// errors.
type unitJob struct {
	pr    *prepared
	fill  func(*prepared)
	proto *Protocol
	m     int
	where string
}

// runUnits runs the units 0..total-1 (job(u) says what each fits) on up
// to p.Workers goroutines with p.Progress and p.Context (forEachUnit), and
// returns their results in unit order, or the context's error, or the
// first failed unit's error.
func runUnits(p *Protocol, total int, job func(u int) unitJob) ([]unitResult, error) {
	ctx := p.Context
	if ctx == nil {
		ctx = context.Background()
	}
	results := make([]unitResult, total)
	forEachUnit(ctx, p.Workers, total, p.Progress, func(u int) bool {
		j := job(u)
		j.pr.once.Do(func() { j.fill(j.pr) })
		if j.pr.err != nil {
			results[u].err = fmt.Errorf("evaluate: %s: %w", j.where, j.pr.err)
		} else {
			results[u] = runUnit(j.proto, j.m, j.pr, j.where)
		}
		if j.pr.left.Add(-1) == 0 {
			j.pr.trainX, j.pr.testX = nil, nil
		}
		return results[u].err == nil
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
	}
	return results, nil
}

// forEachUnit calls do(u) for the units u = 0..total-1 on up to workers
// goroutines (0: GOMAXPROCS), units taken in increasing order. After a
// unit fails (do returns false) or ctx is cancelled no new unit starts.
// progress, when not nil, is called after each unit that succeeds with the
// number done so far and total; calls are serialised.
func forEachUnit(ctx context.Context, workers, total int, progress func(done, total int), do func(u int) bool) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, total)
	var (
		next     atomic.Int64
		failed   atomic.Bool
		progMu   sync.Mutex
		progDone int
		wg       sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				u := int(next.Add(1) - 1)
				if u >= total || failed.Load() || ctx.Err() != nil {
					return
				}
				if !do(u) {
					// a failed or cancelled unit ends the run: no line
					// counts it as done
					failed.Store(true)
					continue
				}
				if progress != nil {
					progMu.Lock()
					progDone++
					progress(progDone, total)
					progMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
}

// commonDims returns the number of dimensions a method (name) was
// evaluated at on every split (unit(s): its result on split s) and their
// list (nil: 1..dims): the fewest of any split, for the lists of
// Protocol.Dims the shortest (each is a prefix of Dims, or the method's
// largest dimension alone when it reaches none of them: sameBeyond). It is an error
// when FullDim evaluated the method at different dimensions on two splits.
func commonDims(p *Protocol, name string, splits []split, unit func(s int) *unitResult) (int, []int, error) {
	dims := math.MaxInt
	var list []int
	for s := range splits {
		u := unit(s)
		if u.dims < dims {
			dims, list = u.dims, u.list
		}
		if p.FullDim && u.list[0] != unit(0).list[0] {
			return 0, nil, fmt.Errorf("evaluate: method %q has %d dimensions on %s but %d on %s; FullDim needs the same on every split",
				name, unit(0).list[0], splits[0].name, u.list[0], splits[s].name)
		}
	}
	if err := sameBeyond(p, name, len(splits), func(s int) string { return splits[s].name }, unit); err != nil {
		return 0, nil, err
	}
	return dims, list, nil
}

// sameBeyond checks that the n fits unit(0..n-1) of a method (named by
// where) evaluated the same single dimension when one of them reached
// none of Protocol.Dims and was evaluated at its largest: their errors
// are compared position by position, which needs the same dimension.
func sameBeyond(p *Protocol, name string, n int, where func(i int) string, unit func(i int) *unitResult) error {
	for i := range n {
		if u := unit(i); u.beyond {
			for j := range n {
				if v := unit(j); v.list[0] != u.list[0] {
					return fmt.Errorf("evaluate: method %q reaches none of the listed dimensions (%s) on %s, where it has %d, but is evaluated at %d on %s; list a dimension it reaches on every fit",
						name, DimsText(p.Dims), where(i), u.list[0], v.list[0], where(j))
				}
			}
			return nil
		}
	}
	return nil
}

// prepare fits the preprocessing on a split's training rows and applies it
// to its training and test rows.
func prepare(pr *prepared, ds *data.Dataset, pre preprocess.Pipeline, sp split, p *Protocol, index int) {
	tr, te := ds.Subset(sp.train), ds.Subset(sp.test)
	pr.ytrain, pr.ytest = tr.Y, te.Y
	pr.ymethod, pr.labelled = methodLabels(pr.ytrain, p, index)
	trX, teX := splitRows(tr.X, te.X, sp.train, p.Precomputed)
	pr.fit(pre, trX, teX)
}

// splitRows returns a split's training and test rows as the methods take
// them: the rows themselves, or for a precomputed Gram matrix their
// columns of the training rows, K[train, train] and K[test, train].
func splitRows(tr, te *mat.Dense, train []int, precomputed bool) (*mat.Dense, *mat.Dense) {
	if !precomputed {
		return tr, te
	}
	cols := func(x *mat.Dense) *mat.Dense {
		if x.IsEmpty() {
			return x
		}
		return data.Columns(x, train)
	}
	return cols(tr), cols(te)
}

// methodLabels returns the training labels of split index as the methods
// see them (the Unlabeled fraction hidden) and the rows that keep theirs
// (nil: all).
func methodLabels(ytrain []int, p *Protocol, index int) (ymethod, labelled []int) {
	if p.Unlabeled > 0 {
		return hideLabels(ytrain, p.Unlabeled, p.Seed^uint64(0x9e3779b97f4a7c15*uint64(index+1)))
	}
	return ytrain, nil
}

// fit fits pre on the training rows trX and applies it to trX and teX.
func (pr *prepared) fit(pre preprocess.Pipeline, trX, teX *mat.Dense) {
	f, err := pre.Fit(trX)
	if err != nil {
		pr.err = err
		return
	}
	if pr.trainX, err = f.Apply(trX); err != nil {
		pr.err = err
		return
	}
	pr.testX, pr.err = f.Apply(teX)
}

// runUnit fits method m on a prepared split and sweeps every classifier.
func runUnit(p *Protocol, m int, pr *prepared, where string) unitResult {
	nm := p.Methods[m]
	fail := func(format string, args ...any) unitResult {
		return unitResult{err: fmt.Errorf("evaluate: method %q, %s: %s", nm.Name, where, fmt.Sprintf(format, args...))}
	}
	ctx := p.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if p.Step != nil {
		ctx = progress.With(ctx, func(line string) { p.Step(fmt.Sprintf("%s, %s: %s", nm.Name, where, line)) })
	}
	fitDims := p.MaxDims
	if len(p.Dims) > 0 {
		fitDims = p.Dims[len(p.Dims)-1]
	}
	model, err := method.FitContext(ctx, nm.Method, pr.trainX, pr.ymethod, fitDims)
	if err != nil && fitDims > 0 && ctx.Err() == nil {
		// Refit at the method's own dimension (fewer than asked for, as
		// LDA's C − 1). If that fails too, its error is the cause: the
		// first may only say that fitDims is more than the method gives.
		m2, err2 := method.FitContext(ctx, nm.Method, pr.trainX, pr.ymethod, 0)
		if err2 == nil {
			model, err = m2, nil
		} else if ctx.Err() == nil {
			err = err2
		}
	}
	if err != nil {
		return unitResult{err: fmt.Errorf("evaluate: method %q, %s: fit: %w", nm.Name, where, err)} // wrapped: graph.NameClass, context errors
	}
	if model == nil {
		return fail("fit returned no model")
	}
	dims := model.Dims()
	if fitDims > 0 {
		dims = min(dims, fitDims)
	}
	if dims < 1 {
		return fail("the model has %d output dimensions", model.Dims())
	}
	// list: the dimensions evaluated when they are not 1..dims.
	var list []int
	switch {
	case p.FullDim:
		list = []int{dims}
	case len(p.Dims) > 0:
		for _, k := range p.Dims {
			if k <= dims {
				list = append(list, k)
			}
		}
		if len(list) == 0 {
			// LDA's C − 1 below every listed dimension: its largest
			// one stands in, so that one method does not stop a run
			// of several (the CLI says so; commonDims checks that
			// every split agrees).
			list = []int{dims}
		}
	}
	ks := list
	if ks == nil {
		ks = make([]int, dims)
		for k := range ks {
			ks[k] = k + 1
		}
	}
	var miss [][]int
	switch {
	case p.FullDim:
		miss, err = missAt(ctx, p.Classifiers, model, pr, dims)
	case method.RefitsPerDimension(nm.Method):
		var step func(done, total int)
		if p.Step != nil {
			step = func(done, total int) {
				p.Step(fmt.Sprintf("%s, %s: %d/%d fits of the dimension sweep", nm.Name, where, done, total))
			}
		}
		miss, err = missPerDimension(ctx, nm.Method, p.Classifiers, model, pr, ks, step)
	default:
		var e *embedded
		if e, err = embedSplit(model, pr, dims); err == nil {
			miss, err = classify.SweepAtContext(ctx, p.Classifiers, e.train, e.ytrain, e.test, pr.ytest, ks)
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	for c, m := range miss {
		if len(m) != len(ks) {
			return fail("classifier %s returned %d error counts for %d dimensions", p.Classifiers[c].Name(), len(m), len(ks))
		}
	}
	return unitResult{dims: len(ks), list: list, miss: miss, beyond: len(p.Dims) > 0 && dims < p.Dims[0]}
}

// embedded is a split's embedding: the training rows the classifiers
// learn from (the labelled ones) with their labels, and the test rows.
type embedded struct {
	train, test *mat.Dense
	ytrain      []int
}

// embedSplit embeds a prepared split's training and test rows with model,
// checks that both have at least dims finite columns, and keeps the
// labelled training rows (pr.labelled) when some labels are hidden.
func embedSplit(model method.Model, pr *prepared, dims int) (*embedded, error) {
	trainZ, err := trainEmbedding(model, pr.trainX)
	if err != nil {
		return nil, fmt.Errorf("transform of training rows: %v", err)
	}
	testZ, err := model.Transform(pr.testX)
	if err != nil {
		return nil, fmt.Errorf("transform of test rows: %v", err)
	}
	for _, z := range []struct {
		what string
		m    *mat.Dense
		rows int
	}{{"training", trainZ, len(pr.ytrain)}, {"test", testZ, len(pr.ytest)}} {
		if z.m == nil {
			return nil, fmt.Errorf("transform of %s rows returned nothing", z.what)
		}
		if r, c := z.m.Dims(); r != z.rows || c < dims {
			return nil, fmt.Errorf("transform of %d %s rows returned %d×%d, want %d rows and at least %d columns", z.rows, z.what, r, c, z.rows, dims)
		}
	}
	if err := data.CheckFinite("embedding of the training rows", trainZ); err != nil {
		return nil, err
	}
	if err := data.CheckFinite("embedding of the test rows", testZ); err != nil {
		return nil, err
	}
	e := &embedded{train: trainZ, test: testZ, ytrain: pr.ytrain}
	if pr.labelled != nil {
		sub := mat.NewDense(len(pr.labelled), dims, nil)
		e.ytrain = make([]int, len(pr.labelled))
		for r, i := range pr.labelled {
			sub.SetRow(r, trainZ.RawRowView(i)[:dims])
			e.ytrain[r] = pr.ytrain[i]
		}
		e.train = sub
	}
	return e, nil
}

// missAt returns, for every classifier, the number of test rows it
// misclassifies on the first dims columns of model's embedding of the
// split: a one-element "sweep" at that dimension.
func missAt(ctx context.Context, cs []classify.Classifier, model method.Model, pr *prepared, dims int) ([][]int, error) {
	e, err := embedSplit(model, pr, dims)
	if err != nil {
		return nil, err
	}
	ntr, _ := e.train.Dims()
	nte, _ := e.test.Dims()
	tr := e.train.Slice(0, ntr, 0, dims).(*mat.Dense)
	te := e.test.Slice(0, nte, 0, dims).(*mat.Dense)
	miss := make([][]int, len(cs))
	for i, c := range cs {
		m, err := classify.MisclassifiedContext(ctx, c, tr, e.ytrain, te, pr.ytest)
		if err != nil {
			return nil, err
		}
		miss[i] = []int{m}
	}
	return miss, nil
}

// missPerDimension is the sweep over the dimensions ks (ascending) for a
// method that refits per dimension (method.RefitsPerDimension): the
// method is fitted with k dimensions for every listed k other than
// model's own (model is its fit with the most) and each classifier scored
// on that fit's k columns. step, when not nil, is told the number of the
// sweep's fits done (model's included) and their total after each.
func missPerDimension(ctx context.Context, m method.Method, cs []classify.Classifier, model method.Model, pr *prepared, ks []int, step func(done, total int)) ([][]int, error) {
	miss := make([][]int, len(cs))
	total := len(ks)
	if !slices.Contains(ks, model.Dims()) {
		total++
	}
	done := 1
	if step != nil {
		step(done, total)
	}
	for _, k := range ks {
		mk := model
		if k != model.Dims() {
			var err error
			if mk, err = method.FitContext(ctx, m, pr.trainX, pr.ymethod, k); err != nil {
				return nil, fmt.Errorf("fit with %d dimensions: %v", k, err)
			}
			if done++; step != nil {
				step(done, total)
			}
		}
		at, err := missAt(ctx, cs, mk, pr, k)
		if err != nil {
			return nil, fmt.Errorf("%d dimensions: %v", k, err)
		}
		for c := range cs {
			miss[c] = append(miss[c], at[c][0])
		}
	}
	return miss, nil
}

// aggregate turns per-split misclassification counts into the Result of
// method m and classifier c over dims evaluated dimensions: 1..dims, or
// list when not nil.
func aggregate(p *Protocol, splits []split, results []unitResult, nm, m, c, dims int, list []int, n int) Result {
	reps := max(p.Repeats, 1)
	// perRep[r][k]: error rate of repeat r at dimension k+1.
	perRep := make([][]float64, reps)
	if p.PerClass > 0 {
		for s, sp := range splits {
			miss := results[s*nm+m].miss[c]
			e := make([]float64, dims)
			for k := range e {
				e[k] = float64(miss[k]) / float64(len(sp.test))
			}
			perRep[sp.repeat] = e
		}
	} else {
		tot := make([][]int, reps)
		for r := range tot {
			tot[r] = make([]int, dims)
		}
		for s, sp := range splits {
			miss := results[s*nm+m].miss[c]
			for k := 0; k < dims; k++ {
				tot[sp.repeat][k] += miss[k]
			}
		}
		for r := range perRep {
			perRep[r] = make([]float64, dims)
			for k := range perRep[r] {
				perRep[r][k] = float64(tot[r][k]) / float64(n)
			}
		}
	}
	res := Result{
		Method:      p.Methods[m].Name,
		Classifier:  p.Classifiers[c].Name(),
		ErrorsByDim: make([]float64, dims),
	}
	for k := 0; k < dims; k++ {
		sum := 0.0
		for r := range perRep {
			sum += perRep[r][k]
		}
		res.ErrorsByDim[k] = sum / float64(reps)
	}
	if reps > 1 {
		res.StdByDim = make([]float64, dims)
		for k := 0; k < dims; k++ {
			ss := 0.0
			for r := range perRep {
				dv := perRep[r][k] - res.ErrorsByDim[k]
				ss += dv * dv
			}
			res.StdByDim[k] = math.Sqrt(ss / float64(reps-1))
		}
	}
	res.MinError, res.BestDim = best(res.ErrorsByDim)
	if list != nil {
		res.Dims = slices.Clone(list[:dims])
		res.BestDim = list[res.BestDim-1]
	}
	return res
}

// best returns the minimum of errs and the smallest 1-based dimension whose
// error is within 1e-12 of it.
func best(errs []float64) (float64, int) {
	lo := math.Inf(1)
	for _, e := range errs {
		lo = math.Min(lo, e)
	}
	for k, e := range errs {
		if e <= lo+1e-12 {
			return e, k + 1
		}
	}
	return math.NaN(), 0
}

// trainEmbedding returns the embedding of the training rows: the one the
// fit computed, when the model keeps it (method.Fitted: for a kernel model
// this saves a second n×n Gram matrix per split), else Transform.
func trainEmbedding(model interface {
	Transform(*mat.Dense) (*mat.Dense, error)
	Dims() int
}, x *mat.Dense) (*mat.Dense, error) {
	if k, ok := model.(interface{ TrainEmbedding() *mat.Dense }); ok {
		if z := k.TrainEmbedding(); z != nil {
			if r, c := z.Dims(); r == x.RawMatrix().Rows && c == model.Dims() {
				return z, nil
			}
		}
	}
	return model.Transform(x)
}

// hideLabels returns y with ⌊frac·n_c⌋ labels of every class c set to −1
// (a seeded random choice) and the indices of the rows that keep theirs.
func hideLabels(y []int, frac float64, seed uint64) ([]int, []int) {
	out := append([]int(nil), y...)
	rng := rand.New(rand.NewPCG(seed, 0x756e6c6162656c))
	byClass := map[int][]int{}
	var classes []int
	for i, v := range y {
		if v < 0 {
			continue
		}
		if _, ok := byClass[v]; !ok {
			classes = append(classes, v)
		}
		byClass[v] = append(byClass[v], i)
	}
	sort.Ints(classes)
	for _, c := range classes {
		rows := byClass[c]
		h := int(frac * float64(len(rows)))
		for _, j := range rng.Perm(len(rows))[:h] {
			out[rows[j]] = -1
		}
	}
	var keep []int
	for i, v := range out {
		if v >= 0 {
			keep = append(keep, i)
		}
	}
	return out, keep
}
