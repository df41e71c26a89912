package reproduce

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"github.com/dimred/dimred/preprocess"
	"gonum.org/v1/gonum/mat"
)

// FiguresOptions selects what Seed000Figures draws.
type FiguresOptions struct {
	Shared  string // path of ../shared (MNIST is read below it)
	DataDir string // the data directory ("": Shared/data)
	OutDir  string // where the PNGs are written
	// Sets are "swissroll" and "mnist" (case-insensitive); empty: both.
	Sets []string
	// Methods are paper column names (Seed000Methods, plus "LPP
	// (unsupervised)" as "uLPP"); empty: all registered ones.
	Methods []string
	// Params overrides a method's parameters (σ = 1 otherwise, as in
	// Seed000).
	Params func(method string) map[string]string
	// SwissRoll is the generated roll; zero N: datasets.DefaultSwissRollOptions
	// (1000 points, 4 classes along the roll, seed 1).
	SwissRoll datasets.SwissRollOptions
	// MNIST is the number of digits drawn from mnist10k (balanced over the
	// ten classes, seeded by Seed); 0: 1000, the paper's subset size.
	MNIST int
	Seed  uint64
	// Progress, when set, is called before each set with its name.
	Progress func(set string)
	// Context cancels the run between fits (nil: none).
	Context context.Context
}

// FigureFile is one written figure: a grid of one 2-D embedding per
// method.
type FigureFile struct {
	Path    string
	Title   string
	Dataset string
	// Methods are the panels' paper names, left to right, top to bottom.
	Methods []string
}

// seed000FigureSet is one data set of seed 000 §IV-B with the
// preprocessing its methods see.
type seed000FigureSet struct {
	Key, Name, Scale, Note string
	// LinearScale is applied after Scale before the linear methods only.
	LinearScale string
}

// seed000FigureSets: the paper does not say how either set was scaled.
// The Swiss roll gets the [−1, 1] scaling of §IV-A (its coordinates span
// ±14 and 0..21, so σ = 1 on them would see only neighbours); the MNIST
// images get the preprocessing of the face images of §IV-C: rows scaled
// to unit length (on raw [0, 1] pixels the squared distances between
// digits are ≈ 100, where an RBF kernel with σ = 1 is the identity) and
// PCA keeping 99 % of the variance before the linear methods (without
// it, supervised LPP's constraint X̄ᵀDX̄ is near-singular on the
// almost-constant border pixels and one digit carries the whole 2-D
// embedding).
var seed000FigureSets = []seed000FigureSet{
	{Key: "swissroll", Name: "Swiss roll", Scale: "minmax", Note: "features scaled to [−1, 1]"},
	{Key: "mnist", Name: "MNIST", Scale: "unit", LinearScale: Seed000FacePCA, Note: "rows scaled to unit length, PCA 99 % before the linear methods"},
}

// seed000FigureOrder is the panel order of the paper's figures: the kernel
// methods of Figs. 1 and 3 ((a) KQMI, (b) KLPP, (c) GDA, (d) CKFD, (e)
// KPCA), then the linear ones of Figs. 2 and 4 ((a) LQMI, (b) LDA, (c) PCA,
// (d) supervised LPP, (e) LPP).
var seed000FigureOrder = []string{"KQMI", "KLPP", "GDA", "CKFD", "KPCA", "LQMI", "LDA", "PCA", "LPP", "uLPP"}

