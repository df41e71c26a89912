// Command sigmastudy measures the RBF width rules of docs/parameters.md
// (σ = 1, c × the median distance between training rows for c = ¼, ½, 1,
// 2, and scikit-learn's gamma="scale") with GDA and KPCA under 5-fold CV
// on the UCI, face and MNIST data of ../shared/data (min-max scaled, as
// eval does): go run ./internal/sigmastudy [names].
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

func main() {
	sh := "../shared/data"
	sets := []struct {
		name, file string
		sub        int
	}{
		{"iris", "uci/iris.arff", 0}, {"wine", "uci/wine.arff", 0}, {"sonar", "uci/sonar.arff", 0},
		{"glass", "uci/glass.arff", 0}, {"ionosphere", "uci/ionosphere.arff", 0}, {"vowel", "uci/vowel.arff", 0},
		{"heart", "uci/heart.statlog.arff", 0}, {"balance", "uci/balance.scale.arff", 0},
		{"optdigits", "uci/optdigits.arff", 1500}, {"satellite", "uci/satellite.arff", 1500}, {"letter", "uci/letter.arff", 1500},
		{"orl", "faces/orl_32x32.csv.gz", 0}, {"yale", "faces/yale_32x32.csv.gz", 0},
		{"mnist", "mnist/mnist10k.csv.gz", 2000},
	}
	only := ""
	if len(os.Args) > 1 {
		only = os.Args[1]
	}
	cs, _ := classify.ParseList("ncc,knn3")
	for _, s := range sets {
		if only != "" && !strings.Contains(only, s.name) {
			continue
		}
		ds, err := data.Load(filepath.Join(sh, s.file), data.Options{Missing: "drop"})
		if err != nil {
			fmt.Println(s.name, err)
			continue
		}
		if s.sub > 0 {
			idx, _ := evaluate.BalancedSubset(ds.Y, s.sub, 1)
			ds = ds.Subset(idx)
		}
		pipe, _ := preprocess.Parse("minmax")
		fp, _ := pipe.Fit(ds.X)
		x, _ := fp.Apply(ds.X)
		med, _ := kernel.MedianDistance(x, 1000)
		r, d := x.Dims()
		all := make([]float64, 0, r*d)
		for i := 0; i < r; i++ {
			all = append(all, x.RawRowView(i)...)
		}
		v := stat.Variance(all, nil)
		skl := math.Sqrt(float64(d) * v / 2) // sklearn gamma='scale' = 1/(d·Var) = 1/(2σ²)
		type cand struct {
			label string
			sigma float64
		}
		cands := []cand{{"1", 1}, {"0.25M", 0.25 * med}, {"0.5M", 0.5 * med}, {"1M", med}, {"2M", 2 * med}, {"sklscale", skl}}
		fmt.Printf("## %s n=%d d=%d median=%.4g sklearn-scale σ=%.4g\n", s.name, r, d, med, skl)
		for _, mname := range []string{"gda", "kpca"} {
			line := fmt.Sprintf("%-10s %-5s", s.name, mname)
			for _, c := range cands {
				m, err := method.New(mname, map[string]string{"sigma": fmt.Sprint(c.sigma)})
				if err != nil {
					panic(err)
				}
				proto := evaluate.Protocol{Preprocess: "minmax", Methods: []evaluate.NamedMethod{{Name: mname, Method: m}}, Classifiers: cs, Folds: 5, Repeats: 1, Seed: 0, MaxDims: 50}
				rep, err := evaluate.Run(ds, proto)
				if err != nil {
					line += fmt.Sprintf(" %s=ERR(%v)", c.label, err)
					continue
				}
				var e []string
				for _, res := range rep.Results {
					e = append(e, fmt.Sprintf("%.1f", 100*res.MinError))
				}
				line += fmt.Sprintf(" %s=%s", c.label, strings.Join(e, "/"))
			}
			fmt.Println(line)
		}
	}
}
