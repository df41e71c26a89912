package evaluate

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/param"
	"github.com/dimred/dimred/preprocess"
)

// DefaultInnerFolds is the number of inner folds of RunNested when
// NestedOptions.InnerFolds is 0.
const DefaultInnerFolds = 5

// GridParam is one method hyperparameter RunNested chooses on the inner
// folds, together with the embedding dimension.
type GridParam struct {
	// Method is the NamedMethod.Name the parameter belongs to; "" means
	// every method of the protocol, each of which must declare Key. A
	// scoped entry replaces an unscoped one with the same Key.
	Method string `json:"method,omitempty"`
	// Key is the parameter's name as in key=value (method.New, 'dimred
	// methods -v'), e.g. "sigma", "alpha", "k".
	Key string `json:"key"`
	// Values are the candidates in text form, in order of preference on
	// ties.
	Values []string `json:"values"`
}

// ErrClassTooSmall is wrapped by RunNested's error when a class of an
// outer training part has fewer rows than the inner folds (the data, not
// the options, rules nested CV out: e.g. Ecoli's two-row classes).
var ErrClassTooSmall = errors.New("a class is smaller than the inner folds")

// GridError is RunNested's error for a bad NestedOptions.Grid: a key no
// method declares, an empty value list, a value or a combination the
// method refuses, a method name not in the protocol.
type GridError struct{ Err error }

func (e *GridError) Error() string { return e.Err.Error() }
func (e *GridError) Unwrap() error { return e.Err }

// NestedOptions configures RunNested beyond the Protocol.
type NestedOptions struct {
	// InnerFolds is the number of stratified inner folds of each outer
	// training part (k ≥ 2; 0: DefaultInnerFolds). Every class present in
	// an outer training part needs at least InnerFolds rows there.
	InnerFolds int
	// Grid lists the hyperparameters chosen with the dimension; the
	// candidates are the Cartesian product of their values, the first
	// GridParam varying slowest. Empty: the dimension alone is chosen.
	Grid []GridParam
	// ChooseClassifier makes the protocol's classifiers candidates too:
	// each outer fold takes the classifier (with the dimension and grid
	// point) with the fewest inner errors, ties to the earlier classifier,
	// and each method gets one result instead of one per classifier (the
	// papers' "k of the k-NN classifier chosen by cross-validation", seed
	// 003 §5). The fits are the same: every fit scores every classifier.
	ChooseClassifier bool
}

// NestedReport is the outcome of RunNested; its JSON form is the CLI's
// JSON output of 'dimred eval --nested'.
type NestedReport struct {
	Dataset string `json:"dataset"`
	N       int    `json:"n"`
	D       int    `json:"d"`
	Classes int    `json:"classes"`
	// Protocol describes the outer protocol and the inner selection; it is
	// printed by the text and markdown formats and not part of the JSON.
	Protocol   string `json:"-"`
	InnerFolds int    `json:"inner_folds"`
	// Results has one entry per method × classifier, methods in order,
	// classifiers in order within each method (one per method with
	// NestedOptions.ChooseClassifier).
	Results []NestedResult `json:"results"`
}

// NestedResult is the nested evaluation of one method with one classifier.
type NestedResult struct {
	Method     string `json:"method"`
	Classifier string `json:"classifier"`
	// Error is the outer test error with the dimension (and grid values)
	// chosen on the inner folds of each outer training part, pooled as in
	// Result: cross-validation counts the misclassified rows over all
	// outer folds and divides by n (mean over repeats); per-class splits
	// average the per-split rates.
	Error float64 `json:"error"`
	// Std is the sample standard deviation of Error over repeats (CV) or
	// splits (per-class); 0 with one.
	Std float64 `json:"std"`
	// FoldStd is the sample standard deviation of the error rates of the
	// individual outer folds (or splits); 0 with one.
	FoldStd float64 `json:"fold_std"`
	// Folds are the outer folds (or splits) in protocol order, with what
	// was chosen in each.
	Folds []NestedFold `json:"folds"`
	// Grid is the method's grid (nil without one).
	Grid []GridParam `json:"grid,omitempty"`
	// MinOverDims is the papers' figure on the same outer folds and fits:
	// the error curve of the grid point with the smallest minimum, and
	// that minimum over dimensions (and grid points), which picks the
	// dimension on the test folds. Without a grid it equals Run's Result.
	MinOverDims Result `json:"min_over_dims"`
	// MinParams are the grid values of MinOverDims (nil without a grid).
	MinParams map[string]string `json:"min_params,omitempty"`
}

