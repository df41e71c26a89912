// Package preprocess holds the feature transformations applied before a
// dimensionality-reduction method: per-column scalers (min-max to [-1, 1],
// z-score), per-row L2 normalisation and PCA keeping a fraction of the
// variance.
//
// Every transformation is fitted on training rows only and then applied to
// new rows, so no statistic of a test fold leaks into training:
//
//	p, _ := preprocess.Parse("unit,pca:0.99")
//	f, err := p.Fit(Xtrain)          // statistics of Xtrain only
//	Ztrain, _ := f.Apply(Xtrain)
//	Ztest, _ := f.Apply(Xtest)       // same map for new rows
//
// Fitted state has exported fields and a Kind, so a saved model can store it
// with MarshalFitted and restore it with UnmarshalFitted.
package preprocess

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
)

// Step is a configured, unfitted preprocessing step.
type Step interface {
	// Spec is the step's token in a spec string, for example "minmax" or
	// "pca:0.99"; Parse(s.Spec()) gives back an equivalent step.
	Spec() string
	// Fit learns the step's statistics from the rows of X. X is not
	// modified.
	Fit(X *mat.Dense) (Fitted, error)
}

// Fitted is a fitted preprocessing step. Implementations are pointers to
// structs with exported, JSON-serialisable fields.
type Fitted interface {
	// Kind names the step ("minmax", "zscore", "unit", "pca", "pipeline");
	// it is the key MarshalFitted writes and UnmarshalFitted reads.
	Kind() string
	// Apply maps the rows of X (same columns as the training data) to a
	// new matrix; X is not modified.
	Apply(X *mat.Dense) (*mat.Dense, error)
	// InDims is the number of columns Apply accepts.
	InDims() int
	// OutDims is the number of columns Apply returns.
	OutDims() int
}

// Pipeline is a sequence of steps applied left to right. The empty
// pipeline (spec "none") is the identity.
type Pipeline []Step

// Spec returns the pipeline's spec string, "none" when empty.
func (p Pipeline) Spec() string {
	if len(p) == 0 {
		return "none"
	}
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = s.Spec()
	}
	return strings.Join(parts, ",")
}

// Fit fits each step on the output of the previous ones, all on the
// training rows X, and returns the fitted pipeline.
func (p Pipeline) Fit(X *mat.Dense) (*FittedPipeline, error) {
	if X == nil {
		return nil, fmt.Errorf("preprocess %s: training data is nil", p.Spec())
	}
	if err := data.CheckFinite("preprocess "+p.Spec()+": training data", X); err != nil {
		return nil, err
	}
	_, c := X.Dims()
	fp := &FittedPipeline{Cols: c}
	cur := X
	for i, s := range p {
		if s == nil {
			return nil, fmt.Errorf("preprocess: step %d of %q is nil", i+1, p.Spec())
		}
		f, err := s.Fit(cur)
		if err != nil {
			return nil, err
		}
		fp.Steps = append(fp.Steps, f)
		if i < len(p)-1 {
			if cur, err = f.Apply(cur); err != nil {
				return nil, err
			}
		}
	}
	return fp, nil
}

// FittedPipeline is a fitted Pipeline. Its JSON form is
//
//	{"cols": 4, "steps": [{"kind": "minmax", "state": {...}}, ...]}
//
// (see MarshalFitted), so it can be a field of a saved model directly.
type FittedPipeline struct {
	// Cols is the number of input columns.
	Cols int
	// Steps are the fitted steps, applied in order.
	Steps []Fitted
}

// Kind returns "pipeline".
func (f *FittedPipeline) Kind() string { return "pipeline" }

// InDims returns the number of input columns.
func (f *FittedPipeline) InDims() int { return f.Cols }

// OutDims returns the number of columns Apply returns.
func (f *FittedPipeline) OutDims() int {
	if len(f.Steps) == 0 {
		return f.Cols
	}
	return f.Steps[len(f.Steps)-1].OutDims()
}

// Spec returns a description of the fitted steps, for example
// "unit,pca(37)" ("none" when empty).
func (f *FittedPipeline) Spec() string {
	if len(f.Steps) == 0 {
		return "none"
	}
	parts := make([]string, len(f.Steps))
	for i, s := range f.Steps {
		parts[i] = s.Kind()
		if s.Kind() == "pca" {
			parts[i] = fmt.Sprintf("pca(%d)", s.OutDims())
		}
	}
	return strings.Join(parts, ",")
}

