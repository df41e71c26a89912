// Package stats accumulates the sufficient statistics of the methods whose
// fit needs only sums over rows (counts, class sums and scatter matrices:
// PCA, LDA, LQMI, SR with the supervised class graph, and the kernel
// methods on Nyström features). The statistics of chunks of rows are
// computed separately and merged, so a fit can stream a file larger than
// memory (data.Scan) or combine partial statistics computed on several
// machines (MarshalBinary); the in-memory fit is the one-chunk case.
package stats

import (
	"fmt"
	"math"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MaxClasses bounds the labels Moments accepts (0 ≤ y < MaxClasses): the
// class means take Classes()·Dim() numbers, so a stray label such as a row
// identifier must be an error rather than a huge allocation. Relabel such
// data first (data.Relabel).
const MaxClasses = 1 << 16

// Moments holds the first and second moments of a set of rows x₁, …, xₙ ∈
// ℝᵈ with labels yᵢ ∈ {−1, 0, …, C−1} (−1: unlabeled), accumulated one
// chunk of rows at a time:
//
//	n, μ = (1/n)·Σᵢ xᵢ, S = Σᵢ (xᵢ−μ)(xᵢ−μ)ᵀ = X̄ᵀX̄        over every row
//	n_L, μ_L, S_L = Σ_{yᵢ≥0} (xᵢ−μ_L)(xᵢ−μ_L)ᵀ           over the labelled rows
//	n_c = |{i : yᵢ = c}|, μ_c = (1/n_c)·Σ_{yᵢ=c} xᵢ     for each class c
//
// from which the between- and within-class scatter matrices and the
// centred class sums follow (see the methods). These are the statistics of
// the class-block problems of the engine (Φᵀ·E for the class indicator
// matrix E) and of PCA (S), for Φ the data or its Nyström features.
//
// The zero value is an empty Moments, ready for use. The number of classes
// grows as labels appear: it is 1 + the largest label seen; a class with
// no rows has n_c = 0 and μ_c = 0.
//
// Numerical method. Every mean is stored relative to an origin o, the
// provisional mean of the first chunk (Chan, Golub & LeVeque's "shifted
// data"): μ' = μ − o, μ'_L, μ'_c. Differences of means (δ below, μ_c − μ_L,
// μ_c − μ) are then formed from numbers of the size of the spread of the
// rows rather than of ‖μ‖, and keep their accuracy for data far from the
// origin of ℝᵈ. Each chunk of r rows is reduced by the corrected two-pass
// algorithm with one symmetric rank-r update (BLAS Dsyrk; a second one
// over its labelled rows when some rows of the chunk are unlabeled):
//
//	m = (1/r)·Xᵀ1,  X̃ = X − 1·mᵀ,  s = X̃ᵀ1,  μ = m + s/r,  S = X̃ᵀX̃ − s·sᵀ/r,
//
// (s is zero in exact arithmetic; the correction removes the rounding
// error of m to first order), and chunks are merged by the pairwise update
//
//	n = n_a + n_b,  δ = μ_b − μ_a,  μ = μ_a + δ·n_b/n,
//	S = S_a + S_b + δ·δᵀ·n_a·n_b/n,
//
// with μ_b first re-expressed about the origin of a (μ'_b + o_b − o_a).
// The same update merges the labelled statistics, and the class means by
// μ_c = μ_{c,a} + (μ_{c,b} − μ_{c,a})·n_{c,b}/n_c. References: T. F. Chan,
// G. H. Golub, R. J. LeVeque, "Updating formulae and a pairwise algorithm
// for computing sample variances", Stanford STAN-CS-79-773 (1979), and
// "Algorithms for computing the sample variance: analysis and
// recommendations", The American Statistician 37(3):242–247 (1983).
//
// No sum of raw squares is ever formed, and the accuracy does not depend
// on the distance of the data from the origin (tests: relative errors
// about 1e-15 against exact two-pass formulas for offsets up to 1e9 times
// the spread, in chunks of 1 to all rows).
//
// Memory: one d×d matrix and (C + 2)·d numbers when every row is labelled
// or none is, two d×d matrices and (C + 3)·d numbers otherwise, whatever
// n is. While every row seen is labelled (n_L = n, the usual supervised
// case) the labelled statistics are the total ones, μ_L = μ and S_L = S,
// and they share one storage: Add, Merge and Clone update or copy that one
// set, and MarshalBinary writes it once. The labelled statistics get their
// own copy at the moment the first unlabeled row arrives (an Add with
// unlabeled rows, or a Merge with statistics holding some), and are
// updated apart from then on. Keeping two copies would merge the same
// numbers by the same operations in both, so the sharing changes no bit
// of any result: the statistics are the same bits as when both sets are
// stored and merged separately, for any sequence of Adds and Merges.
//
// Merging is associative up to rounding, and deterministic: the same
// chunks added (or merged) in the same order give the same bits whatever
// GOMAXPROCS is (no step is parallel).
type Moments struct {
	d, n     int
	origin   []float64 // o, d
	mean     []float64 // μ − o
	scatter  []float64 // S, d×d row-major, upper triangle (lower is zero)
	nl       int
	meanL    []float64 // μ_L − o: mean itself while nl == n (shared)
	scatterL []float64 // S_L, as scatter: scatter itself while nl == n
	counts   []int     // n_c, C
	cmeans   []float64 // μ_c − o, C×d row-major (zero rows for n_c = 0)
}

// Add accumulates the rows of x with labels y (nil: every row unlabeled,
// as for unsupervised methods). An empty x (a zero mat.Dense) adds
// nothing. The rows must be finite, x must have the columns of the earlier
// chunks, and y must have one label per row, each −1 (unlabeled) or a
// class index 0 ≤ y < MaxClasses. On error m is unchanged.
func (m *Moments) Add(x *mat.Dense, y []int) error {
	if x == nil || x.IsEmpty() {
		if len(y) != 0 {
			return fmt.Errorf("stats: an empty chunk with %d labels", len(y))
		}
		return nil
	}
	r, d := x.Dims()
	if m.n > 0 && d != m.d {
		return fmt.Errorf("stats: the chunk has %d columns; the earlier chunks have %d", d, m.d)
	}
	if y != nil && len(y) != r {
		return fmt.Errorf("stats: %d labels for a chunk of %d rows; want one label per row (or nil labels: unlabeled)", len(y), r)
	}
	for i, c := range y {
		if c < data.Unlabeled || c >= MaxClasses {
			return fmt.Errorf("stats: row %d of the chunk has label %d; want -1 (unlabeled) or a class index 0 ≤ label < %d", i+1, c, MaxClasses)
		}
	}
	if err := data.CheckFinite("stats: chunk", x); err != nil {
		return err
	}
	c := chunkMoments(x, y)
	if m.n == 0 {
		*m = *c // the one-chunk case: no copy
		return nil
	}
	return m.Merge(c)
}

// chunkMoments returns the statistics of the rows of x (finite, r×d, r ≥ 1)
// with labels y (valid, nil for none), about the origin o = (1/r)·Xᵀ1.
func chunkMoments(x *mat.Dense, y []int) *Moments {
	r, d := x.Dims()
	c := &Moments{d: d, n: r}
	xc := mat.DenseCopyOf(x)
	c.origin = centre(xc)
	c.mean, c.scatter = scatterAbout(xc)
	if y == nil {
		return c
	}
	nl, ncls := 0, 0
	for _, v := range y {
		if v >= 0 {
			nl++
			ncls = max(ncls, v+1)
		}
	}
	if nl == 0 {
		return c
	}
	c.nl = nl
	if nl == r {
		c.meanL, c.scatterL = c.mean, c.scatter // shared (see Moments)
	} else {
		xl := mat.NewDense(nl, d, nil)
		k := 0
		for i, v := range y {
			if v >= 0 {
				xl.SetRow(k, xc.RawRowView(i))
				k++
			}
		}
		ml := centre(xl) // about the labelled rows' own mean, for accuracy
		c.meanL, c.scatterL = scatterAbout(xl)
		floats.Add(c.meanL, ml)
	}
	// μ_c − o = (1/n_c)·Σ_{yᵢ=c} (xᵢ − o).
	c.counts = make([]int, ncls)
	c.cmeans = make([]float64, ncls*d)
	for i, v := range y {
		if v >= 0 {
			c.counts[v]++
			floats.Add(c.cmeans[v*d:(v+1)*d], xc.RawRowView(i))
		}
	}
	for k, nk := range c.counts {
		if nk > 0 {
			floats.Scale(1/float64(nk), c.cmeans[k*d:(k+1)*d])
		}
	}
	return c
}

// centre subtracts from the rows of x (r×d) their mean m = (1/r)·Xᵀ1, and
// returns m.
func centre(x *mat.Dense) []float64 {
	r, d := x.Dims()
	m := make([]float64, d)
	for i := 0; i < r; i++ {
		floats.Add(m, x.RawRowView(i))
	}
	floats.Scale(1/float64(r), m)
	for i := 0; i < r; i++ {
		floats.Sub(x.RawRowView(i), m)
	}
	return m
}

// scatterAbout returns, for rows X̃ (r×d) centred on a provisional mean m,
// the mean offset s/r and the scatter S = X̃ᵀX̃ − s·sᵀ/r with s = X̃ᵀ1
// (the corrected two-pass algorithm, Chan, Golub & LeVeque 1983): the mean
// of the rows is m + s/r and S their scatter about it. S is d×d row-major
// with its upper triangle set and its lower triangle zero.
func scatterAbout(x *mat.Dense) (offset, scatter []float64) {
	r, d := x.Dims()
	s := make([]float64, d)
	for i := 0; i < r; i++ {
		floats.Add(s, x.RawRowView(i))
	}
	scatter = linalg.CrossProduct(x).RawSymmetric().Data // upper triangle, in parallel
	sym := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: scatter}
	blas64.Syr(-1/float64(r), blas64.Vector{N: d, Inc: 1, Data: s}, sym)
	floats.Scale(1/float64(r), s)
	return s, scatter
}

