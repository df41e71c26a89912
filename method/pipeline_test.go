package method

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/preprocess"
)

// A pipeline saved and loaded maps raw rows exactly as before saving
// (preprocessing included), and equals preprocessing + model by hand.
func TestPipelineSaveLoad(t *testing.T) {
	ds := datasets.Wine()
	p, z0, err := PipelineSpec{Method: "gda", Params: map[string]string{"alpha": "0.01"}, Scale: "minmax"}.FitTransform(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPipeline(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if q.Method != "gda" || q.Features != 13 || len(q.ClassNames) != 3 || q.Params["alpha"] != "0.01" || !strings.HasPrefix(q.Software, "dimred ") {
		t.Errorf("metadata: %+v", q)
	}
	z1, err := q.Transform(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := p.Preprocess.Apply(ds.X)
	z2, _ := p.Model.Transform(x)
	if !mat.Equal(z1, z2) {
		t.Error("loaded pipeline differs from preprocessing + model")
	}
	if !mat.EqualApprox(z0, z1, 1e-9) {
		t.Error("FitTransform's rows differ from Transform's")
	}
	// The raw model alone would be wrong on raw rows: Load refuses.
	if _, _, err := Load(bytes.NewReader(buf.Bytes()), "m.json"); err == nil || !strings.Contains(err.Error(), "LoadPipeline") {
		t.Errorf("Load of a file with preprocessing: %v", err)
	}
	if _, err := q.Transform(mat.NewDense(2, 4, nil)); err == nil || !strings.Contains(err.Error(), "4 features, the model was fitted on 13") {
		t.Errorf("mismatched features: %v", err)
	}
}

// fitSaved fits spec on ds and returns the pipeline and its saved file.
func fitSaved(t *testing.T, spec PipelineSpec, ds *data.Dataset) (*Pipeline, *bytes.Buffer) {
	t.Helper()
	p, err := spec.Fit(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return p, &buf
}

// Damaged, edited, newer, unknown-method and inconsistent files are
// refused with an error that says which.
func TestPipelineRefusesBadFiles(t *testing.T) {
	_, buf := fitSaved(t, PipelineSpec{Method: "lda", Scale: "zscore"}, datasets.Iris())
	good := buf.String()
	resigned := func(edit func(f *File)) string { // an edit with a valid checksum
		var f File
		if err := json.Unmarshal([]byte(good), &f); err != nil {
			t.Fatal(err)
		}
		edit(&f)
		f.Checksum, _ = f.checksum(nil)
		b, _ := json.Marshal(f)
		return string(b)
	}
	i := strings.Index(good, `"model"`) + strings.IndexAny(good[strings.Index(good, `"model"`):], "123456789")
	for _, c := range []struct{ name, file, want string }{
		{"truncated", good[:len(good)/2], "not a dimred model or truncated (unexpected end of JSON input)"},
		{"bytes after the end", good + "}", "not a dimred model or truncated (invalid character '}' after top-level value)"},
		{"tampered", good[:i] + string('0'+(good[i]-'0'+1)%10) + good[i+1:], "checksum"},
		{"newer", strings.Replace(good, fmt.Sprintf(`"version": %d`, FileVersion), fmt.Sprintf(`"version": %d`, FileVersion+1), 1), "newer dimred"},
		{"unknown method", resigned(func(f *File) { f.Method = "lda2" }), `unknown method "lda2"`},
		{"features", resigned(func(f *File) { f.Features = 5 }), "5 features, but its preprocessing and model take 4"},
		{"names", resigned(func(f *File) { f.FeatureNames = f.FeatureNames[:2] }), "2 feature names for 4 features"},
		{"checksum removed", func() string {
			var f File
			json.Unmarshal([]byte(good), &f)
			f.Checksum = ""
			b, _ := json.Marshal(f)
			return string(b)
		}(), fmt.Sprintf("version %d files carry a checksum, and this one has none", FileVersion)},
		{"not json", "hello", "not a dimred model"},
		{"other format", `{"format": "x"}`, `format "x"`},
	} {
		if c.name == "tampered" && c.file == good {
			t.Fatal("tampering changed nothing")
		}
		_, err := LoadPipeline(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// The checksum hashes the model where it lies, and must be the SHA-256 of
// json.Marshal of the file, as version-3 files define it: compared on
// compact models, on models Marshal would change (indented, with
// characters it escapes), and on a file written in the layout of the
// earlier Save (everything indented, the model one number a line), which
// must still load. A saved file keeps its model on one line.
func TestModelFileChecksumAndLayout(t *testing.T) {
	p, buf := fitSaved(t, PipelineSpec{Method: "kpca", Params: map[string]string{"sigma": "2"}, Scale: "minmax"}, datasets.Iris())
	var f File
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	marshalSum := func(f File) string {
		f.Checksum = ""
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	if f.Checksum != marshalSum(f) {
		t.Fatalf("saved checksum %s, json.Marshal gives %s", f.Checksum, marshalSum(f))
	}
	var ind bytes.Buffer
	json.Indent(&ind, f.Model, "", "  ")
	for _, model := range []json.RawMessage{f.Model, ind.Bytes(), json.RawMessage(`{"kind":"x<y>&z"}`), json.RawMessage(`[1, 2]`)} {
		g := f
		g.Model = model
		got, err := g.checksum(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalSum(g); got != want {
			t.Errorf("model %.40q: checksum %s, json.Marshal gives %s", model, got, want)
		}
	}
	lines := strings.Split(buf.String(), "\n")
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, ` "model": {`) {
			n++
			if !strings.HasSuffix(l, "},") || !json.Valid([]byte(strings.TrimSuffix(strings.TrimPrefix(l, ` "model": `), ","))) {
				t.Errorf("model line is not one JSON value: %.80s…", l)
			}
		}
	}
	if n != 1 || len(lines) > len(f.Values)+60 { // the values and the preprocessing stay one number a line
		t.Errorf("%d model lines in a file of %d lines (%d values); want the model on one line", n, len(lines), len(f.Values))
	}
	// The earlier layout.
	var old bytes.Buffer
	enc := json.NewEncoder(&old)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	if strings.Count(old.String(), "\n") < 100 {
		t.Fatal("the earlier layout should put the model's numbers on lines of their own")
	}
	q, err := LoadPipeline(bytes.NewReader(old.Bytes()))
	if err != nil {
		t.Fatalf("a file in the earlier layout: %v", err)
	}
	z0, _ := p.Transform(datasets.Iris().X)
	z1, _ := q.Transform(datasets.Iris().X)
	if !mat.Equal(z0, z1) {
		t.Error("the earlier layout loads another model")
	}
}

// PipelineSpec.AsMethod fits the preprocessing on the rows it is given and
// maps new rows through it: its model equals preprocessing fitted by hand
// on the same training rows followed by the method, and a cancelled
// context stops it.
func TestPipelineSpecAsMethod(t *testing.T) {
	ds := datasets.Wine()
	train, test := ds.X.Slice(0, 120, 0, 13).(*mat.Dense), ds.X.Slice(120, 178, 0, 13).(*mat.Dense)
	m := PipelineSpec{Method: "lda", Scale: "zscore,pca:0.9"}.AsMethod()
	model, err := m.Fit(train, ds.Y[:120], 1)
	if err != nil {
		t.Fatal(err)
	}
	if model.Dims() != 1 {
		t.Errorf("dims = %d, want 1", model.Dims())
	}
	got, err := model.Transform(test)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := preprocess.Parse("zscore,pca:0.9")
	if err != nil {
		t.Fatal(err)
	}
	fp, err := pipe.Fit(train)
	if err != nil {
		t.Fatal(err)
	}
	if k := fp.OutDims(); k >= 13 {
		t.Fatalf("PCA 90%% kept %d of 13 columns: the test would not see it", k)
	}
	xtr, _ := fp.Apply(train)
	xte, _ := fp.Apply(test)
	lda, _ := New("lda", nil)
	direct, err := lda.Fit(xtr, ds.Y[:120], 1)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := direct.Transform(xte)
	if !mat.EqualApprox(got, want, 1e-12) {
		t.Error("AsMethod's embedding differs from the preprocessing fitted on the training rows + LDA")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitContext(ctx, m, train, ds.Y[:120], 1); err == nil {
		t.Error("a cancelled context did not stop the fit")
	}
	if _, err := (PipelineSpec{Method: "lda", Scale: "pca:2"}).AsMethod().Fit(train, ds.Y[:120], 1); err == nil || !strings.Contains(err.Error(), `"pca:2"`) {
		t.Errorf("a bad preprocessing spec: %v", err)
	}
}

// A finite value far outside the training range leaves the float range
// once scaled (1e308 under min-max): the error names the raw value, where
// the model used to call it an infinite input; an embedding that
// overflows is an error, not Inf.
func TestTransformOfValuesBeyondTheScaling(t *testing.T) {
	ds := datasets.Wine()
	p, err := PipelineSpec{Method: "lda", Scale: "minmax"}.Fit(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.DenseCopyOf(ds.X.Slice(0, 3, 0, 13))
	x.Set(1, 4, 1e308)
	if _, err := p.Transform(x); err == nil || !strings.Contains(err.Error(), "row 2, column 5: the value 1e+308 leaves the floating-point range under the saved preprocessing (minmax)") {
		t.Errorf("error %v", err)
	}
	q, err := PipelineSpec{Method: "pca"}.Fit(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(1, 13, nil)
	for j := 0; j < 13; j++ {
		y.Set(0, j, 1.5e308)
	}
	if _, err := q.Transform(y); err == nil || !strings.Contains(err.Error(), "pca: embedding: row 1") {
		t.Errorf("overflowing embedding: %v", err)
	}
}

// PipelineSpec.Fit (what dimred fit saves) does not compute the training
// rows' embedding, which nothing reads; the model is bit for bit the one
// FitTransform fits, also for the methods that use that embedding inside
// their fit (MIE's EM, MKL-SR's A-step), which keep it.
func TestPipelineFitSkipsTrainEmbedding(t *testing.T) {
	wine := datasets.Wine()
	for _, c := range []struct {
		spec      PipelineSpec
		trainKept bool
	}{
		{PipelineSpec{Method: "kpca", Scale: "minmax"}, false},
		{PipelineSpec{Method: "gda", Scale: "minmax", Params: map[string]string{"sigma": "1"}}, false},
		{PipelineSpec{Method: "kqmi", Scale: "minmax"}, false},
		{PipelineSpec{Method: "mie", Scale: "minmax", Dims: 2}, true},
		{PipelineSpec{Method: "mklsr", Scale: "minmax"}, true},
	} {
		p, err := c.spec.Fit(context.Background(), wine)
		if err != nil {
			t.Fatalf("%s: %v", c.spec.Method, err)
		}
		q, z, err := c.spec.FitTransform(context.Background(), wine)
		if err != nil {
			t.Fatalf("%s: %v", c.spec.Method, err)
		}
		if kept := p.Model.Train != nil; kept != c.trainKept {
			t.Errorf("%s: Fit kept the training embedding: %v, want %v", c.spec.Method, kept, c.trainKept)
		}
		if q.Model.Train == nil || z == nil {
			t.Errorf("%s: FitTransform returned no training embedding", c.spec.Method)
		}
		a, err := p.Transform(wine.X)
		if err != nil {
			t.Fatal(err)
		}
		b, err := q.Transform(wine.X)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(a, b) {
			t.Errorf("%s: the model of Fit and of FitTransform differ (max %.3g)", c.spec.Method, maxAbsDiffDense(a, b))
		}
	}
}

func maxAbsDiffDense(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// A model file with binary matrices loads by the lifted route (its
// gigabyte-sized strings never pass through encoding/json), the checksum
// covering the original bytes: the same model as reading the file as it
// is, a changed digit of a binary matrix refused, and a file re-indented
// by hand (no longer compact, so not for that route) still loaded.
// firstDigits returns the first n rows of the built-in digits.
func firstDigits(n int) *data.Dataset {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return datasets.Digits().Subset(idx)
}

func TestLoadLiftedRoute(t *testing.T) {
	ds := firstDigits(300)
	p, buf := fitSaved(t, PipelineSpec{Method: "kpca", Scale: "minmax"}, ds) // 300×299 coefficients, binary
	good := buf.String()
	liftedAsSlow(t, "kpca", p, buf.Bytes(), ds.X)
	at := strings.Index(good, `"float64le":"`) + len(`"float64le":"`) + 1000
	c := byte('A')
	if good[at] == 'A' {
		c = 'B'
	}
	if _, err := LoadPipeline(strings.NewReader(good[:at] + string(c) + good[at+1:])); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a changed binary value: %v", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, buf.Bytes(), "", "\t"); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPipeline(&ind)
	if err != nil {
		t.Fatalf("re-indented file: %v", err)
	}
	z2, _ := q.Transform(ds.X)
	z3, _ := p.Transform(ds.X)
	if !mat.Equal(z2, z3) {
		t.Error("the re-indented file loads another model")
	}
}

// Pipeline.Truncate keeps the first k dimensions and their values: its
// transform is the first k columns of the whole model's (to rounding: the
// product is over fewer columns), the pipeline it came from is unchanged,
// and k outside 1..Dims is an error.
func TestPipelineTruncate(t *testing.T) {
	ds := datasets.Wine()
	for _, spec := range []PipelineSpec{{Method: "kpca", Scale: "minmax"}, {Method: "lda", Scale: "zscore"}, {Method: "gda", Scale: "minmax"}} {
		p, err := spec.Fit(context.Background(), ds)
		if err != nil {
			t.Fatal(err)
		}
		full, err := p.Transform(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		n, d := full.Dims()
		for _, k := range []int{1, 2, d - 1} {
			q, err := p.Truncate(k)
			if err != nil {
				t.Fatal(err)
			}
			z, err := q.Transform(ds.X)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(z, full.Slice(0, n, 0, k), 1e-12) {
				t.Errorf("%s k = %d: the truncated transform is not the first k columns", spec.Method, k)
			}
			if q.Dims() != k || len(q.Model.Values) != min(k, len(p.Model.Values)) || p.Dims() != d {
				t.Errorf("%s k = %d: dims %d, %d values; the original now has %d dims", spec.Method, k, q.Dims(), len(q.Model.Values), p.Dims())
			}
		}
		for _, k := range []int{0, d + 1} {
			if _, err := p.Truncate(k); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d requested, the model has %d", k, d)) {
				t.Errorf("%s k = %d: %v", spec.Method, k, err)
			}
		}
	}
}

// statReader is a reader whose Stat reports a regular file of size
// bytes, whatever it holds: a file that changed size after Stat.
type statReader struct {
	*bytes.Reader
	size int64
}

func (s statReader) Stat() (os.FileInfo, error) { return fakeInfo(s.size), nil }

type fakeInfo int64

func (f fakeInfo) Name() string       { return "m.json" }
func (f fakeInfo) Size() int64        { return int64(f) }
func (f fakeInfo) Mode() os.FileMode  { return 0o644 }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return nil }

// readAll returns every byte of the reader, whether its size is known
// and right, or the file grew or shrank after Stat, or it is empty.
func TestReadAll(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789"), 1000)
	path := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases := []struct {
		name string
		r    io.Reader
		want []byte
	}{
		{"file", f, content},
		{"not a file", bytes.NewReader(content), content},
		{"grew", statReader{bytes.NewReader(content), 100}, content},
		{"shrank", statReader{bytes.NewReader(content), 20000}, content},
		{"emptied", statReader{bytes.NewReader(nil), 20000}, nil},
		{"empty", statReader{bytes.NewReader(nil), 0}, nil},
	}
	for _, c := range cases {
		got, err := readAll(c.r)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %d bytes, %v; want %d", c.name, len(got), err, len(c.want))
		}
	}
}

// Every model kind with binary matrices loads by the lifted route, to the
// model encoding/json reads from the whole file: kernel (GDA), Nyström
// (KQMI), multiple-kernel Nyström (MKL-SR) and a chain (CKFD: KPCA, then
// LDA).
func TestLoadLiftedRouteModelKinds(t *testing.T) {
	// 1100×64 training rows or landmarks: 70 400 values, binary.
	sub := firstDigits(1100)
	ny := map[string]string{"space": "nystrom", "landmarks": "1100"} // every row a landmark
	for _, c := range []struct {
		spec PipelineSpec
		ds   *data.Dataset
		kind string
	}{
		{PipelineSpec{Method: "gda", Scale: "minmax"}, sub, `"kind":"kernel"`},
		{PipelineSpec{Method: "kqmi", Params: ny, Scale: "minmax"}, sub, `"kind":"nystrom"`},
		{PipelineSpec{Method: "mklsr", Params: ny, Scale: "minmax"}, sub, `"kind":"multinystrom"`},
		{PipelineSpec{Method: "ckfd", Scale: "minmax"}, sub, `"kind":"chain"`},
	} {
		p, buf := fitSaved(t, c.spec, c.ds)
		if !strings.Contains(buf.String(), c.kind) {
			t.Fatalf("%s: no %s model in the file", c.spec.Method, c.kind)
		}
		liftedAsSlow(t, c.spec.Method, p, buf.Bytes(), datasets.Digits().X)
	}
}

// liftedAsSlow checks that the saved file b of p loads by the lifted route
// (something lifted, every lifted string read back once) and maps the raw
// rows x as the file read by encoding/json alone does.
func liftedAsSlow(t *testing.T, name string, p *Pipeline, b []byte, x *mat.Dense) {
	t.Helper()
	lifted, bl := embed.LiftBlobs(b)
	if bl == nil {
		t.Fatalf("%s: nothing lifted", name)
	}
	_, fast, err := decodeFile(lifted, bl, "m.json")
	if err != nil || bl.Complete() != nil {
		t.Fatalf("%s: the lifted route failed: %v, %v", name, err, bl.Complete())
	}
	_, slow, err := decodeFile(b, nil, "m.json")
	if err != nil {
		t.Fatal(err)
	}
	px, err := p.Preprocess.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	z0, _ := fast.Model.Transform(px)
	z1, _ := slow.Model.Transform(px)
	if !mat.Equal(z0, z1) {
		t.Errorf("%s: the lifted route reads another model", name)
	}
}

// A file whose envelope fails (a changed checksum, say) is rejected by the
// lifted route at once, with the error the file read as it is gives; a
// lifted string outside the model (a "float64le" parameter) makes the
// lifted route's envelope differ from the file's, and the file is read
// again as it is, where it loads.
func TestLoadLiftedRouteEnvelopeErrors(t *testing.T) {
	ds := firstDigits(300)
	_, buf := fitSaved(t, PipelineSpec{Method: "kpca", Scale: "minmax"}, ds)
	good := buf.String()
	sum := strings.Index(good, `"checksum": "`) + len(`"checksum": "`) + 40
	c := byte('0')
	if good[sum] == '0' {
		c = '1'
	}
	bad := []byte(good[:sum] + string(c) + good[sum+1:])
	lifted, bl := embed.LiftBlobs(bad)
	if bl == nil {
		t.Fatal("nothing lifted")
	}
	_, _, fast := decodeFile(lifted, bl, "m.json")
	var ee envelopeError
	if !errors.As(fast, &ee) || !ee.original {
		t.Fatalf("lifted route: %v, want an envelope error of the file's own", fast)
	}
	_, _, slow := decodeFile(bad, nil, "m.json")
	_, _, got := load(bytes.NewReader(bad), "m.json")
	if slow == nil || got == nil || got.Error() != slow.Error() || !strings.Contains(got.Error(), "does not match its content") {
		t.Errorf("load: %v\nread as it is: %v", got, slow)
	}

	f, fitted, err := decodeFile([]byte(good), nil, "m.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Params = map[string]string{"float64le": strings.Repeat("AAAAAAAAAAAA", 600)}
	var odd bytes.Buffer
	if err := Save(&odd, *f, fitted); err != nil {
		t.Fatal(err)
	}
	lifted, bl = embed.LiftBlobs(odd.Bytes())
	if bl == nil {
		t.Fatal("nothing lifted")
	}
	if _, _, err := decodeFile(lifted, bl, "m.json"); !errors.As(err, &ee) || ee.original {
		t.Fatalf("lifted route with a lifted parameter: %v, want an envelope error not of the file's own", err)
	}
	g, _, err := load(bytes.NewReader(odd.Bytes()), "m.json")
	if err != nil || g.Params["float64le"] != f.Params["float64le"] {
		t.Errorf("a file with a float64le parameter: %v", err)
	}
}

// A pipeline of a precomputed kernel takes the Gram matrix unscaled:
// scaling its columns is refused by name, before the fit (it made the
// matrix unsymmetric, and the fit failed on that).
func TestPipelineSpecPrecomputedScale(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{0, 0, 0.1, 0.2, 0.2, 0.1, 2, 2, 2.1, 2.2, 2.2, 2.1})
	k, err := kernel.RBF(1).Gram(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := &data.Dataset{X: k, Y: []int{0, 0, 0, 1, 1, 1}}
	spec := PipelineSpec{Method: "gda", Params: map[string]string{"space": "precomputed"}, Scale: "minmax"}
	if _, err := spec.Fit(context.Background(), ds); err == nil || !strings.Contains(err.Error(), `scale "minmax" with space=precomputed`) {
		t.Errorf("minmax on a Gram matrix: error %v", err)
	}
	for _, sc := range []string{"", "none"} {
		spec.Scale = sc
		if _, err := spec.Fit(context.Background(), ds); err != nil {
			t.Errorf("scale %q on a Gram matrix: %v", sc, err)
		}
	}
}