// Apply applies every step in order. X must be finite with Cols columns;
// the result is always a new matrix (a copy of X for the empty pipeline).
func (f *FittedPipeline) Apply(X *mat.Dense) (*mat.Dense, error) {
	if err := checkApply("pipeline", X, f.Cols); err != nil {
		return nil, err
	}
	if len(f.Steps) == 0 {
		return mat.DenseCopyOf(X), nil
	}
	cur := X
	for _, s := range f.Steps {
		next, err := s.Apply(cur)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// checkApply validates the input of an Apply: non-nil, finite and with the
// number of columns the step was fitted on.
func checkApply(kind string, X *mat.Dense, cols int) error {
	if X == nil {
		return fmt.Errorf("preprocess %s: input is nil", kind)
	}
	if _, c := X.Dims(); c != cols {
		return fmt.Errorf("preprocess %s: input has %d columns, fitted on %d", kind, c, cols)
	}
	return data.CheckFinite("preprocess "+kind+": input", X)
}

// checkFit validates training data of a step's Fit.
func checkFit(kind string, X *mat.Dense) error {
	if X == nil {
		return fmt.Errorf("preprocess %s: training data is nil", kind)
	}
	return data.CheckFinite("preprocess "+kind+": training data", X)
}

// ValidSpecs lists the tokens Parse accepts.
const ValidSpecs = `"none", "minmax", "zscore", "unit" (alias "l2"), "pca" or "pca:F" with 0 < F ≤ 1`

// Parse reads a comma-separated spec such as "minmax", "unit,pca:0.99" or
// "none" (also ""). Tokens are case-insensitive and may be padded with
// spaces: "minmax" (MinMax), "zscore" (ZScore), "unit" or "l2" (Unit),
// "pca" (PCA with the default fraction 0.99) and "pca:F" (PCA keeping
// fraction F of the variance, 0 < F ≤ 1). "none" must stand alone.
func Parse(spec string) (Pipeline, error) {
	s := strings.TrimSpace(strings.ToLower(spec))
	if s == "" || s == "none" {
		return Pipeline{}, nil
	}
	var p Pipeline
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		name, arg, hasArg := strings.Cut(tok, ":")
		name = strings.TrimSpace(name)
		arg = strings.TrimSpace(arg)
		if hasArg && name != "pca" {
			return nil, fmt.Errorf("preprocess spec %q: step %q takes no argument; valid steps: %s", spec, name, ValidSpecs)
		}
		switch name {
		case "minmax":
			p = append(p, MinMax{})
		case "zscore":
			p = append(p, ZScore{})
		case "unit", "l2":
			p = append(p, Unit{})
		case "pca":
			f := DefaultPCAFraction
			if hasArg {
				v, err := strconv.ParseFloat(arg, 64)
				if err != nil {
					return nil, fmt.Errorf("preprocess spec %q: pca fraction %q is not a number", spec, arg)
				}
				if err := checkFraction(v); err != nil {
					return nil, fmt.Errorf("preprocess spec %q: %w", spec, err)
				}
				f = v
			}
			p = append(p, PCA{Fraction: f})
		case "none":
			return nil, fmt.Errorf("preprocess spec %q: \"none\" cannot be combined with other steps", spec)
		case "":
			return nil, fmt.Errorf("preprocess spec %q: empty step; valid steps: %s", spec, ValidSpecs)
		default:
			return nil, fmt.Errorf("preprocess spec %q: unknown step %q; valid steps: %s", spec, name, ValidSpecs)
		}
	}
	return p, nil
}

// FitApply parses spec, fits it on the rows of X and returns the fitted
// pipeline with X mapped through it: for rows that are both the training
// and the transformed data (a figure's embedding, a set scaled once).
func FitApply(spec string, X *mat.Dense) (*FittedPipeline, *mat.Dense, error) {
	p, err := Parse(spec)
	if err != nil {
		return nil, nil, err
	}
	f, err := p.Fit(X)
	if err != nil {
		return nil, nil, err
	}
	x, err := f.Apply(X)
	if err != nil {
		return nil, nil, err
	}
	return f, x, nil
}

// envelope is the JSON form of one fitted step.
type envelope struct {
	Kind  string          `json:"kind"`
	State json.RawMessage `json:"state"`
}

// validator is implemented by every fitted type: it checks state read from
// JSON before use.
type validator interface {
	validate() error
}

// newFitted returns an empty fitted value of the given kind.
func newFitted(kind string) (Fitted, bool) {
	switch kind {
	case "minmax":
		return &MinMaxFitted{}, true
	case "zscore":
		return &ZScoreFitted{}, true
	case "unit":
		return &UnitFitted{}, true
	case "pca":
		return &PCAFitted{}, true
	case "pipeline":
		return &FittedPipeline{}, true
	}
	return nil, false
}

// MarshalFitted encodes any fitted step of this package (including a
// *FittedPipeline) as {"kind": "...", "state": {...}}.
func MarshalFitted(f Fitted) ([]byte, error) {
	if f == nil {
		return nil, fmt.Errorf("preprocess: MarshalFitted of nil")
	}
	if _, ok := newFitted(f.Kind()); !ok {
		return nil, fmt.Errorf("preprocess: MarshalFitted: unknown kind %q", f.Kind())
	}
	state, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("preprocess: encoding %s: %w", f.Kind(), err)
	}
	return json.Marshal(envelope{Kind: f.Kind(), State: state})
}

