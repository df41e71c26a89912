package method

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/stats"
)

// Fits from statistics equal the in-memory fit: the statistics of the rows
// accumulated in chunks of several sizes and merged give, for PCA, LDA,
// LQMI and supervised SR, models whose embeddings of the same rows equal
// the in-memory model's to 1e-9 relative (LDA and LQMI with d ≤ n run the
// statistics path in memory too, so the difference is only the order of
// summation; SR regresses on the same canonical responses from rows and
// from class sums); with unlabeled rows (−1, ignored by LDA and LQMI; SR
// then needs its semi-supervised graph, see TestSRFitStatsRefusals), on
// the scikit-learn tables.
func TestFitStatsEqualsInMemory(t *testing.T) {
	for _, name := range []string{"iris", "wine", "breast_cancer", "digits"} {
		x, y := testdata.Sklearn(t, name)
		x = testdata.MinMax(x)
		n, _ := x.Dims()
		yu := append([]int(nil), y...)
		for i := 0; i < n; i += 7 {
			yu[i] = -1
		}
		for _, tc := range []struct {
			name string
			m    StatsFitter
			dims int
			all  bool // every row labelled only
		}{{"pca", PCA{}, 3, false}, {"lda", LDA{}, 0, false}, {"lqmi", LQMI{}, 0, false}, {"lda ridge", LDA{Ridge: 0.1}, 0, false},
			{"sr", SR{}, 0, true}, {"sr ridge 1e-3 dims 1", SR{SRParams: SRParams{Ridge: 1e-3}}, 1, true}} {
			for _, labels := range [][]int{y, yu} {
				if tc.all && len(labels) > 0 && labels[0] < 0 {
					continue
				}
				want, err := tc.m.Fit(x, labels, tc.dims)
				if err != nil {
					t.Fatalf("%s %s: %v", name, tc.name, err)
				}
				zw, _ := want.Transform(x)
				scale := mat.Norm(zw, math.Inf(1))
				for _, chunk := range []int{1, 17, 100, n} {
					var ms stats.Moments
					for lo := 0; lo < n; lo += chunk {
						hi := min(lo+chunk, n)
						if err := ms.Add(mat.DenseCopyOf(x.Slice(lo, hi, 0, x.RawMatrix().Cols)), labels[lo:hi]); err != nil {
							t.Fatal(err)
						}
					}
					got, err := tc.m.FitStats(&ms, tc.dims)
					if err != nil {
						t.Fatalf("%s %s chunk %d: %v", name, tc.name, chunk, err)
					}
					zg, _ := got.Transform(x)
					var diff mat.Dense
					diff.Sub(zg, zw)
					if d := mat.Norm(&diff, math.Inf(1)) / scale; d > 1e-9 {
						t.Errorf("%s %s chunk %d: statistics fit differs from the in-memory fit by %.3g (relative)", name, tc.name, chunk, d)
					}
				}
			}
		}
	}
}

