// Package data holds the Dataset type shared by every part of dimred and
// the readers and writers of the file formats people use for it: it reads
// CSV/TSV, LIBSVM/svmlight, ARFF, NumPy .npy and .npz and MATLAB v5 .mat,
// and writes CSV/TSV, .npy and .npz (the bytes NumPy writes) and .mat
// (the variables scipy.io.savemat writes), any of them gzipped; CSV, TSV,
// LIBSVM and .npy also stream a chunk of rows at a time (Scan).
package data

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Unlabeled is the label of a row without a class (semi-supervised data).
const Unlabeled = -1

// Dataset is a table of samples: X has one sample per row. Y holds one
// label per row, 0..C-1, or Unlabeled (-1); Y is nil for data without
// labels. ClassNames[c] is the original name of class c (for example the
// ARFF nominal value or the CSV label text); FeatureNames[j] names column j.
// DroppedRows counts the rows a loader left out (ARFF rows with missing
// values under Options.Missing = "drop"); it is informational only. Notes
// are what a reader guessed that may be wrong (a label column taken by the
// last-column rule that looks like a feature, a header row of numbers),
// each a sentence saying which option settles it; the command line prints
// them on stderr.
type Dataset struct {
	Name         string
	X            *mat.Dense
	Y            []int
	FeatureNames []string
	ClassNames   []string
	DroppedRows  int
	Notes        []string
}

// Dims returns the number of rows and columns of X.
func (d *Dataset) Dims() (n, p int) {
	if d == nil || d.X == nil {
		return 0, 0
	}
	return d.X.Dims()
}

// NumClasses returns the number of classes (len(ClassNames) if set,
// otherwise 1 + the largest label).
func (d *Dataset) NumClasses() int {
	if len(d.ClassNames) > 0 {
		return len(d.ClassNames)
	}
	return NumClasses(d.Y)
}

// Validate checks that X is non-empty and finite and that Y, when present,
// has one entry per row with values in [-1, C). The error names the
// dataset, the rule and the offending value.
func (d *Dataset) Validate() error {
	if d == nil || d.X == nil {
		return fmt.Errorf("dataset %q: no data", d.name())
	}
	if err := CheckFinite(d.name(), d.X); err != nil {
		return err
	}
	n, _ := d.X.Dims()
	if d.Y != nil && len(d.Y) != n {
		return fmt.Errorf("dataset %q: %d labels for %d rows", d.name(), len(d.Y), n)
	}
	c := d.NumClasses()
	for i, v := range d.Y {
		if v < -1 || (len(d.ClassNames) > 0 && v >= c) {
			return fmt.Errorf("dataset %q: row %d has label %d, want -1 (unlabeled) or 0..%d", d.name(), i+1, v, c-1)
		}
	}
	return nil
}

func (d *Dataset) name() string {
	if d == nil || d.Name == "" {
		return "input"
	}
	return d.Name
}

// Subset returns the rows idx of d (X copied, labels and names shared).
func (d *Dataset) Subset(idx []int) *Dataset {
	_, p := d.X.Dims()
	x := mat.NewDense(max(len(idx), 1), p, nil)
	if len(idx) == 0 {
		x = &mat.Dense{}
	}
	var y []int
	if d.Y != nil {
		y = make([]int, len(idx))
	}
	for k, i := range idx {
		x.SetRow(k, d.X.RawRowView(i))
		if y != nil {
			y[k] = d.Y[i]
		}
	}
	return &Dataset{Name: d.Name, X: x, Y: y, FeatureNames: d.FeatureNames, ClassNames: d.ClassNames}
}

// Columns returns a new matrix of the columns cols of x, in that order
// (the columns of a precomputed Gram matrix that belong to a subset of
// its rows).
func Columns(x *mat.Dense, cols []int) *mat.Dense {
	r, _ := x.Dims()
	if r == 0 || len(cols) == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(r, len(cols), nil)
	for i := 0; i < r; i++ {
		row, dst := x.RawRowView(i), out.RawRowView(i)
		for k, j := range cols {
			dst[k] = row[j]
		}
	}
	return out
}

// CheckFinite returns an error naming what, the row and the column (1-based)
// of the first NaN or Inf entry of x.
//
// A NaN or an infinity is a *NonFiniteError (errors.As finds it through
// the callers' wrapping: a service can tell bad input from other errors).
func CheckFinite(what string, x mat.Matrix) error {
	r, c := x.Dims()
	if r == 0 || c == 0 {
		return fmt.Errorf("%s: empty matrix (%d×%d)", what, r, c)
	}
	if rm, ok := x.(mat.RawMatrixer); ok {
		// Row slices instead of At: a model's gigabyte of coefficients
		// is checked at each load.
		raw := rm.RawMatrix()
		for i := 0; i < r; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				if v-v != 0 { // NaN and ±Inf, and only they, give NaN
					return &NonFiniteError{What: what, Row: i + 1, Col: j + 1, Value: v}
				}
			}
		}
		return nil
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &NonFiniteError{What: what, Row: i + 1, Col: j + 1, Value: v}
			}
		}
	}
	return nil
}

// CheckDistanceRange returns an error when x (finite) has an entry so large
// that squared Euclidean distances between rows of its c columns may
// overflow, |x| > √(MaxFloat64/(4c)) (about 6.7e153/√c): distance-based
// steps (k-means, nearest neighbours, Parzen windows) would compare +Inf
// with +Inf. The error names the entry and asks for scaled data.
func CheckDistanceRange(what string, x mat.Matrix) error {
	r, c := x.Dims()
	bound := math.Sqrt(math.MaxFloat64 / (4 * float64(max(c, 1))))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := x.At(i, j); math.Abs(v) > bound {
				return fmt.Errorf("%s: row %d, column %d is %g; squared distances and scatter of rows of %d columns overflow beyond |x| ≈ %.3g: scale the data", what, i+1, j+1, v, c, bound)
			}
		}
	}
	return nil
}

