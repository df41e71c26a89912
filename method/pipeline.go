package method

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/preprocess"
	"github.com/dimred/dimred/progress"
)

// Pipeline is a fitted model with what it needs to map new rows: the
// fitted preprocessing (applied first), the method's model, and the
// metadata of the fit (method, parameters, input feature count and names,
// class names, the software that saved it). It is what the library saves
// (Save) and loads (LoadPipeline) and what 'dimred fit' writes; its
// Transform applies the preprocessing, so a loaded pipeline maps rows
// exactly as 'dimred transform' does. It implements Model.
type Pipeline struct {
	Method string
	Params map[string]string
	// Preprocess is the fitted preprocessing (nil: none).
	Preprocess *preprocess.FittedPipeline
	Model      *Fitted
	// Features is the number of input columns.
	Features     int
	FeatureNames []string
	ClassNames   []string
	// LIBSVMZeroBased says that the fit read a zero-based LIBSVM file (one
	// with an index 0, read with --zero-based, or whose header comment
	// says so): a LIBSVM file of new rows is then read zero-based too,
	// even without an index 0, which would otherwise put every feature a
	// column to the left (data.Options.ZeroBased, data.LIBSVMZeroBased).
	LIBSVMZeroBased bool
	// Software is the version that saved the pipeline (LoadPipeline).
	Software string
	// FileVersion is the model file version it was loaded from (0: not
	// loaded; versions before 3 carry no checksum).
	FileVersion int
}

// PipelineSpec says what to fit: a registered method with its parameters
// (as 'dimred fit -m NAME -p key=value'), the preprocessing (a
// preprocess spec such as "minmax"; "" or "none": none) and the output
// dimensions (0: the most the method gives).
type PipelineSpec struct {
	Method string
	Params map[string]string
	Scale  string
	Dims   int
	// Progress, when not nil, receives the progress lines of iterative
	// methods (Progresser: one line per EM iteration and the stop reason).
	Progress func(string)
}

// Fit fits the preprocessing on the rows of ds, then the method on the
// preprocessed rows; ctx cancels it (FitContext).
func (s PipelineSpec) Fit(ctx context.Context, ds *data.Dataset) (*Pipeline, error) {
	p, _, err := s.fit(ctx, ds, false)
	return p, err
}

// FitTransform is Fit that also returns the embedding of the rows of ds
// (the one the fit computed, when the method keeps it: see FitTransform).
func (s PipelineSpec) FitTransform(ctx context.Context, ds *data.Dataset) (*Pipeline, *mat.Dense, error) {
	return s.fit(ctx, ds, true)
}

func (s PipelineSpec) fit(ctx context.Context, ds *data.Dataset, embedRows bool) (*Pipeline, *mat.Dense, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	m, err := New(s.Method, s.Params)
	if err != nil {
		return nil, nil, err
	}
	if p, ok := m.(Progresser); ok && s.Progress != nil {
		m = p.WithProgress(s.Progress)
	}
	if ds == nil || ds.X == nil {
		return nil, nil, fmt.Errorf("%s: no data to fit", s.Method)
	}
	if err := ds.Validate(); err != nil {
		return nil, nil, err
	}
	spec, err := preprocess.Parse(s.Scale)
	if err != nil {
		return nil, nil, err
	}
	if s.Params["space"] == SpacePrecomputed && len(spec) > 0 {
		return nil, nil, fmt.Errorf("%s: scale %q with space=precomputed: the rows are a Gram matrix, whose columns are not features to scale; use none", s.Method, s.Scale)
	}
	pre, err := spec.Fit(ds.X)
	if err != nil {
		return nil, nil, err
	}
	x, err := pre.Apply(ds.X)
	if err != nil {
		return nil, nil, err
	}
	if !embedRows {
		ctx = embed.WithoutTrain(ctx) // the model is the same; its rows' embedding is not asked for
	}
	model, err := FitContext(ctx, m, x, ds.Y, s.Dims)
	if err != nil {
		return nil, nil, graph.NameClass(err, ds.ClassNames)
	}
	f, ok := model.(*Fitted)
	if !ok {
		return nil, nil, fmt.Errorf("%s: the fit returned a %T, not a *method.Fitted", s.Method, model)
	}
	info, _ := Lookup(s.Method)
	_, d := ds.Dims()
	p := &Pipeline{Method: info.Name, Params: maps.Clone(s.Params), Preprocess: pre, Model: f, Features: d,
		FeatureNames: slices.Clone(ds.FeatureNames), ClassNames: slices.Clone(ds.ClassNames)}
	if len(pre.Steps) == 0 {
		p.Preprocess = nil
	}
	if !embedRows {
		return p, nil, nil
	}
	if f.Train != nil {
		if r, c := f.Train.Dims(); r == len(ds.Y) && c == f.Dims() {
			return p, f.Train, nil
		}
	}
	z, err := f.Transform(x)
	return p, z, err
}

