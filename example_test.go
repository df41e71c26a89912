package dimred_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/cluster"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/evaluate"
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

// Compare methods under seed 000's protocol: 10-fold stratified
// cross-validation, [−1, 1] scaling fitted on each training part, NCC and
// 3-NN on the embedding at every output dimension.
func Example_evaluate() {
	ds := datasets.Wine()
	lda, _ := method.New("lda", nil)
	gda, _ := method.New("gda", map[string]string{"sigma": "1"})
	rep, err := evaluate.Run(ds, evaluate.Protocol{
		Preprocess:  "minmax",
		Methods:     []evaluate.NamedMethod{{Name: "lda", Method: lda}, {Name: "gda", Method: gda}},
		Classifiers: []classify.Classifier{classify.NCC{}, classify.KNN{K: 3}},
		Folds:       10,
		Seed:        0,
	})
	if err != nil {
		panic(err)
	}
	for _, r := range rep.Results {
		fmt.Printf("%s %s: %.2f %% at %d dimensions\n", r.Method, r.Classifier, 100*r.MinError, r.BestDim)
	}
	// Output:
	// lda ncc: 1.12 % at 2 dimensions
	// lda knn3: 0.56 % at 2 dimensions
	// gda ncc: 1.12 % at 1 dimensions
	// gda knn3: 1.12 % at 1 dimensions
}

// Past a few thousand rows, a kernel method can work in the span of m
// landmarks (Nyström features) instead of all n training rows: the fit
// costs O(n·m²) instead of O(n³) and the model keeps m rows.
func Example_nystrom() {
	ds := datasets.Digits() // 1 797 rows of 64 pixels
	p, err := method.PipelineSpec{
		Method: "kqmi", Scale: "minmax",
		Params: map[string]string{"space": "nystrom", "landmarks": "300"},
	}.Fit(context.Background(), ds)
	if err != nil {
		panic(err)
	}
	z, _ := p.Transform(ds.X)
	r, c := z.Dims()
	what, _, _ := strings.Cut(embed.Describe(p.Model.Model), ",")
	fmt.Println(r, c, what)
	// Output: 1797 9 Nyström features on 300 landmarks
}

// Cluster an embedding by normalized cut (seed 002's protocol) and score
// the clusters against the classes.
func Example_cluster() {
	ds := datasets.Iris()
	scale, _ := preprocess.Pipeline{preprocess.MinMax{}}.Fit(ds.X)
	x, _ := scale.Apply(ds.X)
	res, err := cluster.NormalizedCut{K: 3, Seed: 1}.Fit(x)
	if err != nil {
		panic(err)
	}
	acc, _ := cluster.Accuracy(res.Labels(), ds.Y)
	fmt.Printf("clustering accuracy %.2f\n", acc)
	// Output: clustering accuracy 0.97
}
