package data

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The files in testdata/ were written by scipy.io.savemat and numpy.save
// (see testdata/gen_fixtures.py): fea is 4×3 with values 1.5*k - 3 in row
// order, gnd = [3 1 3 2].

var fixtureFea = mat.NewDense(4, 3, []float64{-3, -1.5, 0, 1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12, 13.5})

func TestReadMATScipyFixtures(t *testing.T) {
	ints := mat.NewDense(4, 3, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	negInts := mat.NewDense(4, 3, nil)
	negInts.Scale(-1, ints)
	for _, file := range []string{"testdata/scipy_v5.mat", "testdata/scipy_v5z.mat"} {
		for _, c := range []struct {
			fea  string
			want *mat.Dense
		}{{"fea", fixtureFea}, {"f32", fixtureFea}, {"u8", ints}, {"i16", negInts}, {"u64", ints}} {
			d, err := Load(file, Options{MatFeatures: c.fea})
			if err != nil {
				t.Fatalf("%s %s: %v", file, c.fea, err)
			}
			if !mat.Equal(d.X, c.want) {
				t.Errorf("%s %s: X = %v", file, c.fea, mat.Formatted(d.X))
			}
			if !slices.Equal(d.Y, []int{2, 0, 2, 1}) || !slices.Equal(d.ClassNames, []string{"1", "2", "3"}) {
				t.Errorf("%s: Y %v ClassNames %q", file, d.Y, d.ClassNames)
			}
		}
		// The struct, cell, char, sparse and complex variables are listed
		// and refused with their class.
		for fea, want := range map[string]string{
			"s": "struct array", "c": "cell array", "txt": "char array", "sparse": "sparse array", "cplx": "complex",
			"nope": "fea (4×3 double), gnd (4×1 int32), f32 (4×3 single), u8 (4×3 uint8), i16 (4×3 int16), u64 (4×3 uint64), s (1×1 struct), c (1×2 cell), txt (1×5 char), sparse (3×3 sparse), cplx (1×2 double)",
		} {
			_, err := Load(file, Options{MatFeatures: fea})
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
				t.Errorf("%s %s: error %v, want %q", file, fea, err, want)
			}
		}
	}
	// Samples as columns, labels as a row vector.
	d, err := Load("testdata/scipy_v5_col.mat", Options{MatFeatures: "X", MatLabels: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(d.X, fixtureFea) || !slices.Equal(d.Y, []int{2, 0, 2, 1}) {
		t.Errorf("columns: X %v Y %v", mat.Formatted(d.X), d.Y)
	}
}

func TestReadNPYNumpyFixtures(t *testing.T) {
	for _, f := range []string{"numpy_c.npy", "numpy_fortran.npy", "numpy_bigendian.npy"} {
		d, err := Load("testdata/"+f, Options{LabelsFile: "testdata/numpy_labels.npy"})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(d.X, fixtureFea) || !slices.Equal(d.Y, []int{2, 0, 2, 1}) {
			t.Errorf("%s: X %v Y %v", f, mat.Formatted(d.X), d.Y)
		}
	}
}