// AsMethod returns s as a Method, so that a preprocessing fitted on the
// training rows only can be part of one method of a comparison while the
// others see the rows without it: seed 000 §IV-C, "for the linear methods
// only, we preprocessed the datasets with PCA to hold 99 % of the variance"
// (evaluate.NamedMethod{Method: PipelineSpec{Method: "lda", Scale:
// "pca:0.99"}.AsMethod()}). Its Fit(X, y, dims) is s.Fit with Dims = dims
// on the rows X (labels y, −1 unlabeled), under the method's Context when
// one is set (FitContext); the model is the *Pipeline, whose Transform
// applies the fitted preprocessing first. s.Dims is ignored.
func (s PipelineSpec) AsMethod() Method { return specMethod{Spec: s} }

// specMethod is PipelineSpec.AsMethod's Method.
type specMethod struct {
	Spec PipelineSpec
	// Context cancels the fit (set by WithContext); nil: none.
	Context context.Context
}

// DimensionDependent implements DimensionDependent: the spec's method
// decides (a spec that does not build is not, and fails at Fit).
func (m specMethod) DimensionDependent() bool {
	info, err := Lookup(m.Spec.Method)
	if err != nil {
		return false
	}
	inner, err := info.New(m.Spec.Params)
	return err == nil && RefitsPerDimension(inner)
}

func (m specMethod) Fit(x *mat.Dense, y []int, dims int) (Model, error) {
	ctx := m.Context
	if ctx == nil {
		ctx = context.Background()
	}
	s := m.Spec
	s.Dims = dims
	return s.Fit(ctx, &data.Dataset{Name: s.Method + " training rows", X: x, Y: y})
}

// Dims is the number of output dimensions.
func (p *Pipeline) Dims() int { return p.Model.Dims() }

// Truncate returns a copy of p that keeps its first k output dimensions
// (and their values); p is unchanged. Transforming with it costs what k
// dimensions cost: a kernel model of 10 000 rows and 9 999 dimensions
// maps rows through an n×k block of its coefficients, not all of them.
func (p *Pipeline) Truncate(k int) (*Pipeline, error) {
	m, err := embed.Truncate(p.Model.Model, k)
	if err != nil {
		return nil, fmt.Errorf("%s model: %w", p.Method, err)
	}
	q := *p
	f := *p.Model
	f.Model, f.Train = m, nil
	if len(f.Values) > k {
		f.Values = f.Values[:k:k]
	}
	q.Model = &f
	return &q, nil
}

