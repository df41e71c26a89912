package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Model files of format version 1, written by the version-1 code (commit
// b6b49ff: `dimred fit -m gda -i builtin:wine --scale minmax -p sigma=2`
// and `dimred fit -m lda -i builtin:iris`), still load, and transform the
// same rows to the output that code wrote (testdata/*_z.csv) to 1e-12
// relative.
func TestVersion1ModelFilesStillTransform(t *testing.T) {
	for _, c := range []struct{ model, data, want string }{
		{"v1_gda_wine.json", "builtin:wine", "v1_gda_wine_z.csv"},
		{"v1_lda_iris.json", "builtin:iris", "v1_lda_iris_z.csv"},
	} {
		out := filepath.Join(t.TempDir(), "z.csv")
		st, _, errs := run(t, "transform", "--model", filepath.Join("testdata", c.model), "-i", c.data, "-o", out)
		if st != 0 {
			t.Fatalf("%s: status %d: %s", c.model, st, errs)
		}
		got := readCSVFloats(t, out)
		want := readCSVFloats(t, filepath.Join("testdata", c.want))
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d rows, want %d", c.model, len(got), len(want))
		}
		scale := 0.0
		for _, r := range want {
			for _, v := range r {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		worst := 0.0
		for i := range want {
			for j := range want[i] {
				worst = math.Max(worst, math.Abs(got[i][j]-want[i][j]))
			}
		}
		if worst > 1e-12*scale {
			t.Errorf("%s: transform differs from the version-1 output by %.3g (scale %.3g)", c.model, worst, scale)
		}
	}
}

func readCSVFloats(t *testing.T, path string) [][]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i == 0 {
			continue // header
		}
		var row []float64
		for _, f := range strings.Split(line, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("%s line %d: %v", path, i+1, err)
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out
}

// Version-1 and -2 files have no checksum: a null where a number was
// (hand-edited) loaded as 0 and changed the output silently.
func TestOldModelFileWithNull(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v1_lda_iris.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, `"mean"`)
	j := i + strings.IndexAny(s[i:], "-0123456789")
	k := j + strings.IndexAny(s[j:], ",\n]")
	model := write(t, "null.json", s[:j]+"null"+s[k:])
	st, _, errs := run(t, "transform", "--model", model, "-i", "builtin:iris")
	if st == 0 || !strings.Contains(errs, "model.mean[0] is null where a number belongs; a version-1 file has no checksum") {
		t.Fatalf("status %d: %s", st, errs)
	}
}
