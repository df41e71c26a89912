package dimredbeam

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/stats"
)

// leaves returns the Partials of s shards of random rows (shard i has
// 3 + i%5 rows, labels in 0..2).
func leaves(t *testing.T, s, d int) []Partial {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Partial, s)
	for i := range out {
		r := 3 + i%5
		x := testdata.Normal(rng, r, d)
		y := make([]int, r)
		for j := range y {
			y[j] = rng.IntN(3)
		}
		var m stats.Moments
		if err := m.Add(x, y); err != nil {
			t.Fatal(err)
		}
		out[i] = Leaf(Shard{Index: i, Path: "shard"}, &m)
	}
	return out
}

// The combiner's result has the same bits whatever the order and grouping
// of the additions and merges (the fixed merge tree of Partial), equals
// the statistics of all rows to rounding, and survives the coder.
func TestMomentsFnDeterministic(t *testing.T) {
	f := MomentsFn{}
	for _, s := range []int{1, 2, 7, 16, 37} {
		ls := leaves(t, s, 4)
		var ref []byte
		for trial := 0; trial < 20; trial++ {
			rng := rand.New(rand.NewPCG(uint64(trial), uint64(s)))
			order := rng.Perm(s)
			// Split the leaves among a few accumulators, in random order,
			// then merge the accumulators in random order.
			accs := make([]Partial, 1+rng.IntN(4))
			for i := range accs {
				accs[i] = f.CreateAccumulator()
			}
			for _, i := range order {
				k := rng.IntN(len(accs))
				var err error
				if accs[k], err = f.AddInput(accs[k], ls[i]); err != nil {
					t.Fatal(err)
				}
			}
			total := f.CreateAccumulator()
			for _, k := range rng.Perm(len(accs)) {
				b, err := encodePartial(accs[k]) // through the coder
				if err != nil {
					t.Fatal(err)
				}
				a, err := decodePartial(b)
				if err != nil {
					t.Fatal(err)
				}
				if total, err = f.MergeAccumulators(total, a); err != nil {
					t.Fatal(err)
				}
			}
			if len(total.nodes) > 6 {
				t.Errorf("%d shards: %d nodes left; want the binary decomposition", s, len(total.nodes))
			}
			out, err := f.ExtractOutput(total)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = out
			} else if !bytes.Equal(out, ref) {
				t.Fatalf("%d shards, trial %d: the merged statistics differ in their bits from trial 0", s, trial)
			}
		}
		// Against the statistics of all rows added in order.
		var seq stats.Moments
		for _, l := range ls {
			if err := seq.Merge(l.nodes[nodeKey{0, firstIndex(l)}].m); err != nil {
				t.Fatal(err)
			}
		}
		var got stats.Moments
		if err := got.UnmarshalBinary(ref); err != nil {
			t.Fatal(err)
		}
		if got.N() != seq.N() || relDiff(got.Scatter(), seq.Scatter()) > 1e-13 || relDiff(got.ClassMeans(), seq.ClassMeans()) > 1e-13 {
			t.Errorf("%d shards: the tree merge differs from the sequential merge", s)
		}
	}
}

func firstIndex(p Partial) int {
	for k := range p.nodes {
		return k.index
	}
	return -1
}

// Shards of different widths, a shard added twice and a corrupt encoding
// are errors naming the problem.
func TestMomentsFnErrors(t *testing.T) {
	f := MomentsFn{}
	var a, b stats.Moments
	a.Add(mat.NewDense(2, 2, []float64{1, 2, 3, 4}), nil)
	b.Add(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), nil)
	acc, err := f.AddInput(f.CreateAccumulator(), Leaf(Shard{Index: 0, Path: "a.svm"}, &a))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.AddInput(acc, Leaf(Shard{Index: 1, Path: "b.svm"}, &b))
	if err == nil || !strings.Contains(err.Error(), "a.svm have 2 columns, shards from b.svm have 3") || !strings.Contains(err.Error(), "NumFeatures") {
		t.Errorf("width mismatch: %v", err)
	}
	_, err = f.AddInput(acc, Leaf(Shard{Index: 0, Path: "a.svm"}, &a))
	if err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Errorf("duplicate shard: %v", err)
	}
	enc, _ := encodePartial(acc)
	for _, bad := range [][]byte{nil, enc[:len(enc)-1], append(enc, 0)} {
		if _, err := decodePartial(bad); err == nil {
			t.Errorf("corrupt encoding of %d bytes decoded", len(bad))
		}
	}
}