// Transform maps raw rows (the columns the pipeline was fitted on)
// through the preprocessing and the model.
func (p *Pipeline) Transform(x *mat.Dense) (*mat.Dense, error) {
	if p == nil || p.Model == nil || p.Model.Model == nil {
		return nil, errEmptyPipeline
	}
	if x == nil {
		return nil, fmt.Errorf("%s model: no rows to transform", p.Method)
	}
	if _, c := x.Dims(); p.Features > 0 && c != p.Features {
		return nil, fmt.Errorf("%s model: the rows have %d features, the model was fitted on %d", p.Method, c, p.Features)
	}
	if p.Preprocess != nil {
		raw := x
		var err error
		if x, err = p.Preprocess.Apply(x); err != nil {
			return nil, err
		}
		if err := scaledFinite(raw, x, p.Preprocess.Spec()); err != nil {
			return nil, fmt.Errorf("%s model: %w", p.Method, err)
		}
	}
	return p.Model.Transform(x)
}

// errEmptyPipeline is Transform's error for a nil or zero Pipeline.
var errEmptyPipeline = errors.New("method: Transform of an empty pipeline (nil, or not made by PipelineSpec.Fit or LoadPipeline)")

// TransformChunk is the number of rows TransformContext maps at a time.
const TransformChunk = 1000

// TransformContext is Transform in chunks of TransformChunk rows
// (TransformChunked): it stops between chunks when ctx is cancelled, a
// kernel model holds TransformChunk × N kernel values at a time instead
// of n × N, and ctx's progress reporter (progress.With) hears the share
// of rows mapped when there are at least progress.MinOrder of them. The
// result is Transform's (each row is mapped alone): bit for bit in the
// pure-Go build, to rounding in the openblas build, whose products sum
// in an order that depends on the chunk's shape.
func (p *Pipeline) TransformContext(ctx context.Context, x *mat.Dense) (*mat.Dense, error) {
	var m *progress.Meter
	if x != nil {
		m = progress.Start(ctx, x.RawMatrix().Rows, "transform: rows mapped")
	}
	return p.TransformChunked(ctx, x, TransformChunk, func(mapped, n int) { m.Done(float64(mapped) / float64(n)) })
}

// TransformChunked is Transform of x chunk rows at a time, calling
// done(rows mapped, rows) after each chunk (done may be nil) and
// returning ctx's error when it is cancelled between chunks. In an error
// of a later chunk, the row of a value that is not finite (in x, under
// the preprocessing, or in the embedding: *data.NonFiniteError) is
// counted from x's first; any other error says which rows the chunk
// held, the rows it names counted from the chunk's first (finding them
// in x would take the whole transform the chunks avoid).
func (p *Pipeline) TransformChunked(ctx context.Context, x *mat.Dense, chunk int, done func(mapped, n int)) (*mat.Dense, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if chunk < 1 {
		return nil, fmt.Errorf("method: TransformChunked: chunk = %d rows; want ≥ 1", chunk)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p == nil || p.Model == nil || p.Model.Model == nil {
		return nil, errEmptyPipeline
	}
	if x == nil || x.IsEmpty() {
		return p.Transform(x)
	}
	n, c := x.Dims()
	if n <= chunk {
		return p.Transform(x)
	}
	var z *mat.Dense
	for i := 0; i < n; i += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := min(i+chunk, n)
		zi, err := p.Transform(x.Slice(i, j, 0, c).(*mat.Dense))
		if err != nil {
			var nf *data.NonFiniteError
			var se *scaledError
			switch {
			case i == 0:
			case errors.As(err, &nf):
				err = renumber(err, nf, &nf.Row, i)
			case errors.As(err, &se):
				err = renumber(err, se, &se.Row, i)
			default:
				err = fmt.Errorf("rows %d to %d, the row numbers below counted from row %d: %w", i+1, j, i+1, err)
			}
			return nil, err
		}
		if z == nil {
			z = mat.NewDense(n, zi.RawMatrix().Cols, nil)
		}
		z.Slice(i, j, 0, zi.RawMatrix().Cols).(*mat.Dense).Copy(zi)
		if done != nil {
			done(j, n)
		}
	}
	return z, nil
}

