package reproduce

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
)

// Seed003Methods maps seed 003 Table 1's rows to dimred methods (FDA is
// LDA, KDA is GDA).
var Seed003Methods = []PaperMethod{
	{"PCA", "pca"}, {"FDA", "lda"}, {"LPP", "lpp"}, {"MFA", "mfa"},
	{"MIE0", "mie0"}, {"MIE", "mie"}, {"BERE0", "bere0"}, {"BERE", "bere"},
	{"KPCA", "kpca"}, {"KDA", "gda"}, {"KMFA", "kmfa"},
	{"kMIE0", "kmie0"}, {"kMIE", "kmie"}, {"kBERE0", "kbere0"}, {"kBERE", "kbere"},
}

// Seed003Set is one face set of seed 003 Table 1 with its training sizes ν.
type Seed003Set struct {
	Paper string // name in the published table
	File  string // below shared/data/faces
	Nus   []int  // training images per person
	Note  string
}

// Seed003Sets are Table 1's three sets. Our PIE file holds 10 persons of
// CMU PIE (the paper used all 68), so its cells are not comparable in
// difficulty.
var Seed003Sets = []Seed003Set{
	{"Yale", "yale_32x32.csv.gz", []int{2, 3, 4}, ""},
	{"ORL", "orl_32x32.csv.gz", []int{2, 3, 4}, ""},
	{"PIE", "pie10_32x32.csv.gz", []int{5, 10, 20}, "10 persons (the paper: 68)"},
}

// DefaultSeed003Sigma is the RBF width of every kernel method in the
// re-run, on unit-length face rows (the paper tunes its kernels by 5-fold
// CV and does not report them).
const DefaultSeed003Sigma = 1.0

// seed003Params are the re-run's settings for n training rows of c
// classes: RBF σ for the kernel methods (KPCA, KDA, KMFA and the kernel
// MIE/BERE); FDA as Fisherfaces (fisherfaces) and MFA after PCA to n − c
// components — the PCA+LDA and PCA+MFA baselines of the MFA paper (Yan et
// al. 2007), whose protocol seed 003 follows; every other parameter keeps
// its default (local scaling with k = 7 for MIE/BERE, as §5 adopts).
func seed003Params(name string, sigma float64, n, c int) (map[string]string, error) {
	info, err := method.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := map[string]string{}
	switch name {
	case "lda":
		maps.Copy(p, fisherfaces)
	case "mfa":
		p["pca"] = strconv.Itoa(n - c)
	}
	for _, prm := range info.Params {
		if prm.Name == "sigma" {
			p["kernel"] = "rbf"
			p["sigma"] = strconv.FormatFloat(sigma, 'g', -1, 64)
		}
	}
	return p, nil
}

// Seed003Options selects what Seed003 runs.
type Seed003Options struct {
	Shared  string
	DataDir string     // the data directory ("": Shared/data)
	Sets    []string   // paper names; empty: all three
	Nus     []int      // training sizes; empty: each set's three
	Methods []string   // paper names; empty: all of Seed003Methods
	Repeats int        // random splits (default 10)
	MaxDims int        // dimensions swept (default 60)
	Seed    uint64     // default 1
	Scale   string     // preprocessing (default "unit")
	Sigma   float64    // RBF width (default DefaultSeed003Sigma)
	Params  *Overrides // run-wide parameter settings over the paper's
	// Classifier replaces the table's 1-NN (nil: 1-NN).
	Classifier classify.Classifier
	Progress   func(string)
	Context    context.Context // cancels the run (nil: none)
}

// Seed003Row is one method on one set and training size.
type Seed003Row struct {
	Set, Method string
	Nu          int
	Ours        evaluate.Result // error rates; accuracy = 1 − error
	PaperAcc    float64
	PaperStd    float64
	Found       bool
}