// NestedFold is what one outer fold (or split) chose and scored.
type NestedFold struct {
	Split  string `json:"split"`
	Repeat int    `json:"repeat"`
	// Dim is the chosen embedding dimension, Params the chosen grid values
	// (nil without a grid), Classifier the chosen classifier (only with
	// NestedOptions.ChooseClassifier).
	Dim        int               `json:"dim"`
	Params     map[string]string `json:"params,omitempty"`
	Classifier string            `json:"classifier,omitempty"`
	// InnerErrors of the InnerRows labelled training rows were
	// misclassified on the inner folds with that choice (each row is an
	// inner test row once).
	InnerErrors int `json:"inner_errors"`
	InnerRows   int `json:"inner_rows"`
	// Errors of the Rows outer test rows were misclassified after refitting
	// with the choice on the whole outer training part.
	Errors int `json:"errors"`
	Rows   int `json:"rows"`
	// ErrorsByDim[k-1] is the number of outer test rows misclassified at
	// dimension k by the fit with the chosen grid values (one element,
	// at Dim, with Protocol.FullDim; with Protocol.Dims, ErrorsByDim[i] is
	// at Dims[i]): Errors is its entry at Dim, and the minimum of this
	// curve is what the papers' figure picks.
	ErrorsByDim []int `json:"errors_by_dim"`
	// Dims lists the dimensions of ErrorsByDim when they are not 1..len
	// (FullDim, Protocol.Dims); nil otherwise.
	Dims []int `json:"dims,omitempty"`
}

