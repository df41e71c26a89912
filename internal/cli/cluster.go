package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/dimred/dimred/cluster"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"github.com/dimred/dimred/preprocess"
	libprogress "github.com/dimred/dimred/progress"
)

const clusterUsage = "cluster -i DATA [-m METHOD|none] [-k CLUSTERS] [--dims D] [--affinity knn|rbf|selftune] [--nn P] [--sigma S] [--connect mst|grow|none] [--runs R] [--seed S] [--scale minmax] [-p key=value ...] [--plot CLUSTERS.png] [-o CLUSTERS.csv] [--format text|json]"

const clusterHelp = `Embeds the rows with a method fitted on them (labels are used only by
supervised methods), clusters the embedding by normalized-cut spectral
clustering R times (k-means seeds seed, seed+1, …) and reports the mean ±
std of the clustering accuracy (seed 002 eq. 30, best one-to-one matching
of clusters to classes) and of the NMI (arithmetic normalization) against
the true classes. -m none clusters the (scaled) input features. Data
without labels (--no-labels, or no label column) is clustered too, with -k
given: nothing is scored, and the run of lowest k-means inertia gives the
clusters that -o writes and --plot draws.

--plot FILE (.png, .svg or .pdf) also draws the clustered embedding's
first two coordinates coloured by the clusters of the first run (with -m
none, the rows' first two principal components).

-o FILE also writes the clusters of the first run: one row per row
clustered, with its row number among the rows read (from 1, counted
before --classes and --subsample; rows left out by --missing drop are not
counted), its cluster (1..k) and its class; .csv or .tsv (columns
label,row,cluster), .npy (rows × [row, cluster]), .npz (X and y) or .mat
(fea and gnd) by extension, optionally .gz; - writes CSV on standard
output (the report then goes to standard error).

Example (seed 002 Table 2, Digits 0689, raw features and LDA):
  dimred cluster -i ../shared/data/uci/optdigits.arff --classes 0,6,8,9 -m none
  dimred cluster -i ../shared/data/uci/optdigits.arff --classes 0,6,8,9 -m lda --affinity selftune --plot clusters.png
  dimred cluster -i digits.npz -m ksr -p graph=unsupervised -o clusters.csv`

// clusterReport is the JSON form of a cluster run.
type clusterReport struct {
	Data       string            `json:"data"`
	Rows       int               `json:"rows"`
	Features   int               `json:"features"`
	Classes    int               `json:"classes"`
	Method     string            `json:"method"`
	Params     map[string]string `json:"params,omitempty"`
	Dims       int               `json:"dims"`
	Clusters   int               `json:"clusters"`
	Graph      cluster.GraphInfo `json:"graph"`
	Solver     string            `json:"eigen_solver"`
	Eigen      []float64         `json:"eigenvalues"`
	Runs       int               `json:"runs"`
	Seed       uint64            `json:"seed"`
	Accuracy   []float64         `json:"accuracy,omitempty"` // nil without classes
	NMI        []float64         `json:"nmi,omitempty"`
	AccMean    *float64          `json:"accuracy_mean,omitempty"` // nil without classes
	AccStd     *float64          `json:"accuracy_std,omitempty"`
	NMIMean    *float64          `json:"nmi_mean,omitempty"`
	NMIStd     *float64          `json:"nmi_std,omitempty"`
	Inertia    []float64         `json:"inertia"`  // k-means inertia of each run
	Kept       int               `json:"kept_run"` // the run -o and --plot show, from 1
	Warnings   []string          `json:"warnings,omitempty"`
	Preprocess string            `json:"scale"`
}

