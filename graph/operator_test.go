package graph

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Dense.Apply (linalg.SymMul: row blocks expanded from the stored triangle, then Dgemm)
// against the product written out from At, with sizes that leave a partial
// block, whatever GOMAXPROCS is; the lower triangle of the storage, which
// gonum ignores, holds NaN and must never be read.
func TestDenseApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const blockRows = 128 // linalg.SymMul's row block
	for _, n := range []int{1, 5, blockRows, blockRows + 1, 2*blockRows + 37} {
		data := make([]float64, n*n)
		for i := range data {
			data[i] = math.NaN() // the unused triangle must never be read
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j >= i {
					data[i*n+j] = rng.NormFloat64()
				}
			}
		}
		var s mat.SymDense
		s.SetRawSymmetric(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: data})
		c := 3
		if n > 2*blockRows {
			c = 200 // enough work for gonum's Dgemm to run in parallel blocks
		}
		m := mat.NewDense(n, c, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		var first *mat.Dense
		for _, procs := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(procs)
			got := Dense{M: &s}.Apply(m)
			runtime.GOMAXPROCS(prev)
			for i := 0; i < n; i++ {
				for j := 0; j < c; j++ {
					want, norm := 0.0, 0.0
					for k := 0; k < n; k++ {
						want += s.At(i, k) * m.At(k, j)
						norm += math.Abs(s.At(i, k) * m.At(k, j))
					}
					if d := math.Abs(got.At(i, j) - want); !(d <= 1e-13*norm) {
						t.Fatalf("n = %d, GOMAXPROCS %d: (%d,%d) = %v, want %v", n, procs, i, j, got.At(i, j), want)
					}
				}
			}
			if first == nil {
				first = got
			} else if !mat.Equal(first, got) {
				t.Fatalf("n = %d: the product depends on GOMAXPROCS", n)
			}
		}
	}
}

// ApplyContext: through a dense graph (and a sum holding one) it equals
// Apply bit for bit and stops with the context's error when cancelled;
// graphs without a metered product check the context first; a nil
// context is Apply.
func TestApplyContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 300
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, rng.NormFloat64())
		}
	}
	m := mat.NewDense(n, 4, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = rng.NormFloat64()
	}
	dense := Dense{M: s}
	sum := Sum{Coef: []float64{2, -1}, Ops: []Operator{dense, Identity(n)}}
	live := context.Background()
	dead, cancel := context.WithCancel(live)
	cancel()
	for _, op := range []Operator{dense, sum, Identity(n)} {
		for _, ctx := range []context.Context{nil, live} {
			got, err := ApplyContext(ctx, op, m)
			if err != nil {
				t.Fatalf("%T: %v", op, err)
			}
			if !mat.Equal(got, op.Apply(m)) {
				t.Errorf("%T: ApplyContext differs from Apply", op)
			}
		}
		if _, err := ApplyContext(dead, op, m); !errors.Is(err, context.Canceled) {
			t.Errorf("%T with a cancelled context: error %v, want context.Canceled", op, err)
		}
	}
}
