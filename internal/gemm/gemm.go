// Package gemm is the pure-Go build's matrix product, C = α·op(A)·op(B) +
// β·C (BLAS dgemm), with a hand-written AVX2/FMA kernel on amd64.
//
// Why by hand: gonum's native Dgemm, which every dense step of the
// library goes through in the default build, runs at about 12 GFLOP/s on
// the two cores of our machine, where the cores can do about 90 (OpenBLAS
// reaches that through cgo). No maintained pure-Go library has a packed,
// register-blocked kernel; this package is one, in the layout of
// BLIS/GotoBLAS: B is packed in panels of nr = 8 columns and A in panels
// of mr = 6 rows, for blocks of kc = 256 steps of the inner dimension, and
// an assembly micro-kernel keeps a 6×8 tile of C in twelve AVX registers
// (docs/backend.md gives the measurements).
//
// The arithmetic of one element of C does not depend on the shapes, the
// blocking of the rows and columns, or the number of goroutines: β·C
// first, then for each block of kc steps, in order, C += α·acc with acc
// the block's fused multiply-add chain from zero. So the product of a
// chunk of rows gives the same bits as the same rows inside a larger
// product, and results do not depend on GOMAXPROCS. (The bits differ from
// gonum's Dgemm, which neither fuses nor blocks the inner dimension so.)
package gemm

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
)

const (
	mr = 6    // rows of the micro-kernel's tile
	nr = 8    // columns of the micro-kernel's tile
	kc = 256  // steps of the inner dimension per packed block
	mc = 120  // rows of A per packed block (a multiple of mr; mc·kc·8 B = 240 KiB, in L2)
	nc = 3072 // columns of B per packed block (a multiple of nr)

	// parallelFlops is the size (m·n·k) from which a product is split
	// over goroutines.
	parallelFlops = 1 << 18
)

// Available reports whether this machine runs the kernel (amd64 with AVX2
// and FMA). Where it is false, Dgemm must not be called.
var Available = hasKernel()

