package dimredbeam

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/method"
)

// Kernel methods at scale: a kernel method with space=nystrom (KPCA, GDA,
// KQMI with reg=ridge) is fitted in one pipeline of four passes over the
// shards, joined by side inputs:
//
//  1. count the rows of every shard;
//  2. pick the landmark rows from the total count with the method's seed
//     (embed.Nystrom.LandmarkRows: the rows the in-memory fit picks on the
//     shards read one after another in path order) and collect them;
//  3. build the feature map T from the landmarks (embed.NystromMap);
//  4. reduce the Nyström features of every shard to statistics, merge
//     them (MomentsFn), fit the linear model on them
//     (method.NystromStatsFitter) and fold it into a Nyström model of the
//     input rows (embed.NewNystromModel).
//
// Every pass reads the shards with the same rules, so with a dead-letter
// file the malformed rows are left out of every pass alike (and written
// once, from the last pass).

// shardRows is the number of good rows of a shard.
type shardRows struct {
	Index, Rows int
}

// landmarkRow is a landmark row: its shard index and row in the shard,
// which order the landmarks as the rows of all shards in shard order, and
// its values.
type landmarkRow struct {
	Shard, Row int
	Values     []float64
}

// landmarkPlan lists, per shard index, the shard's rows (0-based among its
// good rows) that are landmarks.
type landmarkPlan struct {
	Rows  map[int][]int
	Total int // landmarks in all
}

// FeatureMap is the Nyström feature map of a kernel method
// (method.NystromFeatureMap): the landmark rows and the map of every
// kernel, sent to the workers as a side input.
type FeatureMap = method.NystromFeatureMap

type featureMapJSON struct {
	Kernel    kernel.Kernel       `json:"kernel"`
	Landmarks *embed.MatrixJSON   `json:"landmarks"`
	T         *embed.MatrixJSON   `json:"t,omitempty"`
	Kernels   []kernel.Kernel     `json:"kernels,omitempty"`
	Maps      []*embed.MatrixJSON `json:"maps,omitempty"`
}

func encodeFeatureMap(f FeatureMap) ([]byte, error) {
	j := featureMapJSON{Kernel: f.Kernel, Landmarks: embed.ToJSONMat(f.Landmarks), Kernels: f.Kernels}
	if f.T != nil {
		j.T = embed.ToJSONMat(f.T)
	}
	for _, t := range f.Maps {
		j.Maps = append(j.Maps, embed.ToJSONMat(t))
	}
	return json.Marshal(j)
}

func decodeFeatureMap(b []byte) (FeatureMap, error) {
	var j featureMapJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return FeatureMap{}, fmt.Errorf("dimredbeam: corrupt Nyström feature map: %w", err)
	}
	lm, err := j.Landmarks.Dense("landmarks")
	if err != nil {
		return FeatureMap{}, err
	}
	f := FeatureMap{Kernel: j.Kernel, Landmarks: lm, Kernels: j.Kernels}
	if len(j.Kernels) == 0 {
		if f.T, err = j.T.Dense("t"); err != nil {
			return FeatureMap{}, err
		}
		return f, nil
	}
	if len(j.Maps) != len(j.Kernels) {
		return FeatureMap{}, fmt.Errorf("dimredbeam: corrupt Nyström feature map: %d kernels and %d maps", len(j.Kernels), len(j.Maps))
	}
	for i, mj := range j.Maps {
		t, err := mj.Dense(fmt.Sprintf("maps[%d]", i))
		if err != nil {
			return FeatureMap{}, err
		}
		f.Maps = append(f.Maps, t)
	}
	return f, nil
}