// Merge adds the statistics of o to those of m, as if the rows of o had
// been added to m after its own (Chan, Golub & LeVeque's pairwise update;
// see Moments). o is not changed; merging an empty Moments (or nil) leaves
// m unchanged, and merging into an empty m makes m a copy of o. It is an
// error if both hold rows of different dimensions; m is then unchanged.
func (m *Moments) Merge(o *Moments) error {
	if o == nil || o.n == 0 {
		return nil
	}
	if m.n == 0 {
		*m = *o.Clone()
		return nil
	}
	if o.d != m.d {
		return fmt.Errorf("stats: merging statistics of %d-column rows into statistics of %d-column rows", o.d, m.d)
	}
	if o == m {
		o = o.Clone()
	}
	// When every row of both is labelled, the labelled statistics of each
	// are its total ones (shared storage), and merging the total ones
	// merges both. Otherwise m's labelled statistics are updated apart, in
	// their own storage (o's are only read).
	allLabeled := m.shared() && o.shared()
	if !allLabeled {
		m.unshare()
	}
	d := m.d
	// t = o_b − o_a re-expresses the means of o about the origin of m.
	t := make([]float64, d)
	floats.SubTo(t, o.origin, m.origin)
	delta := make([]float64, d)
	mergeSet(m.n, o.n, m.mean, m.scatter, o.mean, o.scatter, t, delta)
	m.n += o.n
	if o.nl > 0 {
		if m.nl == 0 {
			m.meanL = make([]float64, d)
			m.scatterL = make([]float64, d*d)
		}
		if !allLabeled {
			mergeSet(m.nl, o.nl, m.meanL, m.scatterL, o.meanL, o.scatterL, t, delta)
		}
		m.nl += o.nl
	}
	if len(o.counts) > len(m.counts) {
		m.counts = append(m.counts, make([]int, len(o.counts)-len(m.counts))...)
		m.cmeans = append(m.cmeans, make([]float64, len(o.cmeans)-len(m.cmeans))...)
	}
	for k, nb := range o.counts {
		if nb > 0 {
			mergeSet(m.counts[k], nb, m.cmeans[k*d:(k+1)*d], nil, o.cmeans[k*d:(k+1)*d], nil, t, delta)
			m.counts[k] += nb
		}
	}
	return nil
}