// Dgemm computes C = α·op(A)·op(B) + β·C, with op(A) m×k and op(B) k×n,
// row-major storage as gonum's blas.Float64 (the same arguments and the
// same checks: it panics with gonum's messages on inconsistent sizes). If
// β = 0, C is not read.
func Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	transA := tA == blas.Trans || tA == blas.ConjTrans
	transB := tB == blas.Trans || tB == blas.ConjTrans
	checkArgs(tA, tB, transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if !Available {
		panic("gemm: the kernel needs amd64 with AVX2 and FMA")
	}
	p := product{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	workers := 1
	if m*n*k >= parallelFlops {
		workers = runtime.GOMAXPROCS(0)
	}
	// Split C into strips along its longer side, whole tiles each.
	if n >= m {
		workers = min(workers, (n+nr-1)/nr)
	} else {
		workers = min(workers, (m+mr-1)/mr)
	}
	if workers <= 1 {
		p.region(0, m, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		if n >= m {
			lo, hi := strip(n, nr, w, workers)
			wg.Go(func() { p.region(0, m, lo, hi) })
		} else {
			lo, hi := strip(m, mr, w, workers)
			wg.Go(func() { p.region(lo, hi, 0, n) })
		}
	}
	wg.Wait()
}

// strip returns worker w's share [lo, hi) of 0..size in whole units of
// unit (the last share takes the remainder).
func strip(size, unit, w, workers int) (lo, hi int) {
	units := (size + unit - 1) / unit
	lo = min(size, units*w/workers*unit)
	hi = min(size, units*(w+1)/workers*unit)
	return lo, hi
}

// product holds one call's arguments.
type product struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float64
	a, b, c        []float64
	lda, ldb, ldc  int
}

// buffers are one goroutine's packed blocks and tile.
type buffers struct {
	ap, bp []float64
	acc    [mr * nr]float64
}

var pool = sync.Pool{New: func() any { return new(buffers) }}

// grow returns s with length n, reusing its storage when it can.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// region computes rows [r0, r1) and columns [c0, c1) of C.
func (p *product) region(r0, r1, c0, c1 int) {
	p.scale(r0, r1, c0, c1)
	if p.alpha == 0 || p.k == 0 {
		return
	}
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	if r1-r0 <= skinnyRows || c1-c0 <= skinnyRows {
		p.skinny(buf, r0, r1, c0, c1)
		return
	}
	rows := roundUp(min(mc, r1-r0), mr)
	for jc := c0; jc < c1; jc += nc {
		nb := min(nc, c1-jc)
		for pc := 0; pc < p.k; pc += kc {
			kb := min(kc, p.k-pc)
			buf.bp = grow(buf.bp, roundUp(nb, nr)*kb)
			p.packB(buf.bp, pc, jc, kb, nb)
			buf.ap = grow(buf.ap, rows*kb)
			for ic := r0; ic < r1; ic += mc {
				mb := min(mc, r1-ic)
				p.packA(buf.ap, ic, pc, mb, kb)
				p.tiles(buf, ic, jc, mb, nb, kb)
			}
		}
	}
}

// skinnyRows is the most rows (or columns) of C that skinny computes.
// Below it a product with few rows (a block Lanczos step's 4 vectors, a
// regression solver's C − 1 = 9 right-hand sides, against a 10 000×10 000
// kernel matrix) would otherwise pack the large operand at every product,
// for at most two tiles of the packed kernel: the packing cost more than
// the arithmetic (GDA on 10 000 MNIST rows spent 47 % of its fit in
// packB). skinny reads the large operand once per 12 rows instead. A
// product with few columns is the same product transposed.
const skinnyRows = 12

// skinny computes rows [r0, r1) and columns [c0, c1) of C, one of the two
// ranges having at most skinnyRows entries, without packing the large
// operand. The short side's operand (rows of op(A), or columns of op(B)
// when C has few columns) is packed in one panel of w = 4 or 12 lanes per
// block of kc steps; kern4x4s or kern12x4s reads the other where it is
// stored, 4 vectors at a time. Each element gets exactly the arithmetic of
// the packed path (the products a·b and b·a of a fused multiply-add are
// the same number).
func (p *product) skinny(buf *buffers, r0, r1, c0, c1 int) {
	cols := r1-r0 > skinnyRows // few columns: lanes are columns of C
	lanes, l0, s0, s1 := r1-r0, r0, c0, c1
	if cols {
		lanes, l0, s0, s1 = c1-c0, c0, r0, r1
	}
	w, kern := 4, kern4x4s
	if lanes > 4 {
		w, kern = 12, kern12x4s
	}
	// Byte strides of the streamed operand along the steps and from one
	// of its vectors to the next: columns of op(B), or rows of op(A).
	var sstride, vstride int
	switch {
	case !cols && p.transB, cols && !p.transA:
		sstride, vstride = 8, 8*p.ldb
		if cols {
			vstride = 8 * p.lda
		}
	case !cols:
		sstride, vstride = 8*p.ldb, 8
	default:
		sstride, vstride = 8*p.lda, 8
	}
	// lane returns op(A)[l0+i][s] or op(B)[s][l0+i]; vec the address of
	// the streamed operand's vector v at step s.
	lane := func(i, s int) float64 {
		if cols {
			return p.bVal(s, l0+i)
		}
		return p.aVal(l0+i, s)
	}
	vec := func(v, s int) *float64 {
		if cols {
			return p.aAt(v, s)
		}
		return p.bAt(s, v)
	}
	acc := buf.acc[:w*4]
	for pc := 0; pc < p.k; pc += kc {
		kb := min(kc, p.k-pc)
		buf.ap = grow(buf.ap, w*kb)
		ap := buf.ap
		for i := 0; i < w; i++ {
			for s := 0; s < kb; s++ {
				v := 0.0
				if i < lanes {
					v = lane(i, pc+s)
				}
				ap[s*w+i] = v
			}
		}
		for v := s0; v < s1; v += 4 {
			nv := min(4, s1-v)
			if nv == 4 {
				kern(kb, &ap[0], vec(v, pc), sstride, vstride, &acc[0])
				p.addSkinny(acc, w, cols, l0, lanes, v, nv)
				continue
			}
			for vv := 0; vv < nv; vv++ { // the last vectors one by one: no read past the operand
				kern(kb, &ap[0], vec(v+vv, pc), sstride, 0, &acc[0])
				p.addSkinny(acc, w, cols, l0, lanes, v+vv, 1)
			}
		}
	}
}

// aVal is op(A)[i][s]; aAt its address.
func (p *product) aVal(i, s int) float64 { return *p.aAt(i, s) }

func (p *product) aAt(i, s int) *float64 {
	if p.transA {
		return &p.a[s*p.lda+i]
	}
	return &p.a[i*p.lda+s]
}

// bVal is op(B)[s][j]; bAt its address.
func (p *product) bVal(s, j int) float64 { return *p.bAt(s, j) }

func (p *product) bAt(s, j int) *float64 {
	if p.transB {
		return &p.b[j*p.ldb+s]
	}
	return &p.b[s*p.ldb+j]
}

// addSkinny adds α times a skinny kernel's output (w lanes a vector, nv
// vectors from v) to C: lanes are rows l0 … of C and vectors its columns,
// or, when cols, lanes are columns and vectors rows.
func (p *product) addSkinny(acc []float64, w int, cols bool, l0, lanes, v, nv int) {
	for vv := 0; vv < nv; vv++ {
		for i := 0; i < lanes; i++ {
			r, c := l0+i, v+vv
			if cols {
				r, c = v+vv, l0+i
			}
			p.c[r*p.ldc+c] += float64(p.alpha * acc[vv*w+i])
		}
	}
}

// tiles runs the micro-kernel over a packed mb×kb block of A and kb×nb
// block of B and adds α times each tile to C at (ic, jc).
func (p *product) tiles(buf *buffers, ic, jc, mb, nb, kb int) {
	acc := &buf.acc
	for jr := 0; jr < nb; jr += nr {
		nn := min(nr, nb-jr)
		bpan := &buf.bp[jr*kb]
		for ir := 0; ir < mb; ir += mr {
			kern6x8(kb, &buf.ap[ir*kb], bpan, &acc[0])
			mm := min(mr, mb-ir)
			for i := 0; i < mm; i++ {
				row := p.c[(ic+ir+i)*p.ldc+jc+jr:]
				row = row[:nn]
				t := acc[i*nr : i*nr+nn]
				for j := range row {
					// The conversion rounds the product before the sum:
					// no fusion (the Go spec allows one otherwise).
					row[j] += float64(p.alpha * t[j])
				}
			}
		}
	}
}

// scale sets the region of C to β·C (0 without reading it when β = 0).
func (p *product) scale(r0, r1, c0, c1 int) {
	if p.beta == 1 {
		return
	}
	for i := r0; i < r1; i++ {
		row := p.c[i*p.ldc+c0 : i*p.ldc+c1]
		if p.beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= p.beta
		}
	}
}

