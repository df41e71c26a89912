package method_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/method"
)

// Fit a method by name under a deadline, and tell its errors apart by
// type: a request for more dimensions than the method gives is an
// *embed.DimsError, a NaN or an infinity in the rows a
// *data.NonFiniteError, a deadline or a cancellation the context's error.
func ExampleFitContext() {
	ds := datasets.Wine()
	lda, err := method.New("lda", nil)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model, err := method.FitContext(ctx, lda, ds.X, ds.Y, 0) // 0: every dimension the method gives
	if err != nil {
		panic(err)
	}
	fmt.Println("dimensions:", model.Dims())

	_, err = method.FitContext(ctx, lda, ds.X, ds.Y, 5)
	var de *embed.DimsError
	fmt.Println(errors.As(err, &de), de.Available, err)

	bad := mat.DenseCopyOf(ds.X)
	bad.Set(3, 1, math.NaN())
	_, err = method.FitContext(ctx, lda, bad, ds.Y, 2)
	var nf *data.NonFiniteError
	fmt.Println(errors.As(err, &nf), nf.Row, nf.Col)

	done, stop := context.WithCancel(ctx)
	stop()
	_, err = method.FitContext(done, lda, ds.X, ds.Y, 2)
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// dimensions: 2
	// true 2 lda: 5 dimensions requested, but LDA gives at most C−1 = 2 for 3 classes
	// true 4 2
	// true
}

// Fit a pipeline (preprocessing, method, names of features and classes),
// save it, load it back and map new rows in chunks that a cancellation
// stops between: what 'dimred fit' and 'dimred transform' do.
func ExamplePipelineSpec_Fit() {
	ds := datasets.Digits() // 1 797 rows of 64 pixels, 10 classes
	ctx := context.Background()
	p, err := method.PipelineSpec{Method: "gda", Scale: "minmax", Params: map[string]string{"sigma": "2"}}.Fit(ctx, ds)
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // or an *os.File
	if err := p.Save(&file); err != nil {
		panic(err)
	}
	q, err := method.LoadPipeline(&file)
	if err != nil {
		panic(err)
	}
	z, err := q.TransformContext(ctx, ds.X) // TransformChunk rows at a time
	if err != nil {
		panic(err)
	}
	r, c := z.Dims()
	fmt.Println(q.Method, q.Features, len(q.ClassNames), r, c)
	// Output: gda 64 10 1797 9
}
