package embed

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/kernel"
)

// Saving models. A model kind registers a codec (RegisterModel) in the
// file that defines it, so a new kind of model — a new space's model —
// touches one file. A model is saved as one JSON object whose "kind" names
// its codec; the other fields are the kind's own. The objects written by
// format version 1 (kinds linear, affine, kernel, chain) are unchanged, so
// version-1 files decode with the same codecs; version 2 adds kinds
// (nystrom, precomputed).

// Kinded is implemented by models that can be saved: Kind names the
// registered codec.
type Kinded interface {
	Model
	Kind() string
}

// ModelCodec saves and loads one kind of model.
type ModelCodec struct {
	Kind string
	// Encode returns the JSON value of m (an object with a "kind" field
	// equal to Kind); m has this kind.
	Encode func(m Model) (any, error)
	// Decode parses the JSON object b and checks its consistency (sizes,
	// finiteness), naming what is wrong. It reads b with bl.Unmarshal,
	// which gives its matrices the values lifted out of the file
	// (LiftBlobs; bl is nil when none were), and decodes models nested in
	// it with DecodeModel(nested, bl).
	Decode func(b []byte, bl *Blobs) (Model, error)
}

var codecs = map[string]ModelCodec{}

// RegisterModel adds a model codec; it panics on a duplicate kind (a
// programming error caught at init).
func RegisterModel(c ModelCodec) {
	if _, dup := codecs[c.Kind]; dup {
		panic("embed: duplicate model kind " + c.Kind)
	}
	codecs[c.Kind] = c
}

