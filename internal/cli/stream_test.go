package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
)

// `fit --stream` fits from statistics of chunks and writes a model whose
// transform equals the in-memory fit's (1e-9 relative); a method that
// needs every row, or a preprocessing step, is refused with the reason.
func TestFitStream(t *testing.T) {
	ds, err := datasets.Builtin("builtin:digits")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "digits.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(f, ds); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, m := range []string{"lda", "pca", "lqmi", "sr"} {
		streamed, whole := filepath.Join(dir, m+"-s.json"), filepath.Join(dir, m+"-w.json")
		if st, _, errs := run(t, "fit", "-m", m, "-i", csvPath, "--stream", "--chunk", "300", "-k", "5", "-o", streamed); st != 0 {
			t.Fatalf("%s --stream: status %d: %s", m, st, errs)
		}
		if st, _, errs := run(t, "fit", "-m", m, "-i", csvPath, "-k", "5", "--scale", "none", "-o", whole); st != 0 {
			t.Fatalf("%s: status %d: %s", m, st, errs)
		}
		var z [2][][]float64
		for i, model := range []string{streamed, whole} {
			out := filepath.Join(dir, "z.csv")
			if st, _, errs := run(t, "transform", "--model", model, "-i", csvPath, "-o", out); st != 0 {
				t.Fatalf("transform: %s", errs)
			}
			z[i] = readCSVFloats(t, out)
		}
		scale, worst := 0.0, 0.0
		for i := range z[1] {
			for j := range z[1][i] {
				scale = math.Max(scale, math.Abs(z[1][i][j]))
				worst = math.Max(worst, math.Abs(z[0][i][j]-z[1][i][j]))
			}
		}
		if worst > 1e-9*scale {
			t.Errorf("%s: streamed model differs from the in-memory one by %.3g (scale %.3g)", m, worst, scale)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "gda"}, "needs all rows in memory"},
		{[]string{"-m", "lda", "--scale", "minmax"}, "--scale none"},
		{[]string{"-m", "lda", "--chunk", "0"}, "--chunk must be"},
		{[]string{"-m", "sr", "-p", "graph=unsupervised", "-k", "2"}, "graph=unsupervised needs the nearest neighbours"},
	} {
		args := append([]string{"fit", "-i", csvPath, "--stream", "-o", filepath.Join(dir, "x.json")}, c.args...)
		st, _, errs := run(t, args...)
		if st == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want an error mentioning %q", c.args, st, errs, c.want)
		}
	}
}