// RunNested evaluates every method × classifier of p on ds by nested
// cross-validation. Run reports the minimum test error over dimensions,
// which chooses the dimension on the test rows (the papers' figure);
// RunNested chooses it on the training rows only, so its error estimates
// what a user of the method would get.
//
// The outer splits are Run's (same folds, repeats, seeds, preprocessing
// fitted on each outer training part, Unlabeled hiding). Within each outer
// training part, the labelled rows are dealt into o.InnerFolds stratified
// folds (seed derived from the outer split's seed and fold index; the same
// folds for every method and grid point). For each grid point the method
// is fitted on each inner training part (preprocessing refitted on it,
// rows with hidden labels always in it) at the largest dimension, and the
// classifier's errors on the inner test fold are counted at every
// dimension from the first embedding columns, as in Run. The choice is the
// (dimension, grid point) with the fewest inner errors summed over inner
// folds; ties go to the smaller dimension, then the earlier grid point.
// The candidate dimensions are 1..the fewest any of these fits produced
// (capped by MaxDims), or with Protocol.Dims those listed that every fit
// reached (the method's largest dimension, the same on every fit, when it
// reaches none). The method fitted on the whole outer training part
// with the chosen grid point (one fit per grid point, shared with the
// min-over-dimensions figure) then scores the outer test rows at the
// chosen dimension. With p.FullDim only the grid point is chosen.
//
// Fits cost (InnerFolds + 1) × grid points × Run's. Work runs in parallel
// (p.Workers) with results identical for any GOMAXPROCS; p.Progress counts
// fits and p.Context cancels. Errors name the method, grid point, split
// and inner fold.
func RunNested(ds *data.Dataset, p Protocol, o NestedOptions) (*NestedReport, error) {
	st, err := start(ds, &p)
	if err != nil {
		return nil, err
	}
	n, pre, splits := st.n, st.pre, st.splits
	k := o.InnerFolds
	if k == 0 {
		k = DefaultInnerFolds
	}
	if k < 2 {
		return nil, fmt.Errorf("evaluate: nested: InnerFolds = %d, want k ≥ 2 (or 0 for the default %d)", o.InnerFolds, DefaultInnerFolds)
	}
	grids, err := methodGrids(p.Methods, o.Grid)
	if err != nil {
		return nil, &GridError{err}
	}
	inner := make([]innerPlan, len(splits))
	for s := range splits {
		if inner[s], err = planInner(ds, &p, splits[s], s, k); err != nil {
			return nil, err
		}
	}

	// cands has a protocol for every (method, grid point): p with that
	// configuration as its only method, named with its grid values.
	var cands []Protocol
	for m, gr := range grids {
		for g, pt := range gr.points {
			q := p
			q.Methods = []NamedMethod{{Name: gr.label(p.Methods[m].Name, g), Method: pt}}
			cands = append(cands, q)
		}
	}
	nc, nsets := len(cands), k+1 // per split: k inner sets, then the outer one
	preps := make([]*prepared, len(splits)*nsets)
	for i := range preps {
		preps[i] = &prepared{}
		preps[i].left.Store(int32(nc))
	}
	results, err := runUnits(&p, len(preps)*nc, func(u int) unitJob {
		set, c := u/nc, u%nc
		s, j := set/nsets, set%nsets
		job := unitJob{pr: preps[set], proto: &cands[c], where: splits[s].name}
		if j < k {
			job.where = innerWhere(job.where, j, k)
			job.fill = func(pr *prepared) { inner[s].prepare(pr, ds, pre, splits[s], j) }
		} else {
			job.fill = func(pr *prepared) { prepare(pr, ds, pre, splits[s], &p, s) }
		}
		return job
	})
	if err != nil {
		return nil, graph.NameClass(err, ds.ClassNames)
	}

	what := "dimension" + grids.describe()
	// groups are the classifiers chosen among together: each alone, or
	// all of them with ChooseClassifier.
	var groups [][]int
	for c := range p.Classifiers {
		if o.ChooseClassifier {
			if c == 0 {
				groups = append(groups, nil)
			}
			groups[0] = append(groups[0], c)
			continue
		}
		groups = append(groups, []int{c})
	}
	if o.ChooseClassifier {
		what += " and the classifier"
	}
	rep := &NestedReport{Dataset: st.name, N: n, D: st.d, Classes: st.classes, InnerFolds: k,
		Protocol: p.Describe() + fmt.Sprintf("; %s chosen on %d inner stratified folds of each training part", what, k)}
	first := 0 // index in cands of method m's first grid point
	for m, gr := range grids {
		// unit returns the result of grid point g on split s, set j.
		unit := func(s, j, g int) *unitResult { return &results[(s*nsets+j)*nc+first+g] }
		// A fit that reaches none of Protocol.Dims is evaluated at its
		// largest dimension: the inner folds' and the outer fit's must be
		// the same one for their errors to be compared.
		for s, sp := range splits {
			where := func(j int) string {
				if j == k {
					return sp.name
				}
				return innerWhere(sp.name, j, k)
			}
			for g := range gr.points {
				if err := sameBeyond(&p, cands[first+g].Methods[0].Name, k+1, where, func(j int) *unitResult { return unit(s, j, g) }); err != nil {
					return nil, err
				}
			}
		}
		for _, group := range groups {
			res := NestedResult{Method: p.Methods[m].Name, Classifier: p.Classifiers[group[0]].Name(), Grid: gr.params}
			if o.ChooseClassifier {
				res.Classifier = "chosen: " + classify.Names(p.Classifiers)
			}
			for s, sp := range splits {
				var f choice
				c := 0
				for _, cc := range group { // ties to the earlier classifier
					if fc := chooseInner(len(gr.points), k, cc, func(j, g int) *unitResult { return unit(s, j, g) }); cc == group[0] || fc.miss < f.miss {
						f, c = fc, cc
					}
				}
				out := unit(s, k, f.g)
				fold := NestedFold{Split: sp.name, Repeat: sp.repeat, Dim: out.dim(f.pos), Params: gr.values(f.g),
					InnerErrors: f.miss, InnerRows: inner[s].rows, Errors: out.miss[c][f.pos-1], Rows: len(sp.test),
					ErrorsByDim: slices.Clone(out.miss[c]), Dims: slices.Clone(out.list)}
				if o.ChooseClassifier {
					fold.Classifier = p.Classifiers[c].Name()
				}
				res.Folds = append(res.Folds, fold)
			}
			res.Error, res.Std, res.FoldStd = poolNested(&p, splits, res.Folds, n)
			// The papers' figure: the smallest minimum over dimensions of
			// any grid point (and, choosing classifiers, any classifier).
			firstPoint := true
			for _, c := range group {
				for g := range gr.points {
					outer := make([]unitResult, len(splits))
					for s := range splits {
						outer[s] = *unit(s, k, g)
					}
					dims, list, err := commonDims(&p, cands[first+g].Methods[0].Name, splits, func(s int) *unitResult { return &outer[s] })
					if err != nil {
						return nil, err
					}
					r := aggregate(&cands[first+g], splits, outer, 1, 0, c, dims, list, n)
					if firstPoint || r.MinError < res.MinOverDims.MinError-1e-12 ||
						(r.MinError <= res.MinOverDims.MinError+1e-12 && r.BestDim < res.MinOverDims.BestDim) {
						res.MinOverDims, res.MinParams = r, gr.values(g)
						if o.ChooseClassifier {
							if res.MinParams == nil {
								res.MinParams = map[string]string{}
							}
							res.MinParams["classifier"] = p.Classifiers[c].Name()
						}
					}
					firstPoint = false
				}
			}
			res.MinOverDims.Method = res.Method
			rep.Results = append(rep.Results, res)
		}
		first += len(gr.points)
	}
	return rep, nil
}