// packA copies the mb×kb block of op(A) at (ic, pc) into panels of mr
// rows: panel q holds, for each step s, rows q·mr … q·mr+mr−1 (zeros past
// mb).
func (p *product) packA(dst []float64, ic, pc, mb, kb int) {
	for i0 := 0; i0 < mb; i0 += mr {
		pan := dst[i0*kb : (i0+mr)*kb]
		if i0+mr <= mb {
			p.packA6(pan, ic+i0, pc, kb)
			continue
		}
		for ii := 0; ii < mr; ii++ {
			i := i0 + ii
			if i >= mb {
				for s := 0; s < kb; s++ {
					pan[s*mr+ii] = 0
				}
				continue
			}
			if p.transA { // op(A)[i, s] = a[s·lda + i]
				col := p.a[pc*p.lda+ic+i:]
				for s := 0; s < kb; s++ {
					pan[s*mr+ii] = col[s*p.lda]
				}
			} else {
				row := p.a[(ic+i)*p.lda+pc : (ic+i)*p.lda+pc+kb]
				for s, v := range row {
					pan[s*mr+ii] = v
				}
			}
		}
	}
}

// packB copies the kb×nb block of op(B) at (pc, jc) into panels of nr
// columns: panel q holds, for each step s, columns q·nr … q·nr+nr−1 (zeros
// past nb).
func (p *product) packB(dst []float64, pc, jc, kb, nb int) {
	for j0 := 0; j0 < nb; j0 += nr {
		pan := dst[j0*kb : (j0+nr)*kb]
		nn := min(nr, nb-j0)
		if p.transB { // op(B)[s, j] = b[j·ldb + s]
			if nn == nr {
				p.packBT8(pan, pc, jc+j0, kb)
				continue
			}
			for jj := 0; jj < nr; jj++ {
				if jj >= nn {
					for s := 0; s < kb; s++ {
						pan[s*nr+jj] = 0
					}
					continue
				}
				row := p.b[(jc+j0+jj)*p.ldb+pc : (jc+j0+jj)*p.ldb+pc+kb]
				for s, v := range row {
					pan[s*nr+jj] = v
				}
			}
			continue
		}
		for s := 0; s < kb; s++ {
			src := p.b[(pc+s)*p.ldb+jc+j0:]
			d := pan[s*nr : s*nr+nr]
			copy(d, src[:nn])
			clear(d[nn:])
		}
	}
}