// Seed003 re-runs seed 003 Table 1: for each set and ν, Repeats random
// splits with ν training images per person (the rest test), each method
// fitted on the training rows, 1-NN on the embedding, accuracy at the
// dimension (1..MaxDims) best on average over the splits, mean ± standard
// deviation over the splits at that dimension. The paper's k-NN has k
// tuned by 5-fold CV and does not say how the dimension is chosen; we use
// 1-NN and the best mean dimension (as for seed 004).
func Seed003(opt Seed003Options) ([]Seed003Row, error) {
	if opt.Repeats == 0 {
		opt.Repeats = 10
	}
	if opt.MaxDims == 0 {
		opt.MaxDims = 60
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Scale == "" {
		opt.Scale = "unit"
	}
	if opt.Sigma == 0 {
		opt.Sigma = DefaultSeed003Sigma
	}
	tab, err := ReadTable(filepath.Join(TablesDir(opt.Shared), "seed003_table1_faces.tsv"))
	if err != nil {
		return nil, err
	}
	var rows []Seed003Row
	for _, set := range Seed003Sets {
		if !selected(opt.Sets, set.Paper) {
			continue
		}
		ds, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "faces", set.File), data.Options{})
		if err != nil {
			return nil, err
		}
		for _, nu := range set.Nus {
			if len(opt.Nus) > 0 && !containsInt(opt.Nus, nu) {
				continue
			}
			if opt.Progress != nil {
				opt.Progress(fmt.Sprintf("%s, %d training images per person", set.Paper, nu))
			}
			n, c := nu*ds.NumClasses(), ds.NumClasses()
			ms, paper, err := paperMethods(Seed003Methods, opt.Methods, func(name string) (map[string]string, error) { return seed003Params(name, opt.Sigma, n, c) }, opt.Params)
			if err != nil {
				return nil, err
			}
			rep, err := perClassSplits(opt.Context, ds, ms, opt.Classifier, nu, opt.Scale, opt.Repeats, opt.MaxDims, opt.Seed)
			if err != nil {
				return nil, fmt.Errorf("%s ν=%d: %w", set.Paper, nu, err)
			}
			for i, res := range rep.Results {
				r := Seed003Row{Set: set.Paper, Method: paper[i], Nu: nu, Ours: res}
				for _, t := range tab.Rows {
					if t["dataset"] == set.Paper && t["method"] == paper[i] && t["train_per_person"] == strconv.Itoa(nu) {
						r.PaperAcc, _ = strconv.ParseFloat(t["acc"], 64)
						r.PaperStd, _ = strconv.ParseFloat(t["std"], 64)
						r.Found = true
					}
				}
				rows = append(rows, r)
			}
		}
	}
	return rows, nil
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// Seed003Fig1 writes seed 003 Fig. 1 to path: the three synthetic 2-D
// two-class sets of package datasets (ideal; one where LPP fails; a
// multimodal one where FDA fails), each with the one-dimensional FDA
// (lda), LPP and MIE₀ directions drawn through the data mean.
func Seed003Fig1(path string) error {
	var panels []*plot.Panel
	for _, kind := range []datasets.TwoClassKind{datasets.TwoClassIdeal, datasets.TwoClassLPPFails, datasets.TwoClassMultimodal} {
		ds, err := datasets.TwoClass(datasets.DefaultTwoClassOptions(kind))
		if err != nil {
			return err
		}
		n, _ := ds.Dims()
		mean := make([]float64, 2)
		span := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < 2; j++ {
				mean[j] += ds.X.At(i, j) / float64(n)
			}
		}
		for i := 0; i < n; i++ {
			span = math.Max(span, math.Hypot(ds.X.At(i, 0)-mean[0], ds.X.At(i, 1)-mean[1]))
		}
		var lines []plot.Line
		for _, m := range []struct{ name, ours string }{{"FDA", "lda"}, {"LPP", "lpp"}, {"MIE0", "mie0"}} {
			mm, err := method.New(m.ours, nil)
			if err != nil {
				return err
			}
			f, err := mm.Fit(ds.X, ds.Y, 1)
			if err != nil {
				return fmt.Errorf("%v %s: %w", kind, m.name, err)
			}
			// The direction w of z = wᵀ(x − μ): differences of the
			// transforms of 0, e₁ and e₂.
			z, err := f.Transform(mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}))
			if err != nil {
				return err
			}
			w := []float64{z.At(1, 0) - z.At(0, 0), z.At(2, 0) - z.At(0, 0)}
			s := span / math.Hypot(w[0], w[1])
			lines = append(lines, plot.Line{Name: m.name, X0: mean[0] - s*w[0], Y0: mean[1] - s*w[1], X1: mean[0] + s*w[0], Y1: mean[1] + s*w[1]})
		}
		p, err := plot.ScatterPanel(ds.X, ds.Y, ds.ClassNames, plot.ScatterOptions{Title: kind.String(), XLabel: "x₁", YLabel: "x₂", Lines: lines})
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	return plot.Grid(path, panels, plot.GridOptions{Title: "seed 003 Fig. 1: FDA, LPP and MIE₀ directions"})
}
