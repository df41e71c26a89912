package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

// CrossProduct equals gonum's symmetric rank-k update to rounding (1e-13
// relative) for sizes that are and are not multiples of the tile, and is
// bit-identical at GOMAXPROCS 1 and 2.
func TestCrossProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {300, 128}, {200, 257}, {50, 400}} {
		n, p := sz[0], sz[1]
		x := mat.NewDense(n, p, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		var want mat.SymDense
		want.SymOuterK(1, x.T())
		if e := maxRelDiff(&want, CrossProduct(x)); e > 1e-13 {
			t.Errorf("%d×%d: differs from SymOuterK by %.3g relative", n, p, e)
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		runtime.GOMAXPROCS(1)
		g1 := CrossProduct(x)
		runtime.GOMAXPROCS(2)
		g2 := CrossProduct(x)
		sameUpper(t, g1, g2, fmt.Sprintf("%d×%d: GOMAXPROCS 1 and 2", n, p))
	}
}

// maxRelDiff is the largest |want − got| entry over the largest |want|.
func maxRelDiff(want, got mat.Matrix) float64 {
	r, c := want.Dims()
	big, diff := 0.0, 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			big = math.Max(big, math.Abs(want.At(i, j)))
			diff = math.Max(diff, math.Abs(want.At(i, j)-got.At(i, j)))
		}
	}
	return diff / big
}

// sameUpper fails unless the upper triangles of a and b are equal bit for
// bit; what names the two.
func sameUpper(t *testing.T, a, b *mat.SymDense, what string) {
	t.Helper()
	p := a.SymmetricDim()
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				t.Fatalf("%s: entry (%d,%d) differs: %v and %v", what, i, j, a.At(i, j), b.At(i, j))
			}
		}
	}
}

func BenchmarkCrossProduct10000x784(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(10000, 784, nil)
	for i := 0; i < 10000; i++ {
		for j := 0; j < 784; j++ {
			x.Set(i, j, rng.Float64())
		}
	}
	b.Run("CrossProduct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CrossProduct(x)
		}
	})
	b.Run("SymOuterK", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var s mat.SymDense
			s.SymOuterK(1, x.T())
		}
	})
}

// SymTransMul equals gonum's Aᵀ·(G·A) for a symmetric G to rounding
// (1e-13 relative), for heights across chunks and orders across tiles; its
// lower triangle mirrors the upper (SymDense), and it is bit-identical at
// GOMAXPROCS 1 and 2. With B = A it is CrossProduct bit for bit.
func TestSymTransMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	fill := func(m *mat.Dense) {
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sz := range [][2]int{{1, 1}, {7, 13}, {2048, 130}, {2300, 257}, {60, 300}} {
		n, p := sz[0], sz[1]
		a := mat.NewDense(n, p, nil)
		fill(a)
		g := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, rng.NormFloat64())
			}
		}
		var b, want mat.Dense
		b.Mul(g, a)
		want.Mul(a.T(), &b)
		runtime.GOMAXPROCS(1)
		g1, err := SymTransMul(context.Background(), a, &b, "test")
		if err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(2)
		g2, err := SymTransMul(nil, a, &b, "")
		if err != nil {
			t.Fatal(err)
		}
		sameUpper(t, g1, g2, fmt.Sprintf("%d×%d: GOMAXPROCS 1 and 2", n, p))
		if e := maxRelDiff(&want, g2); e > 1e-13 {
			t.Errorf("%d×%d: differs from Aᵀ·B by %.3g relative", n, p, e)
		}
		same, err := SymTransMul(nil, a, a, "")
		if err != nil {
			t.Fatal(err)
		}
		sameUpper(t, same, CrossProduct(a), fmt.Sprintf("%d×%d: SymTransMul(A, A) and CrossProduct(A)", n, p))
	}
}

// SymTransMul of order ≥ progress.MinOrder reports after each chunk of
// rows and stops between chunks when its context is cancelled: here it is
// cancelled at its first line (after the first of three chunks) and
// returns the context's error, with no further line; cancelled before it
// starts, it adds no chunk to its sums.
func TestSymTransMulProgressAndCancel(t *testing.T) {
	withGap(t, 0)
	n, p := 2*gramChunk+4, progress.MinOrder
	a := mat.NewDense(n, p, nil)
	for i := range a.RawMatrix().Data {
		a.RawMatrix().Data[i] = float64(i%7) - 3
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &lineLog{at: "products", cancel: cancel}
	ctx = progress.With(ctx, log.add)
	_, err := SymTransMul(ctx, a, a, "objective matrix")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled product: error %v, want context.Canceled", err)
	}
	want := fmt.Sprintf("objective matrix: products over %d rows, 49 %%", n)
	if len(log.lines) != 1 || !strings.HasPrefix(log.lines[0], want) {
		t.Fatalf("lines %q, want one starting %q", log.lines, want)
	}
	log.lines = nil
	if _, err := SymTransMul(progress.With(context.Background(), log.add), a, a, "objective matrix"); err != nil {
		t.Fatal(err)
	}
	if len(log.lines) != 2 || !strings.Contains(log.lines[1], "99 %") {
		t.Fatalf("uncancelled product: lines %q, want two, the second at 99 %%", log.lines)
	}
	// Cancelled before it starts, the product adds no chunk: with the
	// first chunk's rows zero and the others not, its sums stay zero.
	done, stop := context.WithCancel(context.Background())
	stop()
	b := mat.NewDense(3*gramChunk, 3, nil)
	for i := gramChunk; i < 3*gramChunk; i++ {
		b.SetRow(i, []float64{1, 2, 3})
	}
	part, err := symTransMul(b, b, newStage(done, 3, "test"))
	if !errors.Is(err, context.Canceled) || mat.Norm(part, 1) != 0 {
		t.Fatalf("cancelled before the first chunk: error %v, sums %v", err, mat.Formatted(part))
	}
}

// SymTransMul against the full product by gonum's Aᵀ·B form followed by
// Symmetrize (what a direct implementation of Φᵀ·G·Φ does), on a
// 3000×3000 pair: docs/performance.md gives the measured ratio.
func BenchmarkSymTransMul3000(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := mat.NewDense(3000, 3000, nil)
	y := mat.NewDense(3000, 3000, nil)
	for _, m := range []*mat.Dense{x, y} {
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	b.Run("SymTransMul", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := SymTransMul(nil, x, y, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MulSymmetrize", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var c mat.Dense
			c.Mul(x.T(), y)
			Symmetrize(&c)
		}
	})
}