// A file streamed with data.Scan into statistics gives the model of Load
// and Fit (1e-9 relative), and methods that need rows do not claim to fit
// from statistics.
func TestFitStatsFromStreamedFile(t *testing.T) {
	x, y := testdata.Sklearn(t, "digits")
	path := filepath.Join(t.TempDir(), "digits.csv")
	names := make([]string, 10)
	for i := range names {
		names[i] = string(rune('0' + i))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(f, &data.Dataset{X: x, Y: y, ClassNames: names}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ds, err := data.Load(path, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := LDA{}.Fit(ds.X, ds.Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ms stats.Moments
	if err := data.Scan(path, data.Options{}, 250, ms.Add); err != nil {
		t.Fatal(err)
	}
	got, err := LDA{}.FitStats(&ms, 0)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := want.Transform(ds.X)
	zg, _ := got.Transform(ds.X)
	var diff mat.Dense
	diff.Sub(zg, zw)
	if d := mat.Norm(&diff, math.Inf(1)) / mat.Norm(zw, math.Inf(1)); d > 1e-9 {
		t.Errorf("streamed LDA differs from the in-memory fit by %.3g", d)
	}
	for _, info := range All() {
		m, err := New(info.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := m.(StatsFitter)
		if want := info.Name == "pca" || info.Name == "lda" || info.Name == "lqmi" || info.Name == "sr"; ok != want {
			t.Errorf("%s: StatsFitter = %v, want %v", info.Name, ok, want)
		}
	}
}

// Kernel methods with space=nystrom fit from statistics of their features:
// the landmarks picked from the row count (LandmarkRows), the features of
// chunks of rows reduced to statistics and merged, the linear fit on them
// folded into a Nyström model give the in-memory fit's embeddings to 1e-8
// relative (the statistics are merged in a different order, and the
// in-memory GDA and KQMI may take another solver route on the same
// problem); methods set to need the whole Gram matrix say so.
func TestNystromFitFeatureStatsEqualsInMemory(t *testing.T) {
	for _, name := range []string{"iris", "wine"} {
		x, y := testdata.Sklearn(t, name)
		x = testdata.MinMax(x)
		n, d := x.Dims()
		for _, tc := range []struct {
			method string
			params map[string]string
			dims   int
		}{
			{"kpca", map[string]string{"space": "nystrom", "landmarks": "40", "seed": "3", "sigma": "0.7"}, 4},
			{"gda", map[string]string{"space": "nystrom", "landmarks": "50", "seed": "5", "sigma": "1"}, 0},
			{"kqmi", map[string]string{"space": "nystrom", "landmarks": "60", "seed": "7", "sigma": "0.8"}, 0},
			{"ksr", map[string]string{"space": "nystrom", "landmarks": "45", "seed": "6", "sigma": "0.9", "ridge": "0.1"}, 0},
		} {
			m, err := New(tc.method, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Fit(x, y, tc.dims)
			if err != nil {
				t.Fatalf("%s %s: %v", name, tc.method, err)
			}
			nf := m.(NystromStatsFitter)
			space, err := nf.NystromSpace()
			if err != nil {
				t.Fatal(err)
			}
			rows, err := space.LandmarkRows(n)
			if err != nil {
				t.Fatal(err)
			}
			lm := mat.NewDense(len(rows), d, nil)
			for i, r := range rows {
				lm.SetRow(i, x.RawRowView(r))
			}
			tmap, err := embed.NystromMap(context.Background(), space.K, lm)
			if err != nil {
				t.Fatal(err)
			}
			var ms stats.Moments
			for lo := 0; lo < n; lo += 23 {
				hi := min(lo+23, n)
				f, err := embed.NystromFeatures(context.Background(), space.K, lm, tmap, mat.DenseCopyOf(x.Slice(lo, hi, 0, d)))
				if err != nil {
					t.Fatal(err)
				}
				if err := ms.Add(f, y[lo:hi]); err != nil {
					t.Fatal(err)
				}
			}
			lin, err := nf.FitFeatureStats(&ms, tc.dims)
			if err != nil {
				t.Fatalf("%s %s from statistics: %v", name, tc.method, err)
			}
			got, err := embed.NewNystromModel(space.K, lm, tmap, lin.Model.(*embed.LinearModel))
			if err != nil {
				t.Fatal(err)
			}
			zw, _ := want.Transform(x)
			zg, _ := got.Transform(x)
			if want.Dims() != got.Dims() {
				t.Fatalf("%s %s: %d dimensions in memory, %d from statistics", name, tc.method, want.Dims(), got.Dims())
			}
			var diff mat.Dense
			diff.Sub(zg, zw)
			if rel := mat.Norm(&diff, math.Inf(1)) / mat.Norm(zw, math.Inf(1)); rel > 1e-8 {
				t.Errorf("%s %s: Nyström fit from statistics differs from the in-memory fit by %.3g (relative)", name, tc.method, rel)
			}
		}
	}
	for _, tc := range []struct {
		method string
		params map[string]string
		want   string
	}{
		{"kpca", nil, "space=exact needs the Gram matrix"},
		{"kqmi", map[string]string{"space": "nystrom", "reg": "cutoff"}, "reg=cutoff"},
		{"gda", map[string]string{"space": "nystrom", "sampling": "kmeans++", "landmarks": "50", "sigma": "1"}, ""},
	} {
		m, err := New(tc.method, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := m.(NystromStatsFitter).NystromSpace()
		if tc.want == "" {
			if _, err = sp.LandmarkRows(100); err == nil || !strings.Contains(err.Error(), "sampling kmeans++ needs every row") {
				t.Errorf("%s kmeans++: LandmarkRows error %v", tc.method, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.method, tc.params, err, tc.want)
		}
	}
}

// A fit from statistics never sees pairs of training rows, so the
// data-driven width cannot be chosen: sigma=auto is an error naming the
// parameter to set.
func TestNystromStatsNeedsExplicitWidth(t *testing.T) {
	m, err := New("gda", map[string]string{"space": "nystrom"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.(NystromStatsFitter).NystromSpace()
	if err == nil || !strings.Contains(err.Error(), "sigma=auto") || !strings.Contains(err.Error(), "-p sigma") {
		t.Errorf("err = %v, want an error naming sigma=auto and -p sigma", err)
	}
}

// Supervised SR fits from statistics only with the class graph: unlabeled
// rows (the semi-supervised graph), graph=unsupervised, the Rayleigh–Ritz
// rotation and the dense route are refused with the reason, as are too
// many dimensions; KSR refuses the same through its features.
func TestSRFitStatsRefusals(t *testing.T) {
	x, y := testdata.Sklearn(t, "iris")
	yu := append([]int(nil), y...)
	yu[3] = -1
	for _, tc := range []struct {
		m      SR
		labels []int
		dims   int
		want   string
	}{
		{SR{}, yu, 0, "1 of 150 rows are unlabeled"},
		{SR{SRParams: SRParams{Graph: SRUnsupervised}}, y, 2, "graph=unsupervised needs the nearest neighbours"},
		{SR{SRParams: SRParams{Ritz: true}}, y, 0, "ritz=true"},
		{SR{Engine: Engine{Solver: embed.Dense}}, y, 0, "solver=dense"},
		{SR{}, y, 3, "3 dimensions requested, but the SR graph gives at most 2"},
	} {
		var ms stats.Moments
		if err := ms.Add(x, tc.labels); err != nil {
			t.Fatal(err)
		}
		_, err := tc.m.FitStats(&ms, tc.dims)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.m, err, tc.want)
		}
	}
	var ms stats.Moments
	if err := ms.Add(x, yu); err != nil {
		t.Fatal(err)
	}
	if _, err := (KSR{}).FitFeatureStats(&ms, 0); err == nil || !strings.Contains(err.Error(), "ksr: 1 of 150 rows are unlabeled") {
		t.Errorf("KSR with an unlabeled row: error %v", err)
	}
	// KSR says so before any row is read, when the pipeline asks for its
	// Nyström space.
	if _, err := (KSR{SRParams: SRParams{Graph: SRUnsupervised}, Space: KernelSpace{Kind: SpaceNystrom}}).NystromSpace(); err == nil || !strings.Contains(err.Error(), "ksr: graph=unsupervised") {
		t.Errorf("KSR graph=unsupervised: NystromSpace error %v", err)
	}
}