// scaledFinite names the first raw value whose scaled value left the
// floating-point range (a finite 1e308 under a min-max scaling fitted on
// values of 1-10), which the model would otherwise report as an infinite
// input.
func scaledFinite(raw, scaled *mat.Dense, spec string) error {
	r, c := scaled.Dims()
	_, rc := raw.Dims()
	for i := 0; i < r; i++ {
		for j, v := range scaled.RawRowView(i) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				continue
			}
			return &scaledError{Row: i + 1, Col: j + 1, Raw: raw.At(i, min(j, rc-1)), Spec: spec, Same: c == rc}
		}
	}
	return nil
}

// renumber adds off to *row, the row of inner, an error in err's chain
// made for this chunk alone, and returns err with its text rewritten to
// match (the wrappers above inner fixed their text when they were made).
func renumber(err error, inner error, row *int, off int) error {
	was := inner.Error()
	*row += off
	return &renumbered{msg: strings.Replace(err.Error(), was, inner.Error(), 1), err: err}
}

// renumbered is an error whose text is msg and whose chain is err's.
type renumbered struct {
	msg string
	err error
}

func (e *renumbered) Error() string { return e.msg }
func (e *renumbered) Unwrap() error { return e.err }

// scaledError is scaledFinite's error: row Row (1-based; TransformChunked
// counts it from x's first) has a value that leaves the floating-point
// range under the preprocessing Spec, column Col of the raw rows (Raw)
// when the preprocessing keeps the columns (Same), else of its output.
type scaledError struct {
	Row, Col int
	Raw      float64
	Spec     string
	Same     bool
}

func (e *scaledError) Error() string {
	if e.Same {
		return fmt.Sprintf("row %d, column %d: the value %g leaves the floating-point range under the saved preprocessing (%s); it is far outside the training rows' range", e.Row, e.Col, e.Raw, e.Spec)
	}
	return fmt.Sprintf("row %d: its preprocessed value %d leaves the floating-point range under the saved preprocessing (%s)", e.Row, e.Col, e.Spec)
}

// CheckFeatureNames returns an error when names, the columns of data to
// transform, are not the model's feature names in the model's order:
// Transform takes columns by position, so a file whose columns were
// reordered or replaced would otherwise be embedded silently wrong. Names
// a reader generated (data.GeneratedNames: a headerless table, an array,
// LIBSVM) on either side are not compared; nor are names when their
// number differs from the model's features (Transform reports that).
func (p *Pipeline) CheckFeatureNames(names []string) error {
	if len(names) != p.Features || len(p.FeatureNames) != p.Features || data.GeneratedNames(names) || data.GeneratedNames(p.FeatureNames) {
		return nil
	}
	for j, name := range names {
		if name == p.FeatureNames[j] || (j == 0 && savetxtName(p.FeatureNames[0]) == name) {
			continue
		}
		at := slices.Index(p.FeatureNames, name)
		if at >= 0 {
			return fmt.Errorf("column %d is %q, but the model took %q there and %q as column %d: the columns are in another order than at the fit", j+1, name, p.FeatureNames[j], name, at+1)
		}
		return fmt.Errorf("column %d is %q, but the model was fitted with %q there (and has no feature %q): other data, or renamed columns", j+1, name, p.FeatureNames[j], name)
	}
	return nil
}

// savetxtName is the first feature name as readers since model file
// version 5 give it: np.savetxt(header=…)'s comment mark "# " is no part
// of it, and earlier readers kept it, so that a model of such a CSV
// matches its own training file.
func savetxtName(name string) string {
	if rest, ok := strings.CutPrefix(name, "# "); ok && strings.TrimSpace(rest) != "" {
		return strings.TrimSpace(rest)
	}
	return name
}

// ScanClasses returns the class names a scan of new labelled rows should
// number their labels by (data.Options.Classes) for this model: its class
// names when some is text (barolo, …, or −1 as in LIBSVM's ±1 labels),
// which a scan cannot number by itself; nil when every name is a class
// index (a non-negative integer), which a scan reads as it is, a class
// the model has seen or not.
func (p *Pipeline) ScanClasses() []string {
	for _, n := range p.ClassNames {
		if c, err := strconv.Atoi(n); err != nil || c < 0 {
			return p.ClassNames
		}
	}
	return nil
}

