package embed_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/datasets"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/preprocess"
)

// A method of one's own from graphs of one's own: heat weights join the
// rows of each class (the intrinsic graph, whose Laplacian L_w is the
// within-class spread) and the rows of different classes (the penalty
// graph, L_b), embedded by the graph-embedding framework's
//
//	min tr(Vᵀ·Φᵀ·L_w·Φ·V)  subject to  Vᵀ·Φᵀ·L_b·Φ·V = I
//
// in the linear space Φ = X̄ (embed.Kernel{K: …} gives the kernel form;
// a width of kernel.RBFAuto() must be resolved on the rows first). To use
// it as a dimred method (PipelineSpec, model files, evaluate.Run), wrap
// the fit in a type with Fit(x, y, dims) returning &method.Fitted{Model:
// res.Model, …} and a Params method, and register it with
// method.Register (docs/architecture.md, "Adding things").
func ExampleProblem() {
	ds := datasets.Iris()
	scale, _ := preprocess.Pipeline{preprocess.MinMax{}}.Fit(ds.X)
	x, _ := scale.Apply(ds.X)
	n, _ := x.Dims()
	within, between := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := math.Exp(-graph.SqDist(x.RawRowView(i), x.RawRowView(j)) / 0.5)
			if ds.Y[i] == ds.Y[j] {
				within.SetSym(i, j, v)
			} else {
				between.SetSym(i, j, v)
			}
		}
	}
	lw, err := graph.LaplacianOf(within)
	if err != nil {
		panic(err)
	}
	lb, err := graph.LaplacianOf(between)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	prep, err := embed.Linear{}.Prepare(ctx, x) // centres the rows; new rows are centred alike
	if err != nil {
		panic(err)
	}
	p := &embed.Problem{Objective: lw, Constraint: lb, Minimize: true, Dims: 2}
	res, err := p.SolveContext(ctx, prep)
	if err != nil {
		panic(err)
	}
	z, _ := res.Model.Transform(x)
	ncc, _ := classify.NCC{}.Fit(z, ds.Y)
	pred, _ := ncc.Predict(z)
	wrong := 0
	for i, c := range pred {
		if c != ds.Y[i] {
			wrong++
		}
	}
	fmt.Println(res.Model.Dims(), "directions, smallest ratio first:", res.Values[0] <= res.Values[1])
	fmt.Println("training rows misclassified by the nearest class centroid:", wrong)
	// Output:
	// 2 directions, smallest ratio first: true
	// training rows misclassified by the nearest class centroid: 3
}