// nystromFit adds the passes of a Nyström fit of cfg over the shards col.
func nystromFit(s beam.Scope, col beam.PCollection, cfg FitConfig, fit *fitFn) {
	in := cfg.Input
	counts := beam.ParDo(s.Scope("count"), &countFn{Options: in.Options, Chunk: in.chunk()}, col)
	imp := beam.Impulse(s)
	plan := beam.ParDo(s.Scope("pick"), &pickFn{Method: cfg.Method, Params: cfg.Params}, imp, beam.SideInput{Input: counts})
	rows := beam.ParDo(s.Scope("landmarks"), &landmarkFn{Options: in.Options, Chunk: in.chunk()}, col, beam.SideInput{Input: plan})
	fmap := beam.ParDo(s.Scope("map"), &mapFn{Method: cfg.Method, Params: cfg.Params}, imp, beam.SideInput{Input: rows})
	partials, bad := beam.ParDo2(s.Scope("stats"), &featureStatsFn{Options: in.Options, Chunk: in.chunk(), DeadLetter: cfg.DeadLetter != ""}, col, beam.SideInput{Input: fmap})
	merged := beam.Combine(s.Scope("merge"), &MomentsFn{}, partials)
	beam.ParDo0(s.Scope("fit"), &nystromFitFn{Fit: fit}, merged, beam.SideInput{Input: fmap})
	if cfg.DeadLetter != "" {
		writeDeadLetter(s.Scope("deadletter"), bad, cfg.DeadLetter)
	}
}

// skipBad is the handler that skips malformed rows in the passes that do
// not report them (the last pass reports them, or fails on the first).
func skipBad(*data.FormatError) error { return nil }

// countFn counts the good rows of a shard.
type countFn struct {
	Options data.Options
	Chunk   int
}

func (f *countFn) ProcessElement(ctx context.Context, sh Shard) (shardRows, error) {
	n := 0
	err := scanShard(ctx, sh, f.Options, f.Chunk, func(x *mat.Dense, _ []int) error {
		r, _ := x.Dims()
		n += r
		return nil
	}, skipBad)
	return shardRows{Index: sh.Index, Rows: n}, err
}

// nystromSpace returns the fit from Nyström feature statistics of the
// named method.
func nystromSpace(name string, params map[string]string) (*method.NystromStats, error) {
	m, err := method.New(name, params)
	if err != nil {
		return nil, err
	}
	if !method.HasNystromStats(m) {
		return nil, fmt.Errorf("method %s has no Nyström form", name)
	}
	return method.NewNystromStats(m)
}

// pickFn picks the landmark rows from the shards' row counts.
type pickFn struct {
	Method string
	Params map[string]string
}

func (f *pickFn) ProcessElement(_ []byte, counts func(*shardRows) bool) (landmarkPlan, error) {
	nm, err := nystromSpace(f.Method, f.Params)
	if err != nil {
		return landmarkPlan{}, err
	}
	var all []shardRows
	var c shardRows
	for counts(&c) {
		all = append(all, c)
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Index < all[b].Index })
	n := 0
	for _, c := range all {
		n += c.Rows
	}
	rows, err := nm.LandmarkRows(n)
	if err != nil {
		return landmarkPlan{}, err
	}
	plan := landmarkPlan{Rows: map[int][]int{}, Total: len(rows)}
	k, start := 0, 0
	for _, c := range all {
		for ; k < len(rows) && rows[k] < start+c.Rows; k++ {
			plan.Rows[c.Index] = append(plan.Rows[c.Index], rows[k]-start)
		}
		start += c.Rows
	}
	return plan, nil
}

// landmarkFn emits the landmark rows of a shard, numbered by their global
// row index.
type landmarkFn struct {
	Options data.Options
	Chunk   int
}

func (f *landmarkFn) ProcessElement(ctx context.Context, sh Shard, plan landmarkPlan, emit func(landmarkRow)) error {
	want := plan.Rows[sh.Index]
	if len(want) == 0 {
		return nil
	}
	row, k := 0, 0
	err := scanShard(ctx, sh, f.Options, f.Chunk, func(x *mat.Dense, _ []int) error {
		r, _ := x.Dims()
		for ; k < len(want) && want[k] < row+r; k++ {
			emit(landmarkRow{Shard: sh.Index, Row: want[k], Values: append([]float64(nil), x.RawRowView(want[k]-row)...)})
		}
		row += r
		return nil
	}, skipBad)
	if err == nil && k < len(want) {
		err = fmt.Errorf("%s: landmark row %d not found: the shard has %d good rows now; did it change between passes?", sh.Path, want[k]+1, row)
	}
	return err
}