func runCluster(e *env, args []string) error {
	fs := newFlags(e, "cluster")
	force := forceFlag(fs)
	df := addDataFlags(e, fs)
	name := fs.String("m", "none", "method whose embedding is clustered (see 'dimred methods'), or none for the input features")
	k := fs.Int("k", 0, "number of clusters (0: the number of classes; required for data without labels)")
	dims := fs.Int("dims", 0, "embedding dimensions (0: the number of clusters — seed 002's rule for SR — or all the method gives when fewer)")
	aff := fs.String("affinity", string(cluster.KNN), "normalized-cut affinity: knn (p nearest neighbours, sparse), rbf (complete graph, σ by the median heuristic), selftune (Zelnik-Manor & Perona local scaling)")
	nn := fs.Int("nn", 10, "knn: neighbours p of each row")
	weights := fs.String("weights", string(graph.Heat), "knn: edge weights, heat (exp(−d²/t)) or constant (0/1)")
	heatT := fs.Float64("t", 0, "knn: heat width t (0: the mean squared edge length)")
	sigma := fs.Float64("sigma", 0, "rbf: width σ in exp(−d²/(2σ²)) (0: the median distance between rows)")
	scaleK := fs.Int("scale-k", graph.DefaultScaleK, "selftune: σᵢ is the distance to the scale-k-th neighbour")
	connect := fs.String("connect", string(cluster.ConnectMST), "knn graph with several components: mst (join them by the shortest edges between them), grow (double p until connected) or none")
	runs := fs.Int("runs", 20, "clusterings of the embedding, k-means seeded seed, seed+1, … (seed 002: 20)")
	restarts := fs.Int("restarts", 10, "k-means++ starts per run (the lowest inertia is kept)")
	seed := fs.Uint64("seed", 0, "seed of the first run")
	scale := fs.String("scale", "minmax", "preprocessing fitted on the rows: none, minmax, zscore, unit, pca:0.99, or a comma list")
	classes := fs.String("classes", "", "keep only the rows of these classes, by name, comma-separated (e.g. 0,6,8,9)")
	plotPath := fs.String("plot", "", "also draw the clustered embedding's first two coordinates (with -m none: the rows' first two principal components), coloured by the clusters of the first run, to this file: .png, .svg or .pdf")
	subsample := fs.Int("subsample", 0, "cluster this many rows drawn with the classes as even as possible (seeded by --subsample-seed)")
	subSeed := fs.Uint64("subsample-seed", 1, "seed of --subsample")
	format := fs.String("format", "text", "output: text or json")
	out := fs.String("o", "", "also write the clusters of the first run, one row per row clustered: its row among the rows read (from 1), its cluster (1..k) and its class; by extension .csv, .tsv (columns label,row,cluster), .npy (rows × [row, cluster]), .npz, .mat, .libsvm (the class, then row and cluster as features 1 and 2; labelled rows only), any of them .gz; - is standard output (CSV)")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value (repeatable; see 'dimred methods -v')")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkPlot(*plotPath, df.input, df.labels); err != nil {
		return err
	}
	outFormat, err := outputFormat(*out)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := checkOutput(*out, df.input, df.labels, *plotPath); err != nil {
			return err
		}
	}
	if *out == "-" && *format == "json" {
		return usagef("-o - and --format json would both write to standard output")
	}
	switch {
	case *k < 0 || *dims < 0 || *subsample < 0:
		return usagef("-k, --dims and --subsample must be ≥ 0, got %d, %d and %d", *k, *dims, *subsample)
	case *runs < 1 || *restarts < 1:
		return usagef("--runs and --restarts must be ≥ 1, got %d and %d", *runs, *restarts)
	case *nn < 1 || *scaleK < 1:
		return usagef("--nn and --scale-k must be ≥ 1, got %d and %d", *nn, *scaleK)
	case *sigma < 0 || *heatT < 0:
		return usagef("--sigma and --t must be > 0 (or 0 for their default rule), got %g and %g", *sigma, *heatT)
	case *format != "text" && *format != "json":
		return usagef("--format %q: want text or json", *format)
	}
	nc := cluster.NormalizedCut{
		Affinity: cluster.Affinity(*aff), P: *nn, Weights: graph.WeightKind(*weights), T: *heatT,
		Sigma: *sigma, ScaleK: *scaleK, Connect: cluster.Connect(*connect), Restarts: *restarts,
		Context: e.ctx,
	}
	for _, f := range []struct {
		flag string
		for_ cluster.Affinity
	}{{"nn", cluster.KNN}, {"weights", cluster.KNN}, {"t", cluster.KNN}, {"connect", cluster.KNN}, {"sigma", cluster.RBF}, {"scale-k", cluster.SelfTune}} {
		if flagGiven(fs, f.flag) && nc.Affinity != f.for_ {
			return usagef("--%s is for --affinity %s, and the affinity is %s: it would be ignored", f.flag, f.for_, nc.Affinity)
		}
	}
	if !slices.Contains(cluster.Affinities, nc.Affinity) {
		return usagef("--affinity %q: want knn, rbf or selftune", *aff)
	}
	if !slices.Contains(cluster.Connects, nc.Connect) {
		return usagef("--connect %q: want mst, grow or none", *connect)
	}
	if nc.Weights != graph.Heat && nc.Weights != graph.Constant {
		return usagef("--weights %q: want heat or constant", *weights)
	}
	var m method.Method
	var kv map[string]string
	pre := false // the input rows are a Gram matrix
	if *name != "none" {
		ms, kvs, err := buildMethods([]string{*name}, params)
		if err != nil {
			return err
		}
		m, kv = ms[0], kvs[0]
		if *scale, pre, err = precomputedScale(fs, *scale, kvs); err != nil {
			return err
		}
	} else if len(params) > 0 {
		return usagef("-p: -m none has no parameters")
	}
	pipe, err := preprocess.Parse(*scale)
	if err != nil {
		return usageError{err}
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	unlabelled := ds.Y == nil
	if unlabelled {
		// Clustering without classes: the clusters (-o, --plot), no scores.
		switch {
		case *k == 0:
			return df.errNoLabels("the number of clusters cannot default to the number of classes: give -k (the rows are then clustered, without scores), or the labels")
		case *classes != "" || *subsample > 0:
			return usagef("--classes and --subsample select rows by their classes, and %s has no labels", df.input)
		}
	}
	n0, _ := ds.Dims()
	var rowNum []int // the input row of each row clustered
	if ds, rowNum, err = filterClassRows(ds, *classes, nil); err != nil {
		return err
	}
	if ds, rowNum, err = balancedRows(ds, *subsample, *subSeed, rowNum); err != nil {
		return err
	}
	if pre {
		gramColumns(ds, rowNum, n0)
	}
	if !unlabelled {
		ds.CompactClasses()
		if err := needClasses(ds, df.input, "the clusters of a single class agree with it whatever they are"); err != nil {
			return err
		}
	}
	nc.K = *k
	if nc.K == 0 {
		nc.K = ds.NumClasses()
	}
	x, err := scaleRows(pipe, ds.X)
	if err != nil {
		return err
	}
	// Progress: the method's long steps (kernel matrix, decompositions,
	// EM iterations) and the normalized cut's (neighbour search,
	// eigen-solver) on stderr, as fit and eval give them.
	prog := e.newProgress("cluster")
	ctx := e.ctx
	if prog != nil {
		line := func(s string) { prog.note("%s", s) }
		ctx = libprogress.With(ctx, line)
		if p, ok := m.(method.Progresser); ok {
			m = p.WithProgress(line)
		}
	}
	nc.Context = ctx
	if m != nil {
		r, c := x.Dims()
		if err := e.announceFit("cluster", prog, *name, kv, r, c, cmp.Or(*dims, nc.K), *scale, *force); err != nil { // --dims 0: k dimensions (embedForClustering)
			return err
		}
		if x, err = embedForClustering(method.WithContext(m, ctx), x, ds.Y, *dims, nc.K); err != nil {
			if e.ctx.Err() != nil {
				return e.ctx.Err()
			}
			err = graph.NameClass(err, ds.ClassNames)
			if strings.HasPrefix(err.Error(), *name+":") {
				return err // the method's errors name it
			}
			return fmt.Errorf("%s: %w", *name, err)
		}
	}
	if rows, _ := x.Dims(); rows >= 2000 {
		prog.note("normalized cut of %d rows into %d clusters (%s affinity), %s of k-means", rows, nc.K, nc.Affinity, nOf(*runs, "run"))
	}
	sc, err := nc.Score(x, ds.Y, *runs, *seed)
	if err != nil {
		return err
	}
	if err := e.ctx.Err(); err != nil {
		return err // nothing is written after an interruption
	}
	emb := sc.SpectralEmbedding
	rows, feats := ds.Dims()
	_, d := x.Dims()
	rep := clusterReport{
		Data: df.input, Rows: rows, Features: feats, Classes: ds.NumClasses(), Method: *name, Params: kv,
		Dims: d, Clusters: nc.K, Graph: emb.Graph, Solver: emb.Solver, Eigen: emb.Values,
		Runs: *runs, Seed: *seed, Preprocess: *scale,
	}
	if g := emb.Graph; g.Components > 1 {
		msg := fmt.Sprintf("the %s graph has %d connected components", g.Affinity, g.Components)
		switch {
		case g.Connected > 1:
			msg += fmt.Sprintf(" (left as they are: %d component indicators among the eigenvectors)", g.Connected)
		case g.Added > 0:
			msg += fmt.Sprintf("; joined by %d minimum spanning edges", g.Added)
		default:
			msg += fmt.Sprintf("; connected with p = %d", g.P)
		}
		rep.Warnings = append(rep.Warnings, msg)
	}
	rep.Accuracy, rep.NMI, rep.Inertia, rep.Kept = sc.Accuracy, sc.NMI, sc.Inertia, sc.Run+1
	if !unlabelled {
		rep.AccMean, rep.AccStd = meanStd(rep.Accuracy)
		rep.NMIMean, rep.NMIStd = meanStd(rep.NMI)
	}
	if *out != "" {
		if err := e.writeData(*out, outFormat, clusterRows(ds, rowNum, sc.Labels)); err != nil {
			return err
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		re := e
		if *out == "-" { // the clusters are on standard output
			c := *e
			c.stdout = e.stderr
			re = &c
		}
		writeClusterText(re, &rep)
	}
	if *plotPath == "" {
		return nil
	}
	z, axes := x, "z"
	if _, d := x.Dims(); m == nil && d > 2 {
		// The input features themselves: shown on their first two
		// principal components.
		pca, err := method.New("pca", nil)
		if err != nil {
			return err
		}
		if _, z, err = method.FitTransform(pca, x, nil, 2); err != nil {
			return fmt.Errorf("--plot: the principal components of the rows: %w", err)
		}
		axes = "PC"
	}
	names := make([]string, nc.K)
	for i := range names {
		names[i] = fmt.Sprintf("cluster %d", i+1)
	}
	title := fmt.Sprintf("%s, %s: %d clusters (run %d, lowest inertia)", ds.Name, *name, nc.K, sc.Run+1)
	if !unlabelled {
		title = fmt.Sprintf("%s, %s: %d clusters, accuracy %.1f %% (run 1)", ds.Name, *name, nc.K, 100*sc.Accuracy[0])
	}
	opt := plot.ScatterOptions{Title: title, XLabel: axes + "1", YLabel: axes + "2"}
	if err := plot.Scatter(*plotPath, z, sc.Labels, names, opt); err != nil {
		return err
	}
	fmt.Fprintf(e.progressLog(), "cluster: plot written to %s\n", *plotPath)
	return nil
}

// clusterRows is what cluster -o writes: for each row clustered, its
// input row number (from 1) and its cluster (1..k), as the columns row and
// cluster, and its class as the label.
func clusterRows(ds *data.Dataset, rows, clusters []int) *data.Dataset {
	x := mat.NewDense(len(rows), 2, nil)
	for i, r := range rows {
		x.Set(i, 0, float64(r+1))
		x.Set(i, 1, float64(clusters[i]+1))
	}
	return &data.Dataset{Name: ds.Name, X: x, Y: ds.Y, ClassNames: ds.ClassNames, FeatureNames: []string{"row", "cluster"}}
}

func meanStd(v []float64) (*float64, *float64) {
	m, sd := v[0], 0.0
	if len(v) > 1 {
		m, sd = stat.MeanStdDev(v, nil)
	}
	return &m, &sd
}

func writeClusterText(e *env, r *clusterReport) {
	what := r.Method
	if what == "none" {
		what = "none (input features)"
	}
	e.printf("data      %s: %d rows, %d features, %d classes (scale %s)\n", r.Data, r.Rows, r.Features, r.Classes, r.Preprocess)
	e.printf("method    %s → %s\n", what, nOf(r.Dims, "dimension"))
	g := r.Graph
	switch g.Affinity {
	case cluster.KNN:
		e.printf("graph     knn, p = %d, t = %.4g, %d edges, %d component(s)", g.P, g.T, g.Edges, g.Components)
		if g.Added > 0 {
			e.printf(", %d minimum spanning edges added", g.Added)
		}
		e.printf("\n")
	case cluster.RBF:
		e.printf("graph     rbf, σ = %.4g, %d component(s)\n", g.Sigma, g.Components)
	default:
		e.printf("graph     %s, %d component(s)\n", g.Affinity, g.Components)
	}
	e.printf("spectrum  %s: %s\n", r.Solver, fmtValues(r.Eigen))
	for _, w := range r.Warnings {
		fmt.Fprintf(e.stderr, "dimred cluster: warning: %s\n", w)
	}
	e.printf("clusters  %d, %d runs (seeds %d..%d)\n", r.Clusters, r.Runs, r.Seed, r.Seed+uint64(r.Runs)-1)
	if r.AccMean == nil {
		e.printf("accuracy  none: the data has no classes (run %d, of lowest k-means inertia %.6g, gives the clusters)\n", r.Kept, r.Inertia[r.Kept-1])
		return
	}
	e.printf("accuracy  %.2f ± %.2f %%\n", 100**r.AccMean, 100**r.AccStd)
	e.printf("NMI       %.4f ± %.4f\n", *r.NMIMean, *r.NMIStd)
}

func fmtValues(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.6g", x)
	}
	return strings.Join(s, " ")
}

