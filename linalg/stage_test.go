package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/progress"
)

// lineLog collects reporter lines; cancel, when set, is called on the
// first line containing at.
type lineLog struct {
	mu     sync.Mutex
	lines  []string
	at     string
	cancel context.CancelFunc
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if l.cancel != nil && strings.Contains(s, l.at) {
		l.cancel()
		l.cancel = nil
	}
}

func (l *lineLog) count(part string) int {
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, part) {
			n++
		}
	}
	return n
}

// pureGo skips a test of the pure-Go decompositions' progress and
// cancellation in the openblas build, which hands them to LAPACK.
func pureGo(t *testing.T) {
	if Backend() == "openblas" { // "gonum", or "gonum+avx2" with the assembly product
		t.Skip("the openblas build hands dense decompositions to LAPACK, which is neither metered nor stopped")
	}
}

// samePairs fails unless the pairs computed with a context are those
// computed without, bit for bit.
func samePairs(t *testing.T, vals []float64, vecs *mat.Dense, want []float64, wvecs *mat.Dense) {
	t.Helper()
	for i := range want {
		if vals[i] != want[i] {
			t.Fatalf("eigenvalue %d: %v with a context, %v without", i, vals[i], want[i])
		}
	}
	if !mat.Equal(vecs, wvecs) {
		t.Fatal("eigenvectors differ with a context")
	}
}

// increasing fails unless the percentages of the lines of each part
// (the text before the last ", " once the times in parentheses are cut
// off) increase, and fails when no line carries one.
func increasing(t *testing.T, lines []string) {
	t.Helper()
	last, part, seen := -1, "", 0
	for _, s := range lines {
		if j := strings.LastIndex(s, " ("); j >= 0 {
			s = s[:j]
		}
		i := strings.LastIndex(s, ", ")
		var pct int
		if i < 0 {
			continue
		}
		if _, err := fmt.Sscan(s[i+2:], &pct); err != nil {
			continue
		}
		if s[:i] != part {
			last, part = -1, s[:i]
		}
		if pct <= last {
			t.Errorf("percentages do not increase: %q after %d", s, last)
		}
		last = pct
		seen++
	}
	if seen == 0 {
		t.Errorf("no line with a percentage among %q", lines)
	}
}

func withGap(t *testing.T, gap time.Duration) {
	old := progress.MinGap
	progress.MinGap = gap
	t.Cleanup(func() { progress.MinGap = old })
}

// The partial path at order progress.MinOrder reports its tridiagonal
// reduction in percentages and returns SymEig's pairs bit for bit.
func TestSymEigContextProgress(t *testing.T) {
	pureGo(t)
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 7)
	var log lineLog
	ctx := progress.With(context.Background(), log.add)
	vals, vecs, err := SymEigContext(ctx, a, 5, Largest)
	if err != nil {
		t.Fatal(err)
	}
	want, wvecs, err := SymEig(a, 5, Largest)
	if err != nil {
		t.Fatal(err)
	}
	samePairs(t, vals, vecs, want, wvecs)
	if k := log.count("eigen-decomposition of order 2000: tridiagonal reduction, "); k < 5 {
		t.Errorf("%d tridiagonal-reduction lines, want one per tenth passed (≥ 5):\n%s", k, strings.Join(log.lines, "\n"))
	}
	increasing(t, log.lines)
	// Below MinOrder, or without a reporter, nothing is sent.
	log.lines = nil
	if _, _, err := SymEigContext(ctx, benchSym(300, 7), 0, Largest); err != nil || len(log.lines) != 0 {
		t.Errorf("order 300: err %v, lines %q", err, log.lines)
	}
}

// A cancelled context stops the full decomposition inside its O(n³)
// kernels: cancelled at the first line of the back-transformation, after
// the reduction and the divide and conquer reported themselves, the call
// returns an error wrapping context.Canceled; cancelled during the
// tridiagonal reduction, nothing after it runs. The generalized problem
// announces its reduction to standard form and stops the same way.
func TestSymEigContextCancel(t *testing.T) {
	pureGo(t)
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 9)
	for _, at := range []string{"tridiagonal reduction, ", "back-transformation, "} {
		ctx, cancel := context.WithCancel(context.Background())
		log := lineLog{at: at, cancel: cancel}
		_, _, err := SymEigContext(progress.With(ctx, log.add), a, 0, Largest)
		cancel()
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "eigen-decomposition of order 2000 stopped") {
			t.Errorf("cancelled at %q: error %v", at, err)
		}
		dc := log.count("eigenpairs of the tridiagonal matrix (divide and conquer)")
		if at == "tridiagonal reduction, " && (dc != 0 || log.count("tridiagonal reduction, ") > 2) {
			t.Errorf("cancelled in the reduction, the decomposition went on:\n%s", strings.Join(log.lines, "\n"))
		}
		if at == "back-transformation, " && (dc == 0 || log.count("tridiagonal reduction, ") < 5) {
			t.Errorf("lines before the back-transformation:\n%s", strings.Join(log.lines, "\n"))
		}
	}
	b := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		b.SetSym(i, i, 1+float64(i%7))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := lineLog{at: "tridiagonal reduction, ", cancel: cancel}
	_, _, err := GenSymEigContext(progress.With(ctx, log.add), a, b, 3, GenOptions{})
	if !errors.Is(err, context.Canceled) || log.count("generalized eigen-decomposition of order 2000: reduction to standard form") == 0 {
		t.Errorf("generalized: error %v, lines\n%s", err, strings.Join(log.lines, "\n"))
	}
}

