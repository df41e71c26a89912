package embed

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

// blobModels returns saved models whose matrices are written in binary:
// a kernel model (training rows 300×250, 800 000 base64 characters, cut
// into several decode pieces) and a chain of a binary linear step and that
// kernel model (references inside a nested model).
func blobModels(t testing.TB) (kernelJS, chainJS []byte) {
	rng := rand.New(rand.NewPCG(41, 42))
	n, d := 300, 250
	means := make([]float64, n)
	for i := range means {
		means[i] = rng.Float64()
	}
	km := &KernelModel{Kernel: kernel.RBF(2), Train: engRand(rng, n, d), Center: kernel.Centering{ColMeans: means, GrandMean: 0.1}, A: engRand(rng, n, 3)}
	lin := &LinearModel{Mean: make([]float64, 400), W: engRand(rng, 400, d)} // 100 000 values, binary
	var err error
	if kernelJS, err = MarshalModel(km); err != nil {
		t.Fatal(err)
	}
	if chainJS, err = MarshalModel(Chain{lin, km}); err != nil {
		t.Fatal(err)
	}
	return kernelJS, chainJS
}

// decodeBoth decodes b by UnmarshalModel (the lifted route when it
// applies) and by encoding/json alone, and fails unless both give the same
// model (the same saved bytes) or the same error.
func decodeBoth(t *testing.T, name string, b []byte) Model {
	t.Helper()
	fast, errFast := UnmarshalModel(b)
	slow, errSlow := DecodeModel(b, nil)
	if (errFast == nil) != (errSlow == nil) || (errFast != nil && errFast.Error() != errSlow.Error()) {
		t.Fatalf("%s: UnmarshalModel: %v; encoding/json alone: %v", name, errFast, errSlow)
	}
	if errFast != nil {
		return nil
	}
	bf, err := MarshalModel(fast)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := MarshalModel(slow)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bf, bs) {
		t.Fatalf("%s: UnmarshalModel and encoding/json give different models", name)
	}
	return fast
}

// liftedRoute reports whether b decodes by the lifted route, every lifted
// string read back once.
func liftedRoute(b []byte) bool {
	lifted, bl := LiftBlobs(b)
	if bl == nil {
		return false
	}
	_, err := DecodeModel(lifted, bl)
	return err == nil && bl.Complete() == nil
}

// Saved models with binary matrices take the lifted route and decode to
// exactly what encoding/json reads from the whole file; the lifted
// document is small, and WriteOriginal gives back the original bytes.
func TestLiftBlobsSavedModels(t *testing.T) {
	kernelJS, chainJS := blobModels(t)
	for _, c := range []struct {
		name string
		b    []byte
	}{{"kernel", kernelJS}, {"chain", chainJS}} {
		if !liftedRoute(c.b) {
			t.Errorf("%s: the lifted route was not taken", c.name)
		}
		decodeBoth(t, c.name, c.b)
		lifted, bl := LiftBlobs(c.b)
		if len(lifted) > len(c.b)/20 {
			t.Errorf("%s: lifted document %d bytes of %d", c.name, len(lifted), len(c.b))
		}
		var back bytes.Buffer
		if err := bl.WriteOriginal(&back, lifted); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Bytes(), c.b) {
			t.Errorf("%s: WriteOriginal does not give back the document", c.name)
		}
	}
}

// MarshalModelLifted with WriteOriginal writes MarshalModel's bytes, the
// matrices of nested models included, and its own JSON is small.
func TestMarshalModelLifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	n, d := 300, 250
	km := &KernelModel{Kernel: kernel.RBF(2), Train: engRand(rng, n, d), Center: kernel.Centering{ColMeans: make([]float64, n)}, A: engRand(rng, n, 2)}
	lin := &LinearModel{Mean: make([]float64, 2), W: engRand(rng, 2, 2)}        // decimal
	bigLin := &LinearModel{Mean: make([]float64, 400), W: engRand(rng, 400, d)} // binary
	// A view whose rows are not contiguous (stride d+7), 76 200 values:
	// the pieces of 8 192 values cross rows and the last is short.
	view := engRand(rng, 300, d+7).Slice(0, 300, 3, 3+254).(*mat.Dense)
	viewLin := &LinearModel{Mean: make([]float64, 300), W: view}
	viewKm := &KernelModel{Kernel: kernel.RBF(1), Train: view, Center: kernel.Centering{ColMeans: make([]float64, 300)}, A: engRand(rng, 300, 2)}
	for _, m := range []Model{km, Chain{km, lin}, Chain{bigLin, km}, lin, viewLin, Chain{viewLin, viewKm}} {
		want, err := MarshalModel(m)
		if err != nil {
			t.Fatal(err)
		}
		b, bl, err := MarshalModelLifted(m)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := bl.WriteOriginal(&got, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%T: written %d bytes differ from MarshalModel's %d", m, got.Len(), len(want))
		}
		// A second, independent reading: encoding/json alone gives back
		// the model's values exactly.
		back, err := DecodeModel(want, nil)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !reflect.DeepEqual(modelMatrices(back), modelMatrices(m)) {
			t.Errorf("%T: values read back differ", m)
		}
		if len(want) > 1<<20 && len(b) > len(want)/20 {
			t.Errorf("%T: lifted JSON %d bytes of %d", m, len(b), len(want))
		}
	}
}

