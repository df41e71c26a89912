package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

const infoUsage = "info --model MODEL | -i DATA [--format text|json]"

// modelInfo is what 'dimred info' reports of a model file.
type modelInfo struct {
	File         string            `json:"file"`
	Bytes        int64             `json:"bytes"`
	Software     string            `json:"software,omitempty"`
	FileVersion  int               `json:"file_version"`
	Checksum     bool              `json:"checksum"` // the file carries a checksum, and it matched
	Method       string            `json:"method"`
	Title        string            `json:"title,omitempty"`
	Paper        string            `json:"paper,omitempty"`
	Params       map[string]string `json:"params,omitempty"`
	Features     int               `json:"features"`
	FeatureNames []string          `json:"feature_names,omitempty"`
	Preprocess   string            `json:"preprocess"`
	ClassNames   []string          `json:"class_names,omitempty"`
	Model        string            `json:"model"`
	Dims         int               `json:"dims"`
	Numbers      int               `json:"numbers"` // values in the model's matrices and vectors
	Values       []float64         `json:"values,omitempty"`
	ValuesAre    string            `json:"values_are,omitempty"` // what the values are (method.Info.Values)
}

// runInfo prints what a model file holds, after loading it whole (so its
// checksum and every matrix are checked, as transform would), or with -i
// what the readers make of a data file (dataInfo).
func runInfo(e *env, args []string) error {
	fs := newFlags(e, "info")
	modelPath := fs.String("model", "", "model file written by 'dimred fit'")
	format := fs.String("format", "text", "output: text or json")
	df := addDataFlags(e, fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*modelPath == "") == (df.input == "") {
		return usagef("give --model MODEL (what a model file holds) or -i DATA (what dimred reads from a data file), one of them")
	}
	if *format != "text" && *format != "json" {
		return usagef("--format must be text or json, got %q", *format)
	}
	if df.input != "" {
		return dataInfo(e, df, *format)
	}
	st, err := os.Stat(*modelPath)
	if err != nil {
		return err
	}
	p, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	in := modelInfo{
		File: *modelPath, Bytes: st.Size(), Software: p.Software, FileVersion: p.FileVersion, Checksum: p.FileVersion >= 3, Method: p.Method, Params: p.Params,
		Features: p.Features, FeatureNames: p.FeatureNames, ClassNames: p.ClassNames, Preprocess: "none",
		Model: embed.Describe(p.Model.Model), Dims: p.Dims(), Numbers: embed.Numbers(p.Model.Model), Values: p.Model.Values,
	}
	if mi, err := method.Lookup(p.Method); err == nil {
		in.Title, in.Paper = mi.Title, mi.Paper
		if len(in.Values) > 0 {
			in.ValuesAre = mi.Values
		}
	}
	if p.Preprocess != nil {
		in.Preprocess = p.Preprocess.Spec()
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	checked := "checksum and matrices checked"
	if !in.Checksum {
		checked = "no checksum (written before version 3); matrices checked"
	}
	e.printf("file        %s: %s, version %d, written by %s; %s\n", in.File, byteSize(in.Bytes), in.FileVersion, orUnknown(in.Software), checked)
	e.printf("method      %s", in.Method)
	if in.Title != "" {
		e.printf(": %s — %s", in.Title, in.Paper)
	}
	e.printf("\n")
	if len(in.Params) > 0 {
		keys := slices.Sorted(maps.Keys(in.Params))
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = k + "=" + in.Params[k]
		}
		e.printf("parameters  %s\n", strings.Join(kv, " "))
	}
	e.printf("input       %s%s; preprocessing %s\n", nOf(in.Features, "feature"), listed(in.FeatureNames, 6), in.Preprocess)
	if len(in.ClassNames) > 0 {
		e.printf("classes     %d%s\n", len(in.ClassNames), listed(in.ClassNames, 10))
	}
	e.printf("model       %s\n", in.Model)
	e.printf("size        %d numbers in the model's matrices (%s in memory)\n", in.Numbers, byteSize(8*int64(in.Numbers)))
	if len(in.Values) > 0 {
		e.printf("values      %s\n", valuesLine(in.Values))
		if in.ValuesAre != "" {
			e.printf("            (%s)\n", in.ValuesAre)
		}
	}
	return nil
}

// byteSize gives b in bytes, kB, MB or GB (powers of 1024, one decimal).
func byteSize(b int64) string {
	switch {
	case b < 1<<10:
		return nOf(int(b), "byte")
	case b < 1<<20:
		return fmt.Sprintf("%.1f kB", float64(b)/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2f GB", float64(b)/(1<<30))
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown version"
	}
	return s
}

// listed returns ": a, b, …, z" for names (the first max−1 and the last
// when there are more than max), or "" when there are none.
func listed(names []string, max int) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) > max {
		names = append(slices.Clone(names[:max-1]), "…", names[len(names)-1])
	}
	return ": " + strings.Join(names, ", ")
}

