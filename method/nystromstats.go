package method

import (
	"context"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/stats"
)

// NystromStats fits a kernel method with space=nystrom from the statistics
// of its Nyström features, for a caller that never holds the rows whole: a
// streamed file (`dimred fit --stream`) or the shards of a distributed
// pipeline (`dimred-beam`). It takes three passes over the rows, which
// must be the same rows in the same order each time:
//
//  1. count the rows n, and pick the landmark rows LandmarkRows(n) (the
//     rows the in-memory fit picks: uniform sampling from the seed);
//  2. collect those rows, in row order, and build the feature map
//     (FeatureMap: embed.NystromMap of every kernel on the landmarks);
//  3. accumulate the statistics of the features of every row
//     (NystromFeatureMap.Apply, stats.Moments.Add), then Fit.
//
// Fit folds the linear model of the features into a model of the input
// rows: the in-memory Nyström fit up to rounding (tests: the CLI's
// TestFitStreamNystrom and the Beam pipeline's TestFitEqualsInMemory).
// One kernel (KPCA, GDA, KQMI with reg=ridge, KSR: NystromStatsFitter) or
// several base kernels on shared landmarks (MKL-SR:
// MultiNystromStatsFitter).
type NystromStats struct {
	one     NystromStatsFitter
	multi   MultiNystromStatsFitter
	kernels []kernel.Kernel
	space   embed.Nystrom
}

// HasNystromStats reports whether m is a kernel method that can fit from
// the statistics of its Nyström features (with space=nystrom).
func HasNystromStats(m Method) bool {
	_, one := m.(NystromStatsFitter)
	_, multi := m.(MultiNystromStatsFitter)
	return one || multi
}

// NystromStatsMethods returns the names of the registered methods that can
// fit from the statistics of their Nyström features (HasNystromStats).
func NystromStatsMethods() []string { return namesWhere(HasNystromStats) }

// namesWhere returns the names of the registered methods, with default
// parameters, for which ok holds.
func namesWhere(ok func(Method) bool) []string {
	var names []string
	for _, info := range All() {
		if m, err := New(info.Name, nil); err == nil && ok(m) {
			names = append(names, info.Name)
		}
	}
	return names
}

// NewNystromStats returns the fit from Nyström feature statistics of m, or
// an error saying why m cannot fit that way (not a kernel method, space
// other than nystrom, sampling that needs every row, sigma=auto, ...).
func NewNystromStats(m Method) (*NystromStats, error) {
	var (
		nm  NystromStats
		err error
	)
	switch f := m.(type) {
	case NystromStatsFitter:
		nm.one = f
		nm.space, err = f.NystromSpace()
	case MultiNystromStatsFitter:
		nm.multi = f
		nm.kernels, nm.space, err = f.MultiNystromSpace()
	default:
		return nil, fmt.Errorf("%T has no Nyström form; the kernel methods that fit from Nyström feature statistics: %s", m, strings.Join(NystromStatsMethods(), ", "))
	}
	if err != nil {
		return nil, err
	}
	return &nm, nil
}

// LandmarkRows returns the 0-based indices, ascending, of the landmark rows
// among n rows (embed.Nystrom.LandmarkRows).
func (nm *NystromStats) LandmarkRows(n int) ([]int, error) {
	return nm.space.LandmarkRows(n)
}

// FeatureMap builds the feature map of the landmark rows lm (in row
// order).
func (nm *NystromStats) FeatureMap(ctx context.Context, lm *mat.Dense) (*NystromFeatureMap, error) {
	if nm.multi == nil {
		t, err := embed.NystromMap(ctx, nm.space.K, lm)
		if err != nil {
			return nil, err
		}
		return &NystromFeatureMap{Kernel: nm.space.K, Landmarks: lm, T: t}, nil
	}
	f := &NystromFeatureMap{Landmarks: lm, Kernels: nm.kernels}
	for i, k := range nm.kernels {
		t, err := embed.NystromMap(ctx, k, lm)
		if err != nil {
			return nil, fmt.Errorf("base kernel %d: %w", i+1, err)
		}
		f.Maps = append(f.Maps, t)
	}
	return f, nil
}

// Fit fits the method on the statistics ms of the features given by fm
// and folds the linear model into the model of the input rows.
func (nm *NystromStats) Fit(ms *stats.Moments, fm *NystromFeatureMap, dims int) (*Fitted, error) {
	if nm.multi == nil {
		lin, err := nm.one.FitFeatureStats(ms, dims)
		if err != nil {
			return nil, err
		}
		model, err := embed.NewNystromModel(fm.Kernel, fm.Landmarks, fm.T, lin.Model.(*embed.LinearModel))
		if err != nil {
			return nil, err
		}
		lin.Model = model
		return lin, nil
	}
	blocks := make([]int, len(fm.Maps))
	for i, t := range fm.Maps {
		_, blocks[i] = t.Dims()
	}
	lin, err := nm.multi.FitMultiFeatureStats(ms, blocks, dims)
	if err != nil {
		return nil, err
	}
	model, err := embed.NewMultiNystromModel(fm.Kernels, fm.Landmarks, fm.Maps, lin.Model.(*embed.LinearModel))
	if err != nil {
		return nil, err
	}
	lin.Model = model
	return lin, nil
}

// NystromFeatureMap is the Nyström feature map of a kernel method: the
// kernel, the landmark rows L and the map T (embed.NystromMap), so that
// the features of rows x are k(x, L)·T; for a method with several base
// kernels (MKL-SR), Kernels and Maps instead, the features of every
// kernel side by side.
type NystromFeatureMap struct {
	Kernel    kernel.Kernel
	Landmarks *mat.Dense
	T         *mat.Dense
	Kernels   []kernel.Kernel
	Maps      []*mat.Dense
}

// Apply returns the features of the rows of x.
func (f *NystromFeatureMap) Apply(ctx context.Context, x *mat.Dense) (*mat.Dense, error) {
	if len(f.Kernels) > 0 {
		return embed.MultiNystromFeatures(ctx, f.Kernels, f.Landmarks, f.Maps, x)
	}
	return embed.NystromFeatures(ctx, f.Kernel, f.Landmarks, f.T, x)
}