// The full decomposition's divide and conquer reports its merges' work in
// increasing percentages and the pairs are SymEig's bit for bit;
// cancelled at its first percentage, the decomposition returns the
// context's error and the back-transformation never starts.
func TestDivideAndConquerProgress(t *testing.T) {
	pureGo(t)
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 13)
	const dc = "eigen-decomposition of order 2000: eigenpairs of the tridiagonal matrix (divide and conquer), "
	var log lineLog
	vals, vecs, err := SymEigContext(progress.With(context.Background(), log.add), a, 0, Largest)
	if err != nil {
		t.Fatal(err)
	}
	want, wvecs, err := SymEig(a, 0, Largest)
	if err != nil {
		t.Fatal(err)
	}
	samePairs(t, vals, vecs, want, wvecs)
	cut, err := meteredThenCancelled(t, &log, dc, func(ctx context.Context) error {
		_, _, err := SymEigContext(ctx, a, 0, Largest)
		return err
	})
	if !errors.Is(err, context.Canceled) || cut.count("back-transformation") != 0 || cut.count(dc) != 1 {
		t.Errorf("cancelled in the divide and conquer: error %v, lines\n%s", err, strings.Join(cut.lines, "\n"))
	}
}

// meteredThenCancelled checks the lines of a metered run (log, at least
// five of part, in increasing percentages), then runs run again under a
// context cancelled at the first line of part and returns its error and
// lines.
func meteredThenCancelled(t *testing.T, log *lineLog, part string, run func(ctx context.Context) error) (*lineLog, error) {
	t.Helper()
	if log.count(part) < 5 {
		t.Errorf("%d lines of %q, want ≥ 5:\n%s", log.count(part), part, strings.Join(log.lines, "\n"))
	}
	increasing(t, log.lines)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := &lineLog{at: part, cancel: cancel}
	err := run(progress.With(ctx, cut.add))
	return cut, err
}

// Once the context is cancelled, the divide and conquer splits no block
// and its products compute no tile.
func TestDivideAndConquerStops(t *testing.T) {
	n := 500
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, e := make([]float64, n), make([]float64, n-1)
	for i := range d {
		d[i] = float64(i % 17)
		if i < n-1 {
			e[i] = 1 + float64(i%5)
		}
	}
	tree := &dcTree{n: n, d: append([]float64(nil), d...), e: append([]float64(nil), e...), q: make([]float64, n*n)}
	tree.sh = newStage(ctx, n, "test").share(0, 1, dcWork(n))
	if tree.solve(0, n) || !tree.sh.stopped() {
		t.Fatal("the divide and conquer did not stop")
	}
	for i := range d {
		if tree.d[i] != d[i] {
			t.Fatalf("d[%d] changed from %v to %v: a block was split", i, d[i], tree.d[i])
		}
	}
	m := 3 * gemmTile
	a := make([]float64, m*5)
	c := make([]float64, m*m)
	for i := range c {
		c[i] = 1
	}
	gemmNT(m, m, 5, a, 5, a, 5, c, m, newStage(ctx, n, "test").share(0, 1, 1), 1)
	for _, x := range c {
		if x != 1 {
			t.Fatal("a tile of the product was computed after the cancellation")
		}
	}
}

