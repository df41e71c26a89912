package method

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/testdata"
)

// badCase is one kind of bad or awkward input of the bad-input matrix.
type badCase struct {
	name string
	x    *mat.Dense
	y    []int
	dims int
}

// badMatrixCases builds the inputs of TestBadInputMatrix from 30 rows of 4
// well-separated features in 3 classes.
func badMatrixCases() []badCase {
	rng := rand.New(rand.NewPCG(7, 8))
	base := testdata.Normal(rng, 30, 4)
	y := make([]int, 30)
	for i := range y {
		y[i] = i % 3
		base.Set(i, y[i], base.At(i, y[i])+4)
	}
	with := func(i, j int, v float64) *mat.Dense {
		x := mat.DenseCopyOf(base)
		x.Set(i, j, v)
		return x
	}
	var cases []badCase
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		cases = append(cases, badCase{fmt.Sprint("value ", v), with(4, 2, v), y, 0})
	}
	one := make([]int, 30)
	oneRow := append([]int(nil), y...)
	for i := range oneRow {
		if oneRow[i] == 2 && i != 2 {
			oneRow[i] = 1
		}
	}
	dup := mat.NewDense(30, 4, nil)
	for i := 0; i < 30; i++ {
		dup.SetRow(i, base.RawRowView(i/2*2))
	}
	constCol := mat.DenseCopyOf(base)
	for i := 0; i < 30; i++ {
		constCol.Set(i, 3, 5)
	}
	wide := testdata.Normal(rng, 9, 50)
	unl := make([]int, 30)
	for i := range unl {
		unl[i] = -1
	}
	return append(cases,
		badCase{"no rows", nil, nil, 0},
		badCase{"one row", mat.DenseCopyOf(base.Slice(0, 1, 0, 4)), y[:1], 0},
		badCase{"one class", base, one, 0},
		badCase{"a one-row class", base, oneRow, 0},
		badCase{"duplicate rows", dup, y, 0},
		badCase{"constant column", constCol, y, 0},
		badCase{"too many dimensions", base, y, 1000},
		badCase{"negative dimensions", base, y, -2},
		badCase{"n < d", wide, y[:9], 0},
		badCase{"unlabeled rows", base, unl, 0},
		badCase{"labels for other rows", base, y[:10], 0},
	)
}

// Every registered method (method.All, not a hand-kept list) against every
// bad input: an error that names the method, or a model whose transform
// of the rows is finite with its Dims (≥ 1) columns — never a panic or
// NaN output.
func TestBadInputMatrix(t *testing.T) {
	cases := badMatrixCases()
	for _, info := range All() {
		for _, c := range cases {
			what := info.Name + " / " + c.name
			badTry(t, what, func() {
				m, err := New(info.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				model, err := m.Fit(c.x, c.y, c.dims)
				if err != nil {
					if !strings.Contains(err.Error(), info.Name) && !strings.Contains(strings.ToLower(err.Error()), "dims") {
						t.Errorf("%s: error %q does not name the method", what, err)
					}
					t.Logf("%s\terror\t%s", what, err)
					return
				}
				if model.Dims() < 1 {
					t.Errorf("%s: a model with %d dimensions and no error", what, model.Dims())
					return
				}
				badFinite(t, what, model, c.x, model.Dims())
				t.Logf("%s\tmodel\t%d dimensions", what, model.Dims())
			})
		}
	}
}

// Every registered method gives bit-identical eigenvalues and embeddings at
// GOMAXPROCS 1 and 2 (default parameters, sigma=auto included), on wine:
// 178 rows, two of the kernel's 128-row blocks.
func TestEveryMethodBitIdenticalAcrossGOMAXPROCS(t *testing.T) {
	x, y := loadSklearn(t, "wine")
	x = minmax(x)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, info := range All() {
		var vals [2][]float64
		var z [2]*mat.Dense
		for i, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			m, err := New(info.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			f, err := m.Fit(x, y, 2)
			if err != nil {
				t.Fatalf("%s: %v", info.Name, err)
			}
			vals[i] = f.(*Fitted).Values
			if z[i], err = f.Transform(x); err != nil {
				t.Fatalf("%s: %v", info.Name, err)
			}
		}
		if !slices.Equal(vals[0], vals[1]) || !mat.Equal(z[0], z[1]) {
			t.Errorf("%s: GOMAXPROCS 1 and 2 give different models", info.Name)
		}
	}
}
