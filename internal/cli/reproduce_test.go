package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
)

// dimred fit of an EM method prints one line per iteration and the stop
// reason on stderr.
func TestSeed003CLI(t *testing.T) {
	yale := testdata.Path(t, "data/faces/yale_32x32.csv.gz")
	model := filepath.Join(t.TempDir(), "mie.json")
	st, out, errs := run(t, "fit", "-m", "bere", "-i", yale, "--scale", "unit", "-k", "5", "-p", "maxiter=3", "-o", model)
	if st != 0 || !strings.Contains(out, "fitted bere") {
		t.Fatalf("fit: status %d, stdout %q, stderr %q", st, out, errs)
	}
	if !strings.Contains(errs, "bere: initial graph: J = ") || !strings.Contains(errs, "bere: iteration 1: J = ") || !strings.Contains(errs, "bere: stopped after") {
		t.Errorf("fit: stderr lacks the EM progress: %q", errs)
	}
}

// reproduce: --list names every experiment with its state; a quick run of
// one experiment prints its table beside the published cells with progress
// on stderr; --out writes the report folder; bad names and flags are
// usage errors.
func TestReproduceCLI(t *testing.T) {
	yale := testdata.Path(t, "data/faces/yale_32x32.csv.gz")
	shared := filepath.Dir(filepath.Dir(filepath.Dir(yale)))
	st, out, errs := run(t, "reproduce", "--list", "--shared", shared)
	if st != 0 || !strings.Contains(out, "seed000-II-III  [runs here]") || !strings.Contains(out, "seed004-table3  [not runnable]") {
		t.Fatalf("--list: status %d\n%s\n%s", st, out, errs)
	}
	st, out, errs = run(t, "reproduce", "seed003-table1", "--shared", shared, "--quick", "--datasets", "Yale", "-m", "MIE0,PCA")
	if st != 0 || !strings.Contains(out, "| Yale | 2 | MIE0 | ") || !strings.Contains(out, "| Yale | 2 | PCA | ") ||
		!strings.Contains(errs, "running Yale, 2 training images per person") {
		t.Fatalf("reproduce seed003-table1: status %d\n%s\n%s", st, out, errs)
	}
	pdir := t.TempDir()
	st, out, errs = run(t, "reproduce", "seed003-table1", "--shared", shared, "--quick", "--datasets", "Yale", "-m", "FDA", "-p", "norm=unit", "-p", "sklpp.k=3", "--out", pdir)
	if b, err := os.ReadFile(filepath.Join(pdir, "report.md")); st != 0 || err != nil ||
		!strings.Contains(string(b), "set on the command line, over the paper's: -p norm=unit -p sklpp.k=3; matched no method of this experiment: -p sklpp.k=3") {
		t.Errorf("-p norm=unit -p sklpp.k=3: status %d, %v; the report does not list the settings and the unused one\n%s", st, err, errs)
	}
	dir := t.TempDir()
	st, out, errs = run(t, "reproduce", "--experiment", "seed003-fig1", "--shared", shared, "--out", dir)
	if st != 0 || !strings.Contains(out, "report.md") {
		t.Fatalf("--out: status %d\n%s\n%s", st, out, errs)
	}
	for _, f := range []string{"report.md", "seed003_fig1.png", "results/seed003-fig1.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "report.md")); err != nil {
		t.Fatal(err)
	}
	st, out, errs = run(t, "reproduce", "--report-only", "--shared", shared, "--out", dir)
	if st != 0 || !strings.Contains(out, "(1 experiment)") {
		t.Fatalf("--report-only: status %d\n%s\n%s", st, out, errs)
	}
	// A folder without saved results (a mistyped --out) is an error, and
	// is not created.
	empty := filepath.Join(t.TempDir(), "typo")
	if st, _, errs := run(t, "reproduce", "--report-only", "--shared", shared, "--out", empty); st != 1 || !strings.Contains(errs, "holds no saved results") {
		t.Errorf("--report-only on a folder without results: status %d, %q", st, errs)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Errorf("--report-only created %s", empty)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.md")); err != nil || !strings.Contains(string(b), "seed003_fig1.png") {
		t.Errorf("--report-only did not rewrite the report from the saved results: %v", err)
	}
	for _, bad := range [][]string{{"--report-only"}, {"seed009"}, {"--repeats", "-1"}, {"--experiment", "nosuch"}, {"-p", "nrm=unit"}, {"--scale", "zscor"}, {"--classifier", "svm-nosuch"}} {
		if st, _, errs := run(t, append([]string{"reproduce", "--shared", shared}, bad...)...); st != 2 || !strings.Contains(errs, strings.TrimPrefix(bad[len(bad)-1], "-")) {
			t.Errorf("%v: status %d, stderr %q; want a usage error naming the value", bad, st, errs)
		}
	}
	if st, _, errs := run(t, "reproduce", "seed000", "seed003-table1", "--shared", shared, "--classifier", "knn3"); st != 2 || !strings.Contains(errs, "seed000-IV-V takes 2") || strings.Contains(errs, "seed003-table1 takes") {
		t.Errorf("--classifier with the wrong count for seed 000: status %d, stderr %q; want a usage error before anything runs naming the seed 000 experiments only", st, errs)
	}
	if st, _, errs := run(t, "reproduce", "seed004-table3", "--shared", shared); st == 0 || !strings.Contains(errs, "cannot run here") {
		t.Errorf("not runnable: status %d, stderr %q", st, errs)
	}
}