// embedForClustering fits m on the rows and returns their embedding with
// dims dimensions; dims 0 means k, or all the method gives when that is
// fewer (LDA: C − 1).
func embedForClustering(m method.Method, x *mat.Dense, y []int, dims, k int) (*mat.Dense, error) {
	if dims > 0 {
		_, z, err := method.FitTransform(m, x, y, dims)
		return z, err
	}
	_, z, err := method.FitTransform(m, x, y, k)
	if err == nil {
		return z, nil
	}
	_, z, err2 := method.FitTransform(m, x, y, 0)
	if err2 != nil {
		return nil, err
	}
	if _, c := z.Dims(); c > k {
		return subCols(z, k), nil
	}
	return z, nil
}

// filterClassRows keeps the rows whose class name is in the
// comma-separated list (all rows when it is empty), and rows, the input
// row number of each row of ds (nil: 0, 1, …), in step with them.
func filterClassRows(ds *data.Dataset, list string, rows []int) (*data.Dataset, []int, error) {
	rows = rowNumbers(ds, rows)
	names := splitList(list)
	if len(names) == 0 {
		return ds, rows, nil
	}
	idx, err := ds.ClassRows(names)
	if err != nil {
		return nil, nil, usagef("--classes: %v", err)
	}
	return ds.Subset(idx), pick(rows, idx), nil
}

// balancedRows keeps m rows drawn with the classes as even as possible
// (evaluate.BalancedSubset); m = 0 keeps them all. rows are the input row
// numbers of ds's rows (nil: 0, 1, …); those of the rows kept are
// returned.
func balancedRows(ds *data.Dataset, m int, seed uint64, rows []int) (*data.Dataset, []int, error) {
	rows = rowNumbers(ds, rows)
	if m == 0 {
		return ds, rows, nil
	}
	idx, err := evaluate.BalancedSubset(ds.Y, m, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("--subsample: %w", err)
	}
	return ds.Subset(idx), pick(rows, idx), nil
}

// rowNumbers returns rows, or 0, 1, … for each row of ds when rows is nil.
func rowNumbers(ds *data.Dataset, rows []int) []int {
	if rows != nil {
		return rows
	}
	n, _ := ds.Dims()
	rows = make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

func pick(v, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}

// scaleRows fits the preprocessing on x and applies it to x.
func scaleRows(pipe preprocess.Pipeline, x *mat.Dense) (*mat.Dense, error) {
	fp, err := pipe.Fit(x)
	if err != nil {
		return nil, err
	}
	return fp.Apply(x)
}
