package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
	"gonum.org/v1/gonum/mat"
)

// Tests on the shared data sets (../shared/data, see its README): every
// file loads with the options it needs, with the README's counts.

func TestSharedUCI(t *testing.T) {
	cases := []struct {
		file             string
		opt              Options
		rows, cols       int
		classes, present int
		dropped          int
	}{
		{"iris", Options{}, 150, 4, 3, 3, 0},
		{"wine", Options{}, 178, 13, 3, 3, 0}, // class is the first attribute
		{"glass", Options{}, 214, 9, 7, 6, 0}, // class "Type" (last); 7 declared, 6 present
		{"ionosphere", Options{}, 351, 34, 2, 2, 0},
		{"sonar", Options{}, 208, 60, 2, 2, 0},
		{"heart.statlog", Options{}, 270, 13, 2, 2, 0},
		{"balance.scale", Options{}, 625, 4, 3, 3, 0},
		{"breast.w", Options{Missing: "drop"}, 683, 9, 2, 2, 16},
		{"diabetes", Options{}, 768, 8, 2, 2, 0},
		{"ecoli", Options{}, 336, 7, 8, 8, 0},
		{"dermatology", Options{Missing: "drop"}, 358, 34, 6, 6, 8},
		{"dermatology", Options{Drop: []string{"Age"}}, 366, 33, 6, 6, 0},
		{"zoo", Options{Drop: []string{"animal"}}, 101, 16, 7, 7, 0},
		{"vowel", Options{Drop: []string{"Train or Test", "Speaker Number", "Sex"}}, 990, 10, 11, 11, 0},
		{"credit.a", Options{Missing: "drop"}, 653, 15, 2, 2, 37},
		{"credit.a", Options{Missing: "drop", Nominal: "onehot"}, 653, 6 + 2 + 4 + 3 + 14 + 9 + 2 + 2 + 2 + 3, 2, 2, 37},
		{"credit.g", Options{}, 1000, 20, 2, 2, 0},
		{"soybean", Options{Missing: "drop"}, 562, 35, 19, 15, 121},
		{"letter", Options{}, 20000, 16, 26, 26, 0},
		{"optdigits", Options{}, 5620, 64, 10, 10, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s%+v", c.file, c.opt.Drop), func(t *testing.T) {
			path := testdata.Path(t, "data/uci/"+c.file+".arff")
			d, err := Load(path, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			n, p := d.Dims()
			present := 0
			for _, k := range ClassCounts(d.Y) {
				if k > 0 {
					present++
				}
			}
			if n != c.rows || p != c.cols || d.NumClasses() != c.classes || present != c.present || d.DroppedRows != c.dropped {
				t.Errorf("%s: %d×%d, %d classes (%d present), %d dropped; want %d×%d, %d (%d), %d",
					c.file, n, p, d.NumClasses(), present, d.DroppedRows, c.rows, c.cols, c.classes, c.present, c.dropped)
			}
			if len(d.FeatureNames) != p || len(d.Y) != n || d.Name != c.file {
				t.Errorf("%s: %d names, %d labels, Name %q", c.file, len(d.FeatureNames), len(d.Y), d.Name)
			}
		})
	}
}