// NumClasses returns 1 + the largest label in y (0 if none is labelled).
func NumClasses(y []int) int {
	c := 0
	for _, v := range y {
		if v >= c {
			if v == math.MaxInt {
				return math.MaxInt // saturated: DenseLabels renumbers such labels
			}
			c = v + 1
		}
	}
	return c
}

// LabelledRows returns the indices of the rows of y with a label (not
// Unlabeled), in order.
func LabelledRows(y []int) []int {
	var idx []int
	for i, v := range y {
		if v != Unlabeled {
			idx = append(idx, i)
		}
	}
	return idx
}

// ClassCounts returns the number of rows of each class 0..C-1 (unlabeled
// rows are not counted).
func ClassCounts(y []int) []int {
	counts := make([]int, NumClasses(y))
	for _, v := range y {
		if v >= 0 {
			counts[v]++
		}
	}
	return counts
}

// DenseLabels returns y when its classes 0..C−1 number at most len(y)
// (so per-class tables of C entries cost no more than the rows), and
// otherwise Relabel's labels with orig their original values: a label of
// 1e8 on a few rows would make tables of 1e8 classes. orig is nil when y
// is returned as it is.
func DenseLabels(y []int) (out []int, orig []int) {
	if NumClasses(y) <= len(y) {
		return y, nil
	}
	return Relabel(y)
}

// Relabel maps arbitrary integer labels (keeping -1 as Unlabeled) to
// 0..C-1 in increasing order of the original value, and returns the new
// labels and the original value of each class.
func Relabel(y []int) (out []int, orig []int) {
	seen := map[int]bool{}
	for _, v := range y {
		if v != Unlabeled {
			seen[v] = true
		}
	}
	for v := range seen {
		orig = append(orig, v)
	}
	sort.Ints(orig)
	idx := make(map[int]int, len(orig))
	for i, v := range orig {
		idx[v] = i
	}
	out = make([]int, len(y))
	for i, v := range y {
		if v == Unlabeled {
			out[i] = Unlabeled
		} else {
			out[i] = idx[v]
		}
	}
	return out, orig
}

// KeepClasses returns the rows whose class is one of names (class names
// as in ClassNames); rows without a label are dropped. An unknown name is
// an error that lists the classes. The class indices are kept as they are
// (CompactClasses renumbers them).
func (d *Dataset) KeepClasses(names []string) (*Dataset, error) {
	idx, err := d.ClassRows(names)
	if err != nil {
		return nil, err
	}
	return d.Subset(idx), nil
}

// ClassRows returns the indices, in order, of the rows whose class is one
// of names: the rows KeepClasses keeps.
func (d *Dataset) ClassRows(names []string) ([]int, error) {
	keep := map[int]bool{}
	for _, n := range names {
		c := slices.Index(d.ClassNames, n)
		if c < 0 {
			return nil, fmt.Errorf("%s: no class %q (classes: %s)", d.name(), n, strings.Join(d.ClassNames, ", "))
		}
		keep[c] = true
	}
	var idx []int
	for i, y := range d.Y {
		if y >= 0 && keep[y] {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// CompactClasses removes the classes that no row has (an ARFF file may
// declare classes absent from its data, or rows may have been dropped),
// renumbering Y and ClassNames in the same order. It returns the number of
// classes removed.
func (d *Dataset) CompactClasses() int {
	if NumClasses(d.Y) > len(d.Y) {
		// Labels beyond the rows (1e12, math.MaxInt): a table of that
		// many classes cannot be made; renumber by value, as
		// DenseLabels does, and keep the names of the classes present.
		before := d.NumClasses()
		y, orig := Relabel(d.Y)
		if len(d.ClassNames) > 0 {
			names := make([]string, len(orig))
			for c, v := range orig {
				if v < len(d.ClassNames) {
					names[c] = d.ClassNames[v]
				} else {
					names[c] = strconv.Itoa(v)
				}
			}
			d.ClassNames = names
		}
		d.Y = y
		return before - len(orig)
	}
	counts := ClassCounts(d.Y)
	c := d.NumClasses()
	newIdx := make([]int, c)
	k := 0
	for i := 0; i < c; i++ {
		newIdx[i] = -1
		if i < len(counts) && counts[i] > 0 {
			newIdx[i] = k
			k++
		}
	}
	if k == c {
		return 0
	}
	y := make([]int, len(d.Y))
	for i, v := range d.Y {
		if v == Unlabeled {
			y[i] = Unlabeled
		} else {
			y[i] = newIdx[v]
		}
	}
	d.Y = y
	if len(d.ClassNames) > 0 {
		names := make([]string, 0, k)
		for i, name := range d.ClassNames {
			if newIdx[i] >= 0 {
				names = append(names, name)
			}
		}
		d.ClassNames = names
	}
	return c - k
}

// NonFiniteError is CheckFinite's error for a NaN or an infinity: the
// matrix it found it in (What) and its 1-based row and column.
type NonFiniteError struct {
	What     string
	Row, Col int
	Value    float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("%s: row %d, column %d is %v; values must be finite", e.What, e.Row, e.Col, e.Value)
}
