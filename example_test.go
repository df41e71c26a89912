package dimred_test

import (
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
