package reproduce

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"gonum.org/v1/gonum/mat"
)

// Seed001Options selects the seed 001 experiments.
type Seed001Options struct {
	Shared string
	// Params are run-wide parameter settings (none by default).
	Params *Overrides
	// DataDir is the data directory ("": Shared/data).
	DataDir string
	// OutDir receives the PNG figures (letter error curves, ORL 2-D
	// projections); empty: no figures.
	OutDir string
	// Rows of Letter (default 800), Repeats of the 5-fold CV (default 10),
	// MaxDims (default 15), Seed of the subset (default 1).
	Rows, Repeats, MaxDims int
	Seed                   uint64
	// SkipORL leaves out the ORL projections.
	SkipORL bool
	// Classifier replaces Figure 4's 1-NN (nil: 1-NN).
	Classifier classify.Classifier
	// Context cancels the run (nil: none).
	Context context.Context
}

// Seed001Result holds the Letter error curves (Figure 4).
type Seed001Result struct {
	Report *evaluate.Report
}

// Seed001 re-runs seed 001's experiments: Figure 4 — AQMIDA, PCA and LDA on
// Rows rows of Letter (classes as even as possible), 5-fold stratified CV
// repeated Repeats times, 1-NN on features 1..MaxDims, no scaling (AQMIDA
// whitens internally) — and Figure 2, the 2-D AQMIDA, LDA and PCA
// projections of all ORL faces.
func Seed001(opt Seed001Options) (*Seed001Result, error) {
	if opt.Rows == 0 {
		opt.Rows = 800
	}
	if opt.Repeats == 0 {
		opt.Repeats = 10
	}
	if opt.MaxDims == 0 {
		opt.MaxDims = 15
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	letter, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "uci", "letter.arff"), data.Options{})
	if err != nil {
		return nil, err
	}
	idx, err := evaluate.BalancedSubset(letter.Y, opt.Rows, opt.Seed)
	if err != nil {
		return nil, err
	}
	ds := letter.Subset(idx)
	ds.Name = fmt.Sprintf("letter (%d rows)", opt.Rows)
	names := []string{"aqmida", "lda", "pca"}
	var ms []evaluate.NamedMethod
	for _, n := range names {
		m, err := method.New(n, opt.Params.For(n))
		if err != nil {
			return nil, err
		}
		ms = append(ms, evaluate.NamedMethod{Name: n, Method: m})
	}
	c := opt.Classifier
	if c == nil {
		c = classify.KNN{K: 1}
	}
	rep, err := evaluate.Run(ds, evaluate.Protocol{Methods: ms, Classifiers: []classify.Classifier{c}, Folds: 5, Repeats: opt.Repeats, MaxDims: opt.MaxDims, Context: opt.Context})
	if err != nil {
		return nil, err
	}
	if opt.OutDir != "" {
		var series []plot.Series
		for _, r := range rep.Results {
			s := plot.Series{Name: r.Method}
			for k, e := range r.ErrorsByDim {
				s.X = append(s.X, float64(k+1))
				s.Y = append(s.Y, e)
			}
			s.YErr = r.StdByDim
			series = append(series, s)
		}
		err := plot.Curves(filepath.Join(opt.OutDir, "seed001_letter.png"), series, plot.CurveOptions{
			Title:  fmt.Sprintf("Letter, %d rows: 1-NN error, 5-fold CV ×%d (seed 001 Fig. 4)", opt.Rows, opt.Repeats),
			XLabel: "number of features", YLabel: "error rate"})
		if err != nil {
			return nil, err
		}
		if !opt.SkipORL {
			if _, _, err := seed001ORL(opt.Context, dataRoot(opt.Shared, opt.DataDir), opt.OutDir, names, opt.Params); err != nil {
				return nil, err
			}
		}
	}
	return &Seed001Result{Report: rep}, nil
}

// seed001ORL writes the 2-D projections of all 400 ORL faces (Figure 2).
// The paper's LDA is PCA+LDA ("we write LDA to mean PCA+LDA", §4, after
// Belhumeur et al.): Fisherfaces (fisherfaces), whose classes stay spread
// as the paper's Fig. 3a shows; our default null-space LDA would collapse
// every training class to a point, as AQMIDA nearly does.
//
// It returns, per method, the within-class share of the projection's
// spread (withinShare), and the number of leading eigenvalues of the
// method's full fit equal to the first to 1e-9 relative (a degenerate
// leading eigenspace: every plane in it is optimal).
func seed001ORL(ctx context.Context, dataDir, dir string, names []string, ov *Overrides) (within []float64, tied []int, err error) {
	orl, err := data.Load(filepath.Join(dataDir, "faces", "orl_32x32.csv.gz"), data.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		if err := canceled(ctx); err != nil {
			return nil, nil, err
		}
		var own map[string]string
		if n == "lda" {
			own = fisherfaces
		}
		m, err := method.New(n, ov.apply(n, own))
		if err != nil {
			return nil, nil, err
		}
		f, err := m.Fit(orl.X, orl.Y, 2)
		if err != nil {
			return nil, nil, fmt.Errorf("ORL %s: %w", n, err)
		}
		z, err := f.Transform(orl.X)
		if err != nil {
			return nil, nil, err
		}
		within = append(within, withinShare(z, orl.Y))
		full, err := m.Fit(orl.X, orl.Y, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("ORL %s, all dimensions: %w", n, err)
		}
		var vals []float64
		if ft, ok := full.(*method.Fitted); ok {
			vals = ft.Values
		}
		tied = append(tied, leadingTies(vals))
		err = plot.Scatter(filepath.Join(dir, "seed001_orl_"+n+".png"), z, orl.Y, orl.ClassNames,
			plot.ScatterOptions{Title: "ORL, all 400 faces: " + n + " (seed 001 Fig. 2)", MaxLegend: 40, Width: 900, Height: 1000})
		if err != nil {
			return nil, nil, err
		}
	}
	return within, tied, nil
}

// leadingTies is the number of values equal to the first to 1e-9
// relative (1 for a simple leading eigenvalue, 0 for none).
func leadingTies(vals []float64) int {
	k := 0
	for k < len(vals) && math.Abs(vals[k]-vals[0]) <= 1e-9*math.Abs(vals[0]) {
		k++
	}
	return k
}

// withinShare is the within-class sum of squares of the rows of z over
// their total sum of squares about the mean: 0 when every class is a
// point, near 1 when the classes overlap entirely.
func withinShare(z *mat.Dense, y []int) float64 {
	n, d := z.Dims()
	sum, count := map[int][]float64{}, map[int]float64{}
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		if sum[y[i]] == nil {
			sum[y[i]] = make([]float64, d)
		}
		count[y[i]]++
		for j := 0; j < d; j++ {
			sum[y[i]][j] += z.At(i, j)
			mean[j] += z.At(i, j) / float64(n)
		}
	}
	within, total := 0.0, 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			w := z.At(i, j) - sum[y[i]][j]/count[y[i]]
			t := z.At(i, j) - mean[j]
			within += w * w
			total += t * t
		}
	}
	return within / total
}
