package method

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
)

// aqmidaDense is AQMIDA written out from seed 001 without the engine:
// whitening from the eigen-decomposition of the sample covariance
// (denominator n − 1), Silverman's σ = (4/(3n))^{1/5}, E from the explicit
// sum of eq. 4 with matrix exponentials, and its top eigenvectors.
// It returns the whitening map (mean, d×D' matrix) and the D'×k
// directions with their eigenvalues.
func aqmidaDense(x *mat.Dense, y []int, k int) (mu []float64, wh, dirs *mat.Dense, vals []float64) {
	n, d := x.Dims()
	mu = embed.ColMeans(x)
	xc := embed.CenterRows(x, mu)
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1/float64(n-1), xc.T())
	var es mat.EigenSym
	es.Factorize(cov, true)
	lam := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	var keep []int
	for i := d - 1; i >= 0; i-- {
		if lam[i] > 1e-10*lam[d-1] {
			keep = append(keep, i)
		}
	}
	wh = mat.NewDense(d, len(keep), nil)
	for c, i := range keep {
		for r := 0; r < d; r++ {
			wh.Set(r, c, v.At(r, i)/math.Sqrt(lam[i]))
		}
	}
	var z mat.Dense
	z.Mul(xc, wh)
	sigma := math.Pow(4/(3*float64(n)), 0.2)
	_, dp := z.Dims()
	counts := map[int]float64{}
	for _, c := range y {
		counts[c]++
	}
	s := 0.0
	for _, c := range counts {
		s += c * c / float64(n*n)
	}
	e := mat.NewDense(dp, dp, nil)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			diff := mat.NewVecDense(dp, nil)
			for j := 0; j < dp; j++ {
				diff.SetVec(j, z.At(a, j)-z.At(b, j))
			}
			var o, ex mat.Dense
			o.Outer(-1/(2*sigma*sigma), diff, diff)
			ex.Exp(&o)
			coef := s - 2*counts[y[a]]/float64(n)
			if y[a] == y[b] {
				coef++
			}
			ex.Scale(coef/(sigma*math.Sqrt(2*math.Pi)*float64(n*n)), &ex)
			e.Add(e, &ex)
		}
	}
	var es2 mat.EigenSym
	es2.Factorize(mat.NewSymDense(dp, e.RawMatrix().Data), true)
	ev := es2.Values(nil)
	var u mat.Dense
	es2.VectorsTo(&u)
	dirs = mat.NewDense(dp, k, nil)
	for c := 0; c < k; c++ {
		dirs.SetCol(c, mat.Col(nil, dp-1-c, &u))
		vals = append(vals, ev[dp-1-c])
	}
	return mu, wh, dirs, vals
}

func aqmidaData(seed uint64, n, d int) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 3
		if i%7 == 6 {
			y[i] = 1
		}
		for j := 0; j < d; j++ {
			// class-dependent, non-Gaussian (bimodal) structure with
			// columns of different scales
			v := rng.NormFloat64()
			if y[i] == 2 && j == 0 {
				v += 3 * float64(2*(i%2)-1)
			}
			if y[i] == 1 && j == 1 {
				v += 2
			}
			x.Set(i, j, v*float64(j+1))
		}
	}
	return x, y
}

// AQMIDA through the engine (whitening model, ApproxQMI graph, dense
// eigen-solver, composed affine model) equals the direct computation from
// the paper's formulas, on training and new rows, with the eigenvalues.
func TestAQMIDAMatchesDenseFormulas(t *testing.T) {
	x, y := aqmidaData(1, 42, 4)
	xnew, _ := aqmidaData(2, 9, 4)
	f, err := AQMIDA{}.Fit(x, y, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(*Fitted).Model.(*embed.AffineModel); !ok {
		t.Errorf("AQMIDA model is %T, want one affine map (whitening ∘ projection)", f.(*Fitted).Model)
	}
	mu, wh, dirs, vals := aqmidaDense(x, y, 3)
	relClose(t, "AQMIDA eigenvalues of E", f.(*Fitted).Values, vals, 1e-9)
	var w mat.Dense
	w.Mul(wh, dirs)
	for _, rows := range []*mat.Dense{x, xnew} {
		got, err := f.Transform(rows)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(embed.CenterRows(rows, mu), &w)
		sameColumnsUpToSign(t, "AQMIDA projections", got, &want, 1e-9)
	}
	// All D' = 4 features exist (no C−1 cap), one more does not.
	if g, err := (AQMIDA{}).Fit(x, y, 0); err != nil || g.Dims() != 4 {
		t.Errorf("AQMIDA dims=0: %v dims, err %v; want the whitened dimension 4", g, err)
	}
	if _, err := (AQMIDA{}).Fit(x, y, 5); err == nil {
		t.Error("AQMIDA dims=5 > D' = 4: want an error")
	}
	// A bandwidth set by hand changes the result; Silverman's default is
	// what the dense version used.
	g, err := AQMIDA{Sigma: 3}.Fit(x, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(g.(*Fitted).Values[0]-vals[0]) < 1e-6*math.Abs(vals[0]) {
		t.Error("sigma=3 gave the Silverman eigenvalue")
	}
}

// N ≤ D: whitening keeps the N − 1 directions of nonzero variance; at most
// N − 1 features, and Transform ignores the part of a new row outside the
// training span. PCADims caps the whitening.
func TestAQMIDAFewRows(t *testing.T) {
	x, y := aqmidaData(3, 12, 20)
	f, err := AQMIDA{}.Fit(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dims() != 11 {
		t.Errorf("N = 12 ≤ D = 20: %d features, want N − 1 = 11", f.Dims())
	}
	if _, err := (AQMIDA{}).Fit(x, y, 12); err == nil {
		t.Error("dims = 12 > N − 1: want an error")
	}
	// A new row = a training row + a vector orthogonal to the training
	// span maps like the training row.
	xc := embed.CenterRows(x, embed.ColMeans(x))
	rng := rand.New(rand.NewPCG(4, 4))
	v := mat.NewVecDense(20, nil)
	for j := 0; j < 20; j++ {
		v.SetVec(j, rng.NormFloat64())
	}
	// Remove its component in the span of the centred rows (QR basis).
	var q mat.QR
	q.Factorize(xc.T())
	var qq mat.Dense
	q.QTo(&qq)
	basis := qq.Slice(0, 20, 0, 12)
	var coef mat.VecDense
	coef.MulVec(basis.T(), v)
	var proj mat.VecDense
	proj.MulVec(basis, &coef)
	v.SubVec(v, &proj)
	moved := mat.DenseCopyOf(x.Slice(0, 1, 0, 20))
	for j := 0; j < 20; j++ {
		moved.Set(0, j, moved.At(0, j)+10*v.AtVec(j))
	}
	a, _ := f.Transform(x.Slice(0, 1, 0, 20).(*mat.Dense))
	b, _ := f.Transform(moved)
	if !mat.EqualApprox(a, b, 1e-8*mat.Norm(a, math.Inf(1))) {
		t.Errorf("a component outside the training span changed the AQMIDA projection")
	}
	g, err := AQMIDA{PCADims: 5}.Fit(x, y, 0)
	if err != nil || g.Dims() != 5 {
		t.Errorf("PCADims = 5: %v features, err %v", g, err)
	}
}
