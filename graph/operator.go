// Package graph holds the graphs of the graph-embedding framework as
// symmetric n×n operators on the training rows: class graphs (constant on
// class blocks, stored as a C×C block matrix plus a diagonal), the
// identity, and dense matrices. Neighbourhood graphs (sparse) plug in
// through the same Operator interface.
package graph

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/linalg"
)

// Operator is a symmetric n×n matrix over the training rows, given by its
// action. The engine forms Φᵀ·G·Φ from Apply and never needs G densely
// unless a dense solver is chosen.
type Operator interface {
	// Size is n.
	Size() int
	// Apply returns G·M for an n×m matrix M (M is not modified).
	Apply(m *mat.Dense) *mat.Dense
	// Dense returns G as a dense symmetric matrix.
	Dense() *mat.SymDense
}

// ContextOperator is an Operator whose product can report its progress
// and stop when a context is cancelled (dense graphs, whose G·M is
// O(n²·m): tens of seconds at 10 000 rows).
type ContextOperator interface {
	Operator
	// ApplyContext returns G·M as Apply does, bit for bit, or an error
	// wrapping ctx's when ctx is cancelled before the product ends.
	ApplyContext(ctx context.Context, m *mat.Dense) (*mat.Dense, error)
}

// ApplyContext returns op·m through op's ApplyContext when it has one
// (ctx nil: none); otherwise it checks ctx, then calls Apply (sparse and
// class graphs, whose products take milliseconds).
func ApplyContext(ctx context.Context, op Operator, m *mat.Dense) (*mat.Dense, error) {
	if ctx == nil {
		return op.Apply(m), nil
	}
	if c, ok := op.(ContextOperator); ok {
		return c.ApplyContext(ctx, m)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return op.Apply(m), nil
}

// Identity is the n×n identity operator.
type Identity int

// Size implements Operator.
func (id Identity) Size() int { return int(id) }

// Apply implements Operator (returns a copy of m).
func (id Identity) Apply(m *mat.Dense) *mat.Dense { return mat.DenseCopyOf(m) }

// Dense implements Operator.
func (id Identity) Dense() *mat.SymDense {
	s := mat.NewSymDense(int(id), nil)
	for i := 0; i < int(id); i++ {
		s.SetSym(i, i, 1)
	}
	return s
}

// Dense wraps a symmetric matrix as an Operator.
type Dense struct{ M *mat.SymDense }

// Size implements Operator.
func (d Dense) Size() int { return d.M.SymmetricDim() }

// Apply implements Operator, by linalg.SymMul (row blocks and the
// parallel Dgemm instead of gonum's serial Dsymm).
func (d Dense) Apply(m *mat.Dense) *mat.Dense { return linalg.SymMul(d.M, m) }

// ApplyContext implements ContextOperator (linalg.SymMulContext).
func (d Dense) ApplyContext(ctx context.Context, m *mat.Dense) (*mat.Dense, error) {
	return linalg.SymMulContext(ctx, d.M, m, fmt.Sprintf("dense graph of order %d", d.Size()))
}

// Dense implements Operator.
func (d Dense) Dense() *mat.SymDense { return d.M }

// Sum is Σ Coefᵢ·Opsᵢ (for example a Laplacian D − W, or A + εI).
type Sum struct {
	Coef []float64
	Ops  []Operator
}

// Size implements Operator.
func (s Sum) Size() int { return s.Ops[0].Size() }

// Apply implements Operator.
func (s Sum) Apply(m *mat.Dense) *mat.Dense {
	out, _ := s.ApplyContext(nil, m) // a nil context never stops it
	return out
}

// ApplyContext implements ContextOperator: each term by ApplyContext.
func (s Sum) ApplyContext(ctx context.Context, m *mat.Dense) (*mat.Dense, error) {
	var out *mat.Dense
	for i, op := range s.Ops {
		t, err := ApplyContext(ctx, op, m)
		if err != nil {
			return nil, err
		}
		t.Scale(s.Coef[i], t)
		if out == nil {
			out = t
		} else {
			out.Add(out, t)
		}
	}
	return out, nil
}

// Dense implements Operator.
func (s Sum) Dense() *mat.SymDense {
	n := s.Size()
	out := mat.NewSymDense(n, nil)
	for i, op := range s.Ops {
		d := op.Dense()
		for r := 0; r < n; r++ {
			for c := r; c < n; c++ {
				out.SetSym(r, c, out.At(r, c)+s.Coef[i]*d.At(r, c))
			}
		}
	}
	return out
}

// CheckSize returns an error unless op is n×n.
func CheckSize(name string, op Operator, n int) error {
	if op.Size() != n {
		return fmt.Errorf("graph %s is %d×%d but there are %d training rows", name, op.Size(), op.Size(), n)
	}
	return nil
}

// ClosedForm is implemented by graphs whose eigenvectors with nonzero
// eigenvalue follow from a small closed-form problem instead of an n×n
// eigen-solve: class-block graphs (the C×C problem on the class
// indicators, DESIGN.md; seed 002 Theorem 1). The engine's spectral
// regression route uses it; ClosedFormEig returns an error when the graph
// does not have the structure after all (then the engine falls back to a
// general solver).
type ClosedForm interface {
	Operator
	// ClosedFormEig returns k eigenpairs (k ≤ 0: all of the small
	// problem) at the end given by order, vectors n×k orthonormal.
	ClosedFormEig(k int, order linalg.Order) ([]float64, *mat.Dense, error)
}

// Sparse is implemented by graphs stored sparsely; NNZ is the number of
// stored entries. The engine sends sparse graphs to iterative solvers.
type Sparse interface {
	Operator
	NNZ() int
}

// IsIdentity reports whether op is the identity graph.
func IsIdentity(op Operator) bool {
	_, ok := op.(Identity)
	return ok
}

// ClosedFormEig implements ClosedForm (EigIndicatorSpan).
func (g *ClassBlock) ClosedFormEig(k int, order linalg.Order) ([]float64, *mat.Dense, error) {
	return g.EigIndicatorSpan(k, order)
}