// The values of a lifted string are those of decoding it whole, whatever
// the number of threads decoding its pieces.
func TestLiftBlobsDecodeThreads(t *testing.T) {
	kernelJS, _ := blobModels(t)
	var want []float64
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		_, bl := LiftBlobs(kernelJS)
		runtime.GOMAXPROCS(old)
		if bl == nil || len(bl.entries) != 1 {
			t.Fatalf("GOMAXPROCS %d: lifted %v", procs, bl)
		}
		if procs == 1 {
			raw, err := base64.StdEncoding.DecodeString(string(bl.entries[0].text))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(raw); i += 8 {
				want = append(want, math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
			}
			if len(bl.entries[0].text) < 3*32<<13 {
				t.Fatalf("%d base64 characters: too few to be cut into pieces", len(bl.entries[0].text))
			}
		}
		got := bl.entries[0].vals
		if len(got) != len(want) {
			t.Fatalf("GOMAXPROCS %d: %d values, want %d", procs, len(got), len(want))
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("GOMAXPROCS %d: value %d is %v, want %v", procs, i, got[i], want[i])
			}
		}
	}
}

// Documents where lifting would not give encoding/json's reading are read
// by encoding/json: the result, or the error, is the same either way.
func TestLiftBlobsFallsBack(t *testing.T) {
	kernelJS, _ := blobModels(t)
	js := string(kernelJS)
	at := strings.Index(js, `"float64le":"`) + len(`"float64le":"`)
	end := at + strings.IndexByte(js[at:], '"')
	payload := js[at:end]
	small := base64.StdEncoding.EncodeToString(make([]byte, 16))
	nan := make([]byte, len(payload)/4*3)
	copy(nan, mustDecode(t, payload))
	binary.LittleEndian.PutUint64(nan[8*17:], math.Float64bits(math.NaN()))
	cases := []struct {
		name   string
		doc    string
		lifted bool // the lifted route is taken
	}{
		{"key in capitals", strings.Replace(js, `"float64le":`, `"FLOAT64LE":`, 1), true},
		{"escaped key", strings.Replace(js, `"float64le":`, `"float64l\u0065":`, 1), true},
		{"escaped string", js[:at] + `\u0041` + js[at+1:], false},
		{"duplicate key, short first", js[:at] + small + `","float64le":"` + js[at:], true},
		{"duplicate key, long first", js[:end] + `","float64le":"` + small + js[end:], false},
		{"unknown key with a long string", strings.Replace(js, `{"kind":"kernel",`, `{"kind":"kernel","extra":{"float64le":"`+payload+`"},`, 1), false},
		{"a long string in an array", strings.Replace(js, `{"kind":"kernel",`, `{"kind":"kernel","extra":["`+payload+`"],`, 1), true},
		{"not base64", js[:at+100] + "!" + js[at+101:], false},
		{"padding inside", js[:at+262140] + "AA==" + js[at+262144:], false},
		{"raw newline", js[:at+100] + "\n" + js[at+101:], false},
		{"cut short by 3 bytes", js[:end-4] + js[end:], false},
		{"data and float64le", strings.Replace(js, `"float64le":`, `"data":[1,2],"float64le":`, 1), false},
		{"NaN among the doubles", js[:at] + base64.StdEncoding.EncodeToString(nan) + js[end:], false},
		{"truncated", js[:at+1000], false},
		{"unbalanced", strings.Replace(js, `{"kind":"kernel",`, `{"kind":"kernel","x":[}`, 1), false},
	}
	for _, c := range cases {
		if got := liftedRoute([]byte(c.doc)); got != c.lifted {
			t.Errorf("%s: lifted route %v, want %v", c.name, got, c.lifted)
		}
		decodeBoth(t, c.name, []byte(c.doc))
	}
}

func mustDecode(t *testing.T, s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A reference made by one LiftBlobs means nothing to another: a file
// cannot carry one (its nonce is drawn at each lift).
func TestLiftBlobsForeignReference(t *testing.T) {
	kernelJS, _ := blobModels(t)
	lifted, _ := LiftBlobs(kernelJS)
	_, bl := LiftBlobs(kernelJS)
	if _, err := DecodeModel(lifted, bl); err == nil {
		t.Error("a reference of another lift was read as a matrix")
	}
	if err := bl.WriteOriginal(&bytes.Buffer{}, lifted); err != nil {
		t.Fatal(err) // the foreign reference is not this lift's text, so it is written as it is
	}
}

// The lifted route decodes any document as encoding/json does, or fails
// and leaves it to encoding/json (strings of 8 characters on are lifted
// here, so that the fuzzer reaches the route).
func FuzzLiftBlobs(f *testing.F) {
	defer func(old int) { liftMin = old }(liftMin)
	liftMin = 8
	m := &LinearModel{Mean: []float64{0.5, -1}, W: mat.NewDense(2, 2, []float64{1, 2, 3, 4})}
	b, err := MarshalModel(m)
	if err != nil {
		f.Fatal(err)
	}
	raw := make([]byte, 0, 32)
	for _, v := range []float64{1, 2, 3, 4} {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	bin := strings.Replace(string(b), `"data":[1,2,3,4]`, `"float64le":"`+base64.StdEncoding.EncodeToString(raw)+`"`, 1)
	f.Add([]byte(bin))
	f.Add([]byte(`{"kind":"chain","steps":[` + bin + `,` + bin + `]}`))
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeBoth(t, "fuzz", b)
	})
}

// modelMatrices returns the values, row by row, of the matrices of the
// linear and kernel models in m.
func modelMatrices(m Model) [][]float64 {
	dense := func(d *mat.Dense) []float64 {
		r, c := d.Dims()
		v := make([]float64, 0, r*c)
		for i := range r {
			v = append(v, mat.Row(nil, i, d)...)
		}
		return v
	}
	switch t := m.(type) {
	case Chain:
		var out [][]float64
		for _, s := range t {
			out = append(out, modelMatrices(s)...)
		}
		return out
	case *LinearModel:
		return [][]float64{dense(t.W)}
	case *KernelModel:
		return [][]float64{dense(t.Train), dense(t.A)}
	}
	panic(fmt.Sprintf("modelMatrices: %T", m))
}
