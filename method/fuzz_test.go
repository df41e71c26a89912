package method

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/datasets"
)

// Model files from the fuzzer: LoadPipeline returns an error or a
// pipeline whose Transform of rows of its width returns rows or an error;
// never a panic. Seeded with files of every model kind the CLI writes and
// the version-1 files kept as test data.
func FuzzLoadPipeline(f *testing.F) {
	wine := datasets.Wine()
	for _, spec := range []PipelineSpec{
		{Method: "lda", Scale: "zscore"},
		{Method: "gda", Scale: "minmax", Params: map[string]string{"sigma": "2"}},
		{Method: "kpca", Dims: 2, Params: map[string]string{"space": "nystrom", "landmarks": "20"}},
		{Method: "aqmida", Scale: "unit,pca:0.99"},
	} {
		p, err := spec.Fit(context.Background(), wine)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.Save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
		if spec.Method == "gda" {
			f.Add(binaryTrainSeed(f, b.Bytes()))
		}
	}
	v1, _ := filepath.Glob(filepath.Join("..", "internal", "cli", "testdata", "v1_*.json"))
	for _, name := range v1 {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzPipeline(t, b)
		// The same content with a valid checksum, so that the decoders
		// behind the checksum are fuzzed too.
		var file File
		if json.Unmarshal(b, &file) == nil && file.Version >= 3 {
			file.Checksum, _ = file.checksum(nil)
			if resigned, err := json.Marshal(file); err == nil {
				fuzzPipeline(t, resigned)
			}
		}
	})
}

// binaryTrainSeed returns the kernel model file b with its training rows
// stored as little-endian doubles (float64le), as version 4 stores
// matrices of embed.BinaryMatrixMin values or more, re-signed: the
// binary decoder gets seeds of a size the fuzzer can work with.
func binaryTrainSeed(f *testing.F, b []byte) []byte {
	var file File
	if err := json.Unmarshal(b, &file); err != nil {
		f.Fatal(err)
	}
	var model map[string]any
	if err := json.Unmarshal(file.Model, &model); err != nil {
		f.Fatal(err)
	}
	train := model["train"].(map[string]any)
	var raw []byte
	for _, v := range train["data"].([]any) {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v.(float64)))
	}
	delete(train, "data")
	train["float64le"] = raw
	var err error
	if file.Model, err = json.Marshal(model); err != nil {
		f.Fatal(err)
	}
	if file.Checksum, err = file.checksum(nil); err != nil {
		f.Fatal(err)
	}
	out, err := json.Marshal(file)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := LoadPipeline(bytes.NewReader(out)); err != nil {
		f.Fatalf("the binary seed does not load: %v", err)
	}
	return out
}

func fuzzPipeline(t *testing.T, b []byte) {
	p, err := LoadPipeline(bytes.NewReader(b))
	if err != nil {
		return
	}
	if p.Features < 1 || p.Features > 1<<16 {
		return
	}
	x := mat.NewDense(3, p.Features, nil)
	for i := range 3 {
		for j := range p.Features {
			x.Set(i, j, float64(i-j))
		}
	}
	z, err := p.Transform(x)
	if err == nil {
		if r, c := z.Dims(); r != 3 || c != p.Dims() {
			t.Fatalf("%d×%d output for 3 rows and %d dims", r, c, p.Dims())
		}
	}
}