// MarshalModel encodes a model as JSON.
func MarshalModel(m Model) ([]byte, error) {
	p, err := encodeAddressable(m)
	if err != nil {
		return nil, err
	}
	err = eachMatrix(p, func(mj *MatrixJSON) error {
		mj.materialize()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(p.Interface())
}

// encodeAddressable returns a pointer to m's encoded value, for eachMatrix.
func encodeAddressable(m Model) (reflect.Value, error) {
	v, err := encodeValue(m)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p, nil
}

// MarshalModelLifted encodes m as MarshalModel does, but with a reference
// in place of every binary matrix (Float64LE), whose bytes stay in bl:
// bl.WriteOriginal(w, b) writes MarshalModel's bytes, the base64 made as it
// is written, a piece at a time from the matrix itself. A model of a
// gigabyte is then never one buffer of JSON, nor a copy of its values.
func MarshalModelLifted(m Model) (b []byte, bl *Blobs, err error) {
	p, err := encodeAddressable(m)
	if err != nil {
		return nil, nil, err
	}
	bl = newBlobs()
	err = eachMatrix(p, func(mj *MatrixJSON) error {
		switch {
		case mj.src != nil:
			bl.entries = append(bl.entries, blob{src: mj.src})
		case len(mj.Float64LE) > 0:
			bl.entries = append(bl.entries, blob{raw: mj.Float64LE})
		default:
			return nil
		}
		mj.Float64LE, mj.src = bl.refBytes(len(bl.entries)-1), nil
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	b, err = json.Marshal(p.Interface())
	return b, bl, err
}

// encodeValue returns the Go value whose JSON is m's saved form.
func encodeValue(m Model) (any, error) {
	k, ok := m.(Kinded)
	if !ok {
		return nil, fmt.Errorf("model: cannot save a %T (no registered kind)", m)
	}
	c, ok := codecs[k.Kind()]
	if !ok {
		return nil, fmt.Errorf("model: cannot save a %T: kind %q is not registered", m, k.Kind())
	}
	return c.Encode(m)
}

// UnmarshalModel decodes a model written by MarshalModel (any model file
// version) and checks its consistency (sizes, finiteness). Large binary
// matrices are read by LiftBlobs' fast route when it applies, by
// encoding/json otherwise, with the same result.
func UnmarshalModel(b []byte) (Model, error) {
	if lifted, bl := LiftBlobs(b); bl != nil {
		if m, err := DecodeModel(lifted, bl); err == nil && bl.Complete() == nil {
			return m, nil
		}
	}
	return DecodeModel(b, nil)
}

// DecodeModel decodes a model object b whose large matrices may have been
// lifted into bl (nil: none). The caller checks bl.Complete afterwards.
func DecodeModel(b []byte, bl *Blobs) (Model, error) {
	kind, err := modelKind(b)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c, ok := codecs[kind]
	if !ok {
		return nil, fmt.Errorf("model: unknown kind %q (known: %s)", kind, knownKinds())
	}
	return c.Decode(b, bl)
}

// modelKind returns the "kind" of the model object b. Encoded models put
// it first, and it is read from the first tokens; a model of a gigabyte
// is then scanned by its codec alone, not twice. Otherwise the whole
// object is read for it.
func modelKind(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		if key, err := dec.Token(); err == nil && key == "kind" {
			var kind string
			if err := dec.Decode(&kind); err == nil {
				return kind, nil
			}
		}
	}
	var probe struct {
		Kind string `json:"kind"`
	}
	err := json.Unmarshal(b, &probe)
	return probe.Kind, err
}

func knownKinds() string {
	var s []string
	for k := range codecs {
		s = append(s, k)
	}
	return fmt.Sprint(sortedStrings(s))
}

// MatrixJSON is the JSON form of a dense matrix (row-major data). A
// matrix of BinaryMatrixMin values or more is written as Float64LE, its
// values as little-endian IEEE 754 doubles (base64 in the file, as
// encoding/json writes a []byte), instead of decimal Data: a kernel model
// of 10 000 rows keeps up to 10 000×9 999 coefficients, which as decimal
// JSON are a 2.2 GB file that took 100 s and 11.5 GB to load; as doubles
// they are 10.7 bytes a value, exact, and read at the speed of base64.
// Smaller matrices stay readable decimal. Exactly one of the two is set.
type MatrixJSON struct {
	Rows      int       `json:"rows"`
	Cols      int       `json:"cols"`
	Data      []float64 `json:"data,omitempty"`
	Float64LE []byte    `json:"float64le,omitempty"`

	src *mat.Dense // the matrix whose Float64LE is still to be made (matJSON)
}

// BinaryMatrixMin is the number of values from which ToJSONMat writes a
// matrix as little-endian doubles (model file version 4) rather than as
// decimal numbers.
const BinaryMatrixMin = 1 << 16

// ToJSONMat returns the JSON form of m (nil for nil): decimal Data below
// BinaryMatrixMin values, Float64LE from there on. Decimal Data shares
// m's storage when m is contiguous (the JSON form is for encoding, not to
// be changed).
func ToJSONMat(m *mat.Dense) *MatrixJSON {
	j := matJSON(m)
	j.materialize()
	return j
}

// matJSON is ToJSONMat without making the bytes of a binary matrix: it
// keeps m (src) instead, and the bytes are made when the model is
// marshalled (MarshalModel) or as its file is written (MarshalModelLifted
// with WriteOriginal), so that saving a gigabyte model does not first
// copy its matrices. The model codecs use it.
func matJSON(m *mat.Dense) *MatrixJSON {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	if r*c >= BinaryMatrixMin {
		return &MatrixJSON{Rows: r, Cols: c, src: m}
	}
	if raw := m.RawMatrix(); raw.Stride == c {
		return &MatrixJSON{Rows: r, Cols: c, Data: raw.Data[: r*c : r*c]}
	}
	return &MatrixJSON{Rows: r, Cols: c, Data: mat.DenseCopyOf(m).RawMatrix().Data}
}

// materialize makes the Float64LE of a matrix that matJSON left as src.
func (m *MatrixJSON) materialize() {
	if m == nil || m.src == nil {
		return
	}
	b := make([]byte, 0, 8*m.Rows*m.Cols)
	eachRow(m.src, func(row []float64) {
		for _, v := range row {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	})
	m.Float64LE, m.src = b, nil
}

// eachRow calls fn with each row of m in order.
func eachRow(m *mat.Dense, fn func(row []float64)) {
	r, c := m.Dims()
	raw := m.RawMatrix()
	for i := 0; i < r; i++ {
		fn(raw.Data[i*raw.Stride : i*raw.Stride+c])
	}
}

// Dense returns the matrix, checking its size and finiteness; what names
// it in errors.
func (m *MatrixJSON) Dense(what string) (*mat.Dense, error) {
	if m == nil || m.Rows <= 0 || m.Cols <= 0 {
		return nil, fmt.Errorf("model: matrix %s is missing or has no rows or columns", what)
	}
	n := m.Rows * m.Cols
	vals := m.Data
	switch {
	case len(m.Data) > 0 && len(m.Float64LE) > 0:
		return nil, fmt.Errorf("model: matrix %s has both data and float64le; a file holds one", what)
	case len(m.Float64LE) > 0:
		if len(m.Float64LE) != 8*n {
			return nil, fmt.Errorf("model: matrix %s is %d×%d, so its float64le needs 8·%d = %d bytes; it has %d", what, m.Rows, m.Cols, n, 8*n, len(m.Float64LE))
		}
		vals = make([]float64, n)
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(m.Float64LE[8*i:]))
		}
	case len(m.Data) != n:
		return nil, fmt.Errorf("model: matrix %s is %d×%d, so it needs %d values; it has %d", what, m.Rows, m.Cols, n, len(m.Data))
	}
	d := mat.NewDense(m.Rows, m.Cols, vals)
	return d, data.CheckFinite("model matrix "+what, d)
}

func checkFiniteSlice(what string, v []float64) error {
	if len(v) == 0 {
		return nil
	}
	return data.CheckFinite("model "+what, mat.NewDense(1, len(v), v))
}

// Kind implements Kinded.
func (*LinearModel) Kind() string { return "linear" }

// Kind implements Kinded.
func (*AffineModel) Kind() string { return "affine" }

// Kind implements Kinded.
func (*KernelModel) Kind() string { return "kernel" }

// Kind implements Kinded.
func (Chain) Kind() string { return "chain" }

type linearJSON struct {
	Kind string      `json:"kind"`
	Mean []float64   `json:"mean"`
	Bias []float64   `json:"bias,omitempty"`
	W    *MatrixJSON `json:"w"`
}

type kernelJSON struct {
	Kind   string            `json:"kind"`
	Kernel *kernel.Kernel    `json:"kernel"`
	Train  *MatrixJSON       `json:"train"`
	Center *kernel.Centering `json:"center"`
	W      *MatrixJSON       `json:"w"`
}

type chainJSON struct {
	Kind  string            `json:"kind"`
	Steps []json.RawMessage `json:"steps"`
}

// chainOut is chainJSON as written: the steps' encoded values.
type chainOut struct {
	Kind  string `json:"kind"`
	Steps []any  `json:"steps"`
}

func finiteModel(kind string, ms ...*mat.Dense) error {
	for _, m := range ms {
		if err := data.CheckFinite("model "+kind, m); err != nil {
			return err
		}
	}
	return nil
}

func decodeLinear(b []byte, bl *Blobs) (*linearJSON, *mat.Dense, error) {
	var e linearJSON
	if err := bl.Unmarshal(b, &e); err != nil {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	w, err := e.W.Dense("w")
	if err != nil {
		return nil, nil, err
	}
	if r, _ := w.Dims(); r != len(e.Mean) {
		return nil, nil, fmt.Errorf("model: w has %d rows but mean has %d entries", r, len(e.Mean))
	}
	return &e, w, checkFiniteSlice("mean", e.Mean)
}

func init() {
	RegisterModel(ModelCodec{Kind: "linear",
		Encode: func(m Model) (any, error) {
			t := m.(*LinearModel)
			return linearJSON{Kind: "linear", Mean: t.Mean, W: matJSON(t.W)}, finiteModel("linear", t.W)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			e, w, err := decodeLinear(b, bl)
			if err != nil {
				return nil, err
			}
			return &LinearModel{Mean: e.Mean, W: w}, nil
		}})
	RegisterModel(ModelCodec{Kind: "affine",
		Encode: func(m Model) (any, error) {
			t := m.(*AffineModel)
			return linearJSON{Kind: "affine", Mean: t.Mean, W: matJSON(t.W), Bias: t.Bias}, finiteModel("affine", t.W)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			e, w, err := decodeLinear(b, bl)
			if err != nil {
				return nil, err
			}
			if _, k := w.Dims(); len(e.Bias) != k {
				return nil, fmt.Errorf("model: bias has %d entries for %d outputs", len(e.Bias), k)
			}
			return &AffineModel{Mean: e.Mean, W: w, Bias: e.Bias}, checkFiniteSlice("bias", e.Bias)
		}})
	RegisterModel(ModelCodec{Kind: "kernel",
		Encode: func(m Model) (any, error) {
			t := m.(*KernelModel)
			k, c := t.Kernel, t.Center
			return kernelJSON{Kind: "kernel", Kernel: &k, Train: matJSON(t.Train), Center: &c, W: matJSON(t.A)}, finiteModel("kernel", t.A)
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			var e kernelJSON
			if err := bl.Unmarshal(b, &e); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			if e.Kernel == nil || e.Center == nil {
				return nil, fmt.Errorf("model: kernel model without kernel or centring")
			}
			if err := savedKernel(*e.Kernel); err != nil {
				return nil, err
			}
			tr, err := e.Train.Dense("train")
			if err != nil {
				return nil, err
			}
			a, err := e.W.Dense("w")
			if err != nil {
				return nil, err
			}
			n, _ := tr.Dims()
			if r, _ := a.Dims(); r != n || len(e.Center.ColMeans) != n {
				return nil, fmt.Errorf("model: kernel model has %d training rows but coefficients for %d and centring for %d", n, r, len(e.Center.ColMeans))
			}
			return &KernelModel{Kernel: *e.Kernel, Train: tr, Center: *e.Center, A: a}, checkFiniteSlice("centring", e.Center.ColMeans)
		}})
	RegisterModel(ModelCodec{Kind: "chain",
		Encode: func(m Model) (any, error) {
			// The steps' values, not their JSON: MarshalModelLifted
			// reaches their matrices.
			e := chainOut{Kind: "chain"}
			for _, s := range m.(Chain) {
				v, err := encodeValue(s)
				if err != nil {
					return nil, err
				}
				e.Steps = append(e.Steps, v)
			}
			return e, nil
		},
		Decode: func(b []byte, bl *Blobs) (Model, error) {
			var e chainJSON
			if err := bl.Unmarshal(b, &e); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			if len(e.Steps) == 0 {
				return nil, fmt.Errorf("model: empty chain")
			}
			var c Chain
			for i, s := range e.Steps {
				m, err := DecodeModel(s, bl)
				if err != nil {
					return nil, fmt.Errorf("chain step %d: %w", i+1, err)
				}
				if i > 0 && m.InDims() != c[i-1].Dims() {
					return nil, fmt.Errorf("model: chain step %d expects %d inputs, step %d gives %d", i+1, m.InDims(), i, c[i-1].Dims())
				}
				c = append(c, m)
			}
			return c, nil
		}})
}

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}

// savedKernel checks the kernel of a model file: valid, and with its
// width chosen (a fit resolves sigma=auto before it saves; a file whose
// RBF kernel has none could transform nothing).
func savedKernel(k kernel.Kernel) error {
	if err := k.Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if k.IsAuto() {
		return fmt.Errorf("model: kernel %s has no width (sigma 0): a fit chooses it before saving, so the file was not written by one", k)
	}
	return nil
}