// mergeSet updates the mean ma and scatter sa (d×d upper; nil: no
// scatter) of na rows with those, mb + t and sb, of nb ≥ 1 more rows:
//
//	δ = (μ_b + t) − μ_a,  μ_a ← μ_a + δ·n_b/n,  S_a ← S_a + S_b + δ·δᵀ·n_a·n_b/n
//
// (for na = 0: μ_a ← μ_b + t, S_a ← S_b). delta is scratch of length d.
func mergeSet(na, nb int, ma, sa, mb, sb, t, delta []float64) {
	floats.AddTo(delta, mb, t)
	if na == 0 {
		copy(ma, delta)
		copy(sa, sb)
		return
	}
	floats.Sub(delta, ma)
	f := float64(nb) / float64(na+nb)
	floats.AddScaled(ma, f, delta)
	if sa == nil {
		return
	}
	d := len(ma)
	for i := 0; i < d; i++ {
		floats.Add(sa[i*d+i:(i+1)*d], sb[i*d+i:(i+1)*d])
	}
	sym := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: sa}
	blas64.Syr(float64(na)*f, blas64.Vector{N: d, Inc: 1, Data: delta}, sym)
}

// shared reports whether the labelled statistics of m are stored as its
// total ones (every row labelled; see Moments).
func (m *Moments) shared() bool {
	return m.nl > 0 && &m.meanL[0] == &m.mean[0]
}

