package reproduce

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dimred/dimred/datasets"
)

// Seed000Figures on a small Swiss roll and a small MNIST subset with three
// methods: one grid per set, panels in the paper's order (kernel methods
// first, unsupervised LPP last), a PNG of the grid's size, the titles
// naming set, size and preprocessing; bad sets and methods are errors.
func TestSeed000FiguresSmall(t *testing.T) {
	sh := shared(t, "data/mnist/mnist10k.csv.gz")
	dir := t.TempDir()
	var progress []string
	figs, err := Seed000Figures(FiguresOptions{Shared: sh, OutDir: dir, Methods: []string{"uLPP", "lda", "GDA"},
		SwissRoll: datasets.SwissRollOptions{N: 120, Classes: 3, Seed: 2}, MNIST: 60, Seed: 4,
		Progress: func(s string) { progress = append(progress, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || strings.Join(progress, ",") != "Swiss roll,MNIST" {
		t.Fatalf("%d figures, progress %v; want Swiss roll and MNIST", len(figs), progress)
	}
	for i, want := range []struct{ set, file, title string }{
		{"Swiss roll", "seed000_swissroll_grid.png", "Swiss roll, 120 points, features scaled to [−1, 1]"},
		{"MNIST", "seed000_mnist_grid.png", "MNIST, 60 points, rows scaled to unit length, PCA 99 %"},
	} {
		f := figs[i]
		if f.Dataset != want.set || f.Path != filepath.Join(dir, want.file) || !strings.Contains(f.Title, want.title) {
			t.Errorf("figure %d: %+v", i, f)
		}
		if got := strings.Join(f.Methods, ","); got != "GDA,LDA,uLPP" {
			t.Errorf("%s panels %s, want GDA,LDA,uLPP", f.Dataset, got)
		}
		r, err := os.Open(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if cfg.Width != 1500 || cfg.Height != 400 {
			t.Errorf("%s: %d×%d, want 1500×400 (three panels)", f.Path, cfg.Width, cfg.Height)
		}
	}
	for _, bad := range []struct {
		opt  FiguresOptions
		want string
	}{
		{FiguresOptions{Shared: sh, OutDir: dir, Sets: []string{"iris"}}, `set "iris", want swissroll or mnist`},
		{FiguresOptions{Shared: sh, OutDir: dir, Methods: []string{"GDA", "NoSuchMethod"}}, `method "NoSuchMethod", want one of KQMI,`},
		{FiguresOptions{Shared: sh, Sets: []string{"swissroll"}}, "no output directory"},
		{FiguresOptions{Shared: sh, OutDir: dir, Sets: []string{"swissroll"}, Methods: []string{"LDA"}, SwissRoll: datasets.SwissRollOptions{N: 10, Classes: 20}}, "Classes = 20"},
		{FiguresOptions{Shared: t.TempDir(), OutDir: dir, Sets: []string{"mnist"}, Methods: []string{"LDA"}}, "mnist10k.csv.gz"},
	} {
		if _, err := Seed000Figures(bad.opt); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: error %v, want one containing %q", bad.opt, err, bad.want)
		}
	}
}
