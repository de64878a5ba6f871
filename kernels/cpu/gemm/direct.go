//go:generate go run gen_wasm.go

package gemm

// Small products without packing.
//
// Packing and the micro-kernel's tiles pay off when each packed value is
// used many times. In the products of a small MLP (256×32×2, 2×32×256, ...)
// they are not: with the portable kernel, copying the operands and
// handling the edge tiles costs more than the multiply-adds. This is most
// marked in WebAssembly, where Go compiles every taken branch, including a
// loop's back edge, to a jump through the function's dispatch table: there
// the cost of a loop is mostly its number of iterations. So small products
// (see microKernel.direct) are computed straight from A and B in one of
// three loop orders, the one with the fewest iterations, whose inner loops
// read memory with unit stride and are unrolled 8 times:
//
//   - rows: row i of C accumulates A(i,p) times row p of op(B), in passes
//     over C that add four rows of op(B) each;
//   - columns: the same for C^T = op(B)^T op(A)^T, into a scratch matrix
//     that is then transposed into C;
//   - dots: each element of C is the dot product of a row of op(A) and a
//     column of op(B), for 2×2 elements of C at a time.
//
// An operand that the order needs with unit stride but is stored the other
// way is first transposed into a scratch buffer. In WebAssembly the hot
// inner loops (set2Rows, add4Rows) and the whole of dotRows are assembly
// with the same operations in the same order (direct_wasm.go); elsewhere
// they are Go (direct_other.go).
//
// Each element of C is still the sum over p = 0, 1, ..., k-1 of its
// products, accumulated in that order and then scaled by alpha, as in the
// micro-kernels.

// unroll is the unrolling factor of the inner loops.
const unroll = 8

// directWork is the direct limit of the portable kernel. Up to 64×64×64
// (2^18 multiply-adds) the direct orders beat packing with the 4×4 Go
// kernel, both in WebAssembly (by 1.5-3x for squares and 3-5x for the toy
// MLP's products) and natively (about 2x and 3-5x).
const directWork = 1 << 18

// callCost is the cost of a call to an inner-loop function, in loop
// iterations.
const callCost = 2

// loopCost estimates the cost, in loop iterations, of calls calls to
// inner-loop functions that run an unrolled loop over length elements runs
// times in all.
func loopCost(calls, runs, length int) int {
	return calls*callCost + runs*(1+length/unroll+length%unroll)
}

// order is a loop order of the direct products.
type order int

const (
	byRows order = iota // rows of C
	byCols              // rows of C^T, through a scratch matrix
	byDots              // dot products, 2×2 elements of C at a time
)

// bestOrder returns the order with the lowest estimated cost, in loop
// iterations and operand copies, for p.
func (p *problem) bestOrder() order {
	m, n, k := p.m, p.n, p.k
	packB, packA := 0, 0
	if p.transB {
		packB = k * n
	}
	if !p.transA {
		packA = m * k
	}
	passes := (k + 3) / 4 // over C, in the rows and columns orders
	blocks := (m + 1) / 2 * ((n + 1) / 2)
	rows := loopCost(passes, m*passes, n) + packB
	cols := loopCost(passes, n*passes, m) + packA + m*n
	dots := loopCost(blocks, blocks, 2*k) + (m*k - packA) + (k*n - packB)
	switch {
	case rows <= cols && rows <= dots:
		return byRows
	case cols <= dots:
		return byCols
	}
	return byDots
}

