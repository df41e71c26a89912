package method

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
)

// loadSklearn reads ../shared/data/sklearn/NAME.csv (testdata.Sklearn).
func loadSklearn(t *testing.T, name string) (*mat.Dense, []int) { return testdata.Sklearn(t, name) }

type refEntry struct {
	ExplainedVariance      []float64   `json:"explained_variance"`
	Components             [][]float64 `json:"components_rows_are_axes_signfixed"`
	Mean                   []float64   `json:"mean"`
	ExplainedVarianceRatio []float64   `json:"explained_variance_ratio"`
	Eigenvalues            []float64   `json:"eigenvalues"`
	First10                [][]float64 `json:"first10_transformed_signfixed"`
	Indices                [][]int     `json:"indices_first20"`
	Distances              [][]float64 `json:"distances_first20"`
}

func loadRef(t *testing.T) map[string]refEntry {
	t.Helper()
	b, err := os.ReadFile(testdata.Path(t, "reference/sklearn_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]refEntry{}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func relClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	for i, w := range want {
		if math.Abs(got[i]-w) > tol*math.Abs(w) {
			t.Errorf("%s[%d] = %.15g, want %.15g (rel err %.2g)", what, i, got[i], w, math.Abs(got[i]-w)/math.Abs(w))
		}
	}
}

// minmax scales every column to [-1, 1] over the whole set (testdata.MinMax).
func minmax(x *mat.Dense) *mat.Dense { return testdata.MinMax(x) }

func TestPCAMatchesSklearn(t *testing.T) {
	ref := loadRef(t)
	for _, name := range []string{"iris", "wine"} {
		x, _ := loadSklearn(t, name)
		r := ref[name+"/pca"]
		m, err := PCA{}.Fit(x, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := m.(*Fitted)
		n, _ := x.Dims()
		ev, err := ExplainedVariance(f, n)
		if err != nil {
			t.Fatal(err)
		}
		relClose(t, name+" explained variance", ev, r.ExplainedVariance, 1e-8)
		if f.Dims() != len(r.Components) {
			t.Fatalf("%s: %d components, want %d", name, f.Dims(), len(r.Components))
		}
		// Axes up to sign: |⟨w_j, ref_j⟩| = 1 (unit vectors).
		wmat := f.Model.(*embed.LinearModel).W
		for j, axis := range r.Components {
			dot := 0.0
			for i, v := range axis {
				dot += v * wmat.At(i, j)
			}
			if math.Abs(math.Abs(dot)-1) > 1e-8 {
				t.Errorf("%s axis %d: |cos| = %.12f, want 1", name, j, math.Abs(dot))
			}
		}
	}
}

func TestLDAMatchesSklearn(t *testing.T) {
	ref := loadRef(t)
	for _, name := range []string{"iris", "wine"} {
		x, y := loadSklearn(t, name)
		m, err := LDA{}.Fit(x, y, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := m.(*Fitted)
		if f.Dims() != 2 {
			t.Fatalf("%s: LDA gave %d dims, want C−1 = 2", name, f.Dims())
		}
		sum := 0.0
		for _, v := range f.Values {
			sum += v
		}
		ratio := []float64{f.Values[0] / sum, f.Values[1] / sum}
		relClose(t, name+" LDA explained variance ratio", ratio, ref[name+"/lda"].ExplainedVarianceRatio, 1e-8)
	}
}

// signFixRows flips each column of z so that its largest-magnitude entry is
// positive (the reference's normalisation), over all rows.
func signFixRows(z *mat.Dense) { linalg.FixSigns(z) }

func TestKPCAMatchesSklearn(t *testing.T) {
	ref := loadRef(t)
	for _, name := range []string{"iris", "wine"} {
		x, _ := loadSklearn(t, name)
		xs := minmax(x)
		r := ref[name+"/kpca_rbf_gamma0.5_scaled"]
		m, err := KPCA{Kernel: kernel.Kernel{Type: "rbf", Gamma: 0.5}}.Fit(xs, nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		f := m.(*Fitted)
		relClose(t, name+" KPCA eigenvalues", f.Values, r.Eigenvalues, 1e-8)
		z, err := f.Transform(xs)
		if err != nil {
			t.Fatal(err)
		}
		signFixRows(z)
		for i, row := range r.First10 {
			for j, want := range row {
				if math.Abs(z.At(i, j)-want) > 1e-8*(1+math.Abs(want)) {
					t.Errorf("%s KPCA z[%d][%d] = %.12g, want %.12g", name, i, j, z.At(i, j), want)
				}
			}
		}
	}
}
