package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dimred/dimred/reproduce"
)

// runReproduce003 re-runs seed 003 Table 1 (Yale, ORL, PIE; k-NN accuracy
// over random splits) beside the published cells.
func runReproduce003(e *env, args []string) error {
	fs := newFlags(e, "reproduce seed003")
	shared := fs.String("shared", "../shared", "the shared directory (data and published tables)")
	sets := fs.String("datasets", "", "Yale, ORL and/or PIE (default: all three; our PIE file has 10 persons)")
	nus := fs.String("nu", "", "training images per person, comma-separated (default: each set's three: 2,3,4 or 5,10,20)")
	methods := fs.String("m", "", "paper method names, e.g. MIE,BERE,FDA (default: every row of Table 1)")
	repeats := fs.Int("repeats", 10, "random splits")
	maxDims := fs.Int("max-dims", 60, "dimensions swept (the best mean dimension is reported)")
	seed := fs.Uint64("seed", 1, "seed of the splits")
	scale := fs.String("scale", "unit", "preprocessing fitted on each training split (the paper does not say)")
	sigma := fs.Float64("sigma", reproduce.DefaultSeed003Sigma, "RBF width σ of every kernel method")
	format := fs.String("format", "text", "text or markdown")
	out := fs.String("o", "", "directory for Fig. 1 (seed003_fig1.png: FDA, LPP and MIE₀ directions on the three synthetic sets); none if empty")
	if err := parse(fs, args); err != nil {
		return err
	}
	if _, err := os.Stat(*shared); err != nil {
		return fmt.Errorf("--shared %s: %w (the papers' tables and data live there)", *shared, err)
	}
	var nuList []int
	for _, s := range splitList(*nus) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return usagef("--nu: %q is not a whole number ≥ 1", s)
		}
		nuList = append(nuList, v)
	}
	if *repeats < 1 || *maxDims < 1 || !(*sigma > 0) {
		return usagef("--repeats and --max-dims must be ≥ 1 and --sigma > 0 (got %d, %d, %v)", *repeats, *maxDims, *sigma)
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := reproduce.Seed003Fig1(filepath.Join(*out, "seed003_fig1.png")); err != nil {
			return err
		}
	}
	opt := reproduce.Seed003Options{Shared: *shared, Sets: splitList(*sets), Nus: nuList, Methods: splitList(*methods),
		Repeats: *repeats, MaxDims: *maxDims, Seed: *seed, Scale: *scale, Sigma: *sigma}
	opt.Progress = e.reproduceProgress()
	rows, err := reproduce.Seed003(opt)
	if err != nil {
		return err
	}
	return reproduce.WriteSeed003(e.stdout, rows, *format == "markdown" || *format == "md")
}
