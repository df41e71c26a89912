//go:build openblas

package linalg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/openblas"
	"github.com/dimred/dimred/progress"
)

func TestBackendIsOpenBLAS(t *testing.T) {
	if got := Backend(); got != "openblas" {
		t.Fatalf("Backend() = %q with the openblas tag", got)
	}
	if partialSymEig == nil {
		t.Fatal("the openblas tag does not set partialSymEig")
	}
	if _, ok := blas64.Implementation().(openblas.BLAS); !ok {
		t.Fatalf("blas64 uses %T, not openblas.BLAS", blas64.Implementation())
	}
}

// dsyevr (range by index) against gonum's EigenSym (its pure-Go Dsyev) on random
// symmetric matrices (also with a stride larger than n): values to 1e-10
// relative to the spectral norm, and the subspace of each requested block
// within 1e-8 radians (largest principal angle, which does not depend on
// signs or on the basis chosen within the block).
func TestPartialSymEigMatchesEigenSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range []struct {
		n, stride int
		il, iu    int
	}{
		{1, 1, 0, 0},
		{30, 30, 0, 29},      // all
		{120, 120, 110, 119}, // top 10
		{120, 125, 0, 4},     // bottom 5, stride > n
		{200, 200, 50, 60},   // interior
		{200, 203, 199, 199},
	} {
		n := tc.n
		g := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		full := mat.NewSymDense(n, nil)
		full.SymOuterK(1, g)
		for i := 0; i < n; i++ {
			full.SetSym(i, i, full.At(i, i)-float64(n)) // indefinite
		}
		a := full
		if tc.stride > n {
			a = mat.NewSymDense(n, nil)
			a.SetRawSymmetric(blas64.Symmetric{N: n, Stride: tc.stride, Uplo: blas.Upper, Data: make([]float64, (n-1)*tc.stride+n)})
			a.CopySym(full)
		}
		before := mat.NewSymDense(n, nil)
		before.CopySym(a)
		vals, vecs, ok := partialSymEig(a, tc.il, tc.iu)
		if !ok {
			t.Fatalf("n=%d stride %d [%d,%d]: dsyevr failed", n, tc.stride, tc.il, tc.iu)
		}
		if !mat.Equal(a, before) {
			t.Fatalf("n=%d: partialSymEig modified its input", n)
		}
		all, allVecs := gonumEigenSym(t, full)
		norm := math.Max(math.Abs(all[0]), math.Abs(all[n-1]))
		m := tc.iu - tc.il + 1
		if len(vals) != m {
			t.Fatalf("n=%d: %d values, want %d", n, len(vals), m)
		}
		for j, v := range vals {
			if d := math.Abs(v - all[tc.il+j]); d > 1e-10*norm {
				t.Errorf("n=%d: value %d is %.17g, EigenSym gives %.17g", n, tc.il+j, v, all[tc.il+j])
			}
		}
		want := allVecs.Slice(0, n, tc.il, tc.iu+1)
		if th := largestAngle(vecs, want); th > 1e-8 {
			t.Errorf("n=%d [%d,%d]: largest principal angle %.3g to EigenSym's eigenvectors", n, tc.il, tc.iu, th)
		}
	}
	if _, _, ok := partialSymEig(mat.NewSymDense(3, nil), 1, 3); ok {
		t.Error("partialSymEig accepted iu = n")
	}
}

// largestAngle is the largest principal angle between the column spaces
// of v and w, both with orthonormal columns, as asin of the 2-norm of
// (I − v·vᵀ)·w. (PrincipalAngles takes acos of cosines near 1, which cannot
// resolve angles below about 1e-8.)
func largestAngle(v, w mat.Matrix) float64 {
	var vtw, r mat.Dense
	vtw.Mul(v.T(), w)
	r.Mul(v, &vtw)
	r.Sub(w, &r)
	return math.Asin(math.Min(1, mat.Norm(&r, 2)))
}

// gonumEigenSym is mat.EigenSym computed by gonum's own Dsyev (under the
// tag, mat.EigenSym itself runs in LAPACK): ascending values and the
// eigenvectors as columns.
func gonumEigenSym(t *testing.T, a *mat.SymDense) ([]float64, *mat.Dense) {
	t.Helper()
	n := a.SymmetricDim()
	vecs := mat.NewDense(n, n, nil)
	vecs.Copy(a)
	raw := vecs.RawMatrix()
	w := make([]float64, n)
	work := make([]float64, 1)
	var impl glapack.Implementation
	impl.Dsyev(lapack.EVCompute, blas.Upper, n, raw.Data, raw.Stride, w, work, -1)
	work = make([]float64, int(work[0]))
	if !impl.Dsyev(lapack.EVCompute, blas.Upper, n, raw.Data, raw.Stride, w, work, len(work)) {
		t.Fatal("gonum Dsyev failed")
	}
	return w, vecs
}

// The LAPACK calls of the openblas build neither report nor stop inside:
// after a cancellation they are not started (the partial dsyevr for a few
// pairs, EigenSym's full one), and with a reporter the call is announced.
func TestLAPACKEigenAnnouncedAndNotStartedAfterCancel(t *testing.T) {
	a := benchSym(progress.MinOrder, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range []int{5, 0} {
		if _, _, err := SymEigContext(ctx, a, k, Smallest); !errors.Is(err, context.Canceled) {
			t.Errorf("k = %d after a cancellation: error %v, want context.Canceled", k, err)
		}
	}
	var lines []string
	rep := progress.With(context.Background(), func(l string) { lines = append(lines, l) })
	if _, _, err := SymEigContext(rep, a, 5, Smallest); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "one openblas call, without progress lines") {
		t.Errorf("lines %q, want one announcing the LAPACK call", lines)
	}
}
