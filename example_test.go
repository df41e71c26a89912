package dimred_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/preprocess"
)

// Fit GDA on the built-in wine data (min-max scaled, RBF σ = 1) and embed
// the rows.
func Example() {
	ds := datasets.Wine()
	scale, _ := preprocess.Pipeline{preprocess.MinMax{}}.Fit(ds.X) // fit on training rows only
	x, _ := scale.Apply(ds.X)

	gda, err := method.New("gda", map[string]string{"sigma": "1"}) // or method.GDA{...}
	if err != nil {
		panic(err)
	}
	model, err := gda.Fit(x, ds.Y, 0) // 0 = as many dimensions as the method gives (C−1 = 2)
	if err != nil {
		panic(err)
	}
	z, _ := model.Transform(x) // new rows: scale.Apply, then model.Transform
	r, c := z.Dims()
	fmt.Println(r, c)
	// Output: 178 2
}

// Fit a pipeline (min-max scaling + GDA with its RBF width from the data),
// save it with its preprocessing and metadata, load it back and embed raw
// rows: the same model file 'dimred fit' writes and 'dimred transform'
// reads.
func Example_pipeline() {
	ctx := context.Background() // cancel it to stop a long fit
	ds := datasets.Wine()
	p, err := method.PipelineSpec{Method: "gda", Scale: "minmax"}.Fit(ctx, ds)
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // or an *os.File
	if err := p.Save(&file); err != nil {
		panic(err)
	}
	q, err := method.LoadPipeline(&file) // checks format, version and checksum
	if err != nil {
		panic(err)
	}
	z, _ := q.Transform(ds.X) // raw rows: the saved scaling is applied first
	r, c := z.Dims()
	fmt.Println(q.Method, q.Features, r, c)
	// Output: gda 13 178 2
}
