package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/internal/testdata"
)

// The permutation is the documented Fisher–Yates shuffle: a permutation,
// the same on every run, and pinned (docs/benchmarks.md and the peers'
// rows depend on it).
func TestPermutation(t *testing.T) {
	p := Permutation(10000, PermSeed)
	if !slices.Equal(p, Permutation(10000, PermSeed)) {
		t.Fatal("two calls differ")
	}
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			t.Fatalf("not a permutation: %d", v)
		}
		seen[v] = true
	}
	if got, want := p[:5], []int{7470, 7399, 3848, 3957, 4112}; !slices.Equal(got, want) {
		t.Errorf("first rows %v, want %v (the permutation changed: update docs/benchmarks.md)", got, want)
	}
}

func TestRBFGammaIsOneOverMedianSquaredDistance(t *testing.T) {
	// Rows 0, 1, 3: squared distances 1, 9, 4 → median 4, γ = 1/4.
	x := mat.NewDense(3, 1, []float64{0, 1, 3})
	if g := RBFGamma(x); math.Abs(g-1.0/4) > 1e-15 {
		t.Errorf("gamma %v, want 1/4", g)
	}
}

func TestSelectAddsWhatAWorkloadNeeds(t *testing.T) {
	ws, err := Select([]string{"W8/kqmi-nystrom"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name() != "W8/kqmi-exact" || ws[1].Name() != "W8/kqmi-nystrom" {
		t.Errorf("got %v", workloadNames(ws))
	}
	ws, err = Select([]string{"w4"})
	if err != nil || len(ws) != 2 {
		t.Errorf("W4: %v, %v", workloadNames(ws), err)
	}
	if ws, err := Select([]string{"W7"}); err != nil || len(ws) != 1 || ws[0].Name() != "W7/svm-rbf" {
		t.Errorf("W7: %v, %v", workloadNames(ws), err)
	}
	for _, w := range Workloads() {
		if w.Prepare == nil || w.Check == nil || w.N < 1 || w.CheckN < 1 {
			t.Errorf("%s: incomplete workload", w.Name())
		}
	}
}

func TestScaled(t *testing.T) {
	for _, c := range []struct {
		n     int
		scale float64
		want  int
	}{{5000, 1, 5000}, {5000, 0.02, 100}, {10000, 0.02, 200}, {50, 0.01, 50}, {200000, 0.02, 4000}} {
		if got := scaled(c.n, c.scale); got != c.want {
			t.Errorf("scaled(%d, %v) = %d, want %d", c.n, c.scale, got, c.want)
		}
	}
}

func TestCheckFinish(t *testing.T) {
	c := Check{Criteria: []Criterion{newCriterion("a", 1, 2, false), newCriterion("b", 1, 2, true)}}
	c.finish()
	if c.Pass {
		t.Error("passed with a failing criterion")
	}
	c.Criteria[1].Skipped = "not at this size"
	c.finish()
	if !c.Pass {
		t.Error("a skipped criterion counted")
	}
	c.Criteria = c.Criteria[1:]
	c.finish()
	if c.Pass {
		t.Error("passed without any judged criterion")
	}
}

// The child side, in this process: it reads only the rows it needs from
// the files the parent writes and reports its VmHWM.
func TestRunChild(t *testing.T) {
	dir := t.TempDir()
	x, y := testdata.Classes(150, 20, 3)
	if err := data.WriteNPY(filepath.Join(dir, "x.npy"), x); err != nil {
		t.Fatal(err)
	}
	if err := data.WriteLabelsNPY(filepath.Join(dir, "y.npy"), y); err != nil {
		t.Fatal(err)
	}
	xr, yr, err := readInputs(dir, 120)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(xr, x.Slice(0, 120, 0, 20)) || !slices.Equal(yr, y[:120]) {
		t.Fatal("readInputs: rows differ from those written")
	}
	job, _ := json.Marshal(childJob{Workload: "W0/rbf-gram", N: 120, Repeat: 2, Dir: dir, Gamma: 0.05})
	var out bytes.Buffer
	if err := RunChild(string(job), &out); err != nil {
		t.Fatal(err)
	}
	var r jobResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != "" || len(r.Times) != 2 || r.PeakSource != PeakVmHWM || r.PeakBytes < r.InputBytes || r.PeakBytes <= 0 {
		t.Errorf("child result %+v", r)
	}
	if tr, _ := num(r.Values["trace"]); tr != 120 {
		t.Errorf("trace of the RBF Gram matrix %v, want 120", r.Values["trace"])
	}
}

func TestRelDiff(t *testing.T) {
	if d := relDiff([]float64{1, 2.002}, []float64{1, 2}); math.Abs(d-1e-3) > 1e-12 {
		t.Errorf("relDiff %v", d)
	}
	if !math.IsInf(relDiff([]float64{1}, []float64{1, 2}), 1) {
		t.Error("lengths differ: want +Inf")
	}
	if d := relDiff([]float64{1, 1e-20}, []float64{1, 0}); d > 1e-8 {
		t.Errorf("zero eigenvalue compared relatively: %v", d)
	}
}
