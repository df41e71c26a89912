package testdata

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Sklearn reads ../shared/data/sklearn/NAME.csv (header, label first) with
// a minimal parser independent of package data, so that reference tests do
// not depend on the readers tested elsewhere.
func Sklearn(t testing.TB, name string) (*mat.Dense, []int) {
	t.Helper()
	f, err := os.Open(Path(t, "data/sklearn/"+name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[1:]
	x := mat.NewDense(len(rows), len(rows[0])-1, nil)
	y := make([]int, len(rows))
	for i, r := range rows {
		l, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatalf("%s.csv row %d: label %q", name, i+2, r[0])
		}
		y[i] = l
		for j, s := range r[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s.csv row %d: %v", name, i+2, err)
			}
			x.Set(i, j, v)
		}
	}
	return x, y
}

// MinMax scales every column of x to [−1, 1] over all rows (the seed 000
// protocol, as the references in ../shared/reference apply it); constant
// columns map to 0. A direct implementation for tests, independent of
// package preprocess.
func MinMax(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		col := mat.Col(nil, j, x)
		lo, hi := col[0], col[0]
		for _, v := range col {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		for i, v := range col {
			if hi > lo {
				out.Set(i, j, 2*(v-lo)/(hi-lo)-1)
			}
		}
	}
	return out
}
