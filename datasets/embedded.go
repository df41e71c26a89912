package datasets

import (
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// tables holds the CSV files of embedded/ (see embedded/README.md for their
// provenance: Debian's python3-sklearn 1.2.1, originally UCI).
//
//go:embed embedded/*.csv
var tables embed.FS

// Iris returns Fisher's iris data: 150 samples, 4 features (sepal and
// petal length and width in cm), 3 classes of 50 (0 setosa, 1 versicolor,
// 2 virginica). Source: UCI Machine Learning Repository via Debian's
// python3-sklearn 1.2.1.
func Iris() *data.Dataset { return mustTable("iris") }

// Wine returns the UCI wine recognition data: 178 samples, 13 chemical
// measurements, 3 cultivars (59/71/48 samples). Source: UCI Machine
// Learning Repository via Debian's python3-sklearn 1.2.1.
func Wine() *data.Dataset { return mustTable("wine") }

// BreastCancer returns the Breast Cancer Wisconsin (Diagnostic) data: 569
// samples, 30 features of cell nuclei, 2 classes (0 malignant: 212,
// 1 benign: 357). Source: UCI Machine Learning Repository via Debian's
// python3-sklearn 1.2.1.
func BreastCancer() *data.Dataset { return mustTable("breast_cancer") }

// Digits returns the 8×8 optical handwritten digits (the test part of UCI's
// optdigits as packaged by scikit-learn): 1797 samples, 64 pixel counts in
// 0..16 (row-major, feature pixel_r_c), 10 classes 0..9. Source: UCI Machine
// Learning Repository via Debian's python3-sklearn 1.2.1.
func Digits() *data.Dataset { return mustTable("digits") }

// mustTable parses an embedded table. The files are fixed and covered by
// the tests, so a failure is a build defect and panics.
func mustTable(name string) *data.Dataset {
	d, err := parseTable(name)
	if err != nil {
		panic(err)
	}
	return d
}

// parseTable reads embedded/<name>.csv: a header "label,feature..." and
// rows of an integer label followed by numbers. Each call returns a fresh
// Dataset the caller may modify.
func parseTable(name string) (*data.Dataset, error) {
	f, err := tables.Open("embedded/" + name + ".csv")
	if err != nil {
		return nil, fmt.Errorf("datasets: embedded table %q: %w", name, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil || len(head) < 2 || head[0] != "label" {
		return nil, fmt.Errorf("datasets: embedded table %q: bad header %q (%v)", name, head, err)
	}
	features := append([]string(nil), head[1:]...)
	p := len(features)
	var vals []float64
	var labels []int
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("datasets: embedded table %q line %d: %w", name, line, err)
		}
		y, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("datasets: embedded table %q line %d: label: %w", name, line, err)
		}
		labels = append(labels, y)
		for _, s := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("datasets: embedded table %q line %d: %w", name, line, err)
			}
			vals = append(vals, v)
		}
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("datasets: embedded table %q has no rows", name)
	}
	y, orig := data.Relabel(labels)
	classes := make([]string, len(orig))
	for i, v := range orig {
		classes[i] = strconv.Itoa(v)
	}
	return &data.Dataset{
		Name:         name,
		X:            mat.NewDense(len(labels), p, vals),
		Y:            y,
		FeatureNames: features,
		ClassNames:   classes,
	}, nil
}
