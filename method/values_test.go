package method

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Every registered method says what its fits' Values are (Info.Values,
// shown by 'dimred info --model' and 'methods -v'), and what it says
// holds on a fit: the order it names ("largest first" / "smallest
// first"), the [0, 1] range it names, and for PCA and KPCA the
// variances the values are said to be, checked against the training
// embedding (1e-9 relative).
func TestValuesDescribed(t *testing.T) {
	x, y := paramsData(t)
	n, _ := x.Dims()
	type fit struct {
		info   Info
		params map[string]string
	}
	var fits []fit
	for _, info := range All() {
		fits = append(fits, fit{info, nil})
		switch info.Name { // the other routes the text names
		case "sr", "ksr", "mklsr":
			fits = append(fits, fit{info, map[string]string{"solver": "dense"}}, fit{info, map[string]string{"ritz": "true"}})
		case "mie0", "bere0", "kmie0", "kbere0":
			fits = append(fits, fit{info, map[string]string{"mstep": "ratio"}})
		}
	}
	for _, f := range fits {
		info := f.info
		if info.Values == "" {
			t.Errorf("%s: Info.Values is empty", info.Name)
			continue
		}
		m, err := New(info.Name, f.params)
		if err != nil {
			t.Fatal(err)
		}
		z, vals := fitZ(t, info.Name, m, x, y, 0)
		if len(vals) == 0 {
			t.Errorf("%s: the fit has no values", info.Name)
			continue
		}
		tol := 1e-9 * math.Max(math.Abs(vals[0]), math.Abs(vals[len(vals)-1]))
		for i := 1; i < len(vals); i++ {
			switch {
			case strings.Contains(info.Values, ", largest first") && vals[i] > vals[i-1]+tol,
				strings.Contains(info.Values, ", smallest first") && vals[i] < vals[i-1]-tol:
				t.Errorf("%s: values %v are not in the order %q says", info.Name, vals, info.Values)
			}
		}
		if strings.Contains(info.Values, "in [0, 1]") {
			for _, v := range vals {
				if v < -1e-12 || v > 1+1e-12 {
					t.Errorf("%s: value %v outside [0, 1]", info.Name, v)
				}
			}
		}
		// PCA's eigenvalues of X̄ᵀX̄ and KPCA's of K̃ are both the sum of
		// squares of the centred training embedding along each direction.
		if info.Name == "pca" || info.Name == "kpca" {
			for j, v := range vals {
				col := mat.Col(nil, j, z)
				var mean, ss float64
				for _, c := range col {
					mean += c / float64(n)
				}
				for _, c := range col {
					ss += (c - mean) * (c - mean)
				}
				if math.Abs(ss-v) > 1e-9*vals[0] {
					t.Errorf("%s: direction %d: value %v, but the training rows' sum of squares along it is %v", info.Name, j+1, v, ss)
				}
			}
		}
	}
}
