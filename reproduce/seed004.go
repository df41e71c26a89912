package reproduce

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
)

// Seed004Methods maps seed 004's table rows to dimred methods (KLDA is
// GDA).
var Seed004Methods = []PaperMethod{
	{"KNDA", "knda"}, {"DNDA", "dnda"}, {"PCA", "pca"}, {"KPCA", "kpca"},
	{"LPP", "lpp"}, {"KLPP", "klpp"}, {"LDA", "lda"}, {"KLDA", "gda"},
}

// seed004Params are the paper's settings (§4.2): polynomial kernel of
// degree 2 for every kernel method, PCA keeping 90 % of the variance
// before LPP; LDA as Fisherfaces (fisherfaces; the paper does not say).
func seed004Params(name string) (map[string]string, error) {
	info, err := method.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := map[string]string{}
	for _, prm := range info.Params {
		switch prm.Name {
		case "kernel":
			p["kernel"] = "poly"
		case "degree":
			p["degree"] = "2"
		}
	}
	if name == "lda" {
		maps.Copy(p, fisherfaces)
	}
	if name == "lpp" || name == "slpp" { // "before conducting LPP we first run PCA" (§4.2)
		p["pca"] = "0.9"
	}
	return p, nil
}

// Seed004Set is one face set of seed 004 Tables 1-2.
type Seed004Set struct {
	Paper    string // name in the published table
	File     string // below shared/data/faces
	PerClass int    // training images per person
}

// Seed004Sets are Tables 1 (ORL) and 2 (Extended Yale B).
var Seed004Sets = []Seed004Set{
	{"ORL", "orl_32x32.csv.gz", 5},
	{"ExtendedYaleB", "yaleb_32x32.csv.gz", 30},
}

// Seed004Options selects what Seed004 runs.
type Seed004Options struct {
	Shared  string
	DataDir string     // the data directory ("": Shared/data)
	OutDir  string     // PNG figures (accuracy curves, MNIST embedding); empty: none
	Sets    []string   // paper names; empty: ORL only (Yale B takes ≈ 17 min on 2 cores)
	Methods []string   // paper names; empty: all of Seed004Methods
	Params  *Overrides // run-wide parameter settings over the paper's
	Repeats int        // random splits (default 10)
	MaxDims int        // default 120
	Seed    uint64     // default 1
	Scale   string     // preprocessing (default "unit": the paper does not say)
	MNIST   bool       // also the 2-D KNDA embedding of 100 MNIST digits per class
	// Classifier replaces the tables' 1-NN (nil: 1-NN).
	Classifier classify.Classifier
	Progress   func(string)
	Context    context.Context // cancels the run (nil: none)
}

// Seed004Row is one method on one set.
type Seed004Row struct {
	Set, Method string
	Ours        evaluate.Result // error rates; rate = 1 − error
	PaperRate   float64
	PaperDim    int
	Found       bool
}

