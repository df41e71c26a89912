package method

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/testdata"
)

// nullSpaceData returns C classes of m rows in d dimensions whose
// within-class scatter is dominated by one direction (scale 100): its
// mean eigenvalue is far below a tenth of its largest, the case where a
// ridge relative to the mean fell under the eigensolvers' rank tolerance
// and the null space of S_w was dropped.
func nullSpaceData(c, m, d int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	dir := make([]float64, d)
	for j := range dir {
		dir[j] = rng.NormFloat64()
	}
	x := mat.NewDense(c*m, d, nil)
	y := make([]int, c*m)
	for k := 0; k < c; k++ {
		mu := make([]float64, d)
		for j := range mu {
			mu[j] = 3 * rng.NormFloat64()
		}
		for r := 0; r < m; r++ {
			i := k*m + r
			y[i] = k
			s := 100 * rng.NormFloat64()
			for j := 0; j < d; j++ {
				x.Set(i, j, mu[j]+s*dir[j]+rng.NormFloat64())
			}
		}
	}
	return x, y
}

// collapse returns, for the first k embedding dimensions of the training
// rows, the within-class sum of squares over the total sum of squares.
func collapse(z *mat.Dense, y []int, k int) float64 {
	n, _ := z.Dims()
	within, total := 0.0, 0.0
	for j := 0; j < k; j++ {
		mean, cm, cnt := 0.0, map[int]float64{}, map[int]float64{}
		for i := 0; i < n; i++ {
			mean += z.At(i, j) / float64(n)
			cm[y[i]] += z.At(i, j)
			cnt[y[i]]++
		}
		for i := 0; i < n; i++ {
			d := z.At(i, j) - cm[y[i]]/cnt[y[i]]
			within += d * d
			t := z.At(i, j) - mean
			total += t * t
		}
	}
	return within / total
}

// TestLDANullSpaceKept checks null-space LDA by the identity that defines
// it: when S_w is singular after the PCA step, the leading discriminant
// directions lie in its null space, where every training class collapses
// to a point. With d > n (the faces case: PCA keeps rank S_t = n − 1, the
// null space has C − 1 dimensions) all C − 1 directions collapse the
// classes; with n − C < d < n (the scatter path) the first d − (n − C) do.
// The ridge (NullSpaceRidge·λ_max) lets O(ε/λ₊) of the range of S_w leak
// in (λ₊ its smallest nonzero eigenvalue): measured 2e-6 (d = 40) and
// 1e-4 (d = 12) of the total scatter, against 0.07-0.14 and 8e-4-1.5e-2
// when the null space is dropped (the earlier ridge, below the rank
// tolerance).
func TestLDANullSpaceKept(t *testing.T) {
	const c, m = 5, 3 // n = 15, n − C = 10
	for _, tc := range []struct {
		d, collapsed int
		tol          float64
	}{{40, c - 1, 1e-4}, {12, 12 - (c*m - c), 3e-4}} {
		for seed := uint64(1); seed <= 5; seed++ {
			x, y := nullSpaceData(c, m, tc.d, seed)
			f, err := LDA{}.Fit(x, y, c-1)
			if err != nil {
				t.Fatal(err)
			}
			z, err := f.Transform(x)
			if err != nil {
				t.Fatal(err)
			}
			if r := collapse(z, y, tc.collapsed); !(r < tc.tol) {
				t.Errorf("d=%d seed %d: within/total scatter of the first %d LDA dimensions = %.3g, want < %g (null space of S_w kept)", tc.d, seed, tc.collapsed, r, tc.tol)
			}
			if math.IsNaN(collapse(z, y, c-1)) {
				t.Errorf("d=%d seed %d: NaN embedding", tc.d, seed)
			}
		}
	}
}

// TestLDAUnitNormMatchesFisherfaces checks lda with fisherfaces=true and
// norm=unit against Fisherfaces computed here independently (Belhumeur et
// al. 1997, as Cai's LDA.m normalises it): the centred rows projected on
// their n − C leading right singular vectors (gonum's SVD), the textbook
// S_w and S_b there and their Cholesky reduction (testdata.ClassScatters,
// testdata.CholGenEig), mapped back by the PCA basis, each direction
// scaled to unit length. The training embeddings agree column by column up
// to sign.
func TestLDAUnitNormMatchesFisherfaces(t *testing.T) {
	const c, m, d = 5, 6, 40
	x, y := nullSpaceData(c, m, d, 7)
	f, err := LDA{Fisherfaces: true, Engine: Engine{Norm: "unit"}}.Fit(x, y, c-1)
	if err != nil {
		t.Fatal(err)
	}
	z, err := f.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	n := c * m
	xc := testdata.CentreColumns(x)
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	var v mat.Dense
	svd.VTo(&v)
	p := v.Slice(0, d, 0, n-c)
	var u mat.Dense
	u.Mul(xc, p)
	sb, sw := testdata.ClassScatters(&u, y)
	_, w1 := testdata.CholGenEig(t, sb, sw)
	var w, want mat.Dense
	w.Mul(p, w1.Slice(0, n-c, 0, c-1)) // decreasing eigenvalues
	want.Mul(xc, &w)
	for j := 0; j < c-1; j++ {
		col := want.ColView(j)
		scale := 1 / mat.Norm(w.ColView(j), 2)
		sign := 1.0
		if mat.Dot(col, z.ColView(j)) < 0 {
			sign = -1
		}
		for i := 0; i < n; i++ {
			if d := math.Abs(z.At(i, j) - sign*scale*col.AtVec(i)); d > 1e-8*(1+math.Abs(z.At(i, j))) {
				t.Fatalf("column %d row %d: %v, want %v", j, i, z.At(i, j), sign*scale*col.AtVec(i))
			}
		}
	}
}
