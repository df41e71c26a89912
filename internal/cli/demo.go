package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"github.com/dimred/dimred/preprocess"
)

// demoSets are the built-in data sets of the demo: two embedded UCI tables
// (evaluated with the seed 000 protocol) and two synthetic sets for plots.
var demoSets = []struct {
	name string
	eval bool
}{
	{"iris", true}, {"wine", true}, {"swissroll", false}, {"twoclass_multimodal", false},
}

func runDemo(e *env, args []string) error {
	fs := newFlags(e, "demo")
	out := fs.String("o", "dimred-demo", "directory for the PNG plots")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	start := time.Now()
	var named []evaluate.NamedMethod
	for _, info := range method.All() {
		m, err := method.New(info.Name, nil)
		if err != nil {
			return err
		}
		named = append(named, evaluate.NamedMethod{Name: info.Name, Method: m})
	}
	cs, err := classify.ParseList("ncc,knn3")
	if err != nil {
		return err
	}
	e.printf("dimred demo: every registered method on built-in data; features scaled to [-1,1] on each training split,\n")
	e.printf("every method's defaults (RBF width sigma=auto: half the median distance between training rows), 10-fold\n")
	e.printf("stratified CV (seed 0): minimum error %% over dimensions 1..d (and the dimension where it is reached), the\n")
	e.printf("reporting rule of Bouzas et al. 2015 (Tables II-III).\n\n")
	for _, s := range demoSets {
		ds, err := demoData(s.name)
		if err != nil {
			return err
		}
		if s.eval {
			_, d := ds.Dims()
			rep, err := evaluate.Run(ds, evaluate.Protocol{Preprocess: "minmax", Methods: named, Classifiers: cs, MaxDims: d, Context: e.ctx})
			if e.ctx.Err() != nil {
				return interruptedAfter{e.ctx.Err(), fmt.Sprintf("the tables above and the plots in %s/ are those finished before it", *out)}
			}
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if err := evaluate.Write(e.stdout, rep, "text"); err != nil {
				return err
			}
			e.printf("\n")
		}
		if err := demoPlots(e, ds, s.name, *out); err != nil {
			if e.ctx.Err() != nil {
				return interruptedAfter{e.ctx.Err(), fmt.Sprintf("the tables above and the plots in %s/ are those finished before it", *out)}
			}
			return err
		}
	}
	e.printf("2-D embeddings written to %s/ (%.1fs)\n", *out, time.Since(start).Seconds())
	return nil
}

// demoData returns the named built-in set; the Swiss roll is drawn with
// 500 points (instead of 1000) to keep the demo's kernel fits quick.
func demoData(name string) (*data.Dataset, error) {
	if name == "swissroll" {
		opt := datasets.DefaultSwissRollOptions()
		opt.N = 500
		return datasets.SwissRoll(opt)
	}
	return datasets.Builtin(name)
}

// demoPlots fits every method on all of ds (min-max scaled) and writes a 2-D
// scatter plot of each embedding. Methods that give a single dimension on
// this data (for example C−1 = 1) are drawn as strip charts.
func demoPlots(e *env, ds *data.Dataset, name, dir string) error {
	fp, err := preprocess.Pipeline{preprocess.MinMax{}}.Fit(ds.X)
	if err != nil {
		return err
	}
	x, err := fp.Apply(ds.X)
	if err != nil {
		return err
	}
	for _, info := range method.All() {
		m, err := method.New(info.Name, nil)
		if err != nil {
			return err
		}
		model, err := method.FitContext(e.ctx, m, x, ds.Y, 0)
		if err := e.ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "demo: %s on %s: %v (skipped)\n", info.Name, name, err)
			continue
		}
		z, err := model.Transform(x)
		if err != nil {
			return err
		}
		if _, k := z.Dims(); k > 2 {
			z = subCols(z, 2)
		}
		path := filepath.Join(dir, name+"_"+info.Name+".png")
		opt := plot.ScatterOptions{Title: fmt.Sprintf("%s: %s", name, info.Title), XLabel: "z1", YLabel: "z2"}
		if err := plot.Scatter(path, z, ds.Y, ds.ClassNames, opt); err != nil {
			return err
		}
	}
	return nil
}
