package graph

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/linalg"
)

// ClassBlock is a graph constant on class blocks:
//
//	G[i][j] = Block[yᵢ][yⱼ] + δᵢⱼ·Diag[i]
//
// Rows with label −1 (unlabeled) take no part in the block term. Storage is
// O(C² + n) and G·M costs O(n·m·C) instead of O(n²·m). The class graphs of
// LDA and GDA (and the QMI graph of seed 000 eq. 30-31) have this form, so
// their leading eigenvectors lie in the span of the class indicators
// (DESIGN.md; seed 002 Theorem 1).
type ClassBlock struct {
	Labels []int
	Block  *mat.SymDense // C×C
	Diag   []float64     // length n, may be nil (zero)
}

// Size implements Operator.
func (g *ClassBlock) Size() int { return len(g.Labels) }

// Apply implements Operator.
func (g *ClassBlock) Apply(m *mat.Dense) *mat.Dense {
	n, k := m.Dims()
	c := g.Block.SymmetricDim()
	sums := mat.NewDense(c, k, nil) // per-class column sums of m
	for i := 0; i < n; i++ {
		if y := g.Labels[i]; y >= 0 {
			row := sums.RawRowView(y)
			for j, v := range m.RawRowView(i) {
				row[j] += v
			}
		}
	}
	var bs mat.Dense
	bs.Mul(g.Block, sums) // C×k
	out := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		if y := g.Labels[i]; y >= 0 {
			copy(row, bs.RawRowView(y))
		}
		if g.Diag != nil && g.Diag[i] != 0 {
			for j, v := range m.RawRowView(i) {
				row[j] += g.Diag[i] * v
			}
		}
	}
	return out
}

