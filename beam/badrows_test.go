package dimredbeam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
)

// A malformed row in a shard fails the fit with the shard's file and line;
// with a dead-letter file the same pipeline succeeds, writes every
// malformed row there with its file, line and rule, and the model is the
// in-memory fit of the good rows (1e-9 relative): nothing is dropped
// silently. The transform routes the same rows the same way.
func TestBadShard(t *testing.T) {
	src := testdata.Path(t, "data/sklearn/wine.csv")
	// Shard 1 (part-1.csv.gz) gets a ragged row at its line 5 and a
	// non-number at line 9.
	var dropped []string
	dir := splitShards(t, src, 3, func(lines []string) []string {
		dropped = []string{lines[4], lines[8]}
		lines[4] = lines[4][:strings.LastIndexByte(lines[4], ',')]
		f := strings.Split(lines[8], ",")
		f[3] = "n/a"
		lines[8] = strings.Join(f, ",")
		return lines
	})
	glob := filepath.Join(dir, "part-*")
	out := t.TempDir()
	cfg := FitConfig{Input: Input{Glob: glob, Chunk: 10}, Method: "lda", Model: filepath.Join(out, "lda.json")}
	err := runFit(t, cfg)
	if err == nil {
		t.Fatal("fit with a malformed row succeeded")
	}
	if !strings.Contains(err.Error(), "part-1.csv.gz:5") || !strings.Contains(err.Error(), "ragged row") {
		t.Errorf("fit error does not name part-1.csv.gz:5 and the rule: %v", err)
	}

	cfg.DeadLetter = filepath.Join(out, "bad.txt")
	if err := runFit(t, cfg); err != nil {
		t.Fatalf("fit with a dead-letter file: %v", err)
	}
	b, err := os.ReadFile(cfg.DeadLetter)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(bad) != 2 || !strings.Contains(bad[0], "part-1.csv.gz:5: ragged row") || !strings.Contains(bad[1], "part-1.csv.gz:9:") || !strings.Contains(bad[1], `"n/a"`) {
		t.Errorf("dead-letter file:\n%s", b)
	}

	// The in-memory fit of the good rows.
	ds, err := data.Load(src, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, d := ds.X.Dims()
	var keep []int
	var y []int
	for i := 0; i < n; i++ {
		if line := rawLine(t, src, i); line != dropped[0] && line != dropped[1] {
			keep = append(keep, i)
			y = append(y, ds.Y[i])
		}
	}
	if len(keep) != n-2 {
		t.Fatalf("%d good rows of %d", len(keep), n)
	}
	x := mat.NewDense(len(keep), d, nil)
	for k, i := range keep {
		x.SetRow(k, ds.X.RawRowView(i))
	}
	want, err := method.LDA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, "lda without the bad rows", cfg.Model, want, x, 1e-9)

	// A Nyström fit reads the shards in four passes; every pass leaves the
	// same rows out, so the landmarks and features are those of the good
	// rows, and the dead letter lists each bad row once.
	params := map[string]string{"space": "nystrom", "landmarks": "40", "seed": "6", "sigma": "300"}
	ncfg := FitConfig{Input: Input{Glob: glob, Chunk: 10}, Method: "gda", Params: params, Model: filepath.Join(out, "gda.json"), DeadLetter: filepath.Join(out, "bad-gda.txt")}
	if err := runFit(t, ncfg); err != nil {
		t.Fatalf("nyström fit with a dead-letter file: %v", err)
	}
	if b2, _ := os.ReadFile(ncfg.DeadLetter); string(b2) != string(b) {
		t.Errorf("nyström dead letter:\n%s\nwant\n%s", b2, b)
	}
	gda, err := method.New("gda", params)
	if err != nil {
		t.Fatal(err)
	}
	wantGDA, err := gda.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, "nyström gda without the bad rows", ncfg.Model, wantGDA, x, 1e-8)

	// Transform: fails on the bad row, or routes it to the dead letter.
	tcfg := TransformConfig{Input: Input{Glob: glob}, Model: cfg.Model, Output: filepath.Join(out, "z")}
	if err := os.Mkdir(tcfg.Output, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runTransform(t, tcfg); err == nil || !strings.Contains(err.Error(), "part-1.csv.gz:5") {
		t.Errorf("transform of a malformed row: %v", err)
	}
	tcfg.DeadLetter = filepath.Join(out, "bad-transform.txt")
	if err := runTransform(t, tcfg); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(tcfg.DeadLetter); string(b2) != string(b) {
		t.Errorf("transform dead letter:\n%s\nwant\n%s", b2, b)
	}
	z := readOutputs(t, tcfg.Output, 3)
	zw, _ := loadModelFile(t, cfg.Model).Transform(x)
	if r, _ := z.Dims(); r != len(keep) {
		t.Fatalf("transform wrote %d rows, want %d", r, len(keep))
	}
	if !mat.Equal(z, zw) {
		t.Errorf("transform outputs differ from the model's embedding by %.3g (relative)", relDiff(z, zw))
	}
}

// rawLine returns the text of data row i of the CSV file at path.
func rawLine(t *testing.T, path string, i int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")[i+1]
}