// UnmarshalFitted decodes the output of MarshalFitted and checks that the
// state is consistent (lengths, finiteness); a *FittedPipeline is returned
// for kind "pipeline".
func UnmarshalFitted(b []byte) (Fitted, error) {
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("preprocess: decoding fitted step: %w", err)
	}
	f, ok := newFitted(e.Kind)
	if !ok {
		return nil, fmt.Errorf("preprocess: decoding fitted step: unknown kind %q (want minmax, zscore, unit, pca or pipeline)", e.Kind)
	}
	if len(e.State) == 0 {
		return nil, fmt.Errorf("preprocess: decoding fitted %s: missing state", e.Kind)
	}
	if err := json.Unmarshal(e.State, f); err != nil {
		return nil, fmt.Errorf("preprocess: decoding fitted %s: %w", e.Kind, err)
	}
	if err := f.(validator).validate(); err != nil {
		return nil, fmt.Errorf("preprocess: decoding fitted %s: %w", e.Kind, err)
	}
	return f, nil
}

type pipelineJSON struct {
	Cols  int               `json:"cols"`
	Steps []json.RawMessage `json:"steps"`
}

// MarshalJSON encodes the pipeline as {"cols": c, "steps": [...]}, each
// step in the MarshalFitted form.
func (f *FittedPipeline) MarshalJSON() ([]byte, error) {
	pj := pipelineJSON{Cols: f.Cols, Steps: make([]json.RawMessage, len(f.Steps))}
	for i, s := range f.Steps {
		b, err := MarshalFitted(s)
		if err != nil {
			return nil, err
		}
		pj.Steps[i] = b
	}
	return json.Marshal(pj)
}

// UnmarshalJSON decodes the MarshalJSON form and validates it.
func (f *FittedPipeline) UnmarshalJSON(b []byte) error {
	var pj pipelineJSON
	if err := json.Unmarshal(b, &pj); err != nil {
		return err
	}
	out := FittedPipeline{Cols: pj.Cols}
	for i, raw := range pj.Steps {
		s, err := UnmarshalFitted(raw)
		if err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
		out.Steps = append(out.Steps, s)
	}
	if err := out.validate(); err != nil {
		return err
	}
	*f = out
	return nil
}

func (f *FittedPipeline) validate() error {
	if f.Cols < 1 {
		return fmt.Errorf("pipeline: cols = %d, want ≥ 1", f.Cols)
	}
	in := f.Cols
	for i, s := range f.Steps {
		if s == nil {
			return fmt.Errorf("pipeline: step %d is nil", i+1)
		}
		if s.InDims() != in {
			return fmt.Errorf("pipeline: step %d (%s) takes %d columns, previous output has %d", i+1, s.Kind(), s.InDims(), in)
		}
		in = s.OutDims()
	}
	return nil
}