// packA6 packs a full panel of mr = 6 rows of op(A), rows i … i+5 at
// steps pc … pc+kb−1, a step at a time: the 6 values of a step are
// contiguous in a transposed A, and in A itself the 6 rows are read side
// by side (a row at a time read a transposed A with a stride of a whole
// row per value, and wrote every cache line of the panel 6 times).
func (p *product) packA6(pan []float64, i, pc, kb int) {
	pan = pan[:kb*mr]
	if p.transA { // op(A)[i, s] = a[s·lda + i]
		for s := range kb {
			o := (pc+s)*p.lda + i
			copy(pan[s*mr:s*mr+mr], p.a[o:o+mr])
		}
		return
	}
	row := func(ii int) []float64 {
		o := (i+ii)*p.lda + pc
		return p.a[o : o+kb : o+kb]
	}
	a0, a1, a2, a3, a4, a5 := row(0), row(1), row(2), row(3), row(4), row(5)
	for s := range kb {
		d := pan[s*mr : s*mr+mr : s*mr+mr]
		d[0], d[1], d[2] = a0[s], a1[s], a2[s]
		d[3], d[4], d[5] = a3[s], a4[s], a5[s]
	}
}

// packBT8 packs a full panel of nr = 8 columns of a transposed B, steps
// pc … pc+kb−1 of columns j … j+7: the 8 rows of b are read side by side
// and each step's 8 values written together (a column at a time wrote
// every cache line of the panel 8 times).
func (p *product) packBT8(pan []float64, pc, j, kb int) {
	row := func(jj int) []float64 {
		o := (j+jj)*p.ldb + pc
		return p.b[o : o+kb : o+kb]
	}
	b0, b1, b2, b3, b4, b5, b6, b7 := row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)
	pan = pan[:kb*nr]
	for s := range kb {
		d := pan[s*nr : s*nr+nr : s*nr+nr]
		d[0], d[1], d[2], d[3] = b0[s], b1[s], b2[s], b3[s]
		d[4], d[5], d[6], d[7] = b4[s], b5[s], b6[s], b7[s]
	}
}

func roundUp(x, unit int) int { return (x + unit - 1) / unit * unit }

// The panic messages of gonum's BLAS (blas/gonum/errors.go), so that a
// caller sees the same panic whichever Dgemm runs.
const (
	badTranspose = "blas: illegal transpose"
	mLT0         = "blas: m < 0"
	nLT0         = "blas: n < 0"
	kLT0         = "blas: k < 0"
	badLdA       = "blas: bad leading dimension of A"
	badLdB       = "blas: bad leading dimension of B"
	badLdC       = "blas: bad leading dimension of C"
	shortA       = "blas: insufficient length of a"
	shortB       = "blas: insufficient length of b"
	shortC       = "blas: insufficient length of c"
)

// checkArgs panics as gonum's Dgemm does on inconsistent arguments.
func checkArgs(tA, tB blas.Transpose, transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	for _, t := range []blas.Transpose{tA, tB} {
		if t != blas.NoTrans && t != blas.Trans && t != blas.ConjTrans {
			panic(badTranspose)
		}
	}
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case k < 0:
		panic(kLT0)
	}
	ar, ac := m, k // op(A) is stored as ar×ac
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	switch {
	case lda < max(1, ac):
		panic(badLdA)
	case ldb < max(1, bc):
		panic(badLdB)
	case ldc < max(1, n):
		panic(badLdC)
	}
	if m == 0 || n == 0 {
		return
	}
	switch {
	case la < lda*(ar-1)+ac:
		panic(shortA)
	case lb < ldb*(br-1)+bc:
		panic(shortB)
	case lc < ldc*(m-1)+n:
		panic(shortC)
	}
}
