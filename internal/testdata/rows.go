package testdata

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Classes returns n seeded rows of d features in c Gaussian classes
// (row i has label i mod c; feature j is 0.3·N(0,1) + ((yᵢ+j) mod c)/c):
// the input of the Go benchmarks of the hot kernels, which need neither
// the shared data nor any particular structure beyond distinct classes.
func Classes(n, d, c int) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % c
		for j := 0; j < d; j++ {
			x.Set(i, j, 0.3*rng.NormFloat64()+float64((y[i]+j)%c)/float64(c))
		}
	}
	return x, y
}

// Normal returns an n×d matrix of standard normal entries drawn from rng,
// row by row (the random rows many tests define for themselves).
func Normal(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}