// Seed004 re-runs seed 004 Tables 1-2: random splits with PerClass
// training images per person, 1-NN, best recognition rate over dimensions
// 1..MaxDims, mean over Repeats splits; and optionally Figure 2, the 2-D
// KNDA embedding of 100 MNIST digits per class.
func Seed004(opt Seed004Options) ([]Seed004Row, error) {
	if opt.Repeats == 0 {
		opt.Repeats = 10
	}
	if opt.MaxDims == 0 {
		opt.MaxDims = 120
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Scale == "" {
		opt.Scale = "unit"
	}
	if len(opt.Sets) == 0 {
		opt.Sets = []string{"ORL"}
	}
	tab, err := ReadTable(filepath.Join(TablesDir(opt.Shared), "seed004_tables1-3_best.tsv"))
	if err != nil {
		return nil, err
	}
	var rows []Seed004Row
	for _, set := range Seed004Sets {
		if !selected(opt.Sets, set.Paper) {
			continue
		}
		ds, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "faces", set.File), data.Options{})
		if err != nil {
			return nil, err
		}
		ms, paper, err := paperMethods(Seed004Methods, opt.Methods, seed004Params, opt.Params)
		if err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(set.Paper)
		}
		rep, err := perClassSplits(opt.Context, ds, ms, opt.Classifier, set.PerClass, opt.Scale, opt.Repeats, opt.MaxDims, opt.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", set.Paper, err)
		}
		var series []plot.Series
		for i, res := range rep.Results {
			r := Seed004Row{Set: set.Paper, Method: paper[i], Ours: res}
			for _, t := range tab.Rows {
				if strings.EqualFold(t["dataset"], set.Paper) && strings.EqualFold(t["method"], paper[i]) {
					r.PaperRate, _ = strconv.ParseFloat(t["rate_pct"], 64)
					r.PaperDim, _ = strconv.Atoi(t["dim"])
					r.Found = true
				}
			}
			rows = append(rows, r)
			s := plot.Series{Name: paper[i]}
			for k, e := range res.ErrorsByDim {
				s.X = append(s.X, float64(k+1))
				s.Y = append(s.Y, 1-e)
			}
			series = append(series, s)
		}
		if opt.OutDir != "" {
			err := plot.Curves(filepath.Join(opt.OutDir, "seed004_"+strings.ToLower(set.Paper)+"_accuracy.png"), series,
				plot.CurveOptions{Title: fmt.Sprintf("%s, %d training images per person, 1-NN, mean of %d splits (seed 004)", set.Paper, set.PerClass, opt.Repeats),
					XLabel: "dimension", YLabel: "recognition rate"})
			if err != nil {
				return nil, err
			}
		}
	}
	if opt.MNIST && opt.OutDir != "" {
		if err := seed004MNIST(opt); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// seed004MNISTMethods are the panels of seed 004 Fig. 2: KNDA against
// SLPP, SKLPP, PCA and KPCA.
var seed004MNISTMethods = []PaperMethod{{"KNDA", "knda"}, {"SLPP", "slpp"}, {"SKLPP", "sklpp"}, {"PCA", "pca"}, {"KPCA", "kpca"}}

// seed004MNIST writes the 2-D embeddings of 100 MNIST digits per class
// (seed 004 Fig. 2), each method fitted on those 1000 digits with the
// paper's settings: KNDA alone (seed004_mnist_knda_2d.png) and the five
// methods side by side (seed004_mnist_2d_grid.png).
func seed004MNIST(opt Seed004Options) error {
	mn, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "mnist", "mnist10k.csv.gz"), data.Options{})
	if err != nil {
		return err
	}
	idx, err := evaluate.BalancedSubset(mn.Y, 1000, opt.Seed)
	if err != nil {
		return err
	}
	ds := mn.Subset(idx)
	ds.Name = "MNIST"
	ms, paper, err := paperMethods(seed004MNISTMethods, nil, seed004Params, opt.Params)
	if err != nil {
		return err
	}
	var panels []*plot.Panel
	for i, m := range ms {
		if err := canceled(opt.Context); err != nil {
			return err
		}
		p, err := embeddingPanel(m.Method, ds.X, ds, paper[i])
		if err != nil {
			return err
		}
		if i == 0 {
			if err := plot.Grid(filepath.Join(opt.OutDir, "seed004_mnist_knda_2d.png"), []*plot.Panel{p},
				plot.GridOptions{Title: "KNDA, 100 MNIST digits per class (seed 004 Fig. 2)", Cols: 1}); err != nil {
				return err
			}
		}
		panels = append(panels, p)
	}
	return plot.Grid(filepath.Join(opt.OutDir, "seed004_mnist_2d_grid.png"), panels,
		plot.GridOptions{Title: "seed 004 Fig. 2: 100 MNIST digits per class in two dimensions (poly kernel of degree 2)", Cols: 5})
}