// Seed000Figures draws seed 000 §IV-B: the 2-D embeddings of a Swiss roll
// (Figs. 1-2) and of 1000 MNIST digits (Figs. 3-4) by every method of
// Seed000Methods and by unsupervised LPP (the paper's panels (e) of Figs. 2
// and 4), each method fitted on all the rows of the set with two output
// dimensions, coloured by class. It writes one grid per set to OutDir
// (seed000_swissroll_grid.png, seed000_mnist_grid.png): the kernel methods
// in the first row, the linear ones in the second, in the paper's order.
// The kernel methods use the RBF kernel with σ = 1 (§IV-A), on the
// preprocessed rows (see the sets' notes: [−1, 1] for the roll, unit
// length for MNIST).
func Seed000Figures(opt FiguresOptions) ([]FigureFile, error) {
	if opt.OutDir == "" {
		return nil, fmt.Errorf("seed 000 figures: no output directory")
	}
	for _, s := range opt.Sets {
		ok := false
		for _, fs := range seed000FigureSets {
			ok = ok || strings.EqualFold(strings.TrimSpace(s), fs.Key)
		}
		if !ok {
			return nil, fmt.Errorf("seed 000 figures: set %q, want swissroll or mnist", s)
		}
	}
	cols, err := seed000FigureColumns(opt)
	if err != nil {
		return nil, err
	}
	var out []FigureFile
	for _, fs := range seed000FigureSets {
		if !selected(opt.Sets, fs.Key) {
			continue
		}
		if opt.Progress != nil {
			opt.Progress(fs.Name)
		}
		ds, err := seed000FigureData(fs.Key, opt)
		if err != nil {
			return nil, err
		}
		_, x, err := preprocess.FitApply(fs.Scale, ds.X)
		if err != nil {
			return nil, err
		}
		f := FigureFile{Path: filepath.Join(opt.OutDir, "seed000_"+fs.Key+"_grid.png"), Dataset: fs.Name}
		var panels []*plot.Panel
		for _, c := range cols {
			if err := canceled(opt.Context); err != nil {
				return nil, err
			}
			p, err := embeddingPanel(c.linearAfter(fs.LinearScale), x, ds, seed000FigureTitle(c.Paper))
			if err != nil {
				return nil, err
			}
			panels = append(panels, p)
			f.Methods = append(f.Methods, c.Paper)
		}
		n, _ := ds.Dims()
		f.Title = fmt.Sprintf("seed 000 §IV-B: %s, %d points, %s; RBF σ = 1", fs.Name, n, fs.Note)
		if err := plot.Grid(f.Path, panels, plot.GridOptions{Title: f.Title, Cols: 5}); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// embeddingPanel fits m on the rows x of ds with two output dimensions and
// draws their embedding coloured by class, with the class names in the
// legend.
func embeddingPanel(m method.Method, x *mat.Dense, ds *data.Dataset, title string) (*plot.Panel, error) {
	model, err := m.Fit(x, ds.Y, 2)
	if err != nil {
		return nil, fmt.Errorf("%s, %s: %w", ds.Name, title, err)
	}
	z, err := model.Transform(x)
	if err != nil {
		return nil, fmt.Errorf("%s, %s: %w", ds.Name, title, err)
	}
	return plot.ScatterPanel(z, ds.Y, ds.ClassNames, plot.ScatterOptions{Title: title})
}

// seed000FigureColumns configures the selected methods in the order of
// seed000FigureOrder: Seed000Methods (σ = 1) and unsupervised LPP ("uLPP").
func seed000FigureColumns(opt FiguresOptions) ([]seed000Column, error) {
	var rest []string // the selected Seed000Methods columns
	for _, m := range opt.Methods {
		if !selected(seed000FigureOrder, m) {
			return nil, fmt.Errorf("seed 000 figures: method %q, want one of %s", m, strings.Join(seed000FigureOrder, ", "))
		}
		if !strings.EqualFold(strings.TrimSpace(m), "uLPP") {
			rest = append(rest, m)
		}
	}
	var cols []seed000Column
	if len(opt.Methods) == 0 || len(rest) > 0 {
		var err error
		if cols, err = seed000Columns(Options{Methods: rest, Params: opt.Params}); err != nil {
			return nil, err
		}
	}
	if selected(opt.Methods, "uLPP") {
		var params map[string]string
		if opt.Params != nil {
			params = opt.Params("lpp")
		}
		m, err := method.New("lpp", params)
		if err != nil {
			return nil, err
		}
		info, _ := method.Lookup("lpp")
		cols = append(cols, seed000Column{Paper: "uLPP", Ours: "lpp", Info: info, Params: params, Method: m})
	}
	var ordered []seed000Column
	for _, name := range seed000FigureOrder {
		for _, c := range cols {
			if c.Paper == name {
				ordered = append(ordered, c)
			}
		}
	}
	return ordered, nil
}

// seed000FigureTitle is a panel's title, with the paper's figure labels.
func seed000FigureTitle(paper string) string {
	switch paper {
	case "KLPP":
		return "KLPP (supervised)"
	case "LPP":
		return "LPP (supervised)"
	case "uLPP":
		return "LPP (unsupervised)"
	}
	return paper
}

// seed000FigureData generates the Swiss roll or draws the MNIST subset.
func seed000FigureData(key string, opt FiguresOptions) (*data.Dataset, error) {
	if key == "swissroll" {
		so := opt.SwissRoll
		if so.N == 0 {
			so = datasets.DefaultSwissRollOptions()
		}
		ds, err := datasets.SwissRoll(so)
		if err != nil {
			return nil, err
		}
		ds.ClassNames = make([]string, so.Classes)
		for i := range ds.ClassNames {
			ds.ClassNames[i] = fmt.Sprintf("segment %d", i+1)
		}
		return ds, nil
	}
	mn, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "mnist", "mnist10k.csv.gz"), data.Options{})
	if err != nil {
		return nil, err
	}
	m := opt.MNIST
	if m == 0 {
		m = 1000
	}
	idx, err := evaluate.BalancedSubset(mn.Y, m, opt.Seed)
	if err != nil {
		return nil, fmt.Errorf("MNIST subset: %w", err)
	}
	ds := mn.Subset(idx)
	ds.Name = "MNIST"
	return ds, nil
}
