package embed

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/kernel"
)

// MultiKernel is the space of a non-negative combination of kernels,
// k = Σₘ βₘ·kₘ (the building block of multiple-kernel learning, seed 002
// §3). Its Bases are the centred base Gram matrices K̃ₘ, computed once and
// cached, so that re-weighting (an iteration of MKL-SR) costs one weighted
// sum of n×n matrices instead of M new Gram matrices: centring is linear,
// so the centred combination is the combination of the centred bases.
type MultiKernel struct {
	Kernels []kernel.Kernel
	Weights []float64 // βₘ ≥ 0, one per kernel, not all zero
}

// Name implements Space.
func (s MultiKernel) Name() string {
	if err := checkWeights(s.Kernels, s.Weights); err != nil {
		return "multikernel(invalid)"
	}
	return "multikernel " + kernel.Sum(s.Weights, s.Kernels...).String()
}

// Prepare implements Space.
func (s MultiKernel) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	if err := checkWeights(s.Kernels, s.Weights); err != nil {
		return nil, err
	}
	b, err := NewKernelBases(ctx, s.Kernels, x)
	if err != nil {
		return nil, err
	}
	return b.Combine(s.Weights)
}

func checkWeights(ks []kernel.Kernel, w []float64) error {
	if len(ks) == 0 {
		return errors.New("multikernel: no kernels")
	}
	if len(w) != len(ks) {
		return fmt.Errorf("multikernel: %d weights for %d kernels", len(w), len(ks))
	}
	sum := 0.0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("multikernel: weight %d is %v; weights must be finite and ≥ 0", i+1, v)
		}
		sum += v
	}
	if sum == 0 {
		return errors.New("multikernel: every weight is zero")
	}
	return nil
}

// KernelBases holds the centred Gram matrices K̃ₘ of M kernels on the same
// training rows (M·n² floats) and their centring statistics.
type KernelBases struct {
	Kernels []kernel.Kernel
	Grams   []*mat.Dense // centred, n×n
	Centers []kernel.Centering
	Train   *mat.Dense
}

// NewKernelBases computes and centres the Gram matrix of every kernel; an
// RBF kernel with sigma=auto takes its width from x (kernel.Resolve).
func NewKernelBases(ctx context.Context, ks []kernel.Kernel, x *mat.Dense) (*KernelBases, error) {
	if err := checkRows(ctx, x); err != nil {
		return nil, err
	}
	b := &KernelBases{Kernels: append([]kernel.Kernel(nil), ks...), Train: mat.DenseCopyOf(x)}
	for i, k := range ks {
		k, err := k.Resolve(x)
		if err != nil {
			return nil, fmt.Errorf("multikernel: kernel %d: %w", i+1, err)
		}
		b.Kernels[i] = k
	}
	// One product xᵢᵀxⱼ for every kernel's Gram matrix.
	grams, err := kernel.GramsContext(ctx, b.Kernels, x, nil)
	if err != nil {
		return nil, fmt.Errorf("multikernel: %w", err)
	}
	for _, g := range grams {
		c, err := kernel.CenterGram(g)
		if err != nil {
			return nil, err
		}
		b.Grams = append(b.Grams, g)
		b.Centers = append(b.Centers, c)
	}
	return b, nil
}

// Products returns K̃ₘ·A for every kernel (MKL-SR's β-step).
func (b *KernelBases) Products(a *mat.Dense) []*mat.Dense {
	out := make([]*mat.Dense, len(b.Grams))
	for m, g := range b.Grams {
		out[m] = new(mat.Dense)
		out[m].Mul(g, a)
	}
	return out
}

// Combine returns the prepared kernel space of Σₘ wₘ·kₘ (a new n×n
// matrix; the bases are not modified).
func (b *KernelBases) Combine(w []float64) (*Prepared, error) {
	if err := checkWeights(b.Kernels, w); err != nil {
		return nil, err
	}
	n, _ := b.Train.Dims()
	g := mat.NewDense(n, n, nil)
	c := kernel.Centering{ColMeans: make([]float64, n)}
	for m, wm := range w {
		if wm == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			floats.AddScaled(g.RawRowView(i), wm, b.Grams[m].RawRowView(i))
		}
		floats.AddScaled(c.ColMeans, wm, b.Centers[m].ColMeans)
		c.GrandMean += wm * b.Centers[m].GrandMean
	}
	sum := kernel.Sum(w, b.Kernels...)
	train := b.Train
	return newPrepared(g, true, "multikernel "+sum.String(), func(a *mat.Dense) Model {
		return &KernelModel{Kernel: sum, Train: train, Center: c, A: a}
	})
}
