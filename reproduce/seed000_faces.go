package reproduce

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/plot"
	"github.com/dimred/dimred/preprocess"
)

// FaceSet is one row of seed 000 Table VI: a file below
// ../shared/data/faces, or the reason there is none.
type FaceSet struct {
	Paper   string // the name in the paper's tables
	File    string // below shared/data/faces; "" when Missing is set
	Classes int    // C in Table VI (checked against the file)
	// Missing says why the set cannot be run.
	Missing string
}

// Seed000FaceSets are the four sets of seed 000 Tables VI-VIII. JAFFE and
// KANADE (facial expressions) are not in ../shared/data: their rows are
// reported, not run.
var Seed000FaceSets = []FaceSet{
	{Paper: "ORL", File: "orl_32x32.csv.gz", Classes: 40},
	{Paper: "YALE", File: "yale_32x32.csv.gz", Classes: 15},
	{Paper: "JAFFE", Classes: 7, Missing: "JAFFE (213 images of 7 expressions, 1200 features) is not in ../shared/data"},
	{Paper: "KANADE", Classes: 7, Missing: "KANADE (704 images of 7 expressions, 1200 features) is not in ../shared/data"},
}

// Seed000FacePCA is the preprocessing of the linear methods of Tables
// VII-VIII after the unit-length rows: PCA keeping 99 % of the variance,
// fitted on each training fold.
const Seed000FacePCA = "pca:0.99"

// Seed000Faces runs seed 000 Tables VII (NCC) and VIII (3-NN) on ORL and
// YALE: Seed000 with Options.Tables = "VII-VIII".
//
// Protocol (§IV-C): "We normalized all the feature vectors of each dataset
// to unit length and for the linear methods only, we preprocessed the
// datasets with PCA to hold 99 % of the initial dataset variance"; "for
// the evaluation of the generalization error, we used the same procedure
// as in Section IV-A": 10-fold stratified CV, RBF σ = 1 for the kernel
// methods, the minimum error over dimensions. Here every row is scaled to
// unit length, the kernel methods (KQMI, GDA, KLPP, CKFD, KPCA) see those
// rows, and the linear ones (LQMI, LDA, PCA, LPP) see them after PCA 99 %
// fitted on the training fold (method.PipelineSpec.AsMethod). Every
// dimension a method gives is swept (the published PCA dimensions, 142
// and 242 on ORL, exceed C − 1). opt.Datasets picks among
// Seed000FaceSets; JAFFE and KANADE give rows with Missing set.
func Seed000Faces(opt Options) ([]Row, error) {
	opt.Tables = "VII-VIII"
	return Seed000(opt)
}

func seed000Faces(opt Options, tp Seed000Table, tables [2]*Table, cs []classify.Classifier) ([]Row, error) {
	cols, err := seed000Columns(opt)
	if err != nil {
		return nil, err
	}
	// With WholeSetPCA the linear methods run apart, on rows projected
	// once; the folds are the same (they depend on the labels and the seed
	// only).
	var named, linear []evaluate.NamedMethod
	for _, c := range cols {
		switch {
		case !opt.WholeSetPCA:
			named = append(named, evaluate.NamedMethod{Name: c.Ours, Method: c.linearAfter(Seed000FacePCA)})
		case c.Info.Space == "linear":
			linear = append(linear, evaluate.NamedMethod{Name: c.Ours, Method: c.Method})
		default:
			named = append(named, evaluate.NamedMethod{Name: c.Ours, Method: c.Method})
		}
	}
	var rows []Row
	for _, set := range Seed000FaceSets {
		if !selected(opt.Datasets, set.Paper) {
			continue
		}
		if set.Missing != "" {
			for _, r := range seed000Rows(set.Paper, cols, &evaluate.Report{}, nil, "", tp, tables, cs) {
				r.Missing = set.Missing
				rows = append(rows, r)
			}
			continue
		}
		ds, err := data.Load(filepath.Join(dataRoot(opt.Shared, opt.DataDir), "faces", set.File), data.Options{})
		if err != nil {
			return nil, err
		}
		ds.Name = set.Paper
		if c := ds.NumClasses(); c != set.Classes {
			return nil, fmt.Errorf("%s: %d classes, Table VI has %d", set.File, c, set.Classes)
		}
		if opt.Progress != nil {
			opt.Progress(set.Paper)
		}
		proto := evaluate.Protocol{Preprocess: "unit", Classifiers: cs, Folds: opt.Folds, Seed: opt.Seed, Repeats: opt.Repeats, Context: opt.Context}
		rep := &evaluate.Report{}
		if len(named) > 0 {
			proto.Methods = named
			if rep, err = evaluate.Run(ds, proto); err != nil {
				return nil, fmt.Errorf("%s: %w", set.Paper, err)
			}
		}
		if len(linear) > 0 {
			pre, err := wholeSetPCA(ds)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", set.Paper, err)
			}
			proto.Preprocess, proto.Methods = "", linear
			lin, err := evaluate.Run(pre, proto)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", set.Paper, err)
			}
			rep.Results = append(rep.Results, lin.Results...)
		}
		rows = append(rows, seed000Rows(set.Paper, cols, rep, nil, "", tp, tables, cs)...)
	}
	return rows, nil
}

// wholeSetPCA returns ds with its rows scaled to unit length and projected
// on the principal components that hold 99 % of the variance of all its
// rows, test folds included (Options.WholeSetPCA).
func wholeSetPCA(ds *data.Dataset) (*data.Dataset, error) {
	_, x, err := preprocess.FitApply("unit,"+Seed000FacePCA, ds.X)
	if err != nil {
		return nil, err
	}
	out := *ds
	out.X, out.FeatureNames = x, nil
	return &out, nil
}

// Seed000FaceCurves draws seed 000 Fig. 5 from rows of Tables VII-VIII:
// for each face set in rows (in their order, sets not run left out), the
// NCC error against the dimension 1..C − 1, one line per method, to
// OutDir/seed000_<set>_ncc.png.
func Seed000FaceCurves(rows []Row, outDir string) ([]FigureFile, error) {
	if outDir == "" {
		return nil, fmt.Errorf("seed 000 Fig. 5: no output directory")
	}
	var out []FigureFile
	for _, set := range Seed000FaceSets {
		f := FigureFile{Dataset: set.Paper, Path: filepath.Join(outDir, "seed000_"+strings.ToLower(set.Paper)+"_ncc.png"),
			Title: fmt.Sprintf("seed 000 Fig. 5: %s, NCC error against dimension 1..C − 1 = %d, 10-fold CV", set.Paper, set.Classes-1)}
		var series []plot.Series
		for _, r := range rows {
			if r.Dataset != set.Paper || r.Missing != "" {
				continue
			}
			errs := r.Ours[0].ErrorsByDim
			if len(errs) == 0 {
				return nil, fmt.Errorf("seed 000 Fig. 5: %s %s has no %s errors", r.Dataset, r.Method, r.Labels[0])
			}
			s := plot.Series{Name: r.Method}
			for k, e := range errs[:min(len(errs), set.Classes-1)] {
				s.X = append(s.X, float64(k+1))
				s.Y = append(s.Y, 100*e)
			}
			series = append(series, s)
			f.Methods = append(f.Methods, r.Method)
		}
		if len(series) == 0 {
			continue
		}
		if err := plot.Curves(f.Path, series, plot.CurveOptions{Title: f.Title, XLabel: "dimension", YLabel: "NCC error %"}); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("seed 000 Fig. 5: no ORL or YALE rows to draw")
	}
	return out, nil
}
