package progress_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/progress"
)

// A fit whose context carries a reporter announces its long steps: here
// kernel PCA on 2 000 rows.
func ExampleWith() {
	x := mat.NewDense(2000, 2, nil)
	for i := 0; i < 2000; i++ {
		x.Set(i, 0, float64(i%37))
		x.Set(i, 1, float64((i*7)%41))
	}
	ctx := progress.With(context.Background(), func(line string) { fmt.Println(line) })
	m, err := method.New("kpca", map[string]string{"sigma": "10"})
	if err != nil {
		panic(err)
	}
	if _, err := method.FitContext(ctx, m, x, nil, 2); err != nil {
		panic(err)
	}
	// Output:
	// kernel matrix, 2000×2000
	// lanczos eigen-solver: 2 pairs of order 2000
}
