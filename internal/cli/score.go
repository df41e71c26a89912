package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
	"github.com/dimred/dimred/qmi"
)

// runScore prints the quadratic mutual information I_Q(Z;Y) of seed 000
// (eq. 11-14) between an embedding and its labels: of the input rows
// themselves, or of their embedding through a saved model.
// smallOverlap is the Terms.Overlap of n rows below which score says
// that σ is small for the rows' distances (and, without --sigma, widens
// it to half the median distance when that is wider): a row's window
// overlaps the others' less than its own, so the terms are mostly
// self-similarity (Silverman's width: 0.001 on 784 MNIST columns, 0.15
// on digits' 64), and for a few rows a tenth of each other row (two rows
// overlap by at most 1 in all).
func smallOverlap(n int) float64 { return min(1, float64(n-1)/10) }

func runScore(e *env, args []string) error {
	fs := newFlags(e, "score")
	df := addDataFlags(e, fs)
	modelPath := fs.String("model", "", "embed the input with this model first (else score the input columns as given)")
	ignoreNames := fs.Bool("ignore-names", false, "with --model: take the columns by position even when the input's header names differ from the model's")
	sigma := fs.Float64("sigma", 0, "Parzen window width σ (window N(·; zᵢ, σ²I)); 0: Silverman's rule on the scored rows")
	standardize := fs.Bool("standardize", true, "z-score the embedding's columns first, so that embeddings of different scale are comparable")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *sigma < 0 {
		return usagef("--sigma must be > 0 (or 0 for Silverman's rule), got %g", *sigma)
	}
	var p *method.Pipeline
	if *modelPath != "" {
		var err error
		if p, err = loadModel(*modelPath); err != nil {
			return err
		}
		df.libsvmWidth(p)
		if !*ignoreNames {
			if err := df.labelsByModel(p.FeatureNames); err != nil {
				return err
			}
		}
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	if ds.Y == nil {
		return df.errNoLabels("QMI is between an embedding and its labels")
	}
	if err := needClasses(ds, df.input, "I(Z;Y) with a single class is 0 whatever the embedding"); err != nil {
		return err
	}
	z := ds.X
	if *modelPath != "" {
		names := ds.FeatureNames
		if *ignoreNames {
			names = nil
		}
		if z, err = e.applyModel("score", p, *modelPath, ds, names, df.input, 0); err != nil {
			return err
		}
	}
	// The score is over the labelled rows: the standardisation and the
	// width are fitted on them too, and the report counts them.
	y, all := ds.Y, 0
	if idx := data.LabelledRows(y); len(idx) < len(y) {
		all = len(y)
		sub := (&data.Dataset{X: z, Y: y}).Subset(idx)
		z, y = sub.X, sub.Y
	}
	if *standardize {
		fp, err := preprocess.Pipeline{preprocess.ZScore{}}.Fit(z)
		if err != nil {
			return err
		}
		if z, err = fp.Apply(z); err != nil {
			return err
		}
	}
	s := *sigma
	if s == 0 {
		if s, err = qmi.Silverman(z, y); err != nil {
			return err
		}
	}
	t, err := qmi.Score(z, y, s)
	widthNote := ""
	if (errors.Is(err, qmi.ErrWindowTooSmall) || (err == nil && t.Overlap < smallOverlap(z.RawMatrix().Rows))) && *sigma == 0 {
		// Silverman's rule shrinks little with the dimension while the
		// distances grow as √d: on 784 MNIST columns its windows hardly
		// overlap (0.001). Half the median distance gives the median pair
		// an overlap of exp(−1); it is taken only when wider.
		med, merr := kernel.MedianDistance(z, 2000)
		if merr != nil && err == nil {
			return merr
		}
		if merr == nil && med/2 > s {
			widthNote = fmt.Sprintf("; half the median distance, as Silverman's rule (%.3g) is too small for these rows", s)
			s = med / 2
			t, err = qmi.Score(z, y, s)
		}
	}
	if err != nil {
		return err
	}
	r, c := z.Dims()
	rows := strconv.Itoa(r)
	if all > 0 {
		rows = fmt.Sprintf("%d labelled (of %d; the unlabelled ones left out)", r, all)
	}
	e.printf("rows %s, dimensions %d, sigma %.6g%s (standardized: %v)\n", rows, c, t.Sigma, widthNote, *standardize)
	e.printf("V_IN  %.6g\nV_ALL %.6g\nV_BTW %.6g\nQMI   %.6g\n", t.In, t.All, t.Btw, t.QMI)
	if t.Overlap < smallOverlap(z.RawMatrix().Rows) {
		e.printf("(a row's window overlaps the others' by %.3g against 1 with itself: sigma is small for these rows' distances, and the terms are mostly self-similarity)\n", t.Overlap)
	}
	if t.Relative {
		e.printf("(relative to the Parzen normaliser (4πσ²)^(−d/2) = 10^%.1f, outside the floating-point range: comparable between embeddings of the same dimension and sigma)\n", t.Log10Norm)
	}
	return nil
}