// direct computes p, whose beta is zero, in order o without packing, adds
// bias (n values, or nil for none) to every row of C and applies epi, all
// in the last pass over C.
func (p *problem) direct(o order, bias []float32, epi epilogue) {
	m, n, k := p.m, p.n, p.k
	switch o {
	case byRows:
		b, ldb, buf := p.opB(false)
		ai, aq := p.lda, 1
		if p.transA {
			ai, aq = 1, p.lda
		}
		axpyRows(m, n, k, p.alpha, p.a, ai, aq, b, ldb, bias, epi, p.c, p.ldc)
		release(buf)
	case byCols:
		// C^T = op(B)^T op(A)^T: the rows of op(A)^T are the columns of
		// op(A).
		a, lda, bufA := p.opA(true)
		ct := getBuffer(&poolB, n*m)
		// Element (j, q) of op(B)^T is op(B)(q, j).
		bj, bq := 1, p.ldb
		if p.transB {
			bj, bq = p.ldb, 1
		}
		axpyRows(n, m, k, p.alpha, p.b, bj, bq, a, lda, nil, epilogue{}, ct.s, m)
		for j := 0; j < n; j++ {
			col := ct.s[j*m : (j+1)*m]
			if bias != nil {
				for i, v := range col {
					col[i] = v + bias[j]
				}
			}
			for i, v := range col {
				p.c[i*p.ldc+j] = v
			}
		}
		epi.rows(m, n, p.c, p.ldc)
		release(ct)
		release(bufA)
	case byDots:
		a, lda, bufA := p.opA(false)
		bt, ldbt, bufB := p.opB(true)
		dotRows(m, n, k, p.alpha, a, lda, bt, ldbt, bias, epi, p.c, p.ldc)
		release(bufA)
		release(bufB)
	}
}

// opA returns op(A) (or its transpose, with t) as rows of unit stride and
// their stride, copying it into a buffer when it is stored the other way;
// the buffer, if any, must be released.
func (p *problem) opA(t bool) ([]float32, int, *buffer) {
	return unitRows(p.a, p.lda, p.transA != t, p.m, p.k, t)
}

// opB is opA for op(B).
func (p *problem) opB(t bool) ([]float32, int, *buffer) {
	return unitRows(p.b, p.ldb, p.transB != t, p.k, p.n, t)
}

// unitRows returns the r×c matrix X (t false) or X^T (t true) as rows of
// unit stride, and their stride. x holds what is wanted with row stride ld,
// or, when transposed is set, its transpose, which is then copied.
func unitRows(x []float32, ld int, transposed bool, r, c int, t bool) ([]float32, int, *buffer) {
	if !transposed {
		return x, ld, nil
	}
	// The wanted matrix is the transpose of the stored one.
	rows, cols := r, c
	if t {
		rows, cols = c, r
	}
	buf := getBuffer(&poolB, rows*cols)
	for i := 0; i < cols; i++ {
		for j, v := range x[i*ld : i*ld+rows] {
			buf.s[j*cols+i] = v
		}
	}
	return buf.s, cols, buf
}

// release returns buf, if not nil, to its pool.
func release(buf *buffer) {
	if buf != nil {
		putBuffer(&poolB, buf)
	}
}

// axpyRows computes C = epi(alpha*A*B + bias) (bias may be nil) for the m×k
// matrix A whose element (i, q) is a[i*ai+q*aq], the k×n matrix B (row
// stride ldb) and C (row stride ldc): each row of C combines the rows of B
// with coefficients from its row of A, in order of q. Each pass over C
// handles up to four rows of B for every row of C, so that each element of
// C is read and written once per four terms and there is one call per
// pass. With k == 2 and alpha == 1 the one pass also adds the bias and
// applies epi; otherwise a last pass scales, adds the bias and applies epi
// if there is any of that to do.
func axpyRows(m, n, k int, alpha float32, a []float32, ai, aq int, b []float32, ldb int, bias []float32, epi epilogue, c []float32, ldc int) {
	row := func(q int) []float32 { return b[q*ldb : q*ldb+n] }
	q := 0
	switch {
	case k == 1:
		scaleRows(m, a, ai, row(0), c, ldc)
		q = 1
	case k < 4:
		var fold []float32
		var foldEpi epilogue
		if k == 2 && alpha == 1 {
			// epi((A(i,0)*B(0,j) + A(i,1)*B(1,j)) + bias(j)) in one pass.
			fold, bias, foldEpi, epi = bias, nil, epi, epilogue{}
		}
		set2Rows(m, a, ai, aq, b, ldb, n, fold, foldEpi, c, ldc)
		q = 2
	default:
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	for ; q+4 <= k; q += 4 {
		add4Rows(m, a[q*aq:], ai, aq, b[q*ldb:], ldb, n, c, ldc)
	}
	if q+2 <= k {
		add2Rows(m, a[q*aq:], ai, row(q), a[(q+1)*aq:], row(q+1), c, ldc)
		q += 2
	}
	if q < k {
		add2Rows(m, a[q*aq:], ai, row(q), nil, nil, c, ldc)
	}
	if alpha != 1 || bias != nil || !epi.none() {
		for i := 0; i < m; i++ {
			z := c[i*ldc : i*ldc+n]
			scaleAddRow(z, alpha, bias)
			epi.row(i, z)
		}
	}
}

// scaleRows sets row i of C (n = len(x) columns) to v[i*vi]*x.
func scaleRows(m int, v []float32, vi int, x, c []float32, ldc int) {
	n := len(x)
	for i := 0; i < m; i++ {
		z, a := c[i*ldc:i*ldc+n], v[i*vi]
		j := 0
		for ; j+unroll <= n; j += unroll {
			d, s := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll]
			d[0], d[1], d[2], d[3] = a*s[0], a*s[1], a*s[2], a*s[3]
			d[4], d[5], d[6], d[7] = a*s[4], a*s[5], a*s[6], a*s[7]
		}
		for ; j < n; j++ {
			z[j] = a * x[j]
		}
	}
}

