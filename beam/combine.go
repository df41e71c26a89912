package dimredbeam

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dimred/dimred/stats"
)

// Partial is the accumulator of MomentsFn: the statistics (stats.Moments)
// of some of the shards, kept as nodes of a fixed binary tree over the
// shard indices. The node at level l and index i holds the statistics of
// shards i·2ˡ … (i+1)·2ˡ − 1, merged left half first. A node is merged
// with its sibling, into their parent, as soon as both are present, so the
// statistics of a node are the same bits whichever way a runner splits and
// orders the additions and merges, and the final result is the merge, in
// shard order, of the nodes left (the binary decomposition of the number
// of shards): the fit is deterministic on every runner. A Partial holds
// O(log S) nodes of S shards when the shards come roughly in order, and at
// most S/2 + 1 in any order; each node costs one d×d matrix when every row
// is labelled or none is, two otherwise (stats.Moments).
type Partial struct {
	nodes map[nodeKey]*node
}

type nodeKey struct{ level, index int }

type node struct {
	first string // path of the node's first shard, for errors
	m     *stats.Moments
}

// Leaf returns the Partial of one shard's statistics.
func Leaf(sh Shard, m *stats.Moments) Partial {
	return Partial{nodes: map[nodeKey]*node{{0, sh.Index}: {first: sh.Path, m: m}}}
}

// add inserts the node k into p, merging it with its sibling (and the
// parent with its sibling, ...) while the sibling is present.
func (p *Partial) add(k nodeKey, n *node) error {
	if p.nodes == nil {
		p.nodes = map[nodeKey]*node{}
	}
	for {
		if _, dup := p.nodes[k]; dup {
			return fmt.Errorf("statistics of shard %s added twice", n.first)
		}
		sk := nodeKey{k.level, k.index ^ 1}
		sib, ok := p.nodes[sk]
		if !ok {
			p.nodes[k] = n
			return nil
		}
		delete(p.nodes, sk)
		left, right := n, sib
		if sk.index < k.index {
			left, right = sib, n
		}
		// The nodes may be shared with the inputs of the combiner, which
		// must not change: the parent gets its own copy.
		parent := &node{first: left.first, m: left.m.Clone()}
		if err := mergeNodes(parent, right); err != nil {
			return err
		}
		k, n = nodeKey{k.level + 1, k.index >> 1}, parent
	}
}

// mergeNodes merges right into left (whose statistics it may change).
func mergeNodes(left, right *node) error {
	if left.m.N() > 0 && right.m.N() > 0 && left.m.Dim() != right.m.Dim() {
		return fmt.Errorf("shards from %s have %d columns, shards from %s have %d; every shard must have the same columns (for LIBSVM shards set the dimension: NumFeatures, --features)",
			left.first, left.m.Dim(), right.first, right.m.Dim())
	}
	return left.m.Merge(right.m)
}

// sorted returns the keys of p by their first shard.
func (p Partial) sorted() []nodeKey {
	keys := make([]nodeKey, 0, len(p.nodes))
	for k := range p.nodes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		return keys[a].index<<keys[a].level < keys[b].index<<keys[b].level
	})
	return keys
}

// Total merges the nodes of p in shard order and returns the statistics of
// all its shards.
func (p Partial) Total() (*stats.Moments, error) {
	var total *node
	for _, k := range p.sorted() {
		n := p.nodes[k]
		if total == nil {
			total = &node{first: n.first, m: n.m.Clone()}
			continue
		}
		if err := mergeNodes(total, n); err != nil {
			return nil, err
		}
	}
	if total == nil {
		return &stats.Moments{}, nil
	}
	return total.m, nil
}

// MomentsFn is the Beam combiner of the shards' statistics: its inputs and
// accumulators are Partials (Leaf for one shard), and its output is the
// binary form (stats.Moments.MarshalBinary) of the statistics of every
// shard. Merging is Chan, Golub & LeVeque's pairwise update
// (stats.Moments.Merge) in the fixed tree of Partial.
type MomentsFn struct{}

// CreateAccumulator returns an empty Partial.
func (MomentsFn) CreateAccumulator() Partial { return Partial{nodes: map[nodeKey]*node{}} }

// AddInput merges the Partial in into a.
func (f MomentsFn) AddInput(a, in Partial) (Partial, error) { return f.MergeAccumulators(a, in) }

// MergeAccumulators merges b into a.
func (MomentsFn) MergeAccumulators(a, b Partial) (Partial, error) {
	out := Partial{nodes: make(map[nodeKey]*node, len(a.nodes)+len(b.nodes))}
	for k, n := range a.nodes {
		out.nodes[k] = n
	}
	for _, k := range b.sorted() {
		if err := out.add(k, b.nodes[k]); err != nil {
			return Partial{}, err
		}
	}
	return out, nil
}

// ExtractOutput returns the binary form of the merged statistics.
func (MomentsFn) ExtractOutput(a Partial) ([]byte, error) {
	m, err := a.Total()
	if err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// encodePartial is the Beam coder of Partial: the node count, then per
// node its level, index, first path and statistics (binary form).
func encodePartial(p Partial) ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(p.nodes)))
	for _, k := range p.sorted() {
		n := p.nodes[k]
		mb, err := n.m.MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(k.level))
		b = binary.AppendUvarint(b, uint64(k.index))
		b = binary.AppendUvarint(b, uint64(len(n.first)))
		b = append(b, n.first...)
		b = binary.AppendUvarint(b, uint64(len(mb)))
		b = append(b, mb...)
	}
	return b, nil
}

func decodePartial(b []byte) (Partial, error) {
	bad := fmt.Errorf("dimredbeam: corrupt encoded statistics of shards")
	next := func() (int, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > math.MaxInt32 {
			return 0, false
		}
		b = b[k:]
		return int(v), true
	}
	bytes := func() ([]byte, bool) {
		n, ok := next()
		if !ok || n > len(b) {
			return nil, false
		}
		out := b[:n]
		b = b[n:]
		return out, true
	}
	count, ok := next()
	if !ok {
		return Partial{}, bad
	}
	p := Partial{nodes: make(map[nodeKey]*node, count)}
	for i := 0; i < count; i++ {
		level, ok1 := next()
		index, ok2 := next()
		first, ok3 := bytes()
		mb, ok4 := bytes()
		if !(ok1 && ok2 && ok3 && ok4) {
			return Partial{}, bad
		}
		m := new(stats.Moments)
		if err := m.UnmarshalBinary(mb); err != nil {
			return Partial{}, err
		}
		p.nodes[nodeKey{level, index}] = &node{first: string(first), m: m}
	}
	if len(b) != 0 {
		return Partial{}, bad
	}
	return p, nil
}

func init() {
	beam.RegisterCoder(reflect.TypeOf(Partial{}), encodePartial, decodePartial)
	register.Combiner3[Partial, Partial, []byte](&MomentsFn{})
}
