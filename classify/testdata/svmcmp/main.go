// Command svmcmp fits classify.SVM on rows written by compare_uci.py and
// prints, per case, the fit+predict time (best of 3), the predictions, the
// support-vector count and the decision values as JSON. It exists for that
// script only (docs/classifiers.md).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"gonum.org/v1/gonum/mat"
)

// usage: svmcmp DIR (DIR has xtr.npy, ytr.npy, xte.npy, cases.json)
func main() {
	dir := os.Args[1]
	xtr, err := readNPY(dir + "/xtr.npy")
	must(err)
	xte, err := readNPY(dir + "/xte.npy")
	must(err)
	ym, err := readNPY(dir + "/ytr.npy")
	must(err)
	n, _ := ym.Dims()
	y := make([]int, n)
	for i := range y {
		y[i] = int(ym.At(i, 0))
	}
	var cases []struct {
		Name  string
		C     float64
		Gamma float64
	}
	b, _ := os.ReadFile(dir + "/cases.json")
	must(json.Unmarshal(b, &cases))
	out := map[string]any{}
	for _, c := range cases {
		s := classify.SVM{Kernel: classify.SVMLinear, C: c.C}
		if c.Gamma > 0 {
			s = classify.SVM{Kernel: classify.SVMRBF, C: c.C, Gamma: c.Gamma}
		}
		best := 1e9
		var pred []int
		var m *classify.SVMModel
		for r := 0; r < 3; r++ {
			t0 := time.Now()
			p, err := s.Fit(xtr, y)
			must(err)
			pred, err = p.Predict(xte)
			must(err)
			best = min(best, time.Since(t0).Seconds())
			m = p.(*classify.SVMModel)
		}
		dec, _ := m.Decision(xte)
		r, cc := dec.Dims()
		out[c.Name] = map[string]any{"seconds": best, "pred": pred, "nsv": len(m.Support), "dec": mat.DenseCopyOf(dec).RawMatrix().Data, "dec_shape": []int{r, cc}}
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

func readNPY(p string) (*mat.Dense, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return data.ReadNPY(f, p)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