// Save writes the pipeline as a model file (format version FileVersion,
// with a checksum).
func (p *Pipeline) Save(w io.Writer) error {
	meta := File{Method: p.Method, Params: p.Params, Features: p.Features, FeatureNames: p.FeatureNames, ClassNames: p.ClassNames, LIBSVMZeroBased: p.LIBSVMZeroBased}
	if p.Features == 0 {
		meta.Features = p.inDims()
	}
	if p.Preprocess != nil {
		b, err := preprocess.MarshalFitted(p.Preprocess)
		if err != nil {
			return err
		}
		meta.Preprocess = b
	}
	return Save(w, meta, p.Model)
}

func (p *Pipeline) inDims() int {
	if p.Preprocess != nil {
		return p.Preprocess.InDims()
	}
	return p.Model.InDims()
}

// LoadPipeline reads a model file written by Pipeline.Save, 'dimred fit'
// or an earlier version (1 and 2 load). The file name, when r has one
// (an *os.File), names it in errors. A file that is not a dimred model,
// is truncated, fails its checksum (it was edited or damaged), was written
// by a newer version, names an unknown method, or whose parts disagree
// on the number of features is refused with an error saying which.
func LoadPipeline(r io.Reader) (*Pipeline, error) {
	name := "(model)"
	if n, ok := r.(interface{ Name() string }); ok {
		name = n.Name()
	}
	f, fitted, err := load(r, name)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Method: f.Method, Params: f.Params, Model: fitted, Features: f.Features,
		FeatureNames: f.FeatureNames, ClassNames: f.ClassNames, LIBSVMZeroBased: f.LIBSVMZeroBased, Software: f.Software, FileVersion: f.Version}
	if len(f.Preprocess) > 0 && string(f.Preprocess) != "null" {
		fp, err := preprocess.UnmarshalFitted(f.Preprocess)
		if err != nil {
			return nil, fmt.Errorf("model file %s: preprocessing: %w", name, err)
		}
		pipe, ok := fp.(*preprocess.FittedPipeline)
		if !ok {
			pipe = &preprocess.FittedPipeline{Cols: fp.InDims(), Steps: []preprocess.Fitted{fp}}
		}
		p.Preprocess = pipe
		if pipe.OutDims() != fitted.InDims() {
			return nil, fmt.Errorf("model file %s: the preprocessing gives %d columns, the model takes %d", name, pipe.OutDims(), fitted.InDims())
		}
	}
	in := p.inDims()
	if p.Features == 0 {
		p.Features = in
	}
	if p.Features != in {
		return nil, fmt.Errorf("model file %s: %d features, but its preprocessing and model take %d", name, p.Features, in)
	}
	if n := len(p.FeatureNames); n > 0 && n != p.Features {
		return nil, fmt.Errorf("model file %s: %d feature names for %d features", name, n, p.Features)
	}
	return p, nil
}

// Kernels returns the kernels of the fitted model, with the widths the
// fit resolved (sigma=auto): what a user needs to know to reproduce it.
// Linear models have none.
func (p *Pipeline) Kernels() []kernel.Kernel { return modelKernels(p.Model.Model) }

func modelKernels(m embed.Model) []kernel.Kernel {
	switch t := m.(type) {
	case *embed.KernelModel:
		return []kernel.Kernel{t.Kernel}
	case *embed.NystromModel:
		return []kernel.Kernel{t.Kernel}
	case *embed.MultiNystromModel:
		if t.Weights != nil {
			return []kernel.Kernel{kernel.Sum(t.Weights, t.Kernels...)} // as an exact MKL-SR model shows its kernel
		}
		return t.Kernels
	case embed.Chain:
		var out []kernel.Kernel
		for _, part := range t {
			out = append(out, modelKernels(part)...)
		}
		return out
	}
	return nil
}