// unshare gives the labelled statistics their own storage, a copy of the
// total ones, when they share it (before an update that makes them
// differ).
func (m *Moments) unshare() {
	if m.shared() {
		m.meanL = clone(m.meanL)
		m.scatterL = clone(m.scatterL)
	}
}

// Clone returns a deep copy of m (sharing, within the copy, what m shares:
// see Moments).
func (m *Moments) Clone() *Moments {
	c := &Moments{d: m.d, n: m.n, nl: m.nl, origin: clone(m.origin)}
	c.mean, c.scatter = clone(m.mean), clone(m.scatter)
	if m.shared() {
		c.meanL, c.scatterL = c.mean, c.scatter
	} else {
		c.meanL, c.scatterL = clone(m.meanL), clone(m.scatterL)
	}
	c.cmeans = clone(m.cmeans)
	if m.counts != nil {
		c.counts = append([]int(nil), m.counts...)
	}
	return c
}

// clone returns a copy of s (nil for nil).
func clone(s []float64) []float64 {
	if s == nil {
		return nil
	}
	return append([]float64(nil), s...)
}

// N returns the number of rows n (labelled or not).
func (m *Moments) N() int { return m.n }

// Dim returns the number of columns d (0 while m is empty).
func (m *Moments) Dim() int { return m.d }

// LabeledN returns the number of labelled rows n_L = Σ_c n_c.
func (m *Moments) LabeledN() int { return m.nl }

// Classes returns the number of classes C: 1 + the largest label seen (0
// without labelled rows).
func (m *Moments) Classes() int { return len(m.counts) }

// ClassCounts returns n_c for c = 0, …, C−1 (a copy; 0 for a class without
// rows).
func (m *Moments) ClassCounts() []int { return append([]int(nil), m.counts...) }

// Mean returns μ = (1/n)·Σᵢ xᵢ over every row, labelled or not (a copy; nil
// when m is empty).
func (m *Moments) Mean() []float64 { return m.absolute(m.mean) }

// LabeledMean returns μ_L = (1/n_L)·Σ_{yᵢ≥0} xᵢ = (1/n_L)·Σ_c n_c·μ_c, the
// mean of the labelled rows (nil without labelled rows).
func (m *Moments) LabeledMean() []float64 { return m.absolute(m.meanL) }

// absolute returns o + v, or nil for nil v.
func (m *Moments) absolute(v []float64) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, m.d)
	floats.AddTo(out, m.origin, v)
	return out
}

// Scatter returns the centred total scatter over every row,
//
//	S = Σᵢ (xᵢ−μ)(xᵢ−μ)ᵀ = X̄ᵀX̄,  X̄ = X − 1·μᵀ
//
// (n − 1 times the sample covariance), or nil when m is empty.
func (m *Moments) Scatter() *mat.SymDense { return m.sym(m.scatter) }

// LabeledScatter returns the scatter of the labelled rows about their own
// mean, S_L = Σ_{yᵢ≥0} (xᵢ−μ_L)(xᵢ−μ_L)ᵀ (a zero d×d matrix without
// labelled rows; nil when m is empty). It equals Scatter when every row is
// labelled, and BetweenScatter + WithinScatter.
func (m *Moments) LabeledScatter() *mat.SymDense {
	if m.nl == 0 {
		return m.zero()
	}
	return m.sym(m.scatterL)
}