// valuesLine gives the count of the values and the first five and the
// last of them (all of them when there are at most eight).
// shortG formats x in 6 significant digits, a negative zero as 0.
func shortG(x float64) string { return strconv.FormatFloat(x+0, 'g', 6, 64) }

func valuesLine(v []float64) string {
	f := shortG
	var parts []string
	if len(v) <= 8 {
		for _, x := range v {
			parts = append(parts, f(x))
		}
		return fmt.Sprintf("%d: %s", len(v), strings.Join(parts, " "))
	}
	for _, x := range v[:5] {
		parts = append(parts, f(x))
	}
	return fmt.Sprintf("%d: %s … %s (first five, last)", len(v), strings.Join(parts, " "), f(v[len(v)-1]))
}

// dataSummary is what 'dimred info -i' reports of a data file: what the
// readers make of it, before any method sees it.
type dataSummary struct {
	Input        string   `json:"input"`
	Rows         int      `json:"rows"`
	Features     int      `json:"features"`
	FeatureNames []string `json:"feature_names,omitempty"`
	Classes      []string `json:"classes,omitempty"`
	ClassCounts  []int    `json:"class_counts,omitempty"`
	Unlabelled   int      `json:"unlabelled"`
	DroppedRows  int      `json:"dropped_rows,omitempty"`
	Min          float64  `json:"min"`
	Max          float64  `json:"max"`
	Constant     int      `json:"constant_columns"`   // columns with one value in every row
	Contents     []string `json:"contents,omitempty"` // a .npz's arrays, a .mat's variables
}

// dataInfo prints what the readers make of a data file: rows, features,
// classes and their sizes, the range of the values, constant columns.
func dataInfo(e *env, df *dataFlags, format string) error {
	var contents []string
	if !strings.HasPrefix(df.input, "builtin:") && df.input != "-" {
		opt, err := df.options()
		if err != nil {
			return err
		}
		if contents, err = data.Contents(df.input, opt); err != nil {
			return err
		}
	}
	ds, err := df.load()
	if err != nil {
		if len(contents) > 0 && format == "text" {
			e.printf("file holds  %s\n", strings.Join(contents, ", "))
		}
		return err
	}
	n, p := ds.Dims()
	sum := dataSummary{Contents: contents, Input: df.input, Rows: n, Features: p, FeatureNames: ds.FeatureNames, DroppedRows: ds.DroppedRows,
		Min: math.Inf(1), Max: math.Inf(-1)}
	if ds.Y != nil {
		sum.Classes = ds.ClassNames
		sum.ClassCounts = make([]int, len(ds.ClassNames)) // a class named but without rows counts 0
		for _, c := range ds.Y {
			if c == data.Unlabeled {
				sum.Unlabelled++
			} else {
				sum.ClassCounts[c]++
			}
		}
	}
	// The columns' ranges are what min-max scaling fits.
	fit, err := preprocess.MinMax{}.Fit(ds.X)
	if err != nil {
		return err
	}
	mm := fit.(*preprocess.MinMaxFitted)
	for j := range mm.Min {
		sum.Min, sum.Max = min(sum.Min, mm.Min[j]), max(sum.Max, mm.Max[j])
		if mm.Min[j] == mm.Max[j] {
			sum.Constant++
		}
	}
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	if len(sum.Contents) > 0 {
		e.printf("file holds  %s\n", strings.Join(sum.Contents, ", "))
	}
	e.printf("data        %s: %s × %s%s\n", sum.Input, nOf(n, "row"), nOf(p, "feature"), listed(sum.FeatureNames, 6))
	if sum.DroppedRows > 0 {
		e.printf("dropped     %s (missing values, --missing drop)\n", nOf(sum.DroppedRows, "row"))
	}
	if ds.Y == nil {
		e.printf("labels      none\n")
	} else {
		parts := make([]string, len(sum.Classes))
		for c, name := range sum.Classes {
			parts[c] = fmt.Sprintf("%s (%d)", name, sum.ClassCounts[c])
		}
		if len(parts) > 12 {
			parts = append(parts[:11], "…", parts[len(parts)-1])
		}
		e.printf("classes     %d: %s\n", len(sum.Classes), strings.Join(parts, ", "))
		if sum.Unlabelled > 0 {
			e.printf("unlabelled  %s\n", nOf(sum.Unlabelled, "row"))
		}
	}
	e.printf("values      from %s to %s; %s constant in every row\n", shortG(sum.Min), shortG(sum.Max), nOf(sum.Constant, "column"))
	return nil
}