// FitsPerSplit is the number of fits RunNested makes on each outer split
// of a protocol with these methods: (InnerFolds + 1) × the grid points of
// every method; an error as RunNested's for a grid it refuses.
func (o NestedOptions) FitsPerSplit(methods []NamedMethod) (int, error) {
	grids, err := methodGrids(methods, o.Grid)
	if err != nil {
		return 0, &GridError{err}
	}
	k := o.InnerFolds
	if k == 0 {
		k = DefaultInnerFolds
	}
	points := 0
	for _, g := range grids {
		points += len(g.points)
	}
	return (k + 1) * points, nil
}

// innerWhere names inner fold j (0-based) of k of a split.
func innerWhere(split string, j, k int) string {
	return fmt.Sprintf("%s, inner fold %d of %d", split, j+1, k)
}

// choice is the (dimension, grid point) chosen on the inner folds and its
// number of inner errors; pos is the dimension's 1-based position among
// those evaluated, dim the dimension there (unitResult.dim).
type choice struct{ pos, g, miss, dim int }

// chooseInner returns the (dimension, grid point) with the fewest inner
// errors of classifier c summed over the k inner folds (unit(j, g) is the
// result of grid point g on inner fold j): ties go to the smaller
// dimension, then the earlier grid point. The dimensions of grid point g
// are the first ones evaluated by every one of its inner fits and by the
// outer fit (unit(k, g)): 1..the fewest, or a prefix of Protocol.Dims.
func chooseInner(points, k, c int, unit func(j, g int) *unitResult) choice {
	best := choice{miss: math.MaxInt}
	for g := 0; g < points; g++ {
		dims := math.MaxInt
		for j := 0; j <= k; j++ {
			dims = min(dims, unit(j, g).dims)
		}
		for pos := 1; pos <= dims; pos++ {
			miss := 0
			for j := 0; j < k; j++ {
				miss += unit(j, g).miss[c][pos-1]
			}
			// A position is the same dimension on every fit of a grid
			// point (lists of Protocol.Dims are prefixes of it, and a
			// point that reaches none of it has its largest dimension on
			// every fit: sameBeyond), but not across grid points (FullDim,
			// that largest dimension): ties compare the dimensions.
			dim := unit(k, g).dim(pos)
			if miss < best.miss || (miss == best.miss && dim < best.dim) {
				best = choice{pos: pos, g: g, miss: miss, dim: dim}
			}
		}
	}
	return best
}

// poolNested returns the nested error (pooled as Run pools), its standard
// deviation over repeats or splits, and that over the individual folds.
func poolNested(p *Protocol, splits []split, folds []NestedFold, n int) (mean, std, foldStd float64) {
	reps := max(p.Repeats, 1)
	perRep := make([]float64, reps)
	rates := make([]float64, len(folds))
	for s, f := range folds {
		rates[s] = float64(f.Errors) / float64(f.Rows)
		if p.PerClass > 0 {
			perRep[splits[s].repeat] = rates[s]
		} else {
			perRep[splits[s].repeat] += float64(f.Errors)
		}
	}
	if p.PerClass == 0 {
		for r := range perRep {
			perRep[r] /= float64(n)
		}
	}
	mean, std = meanStd(perRep)
	_, foldStd = meanStd(rates)
	return mean, std, foldStd
}