// A generalized problem reports its Cholesky factorization of B and its
// reduction to standard form in increasing percentages and gives
// GenSymEig's pairs bit for bit; cancelled inside either, it returns the
// context's error and nothing after it runs.
func TestGenSymEigContextStages(t *testing.T) {
	pureGo(t)
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 11)
	b := benchSym(n, 12)
	for i := 0; i < n; i++ { // B = S + n·I: positive definite, not diagonal
		b.SetSym(i, i, b.At(i, i)+float64(n))
	}
	var log lineLog
	vals, vecs, err := GenSymEigContext(progress.With(context.Background(), log.add), a, b, 3, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, wvecs, err := GenSymEig(a, b, 3, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samePairs(t, vals, vecs, want, wvecs)
	const chol, red = "generalized eigen-decomposition of order 2000: Cholesky factorization of B, ", "generalized eigen-decomposition of order 2000: reduction to standard form, C = L⁻¹·A·L⁻ᵀ, "
	if log.count(chol) < 3 || log.count(red) < 5 {
		t.Errorf("%d Cholesky and %d reduction lines, want ≥ 3 and ≥ 5:\n%s", log.count(chol), log.count(red), strings.Join(log.lines, "\n"))
	}
	increasing(t, log.lines)
	for _, c := range []struct{ at, after string }{{chol, "reduction to standard form"}, {red, "tridiagonal reduction"}} {
		ctx, cancel := context.WithCancel(context.Background())
		log := lineLog{at: c.at, cancel: cancel}
		_, _, err := GenSymEigContext(progress.With(ctx, log.add), a, b, 3, GenOptions{})
		cancel()
		if !errors.Is(err, context.Canceled) || log.count(c.after) != 0 || log.count(c.at) > 1 {
			t.Errorf("cancelled at %q: error %v, lines\n%s", c.at, err, strings.Join(log.lines, "\n"))
		}
	}
}

// The kernels stop at their first check once the context is cancelled:
// the reduction after its first panel (the diagonal beyond it is never
// written), the back-transformation after the slabs in flight (most
// rows untouched), the Cholesky factorization and the triangular solves
// of the reduction to standard form before any work.
func TestKernelsStopWhenCancelled(t *testing.T) {
	n := 1300 // ten slabs of the back-transformation's 128 rows, and some
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := benchSym(n, 3)
	st := newStage(ctx, n, "test")
	w, d, _, tau := tridiagonalize(a, st)
	if !st.halted() || st.err() == nil {
		t.Fatal("the reduction did not notice the cancellation")
	}
	for c := sytrdPanel; c < n; c++ {
		if d[c] != 0 {
			t.Fatalf("d[%d] = %v: the reduction went on past its first panel", c, d[c])
		}
	}
	st = newStage(ctx, n, "test")
	zt := make([]float64, n*n)
	for i := range zt {
		zt[i] = 1
	}
	if applyTridiagQT(n, w, tau, zt, n, st) {
		t.Fatal("the back-transformation did not report the cancellation")
	}
	untouched := 0
	for r := 0; r < n; r++ {
		same := true
		for _, x := range zt[r*n : r*n+n] {
			same = same && x == 1
		}
		if same {
			untouched++
		}
	}
	if untouched < n/2 {
		t.Errorf("%d of %d rows untouched: the back-transformation went on", untouched, n)
	}
	// The Cholesky factorization stops before its first panel, and the
	// triangular solves of the reduction to standard form skip every tile.
	b := benchSym(n, 4)
	for i := 0; i < n; i++ {
		b.SetSym(i, i, b.At(i, i)+float64(n))
	}
	l := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			l[i*n+j] = b.At(i, j)
		}
	}
	if err := cholBlocked(n, l, n, newStage(ctx, n, "test")); !errors.Is(err, context.Canceled) || l[0] != b.At(0, 0) {
		t.Errorf("Cholesky with a cancelled context: error %v, first pivot %v (was %v)", err, l[0], b.At(0, 0))
	}
	f, err := Cholesky(b)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(n, n, nil)
	for i := range y.RawMatrix().Data {
		y.RawMatrix().Data[i] = 1
	}
	f.fwdRows(y, false, newStage(ctx, n, "test").share(0, 1, fwdWork(n, n, false)))
	for _, x := range y.RawMatrix().Data {
		if x != 1 {
			t.Fatal("the triangular solves went on after the cancellation")
		}
	}
}

// The iterative eigen-solvers say how many pairs have converged, and CG
// how many right-hand sides (at most one line per progress.MinGap; every
// iteration with the gap at 0), on problems of order progress.MinOrder,
// and nothing below it.
func TestIterativeSolversReport(t *testing.T) {
	withGap(t, 0)
	for _, n := range []int{progress.MinOrder, 500} {
		a := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ { // spectrum in [1, 2) and 10, 20, 30: fast convergence
			a.SetSym(i, i, 1+float64(i)/float64(n))
		}
		for i, v := range []float64{10, 20, 30} {
			a.SetSym(i, i, v)
		}
		for _, c := range []struct {
			s    EigenSolver
			line string
		}{
			{LOBPCG{}, "lobpcg eigen-solver of order 2000: iteration "},
			{Lanczos{}, "lanczos eigen-solver of order 2000: restart 1: "},
		} {
			var log lineLog
			res, err := c.s.Eigs(progress.With(context.Background(), log.add), SymDenseOp{a}, nil, 3, Largest)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Values[0]-30) > 1e-6 {
				t.Errorf("%s: top eigenvalue %v, want 30", c.s.Name(), res.Values[0])
			}
			if n < progress.MinOrder {
				if len(log.lines) != 0 {
					t.Errorf("%s, order %d: lines %q", c.s.Name(), n, log.lines)
				}
				continue
			}
			if log.count(c.line) == 0 || log.count(" of 3 pairs converged") != len(log.lines) {
				t.Errorf("%s: lines\n%s", c.s.Name(), strings.Join(log.lines, "\n"))
			}
		}
		var log lineLog
		rhs := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			rhs.Set(i, 0, 1)
			rhs.Set(i, 1, float64(i%3))
		}
		if _, _, err := (CG{}).Solve(progress.With(context.Background(), log.add), SymDenseOp{a}, rhs); err != nil {
			t.Fatal(err)
		}
		if want := n >= progress.MinOrder; (log.count("cg of order 2000: iteration ") > 0) != want || log.count("right-hand sides converged") != len(log.lines) {
			t.Errorf("cg, order %d: lines\n%s", n, strings.Join(log.lines, "\n"))
		}
	}
}