// mapFn builds the feature map from the landmark rows.
type mapFn struct {
	Method string
	Params map[string]string
}

func (f *mapFn) ProcessElement(ctx context.Context, _ []byte, rows func(*landmarkRow) bool) (FeatureMap, error) {
	nm, err := nystromSpace(f.Method, f.Params)
	if err != nil {
		return FeatureMap{}, err
	}
	var all []landmarkRow
	var r landmarkRow
	for rows(&r) {
		all = append(all, landmarkRow{Shard: r.Shard, Row: r.Row, Values: append([]float64(nil), r.Values...)})
	}
	if len(all) == 0 {
		return FeatureMap{}, fmt.Errorf("nystrom: no landmark rows")
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].Shard != all[b].Shard {
			return all[a].Shard < all[b].Shard
		}
		return all[a].Row < all[b].Row
	})

	lm := mat.NewDense(len(all), len(all[0].Values), nil)
	for i, r := range all {
		if len(r.Values) != len(all[0].Values) {
			return FeatureMap{}, fmt.Errorf("nystrom: landmark rows of %d and %d columns; every shard must have the same columns", len(all[0].Values), len(r.Values))
		}
		lm.SetRow(i, r.Values)
	}
	fm, err := nm.FeatureMap(ctx, lm)
	if err != nil {
		return FeatureMap{}, err
	}
	return *fm, nil
}

// featureStatsFn reduces the Nyström features of a shard to statistics.
type featureStatsFn struct {
	Options    data.Options
	Chunk      int
	DeadLetter bool
}

func (f *featureStatsFn) ProcessElement(ctx context.Context, sh Shard, fm FeatureMap, emit func(Partial), emitBad func(BadRow)) error {
	return shardMoments(ctx, sh, f.Options, f.Chunk, f.DeadLetter, fm.Apply, emit, emitBad)
}

// nystromFitFn fits the linear model on the merged feature statistics
// and writes the folded Nyström model.
type nystromFitFn struct {
	Fit *fitFn
}

func (f *nystromFitFn) ProcessElement(ctx context.Context, b []byte, fm FeatureMap) error {
	m, err := f.Fit.statistics(ctx, b)
	if err != nil {
		return err
	}
	nm, err := nystromSpace(f.Fit.Method, f.Fit.Params)
	if err != nil {
		return err
	}
	fitted, err := nm.Fit(m, &fm, f.Fit.Dims)
	if err != nil {
		return err
	}
	return f.Fit.save(ctx, fitted)
}

func init() {
	beam.RegisterCoder(reflect.TypeOf(FeatureMap{}), encodeFeatureMap, decodeFeatureMap)
	beam.RegisterType(reflect.TypeOf(shardRows{}))
	beam.RegisterType(reflect.TypeOf(landmarkRow{}))
	beam.RegisterType(reflect.TypeOf(landmarkPlan{}))
	register.DoFn2x2[context.Context, Shard, shardRows, error](&countFn{})
	register.DoFn2x2[[]byte, func(*shardRows) bool, landmarkPlan, error](&pickFn{})
	register.Iter1[shardRows]()
	register.DoFn4x1[context.Context, Shard, landmarkPlan, func(landmarkRow), error](&landmarkFn{})
	register.Emitter1[landmarkRow]()
	register.DoFn3x2[context.Context, []byte, func(*landmarkRow) bool, FeatureMap, error](&mapFn{})
	register.Iter1[landmarkRow]()
	register.DoFn5x1[context.Context, Shard, FeatureMap, func(Partial), func(BadRow), error](&featureStatsFn{})
	register.DoFn3x1[context.Context, []byte, FeatureMap, error](&nystromFitFn{})
}