// add2Rows adds v[i*vi]*x and then, when y is not nil, w[i*vi]*y to row i
// of C (n = len(x) columns).
func add2Rows(m int, v []float32, vi int, x []float32, w, y, c []float32, ldc int) {
	n := len(x)
	for i := 0; i < m; i++ {
		z, a := c[i*ldc:i*ldc+n], v[i*vi]
		j := 0
		if y == nil {
			for ; j+unroll <= n; j += unroll {
				d, s := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll]
				d[0], d[1], d[2], d[3] = d[0]+a*s[0], d[1]+a*s[1], d[2]+a*s[2], d[3]+a*s[3]
				d[4], d[5], d[6], d[7] = d[4]+a*s[4], d[5]+a*s[5], d[6]+a*s[6], d[7]+a*s[7]
			}
			for ; j < n; j++ {
				z[j] += a * x[j]
			}
			continue
		}
		b, y := w[i*vi], y[:n]
		for ; j+unroll <= n; j += unroll {
			d, s, t := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll]
			d[0], d[1], d[2], d[3] = d[0]+a*s[0]+b*t[0], d[1]+a*s[1]+b*t[1], d[2]+a*s[2]+b*t[2], d[3]+a*s[3]+b*t[3]
			d[4], d[5], d[6], d[7] = d[4]+a*s[4]+b*t[4], d[5]+a*s[5]+b*t[5], d[6]+a*s[6]+b*t[6], d[7]+a*s[7]+b*t[7]
		}
		for ; j < n; j++ {
			z[j] = z[j] + a*x[j] + b*y[j]
		}
	}
}

// scaleAddRow sets z = alpha*z + bias (bias may be nil).
func scaleAddRow(z []float32, alpha float32, bias []float32) {
	switch {
	case bias == nil:
		if alpha != 1 {
			for j := range z {
				z[j] *= alpha
			}
		}
	case alpha == 1:
		bias = bias[:len(z)]
		j := 0
		for ; j+unroll <= len(z); j += unroll {
			d, s := z[j:j+unroll:j+unroll], bias[j:j+unroll:j+unroll]
			d[0], d[1], d[2], d[3] = d[0]+s[0], d[1]+s[1], d[2]+s[2], d[3]+s[3]
			d[4], d[5], d[6], d[7] = d[4]+s[4], d[5]+s[5], d[6]+s[6], d[7]+s[7]
		}
		for ; j < len(z); j++ {
			z[j] += bias[j]
		}
	default:
		for j := range z {
			z[j] = alpha*z[j] + bias[j]
		}
	}
}

// ColumnSums sets s[j], for j < n, to the sum of column j of the m×n matrix
// A (row stride lda), from zero, adding the rows in order (as
// ref.BiasGrad). It panics with a message starting with "gemm: " if the
// arguments do not describe such a matrix.
func ColumnSums(m, n int, a []float32, lda int, s []float32) {
	switch {
	case m < 0 || n < 0:
		panic("gemm: negative dimension")
	case lda < max(1, n):
		panic("gemm: bad lda")
	case m > 0 && len(a) < (m-1)*lda+n:
		panic("gemm: insufficient length of a")
	case len(s) < n:
		panic("gemm: insufficient length of s")
	}
	if m == 0 {
		clear(s[:n])
		return
	}
	columnSums(m, n, a, lda, s)
}