// meanStd returns the mean and the sample standard deviation (divisor
// len−1; 0 for one value).
func meanStd(v []float64) (float64, float64) {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// innerPlan is the inner cross-validation of one outer split: the labels
// the methods see, the labelled rows, and the inner test folds, as
// positions in the outer training part.
type innerPlan struct {
	precomputed       bool  // Protocol.Precomputed
	ymethod, labelled []int // methodLabels of the outer split
	folds             [][]int
	rows              int // labelled rows (each an inner test row once)
}

// innerSeed derives the seed of the inner folds from the outer split's
// seed and its fold index (SplitMix64's finaliser, so neighbouring folds
// get unrelated seeds).
func innerSeed(outer uint64, fold int) uint64 {
	z := outer + uint64(fold+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// planInner deals the labelled rows of split sp (index s) into k
// stratified inner folds. Every class present there needs k rows.
func planInner(ds *data.Dataset, p *Protocol, sp split, s, k int) (innerPlan, error) {
	ytrain := make([]int, len(sp.train))
	for i, r := range sp.train {
		ytrain[i] = ds.Y[r]
	}
	pl := innerPlan{precomputed: p.Precomputed}
	pl.ymethod, pl.labelled = methodLabels(ytrain, p, s)
	lab := pl.labelled
	if lab == nil {
		lab = make([]int, len(ytrain))
		for i := range lab {
			lab[i] = i
		}
	}
	ylab := make([]int, len(lab))
	counts := map[int]int{}
	for r, i := range lab {
		ylab[r] = ytrain[i]
		counts[ytrain[i]]++
	}
	for _, c := range slices.Sorted(maps.Keys(counts)) {
		if counts[c] < k {
			cls := fmt.Sprint(c)
			if c < len(ds.ClassNames) {
				cls = fmt.Sprintf("%d (%s)", c, ds.ClassNames[c])
			}
			advice := fmt.Sprintf("use at most %d inner folds", counts[c])
			if counts[c] < 2 { // inner cross-validation needs 2 folds at least
				advice = "nested cross-validation cannot run on it: give the class more rows, or drop it"
			}
			return pl, fmt.Errorf("evaluate: nested: %w: %d inner folds need at least %d labelled training rows of every class, but the training part of %s has %d of class %s; %s",
				ErrClassTooSmall, k, k, sp.name, counts[c], cls, advice)
		}
	}
	folds, err := StratifiedKFold(ylab, k, innerSeed(repeatSeed(p.Seed, sp.repeat), sp.fold))
	if err != nil {
		return pl, fmt.Errorf("evaluate: nested: inner folds of %s: %w", sp.name, err)
	}
	for _, f := range folds {
		pos := make([]int, len(f))
		for r, j := range f {
			pos[r] = lab[j]
		}
		pl.folds = append(pl.folds, pos)
	}
	pl.rows = len(lab)
	return pl, nil
}

// prepare fills pr with inner fold j of outer split sp: the preprocessing
// is fitted on the inner training rows (the outer training part without
// the fold) and applied to them and to the fold's rows.
func (pl *innerPlan) prepare(pr *prepared, ds *data.Dataset, pre preprocess.Pipeline, sp split, j int) {
	test := pl.folds[j]
	inTest := make([]bool, len(sp.train))
	for _, i := range test {
		inTest[i] = true
	}
	var trRows, teRows []int
	for _, i := range test {
		teRows = append(teRows, sp.train[i])
	}
	hidden := pl.labelled != nil
	for i, r := range sp.train {
		if inTest[i] {
			continue
		}
		trRows = append(trRows, r)
		pr.ymethod = append(pr.ymethod, pl.ymethod[i])
		if hidden && pl.ymethod[i] >= 0 {
			pr.labelled = append(pr.labelled, len(trRows)-1)
		}
	}
	tr, te := ds.Subset(trRows), ds.Subset(teRows)
	pr.ytrain, pr.ytest = tr.Y, te.Y
	trX, teX := splitRows(tr.X, te.X, trRows, pl.precomputed)
	pr.fit(pre, trX, teX)
}

// grid is one method's candidate configurations.
type grid struct {
	params []GridParam     // the keys and values, in product order
	points []method.Method // the Cartesian product, first key slowest
	index  [][]int         // index[g][i]: the value of params[i] at point g
}

type grids []grid

// values returns the grid values of point g (nil without a grid).
func (gr *grid) values(g int) map[string]string {
	if len(gr.params) == 0 {
		return nil
	}
	out := make(map[string]string, len(gr.params))
	for i, gp := range gr.params {
		out[gp.Key] = gp.Values[gr.index[g][i]]
	}
	return out
}

// label names point g in errors: "gda [sigma=0.5 alpha=1]".
func (gr *grid) label(name string, g int) string {
	if len(gr.params) == 0 {
		return name
	}
	return gr.labelOf(name, gr.index[g])
}

// describe returns ", sigma ∈ {0.5, 1, 2} (gda)" and so on for the
// protocol line ("" without a grid).
func (gs grids) describe() string {
	seen := map[string][]string{}
	var order []string
	for _, gr := range gs {
		for _, gp := range gr.params {
			s := gp.Key + " ∈ {" + strings.Join(gp.Values, ", ") + "}"
			if seen[s] == nil {
				order = append(order, s)
			}
			seen[s] = append(seen[s], gp.Method)
		}
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = s + " (" + strings.Join(seen[s], ", ") + ")"
	}
	return " and " + strings.Join(parts, ", ")
}

// methodGrids resolves the grid of every method as 'dimred eval -p'
// routes parameters: an unscoped key goes to every method that declares
// it (an error if none does), a scoped one to its method, replacing an
// unscoped one with the same key; every value must be accepted, and every
// combination too (keys that exclude each other, such as sigma and gamma,
// are refused here).
func methodGrids(ms []NamedMethod, gps []GridParam) (grids, error) {
	names := make([]string, len(ms))
	keys := make([][]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
		keys[i], _ = declaredParams(m)
	}
	seen := map[[2]string]bool{}
	for _, gp := range gps {
		if gp.Key == "" {
			return nil, fmt.Errorf("evaluate: nested: a grid entry has no parameter name (values %q)", gp.Values)
		}
		if len(gp.Values) == 0 {
			return nil, fmt.Errorf("evaluate: nested: grid %s has an empty value list; give at least one value", gridName(gp))
		}
		id := [2]string{gp.Method, gp.Key}
		if seen[id] {
			return nil, fmt.Errorf("evaluate: nested: grid %s is given twice; give each parameter once", gridName(gp))
		}
		seen[id] = true
		if gp.Method != "" {
			i := slices.Index(names, gp.Method)
			if i < 0 {
				return nil, fmt.Errorf("evaluate: nested: grid %s: no method named %q in the protocol (methods: %s)", gridName(gp), gp.Method, strings.Join(names, ", "))
			}
			if err := checkDeclared(ms[i], keys[i], gp.Key); err != nil {
				return nil, fmt.Errorf("evaluate: nested: grid %s: %w", gridName(gp), err)
			}
			continue
		}
		var errs []string
		for i := range ms {
			if err := checkDeclared(ms[i], keys[i], gp.Key); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) == len(ms) {
			return nil, fmt.Errorf("evaluate: nested: grid %s: no method has it: %s", gp.Key, strings.Join(errs, "; "))
		}
	}
	out := make(grids, len(ms))
	for m, nm := range ms {
		var mine []GridParam
		for _, gp := range gps {
			scoped := gp.Method == nm.Name
			unscoped := gp.Method == "" && !seen[[2]string{nm.Name, gp.Key}] && slices.Contains(keys[m], gp.Key)
			if scoped || unscoped {
				gp.Method = nm.Name
				mine = append(mine, gp)
			}
		}
		gr, err := buildGrid(nm, mine)
		if err != nil {
			return nil, err
		}
		out[m] = gr
	}
	return out, nil
}

// checkDeclared returns nil when key is one of keys, the parameters nm
// declares, else an error suggesting the nearest name.
func checkDeclared(nm NamedMethod, keys []string, key string) error {
	if slices.Contains(keys, key) {
		return nil
	}
	_, d, err := declarer(nm)
	if err != nil {
		return err
	}
	return param.Of(nm.Name, d).Unknown(key)
}

func gridName(gp GridParam) string {
	if gp.Method == "" {
		return gp.Key
	}
	return gp.Method + "." + gp.Key
}

// buildGrid configures nm at every point of the product of gps (all for
// nm). Without a grid the only point is nm.Method itself, so RunNested's
// min-over-dimensions figure is Run's.
func buildGrid(nm NamedMethod, gps []GridParam) (grid, error) {
	gr := grid{params: gps}
	if len(gps) == 0 {
		gr.points, gr.index = []method.Method{nm.Method}, [][]int{nil}
		return gr, nil
	}
	for _, gp := range gps {
		for _, v := range gp.Values {
			if _, err := withParams(nm, map[string]string{gp.Key: v}); err != nil {
				return gr, fmt.Errorf("evaluate: nested: grid value %s=%s for method %q: %w", gp.Key, v, nm.Name, err)
			}
		}
	}
	idx := make([]int, len(gps))
	for {
		kv := make(map[string]string, len(gps))
		for i, gp := range gps {
			kv[gp.Key] = gp.Values[idx[i]]
		}
		pt, err := withParams(nm, kv)
		if err != nil {
			return gr, fmt.Errorf("evaluate: nested: grid point %s: %w", gr.labelOf(nm.Name, idx), err)
		}
		gr.points = append(gr.points, pt)
		gr.index = append(gr.index, slices.Clone(idx))
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(gps[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return gr, nil
		}
	}
}

// labelOf names the point whose value indices are idx.
func (gr *grid) labelOf(name string, idx []int) string {
	kv := make([]string, len(idx))
	for i, gp := range gr.params {
		kv[i] = gp.Key + "=" + gp.Values[idx[i]]
	}
	return name + " [" + strings.Join(kv, " ") + "]"
}

// declarer returns a pointer to a copy of nm.Method's struct, as a
// param.Declarer, or an error when the method declares no parameters.
func declarer(nm NamedMethod) (reflect.Value, param.Declarer, error) {
	v := reflect.ValueOf(nm.Method)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, nil, fmt.Errorf("method %q is a nil pointer", nm.Name)
		}
		v = v.Elem()
	}
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	d, ok := cp.Interface().(param.Declarer)
	if !ok {
		return v, nil, fmt.Errorf("method %q (%T) declares no parameters to search", nm.Name, nm.Method)
	}
	return cp, d, nil
}

// declaredParams returns the parameter names nm.Method declares (an error
// when it declares none).
func declaredParams(nm NamedMethod) ([]string, error) {
	_, d, err := declarer(nm)
	if err != nil {
		return nil, err
	}
	return param.Of(nm.Name, d).Names(), nil
}

// withParams returns a copy of nm.Method with the parameters kv set on top
// of its configuration (param.Schema.Bind: values are parsed and checked,
// the other fields keep their values). nm.Method is not changed.
func withParams(nm NamedMethod, kv map[string]string) (method.Method, error) {
	cp, d, err := declarer(nm)
	if err != nil {
		return nil, err
	}
	if err := param.Of(nm.Name, d).Bind(kv); err != nil {
		return nil, err
	}
	if reflect.ValueOf(nm.Method).Kind() == reflect.Pointer {
		return cp.Interface().(method.Method), nil
	}
	return cp.Elem().Interface().(method.Method), nil
}

// DimSummary returns the median of the chosen dimensions over the outer
// folds (the mean of the middle two for an even count) and their range.
func (r *NestedResult) DimSummary() (median float64, lo, hi int) {
	if len(r.Folds) == 0 {
		return 0, 0, 0
	}
	dims := make([]int, len(r.Folds))
	for i, f := range r.Folds {
		dims[i] = f.Dim
	}
	sort.Ints(dims)
	h := len(dims) / 2
	median = float64(dims[h])
	if len(dims)%2 == 0 {
		median = float64(dims[h-1]+dims[h]) / 2
	}
	return median, dims[0], dims[len(dims)-1]
}

// ParamsMode returns, for every grid key, the value chosen in most outer
// folds (ties: the earlier value in the grid) and in how many folds; nil
// without a grid.
// ClassifierMode returns the classifier the most folds chose (of equally
// frequent ones, the first to reach that count in fold order) and in how
// many folds;
// "", 0 when the classifier was not chosen.
func (r *NestedResult) ClassifierMode() (string, int) {
	best, bestN := "", 0
	counts := map[string]int{}
	for _, f := range r.Folds {
		if f.Classifier == "" {
			continue
		}
		counts[f.Classifier]++
		if counts[f.Classifier] > bestN {
			best, bestN = f.Classifier, counts[f.Classifier]
		}
	}
	return best, bestN
}

func (r *NestedResult) ParamsMode() (values map[string]string, folds map[string]int) {
	if len(r.Grid) == 0 {
		return nil, nil
	}
	values, folds = map[string]string{}, map[string]int{}
	for _, gp := range r.Grid {
		for _, v := range gp.Values {
			c := 0
			for _, f := range r.Folds {
				if f.Params[gp.Key] == v {
					c++
				}
			}
			if _, ok := values[gp.Key]; !ok || c > folds[gp.Key] {
				values[gp.Key], folds[gp.Key] = v, c
			}
		}
	}
	return values, folds
}