// Dense implements Operator.
func (g *ClassBlock) Dense() *mat.SymDense {
	n := len(g.Labels)
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 0.0
			if g.Labels[i] >= 0 && g.Labels[j] >= 0 {
				v = g.Block.At(g.Labels[i], g.Labels[j])
			}
			if i == j && g.Diag != nil {
				v += g.Diag[i]
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

// Indicator returns the n×C matrix of class indicators scaled to unit
// length: column c is e_c/√n_c.
func (g *ClassBlock) Indicator() *mat.Dense {
	counts := data.ClassCounts(g.Labels)
	c := g.Block.SymmetricDim()
	e := mat.NewDense(len(g.Labels), c, nil)
	for i, y := range g.Labels {
		if y >= 0 && counts[y] > 0 {
			e.Set(i, y, 1/math.Sqrt(float64(counts[y])))
		}
	}
	return e
}

// EigIndicatorSpan returns the eigenpairs of G restricted to the span of
// the class indicators, from the C×C matrix Eᵀ·G·E (E = Indicator()).
// When Diag is constant on each class (or nil), that span is invariant
// under G and these are exact eigenpairs of G; its other eigenvectors are
// orthogonal to every indicator. Vectors are n×k, orthonormal, sign-fixed.
func (g *ClassBlock) EigIndicatorSpan(k int, order linalg.Order) ([]float64, *mat.Dense, error) {
	if !g.diagConstantPerClass() {
		return nil, nil, errors.New("graph: indicator-span eigenpairs need a diagonal that is constant on each class")
	}
	e := g.Indicator()
	// Drop empty classes (zero columns).
	counts := data.ClassCounts(g.Labels)
	var keep []int
	for c := range g.Block.SymmetricDim() {
		if c < len(counts) && counts[c] > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return nil, nil, errors.New("graph: no labelled rows")
	}
	ek := mat.NewDense(len(g.Labels), len(keep), nil)
	for j, c := range keep {
		ek.SetCol(j, mat.Col(nil, c, e))
	}
	var ge mat.Dense
	ge.Mul(ek.T(), g.Apply(ek))
	small := linalg.Symmetrize(&ge)
	vals, z, err := linalg.SymEig(small, k, order)
	if err != nil {
		return nil, nil, err
	}
	var v mat.Dense
	v.Mul(ek, z)
	linalg.FixSigns(&v)
	return vals, &v, nil
}

func (g *ClassBlock) at(i, j int) float64 {
	v := 0.0
	if g.Labels[i] >= 0 && g.Labels[j] >= 0 {
		v = g.Block.At(g.Labels[i], g.Labels[j])
	}
	if i == j && g.Diag != nil {
		v += g.Diag[i]
	}
	return v
}

func (g *ClassBlock) diagConstantPerClass() bool {
	if g.Diag == nil {
		return true
	}
	first := map[int]float64{}
	for i, y := range g.Labels {
		if y < 0 {
			continue
		}
		if v, ok := first[y]; ok && v != g.Diag[i] {
			return false
		} else if !ok {
			first[y] = g.Diag[i]
		}
	}
	return true
}

// ClassSizeError is CheckLabels' error for a class with too few rows. It
// names the class by its label; NameClass gives the message with the
// class's name instead, where the names are known (a data set's
// ClassNames).
type ClassSizeError struct {
	Class, Rows, Need int
}

func (e *ClassSizeError) Error() string {
	return fmt.Sprintf("labels: class %d has %d rows, need at least %d", e.Class, e.Rows, e.Need)
}

// NameClass returns err with the class of a ClassSizeError in its chain
// named by names[class] in the message (the wrappers' text kept); err
// itself when there is none or the name is unknown. The result unwraps
// to err.
func NameClass(err error, names []string) error {
	var ce *ClassSizeError
	if !errors.As(err, &ce) || ce.Class < 0 || ce.Class >= len(names) {
		return err
	}
	named := fmt.Sprintf("labels: class %q has %s, need at least %d", names[ce.Class], rowsText(ce.Rows), ce.Need)
	return &namedClassError{msg: strings.Replace(err.Error(), ce.Error(), named, 1), err: err}
}

func rowsText(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

type namedClassError struct {
	msg string
	err error
}

func (e *namedClassError) Error() string { return e.msg }
func (e *namedClassError) Unwrap() error { return e.err }

// CheckLabels validates labels for a supervised class graph: one label per
// row, at least two classes with rows, and (if minPerClass > 0) every class
// with at least minPerClass rows. The error names the rule and the value.
func CheckLabels(y []int, n, minPerClass int) error {
	if len(y) != n {
		return fmt.Errorf("labels: %d labels for %d rows", len(y), n)
	}
	for i, v := range y {
		if v < -1 {
			return fmt.Errorf("labels: row %d has label %d; labels must be ≥ 0 (or −1 for unlabeled)", i+1, v)
		}
	}
	dense, orig := data.DenseLabels(y)
	counts := data.ClassCounts(dense)
	nonEmpty := 0
	for c, k := range counts {
		if k > 0 {
			nonEmpty++
		}
		if k > 0 && k < minPerClass {
			if orig != nil {
				c = orig[c]
			}
			return &ClassSizeError{Class: c, Rows: k, Need: minPerClass}
		}
	}
	if nonEmpty < 2 {
		return fmt.Errorf("labels: %d class(es) present; a supervised method needs at least 2", nonEmpty)
	}
	return nil
}

// ClassMeans returns the intrinsic graph of LDA in the framework of Yan et
// al.: W = Σ_c (1/n_c)·e_c·e_cᵀ (Wᵢⱼ = 1/n_c when yᵢ = yⱼ = c). With X
// centred, Xᵀ·W·X is the between-class scatter S_b.
func ClassMeans(y []int) *ClassBlock {
	y, _ = data.DenseLabels(y) // the graph depends on which rows share a label only
	return &ClassBlock{Labels: y, Block: ClassMeansBlock(data.ClassCounts(y))}
}

// ClassMeansBlock returns the C×C block of ClassMeans for class counts
// n_c: diag(1/n_c) (zero for empty classes).
func ClassMeansBlock(counts []int) *mat.SymDense {
	b := mat.NewSymDense(max(len(counts), 1), nil)
	for c, k := range counts {
		if k > 0 {
			b.SetSym(c, c, 1/float64(k))
		}
	}
	return b
}

// BetweenClass returns W − 11ᵀ/n over the labelled rows: Xᵀ·G·X is the
// between-class scatter S_b for any X (centred or not), and on centred
// kernels its top C−1 eigenvectors are the centred class indicators.
func BetweenClass(y []int) *ClassBlock {
	y, _ = data.DenseLabels(y)
	return &ClassBlock{Labels: y, Block: BetweenClassBlock(data.ClassCounts(y))}
}

// BetweenClassBlock returns the C×C block of BetweenClass for class counts
// n_c: diag(1/n_c) − 1/n over the classes present.
func BetweenClassBlock(counts []int) *mat.SymDense {
	b := ClassMeansBlock(counts)
	nl := 0
	for _, k := range counts {
		nl += k
	}
	c := b.SymmetricDim()
	for i := 0; i < c; i++ {
		for j := i; j < c; j++ {
			b.SetSym(i, j, b.At(i, j)-1/float64(nl))
		}
	}
	return b
}

// WithinClass returns I − W over the labelled rows (zero on unlabeled
// rows): Xᵀ·G·X is the within-class scatter S_w.
func WithinClass(y []int) *ClassBlock {
	g := ClassMeans(y)
	g.Block.ScaleSym(-1, g.Block)
	g.Diag = make([]float64, len(y))
	for i, v := range y {
		if v >= 0 {
			g.Diag[i] = 1
		}
	}
	return g
}