// ClassMeans returns the C×d matrix whose row c is the class mean
// μ_c = (1/n_c)·Σ_{yᵢ=c} xᵢ (a zero row for a class without rows; nil
// without classes).
func (m *Moments) ClassMeans() *mat.Dense {
	if len(m.counts) == 0 {
		return nil
	}
	out := mat.NewDense(len(m.counts), m.d, nil)
	for k, nk := range m.counts {
		if nk > 0 {
			floats.AddTo(out.RawRowView(k), m.origin, m.cmeans[k*m.d:(k+1)*m.d])
		}
	}
	return out
}

// BetweenScatter returns the between-class scatter of the labelled rows,
//
//	S_B = Σ_c n_c·(μ_c − μ_L)(μ_c − μ_L)ᵀ,
//
// about the labelled mean μ_L (LabeledMean), not the mean μ of every row:
// unlabeled rows take no part in it, so S_B and WithinScatter split the
// labelled scatter, S_L = S_B + S_W, as in LDA on the labelled rows alone
// (when every row is labelled, μ_L = μ and S_L = S). Its rank is at most
// C' − 1 for C' classes with rows. It is a zero d×d matrix without
// labelled rows, and nil when m is empty.
func (m *Moments) BetweenScatter() *mat.SymDense {
	b := m.zero()
	if b == nil || m.nl == 0 {
		return b
	}
	d := m.d
	diff := make([]float64, d)
	raw := b.RawSymmetric()
	for k, nk := range m.counts {
		if nk == 0 {
			continue
		}
		for j, v := range m.cmeans[k*d : (k+1)*d] {
			diff[j] = v - m.meanL[j]
		}
		blas64.Syr(float64(nk), blas64.Vector{N: d, Inc: 1, Data: diff}, raw)
	}
	return b
}

// WithinScatter returns the within-class scatter of the labelled rows,
//
//	S_W = Σ_c Σ_{yᵢ=c} (xᵢ − μ_c)(xᵢ − μ_c)ᵀ = S_L − S_B,
//
// computed as that difference of the labelled scatter (LabeledScatter,
// kept for this purpose: one d×d matrix, where per-class scatters would
// take C of them) and BetweenScatter. The subtraction loses accuracy when
// the classes are far apart relative to their spread: the absolute error
// is of the order of ε·‖S_L‖, so the relative error of S_W is about
// ε·‖S_L‖/‖S_W‖. It is a zero d×d matrix without labelled rows, and nil
// when m is empty.
func (m *Moments) WithinScatter() *mat.SymDense {
	w := m.LabeledScatter()
	if w == nil || m.nl == 0 {
		return w
	}
	wr, br := w.RawSymmetric(), m.BetweenScatter().RawSymmetric()
	for i := 0; i < m.d; i++ {
		for j := i; j < m.d; j++ {
			wr.Data[i*wr.Stride+j] -= br.Data[i*br.Stride+j]
		}
	}
	return w
}

// CentredClassSums returns the d×C matrix X̄ᵀE of the class sums of the
// rows centred on the mean μ of every row (E the n×C class indicator
// matrix, Eᵢc = 1 if yᵢ = c; unlabeled rows have a zero row in E):
//
//	(X̄ᵀE)_{·c} = Σ_{yᵢ=c} (xᵢ − μ) = n_c·(μ_c − μ),
//
// the Φᵀ·E of the engine's class-block problems with Φ = X̄. Its columns
// sum to n_L·(μ_L − μ), which is zero when every row is labelled. Nil
// without classes.
func (m *Moments) CentredClassSums() *mat.Dense {
	C := len(m.counts)
	if C == 0 {
		return nil
	}
	d := m.d
	out := mat.NewDense(d, C, nil)
	for k, nk := range m.counts {
		if nk == 0 {
			continue
		}
		for j, v := range m.cmeans[k*d : (k+1)*d] {
			out.Set(j, k, float64(nk)*(v-m.mean[j]))
		}
	}
	return out
}

// sym returns a SymDense holding a copy of the upper triangle s, or nil
// when m is empty.
func (m *Moments) sym(s []float64) *mat.SymDense {
	if m.n == 0 {
		return nil
	}
	return mat.NewSymDense(m.d, append([]float64(nil), s...))
}

// zero returns a zero d×d SymDense, or nil when m is empty.
func (m *Moments) zero() *mat.SymDense {
	if m.n == 0 {
		return nil
	}
	return mat.NewSymDense(m.d, nil)
}

// finite reports whether every value of s is finite.
func finite(s []float64) bool {
	for _, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