func TestSharedUCIDetails(t *testing.T) {
	// Missing values are rejected by default with file, line and attribute.
	path := testdata.Path(t, "data/uci/breast.w.arff")
	_, err := Load(path, Options{})
	wantErr(t, "breast.w", err, "breast.w.arff:36: ", `attribute "Bare_Nuclei" is missing ('?'); give --missing drop`)

	// Dermatology's {0,1,2,3} scores keep their numeric value.
	d, err := Load(testdata.Path(t, "data/uci/dermatology.arff"), Options{Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.FeatureNames[0]; got != "erythema" || d.X.At(0, 0) != 2 || d.X.At(0, 2) != 0 || d.X.At(0, 33) != 55 {
		t.Errorf("dermatology row 1: %q %v", got, d.X.RawRowView(0)[:4])
	}
	if !slices.Equal(d.ClassNames, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Errorf("dermatology classes %q", d.ClassNames)
	}

	// Wine's class attribute comes first; glass uses "Type"; vowel's quoted
	// names with spaces.
	d, err = Load(testdata.Path(t, "data/uci/wine.arff"), Options{})
	if err != nil || d.FeatureNames[0] != "Alcohol" || d.Y[0] != 0 || d.X.At(0, 0) != 14.23 {
		t.Errorf("wine: %v %q %v", err, d.FeatureNames[:2], d.X.RawRowView(0)[:2])
	}
	d, err = Load(testdata.Path(t, "data/uci/glass.arff"), Options{})
	if err != nil || d.ClassNames[0] != "build wind float" || d.FeatureNames[0] != "RI" {
		t.Errorf("glass: %v %q", err, d.ClassNames)
	}
	d, err = Load(testdata.Path(t, "data/uci/vowel.arff"), Options{ClassAttr: "class", Drop: []string{"train or test", "speaker number", "sex"}})
	if err != nil || d.FeatureNames[0] != "Feature 0" || d.ClassNames[1] != "hId" {
		t.Errorf("vowel: %v %q %q", err, d.FeatureNames, d.ClassNames)
	}
	_, err = Load(testdata.Path(t, "data/uci/iris.arff"), Options{ClassAttr: "species"})
	wantErr(t, "iris unknown class attribute", err, "iris.arff:", `class attribute "species" not found`, `"sepallength"`)
	_, err = Load(testdata.Path(t, "data/uci/zoo.arff"), Options{})
	if err != nil { // animal is nominal, so it loads as an ordinal feature
		t.Errorf("zoo without Drop: %v", err)
	}
}

func TestSharedSklearnAndMNIST(t *testing.T) {
	for _, c := range []struct {
		file             string
		rows, cols, ncls int
	}{
		{"sklearn/iris.csv", 150, 4, 3},
		{"sklearn/wine.csv", 178, 13, 3},
		{"sklearn/breast_cancer.csv", 569, 30, 2},
		{"sklearn/digits.csv", 1797, 64, 10},
		{"mnist/mnist10k.csv.gz", 10000, 784, 10},
	} {
		d, err := Load(testdata.Path(t, "data/"+c.file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		n, p := d.Dims()
		if n != c.rows || p != c.cols || d.NumClasses() != c.ncls {
			t.Errorf("%s: %d×%d, %d classes; want %d×%d, %d", c.file, n, p, d.NumClasses(), c.rows, c.cols, c.ncls)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
		if strings.HasPrefix(c.file, "mnist") && (mat.Max(d.X) != 1 || mat.Min(d.X) != 0) {
			t.Errorf("mnist range [%v, %v]", mat.Min(d.X), mat.Max(d.X))
		}
	}
}

// TestSharedFaces checks the face CSVs against the MATLAB files: same
// shapes, same labels, and the same rows in the same order.
func TestSharedFaces(t *testing.T) {
	for _, c := range []struct {
		csv, mat   string
		opt        Options
		rows, ncls int
	}{
		{"orl_32x32.csv.gz", "ORL_32x32.mat", Options{MatFeatures: "X", MatLabels: "Y"}, 400, 40},
		{"yale_32x32.csv.gz", "Yale_32x32.mat", Options{}, 165, 15},
		{"yaleb_32x32.csv.gz", "YaleB_32x32.mat", Options{MatFeatures: "features", MatLabels: "Label"}, 2414, 38},
		{"pie10_32x32.csv.gz", "PIE_32x32.mat", Options{}, 1700, 10},
	} {
		t.Run(c.mat, func(t *testing.T) {
			dc, err := Load(testdata.Path(t, "data/faces/"+c.csv), Options{})
			if err != nil {
				t.Fatal(err)
			}
			dm, err := Load(testdata.Path(t, "data/faces/mat/"+c.mat), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []*Dataset{dc, dm} {
				n, p := d.Dims()
				if n != c.rows || p != 1024 || d.NumClasses() != c.ncls || d.ClassNames[0] != "1" {
					t.Errorf("%s: %d×%d, %d classes, first %q; want %d×1024, %d, \"1\"", d.Name, n, p, d.NumClasses(), d.ClassNames[0], c.rows, c.ncls)
				}
				if mat.Min(d.X) < 0 || mat.Max(d.X) > 255 {
					t.Errorf("%s: pixels in [%v, %v]", d.Name, mat.Min(d.X), mat.Max(d.X))
				}
			}
			if !mat.Equal(dc.X, dm.X) {
				t.Errorf("%s and %s: rows differ", c.csv, c.mat)
			}
			if !slices.Equal(dc.Y, dm.Y) || !slices.Equal(dc.ClassNames, dm.ClassNames) {
				t.Errorf("%s and %s: labels differ", c.csv, c.mat)
			}
			// YaleB's samples are columns: the automatic orientation must
			// agree with the explicit one.
			if c.mat == "YaleB_32x32.mat" {
				opt := c.opt
				opt.MatSamples = "columns"
				d2, err := Load(testdata.Path(t, "data/faces/mat/"+c.mat), opt)
				if err != nil || !mat.Equal(d2.X, dm.X) {
					t.Errorf("explicit columns: %v", err)
				}
			}
		})
	}
	// ORL's X and Y are found by the default names (MatFeatureNames,
	// MatLabelNames), as given explicitly; YaleB's label variable "Label"
	// is none of them, and the error lists what the file has.
	orl := testdata.Path(t, "data/faces/mat/ORL_32x32.mat")
	d1, err := Load(orl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := Load(orl, Options{MatFeatures: "X", MatLabels: "Y"})
	if err != nil || !mat.Equal(d1.X, d2.X) || !slices.Equal(d1.Y, d2.Y) {
		t.Errorf("ORL defaults differ from X, Y: %v", err)
	}
	_, err = Load(testdata.Path(t, "data/faces/mat/YaleB_32x32.mat"), Options{})
	wantErr(t, "YaleB defaults", err, "YaleB_32x32.mat", `no label variable "gnd", "y", "Y", "labels", "label", "target" or "targets"`, "Label (")
}
