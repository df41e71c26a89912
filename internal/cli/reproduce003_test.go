package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
)

// dimred fit of an EM method prints one line per iteration and the stop
// reason on stderr; reproduce seed003 on a small case prints the
// published cell beside ours and its progress on stderr; bad flags are
// usage errors.
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
	shared := filepath.Dir(filepath.Dir(filepath.Dir(yale)))
	st, out, errs = run(t, "reproduce", "seed003", "--shared", shared, "--datasets", "Yale", "--nu", "2", "-m", "MIE0,PCA", "--repeats", "2", "--max-dims", "10")
	if st != 0 || !strings.Contains(out, "MIE0") || !strings.Contains(out, "0.51 ± 0.019") || !strings.Contains(errs, "running Yale, 2 training images per person") {
		t.Fatalf("reproduce seed003: status %d\n%s\n%s", st, out, errs)
	}
	for _, bad := range [][]string{{"--nu", "two"}, {"--repeats", "0"}, {"--sigma", "-1"}} {
		if st, _, errs := run(t, append([]string{"reproduce", "seed003", "--shared", shared}, bad...)...); st == 0 || !strings.Contains(errs, bad[0]) {
			t.Errorf("%v: status %d, stderr %q; want a usage error naming %s", bad, st, errs, bad[0])
		}
	}
}