// SymMulContext equals SymMul bit for bit, reports rising percentages at
// order progress.MinOrder, and stops at the next row block when cancelled
// (its first line cancels: no further line, and the error wraps ctx's).
func TestSymMulContext(t *testing.T) {
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 11)
	m := mat.NewDense(n, 3, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = float64(i%13) - 6
	}
	want := SymMul(a, m)
	log := &lineLog{}
	got, err := SymMulContext(progress.With(context.Background(), log.add), a, m, "dense graph")
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want) {
		t.Fatal("SymMulContext differs from SymMul")
	}
	if len(log.lines) < 5 || !strings.HasPrefix(log.lines[0], "dense graph: product with 3 columns, ") {
		t.Fatalf("lines %q, want one a tenth starting \"dense graph: product with 3 columns, \"", log.lines)
	}
	increasing(t, log.lines)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log = &lineLog{at: "product", cancel: cancel}
	if _, err := SymMulContext(progress.With(ctx, log.add), a, m, "dense graph"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled product: error %v, want context.Canceled", err)
	}
	if len(log.lines) != 1 {
		t.Fatalf("cancelled at its first line, the product went on: %q", log.lines)
	}
}

// A call that can neither report nor stop (LAPACK in the openblas build)
// is not started after a cancellation, is announced to the reporter at
// orders of at least progress.MinOrder, and a cancellation while it runs
// replaces its result by the context's error.
func TestUnmeteredCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := newStage(ctx, 10, "test").unmetered(func() { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("after a cancellation: ran %v, error %v; want not run, context.Canceled", ran, err)
	}
	var lines []string
	ctx, cancel = context.WithCancel(progress.With(context.Background(), func(l string) { lines = append(lines, l) }))
	defer cancel()
	st := newStage(ctx, progress.MinOrder, "eigen-decomposition of order 2000")
	if err := st.unmetered(func() { ran = true }); err != nil || !ran {
		t.Fatalf("uncancelled: ran %v, error %v", ran, err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "eigen-decomposition of order 2000: one "+backendName+" call, without progress lines") {
		t.Errorf("lines %q, want one announcing the unmetered call", lines)
	}
	if err := st.unmetered(cancel); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the call: error %v, want context.Canceled", err)
	}
}

// CholeskySolver reports its factorization in increasing percentages and
// gives the solution of a call without a reporter bit for bit; cancelled
// at its first line, it returns the context's error without finishing
// (a library test: a GDA fit at 6 000 rows ran 6 s past its deadline in
// the regression route's Cholesky).
func TestCholeskySolverProgressAndCancel(t *testing.T) {
	pureGo(t)
	withGap(t, 0)
	n := progress.MinOrder
	a := benchSym(n, 21)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, a.At(i, i)+float64(n))
	}
	rhs := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		rhs.Set(i, 0, 1)
		rhs.Set(i, 1, float64(i%5))
	}
	op := ShiftOp{A: SymDenseOp{M: a}, Sigma: 0.5}
	const part = "Cholesky solve of order 2000: factorization, "
	var log lineLog
	x, _, err := CholeskySolver{}.Solve(progress.With(context.Background(), log.add), op, rhs)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := CholeskySolver{}.Solve(context.Background(), op, rhs)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, want) {
		t.Error("the solution with a reporter differs from the one without")
	}
	cut, err := meteredThenCancelled(t, &log, part, func(ctx context.Context) error {
		_, _, err := CholeskySolver{}.Solve(ctx, op, rhs)
		return err
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "Cholesky solve of order 2000 stopped") || cut.count(part) != 1 {
		t.Errorf("cancelled in the factorization: error %v, lines\n%s", err, strings.Join(cut.lines, "\n"))
	}
}
