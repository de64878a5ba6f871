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
//   - rows: row i of C accumulates A(i,p) times row p of op(B), two rows
//     of op(B) at a time;
//   - columns: the same for C^T = op(B)^T op(A)^T, into a scratch matrix
//     that is then transposed into C;
//   - dots: each element of C is the dot product of a row of op(A) and a
//     column of op(B), for 2×2 elements of C at a time.
//
// An operand that the order needs with unit stride but is stored the other
// way is first transposed into a scratch buffer.
//
// Each element of C is still the sum over p = 0, 1, ..., k-1 of its
// products, accumulated in that order and then scaled by alpha, as in the
// micro-kernels.

// unroll is the unrolling factor of the inner loops.
const unroll = 8

// directWork is the direct limit of the portable kernel. Up to 64×64×64
// (2^18 multiply-adds) the direct orders beat packing with the 4×4 Go
// kernel, both in WebAssembly (by 1.3x for squares and 3-5x for the toy
// MLP's products) and natively (2x and 3-5x).
const directWork = 1 << 18

// callCost is the cost of a call to an inner-loop function, in loop
// iterations.
const callCost = 2

// loopCost estimates the cost, in loop iterations, of calls calls to an
// unrolled inner loop over length elements.
func loopCost(calls, length int) int {
	return calls * (callCost + length/unroll + length%unroll)
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
	half := func(x int) int { return (x + 1) / 2 }
	rows := loopCost(m*half(k), n) + packB
	cols := loopCost(n*half(k), m) + packA + m*n
	dots := loopCost(half(m)*half(n), 2*k) + (m*k - packA) + (k*n - packB)
	switch {
	case rows <= cols && rows <= dots:
		return byRows
	case cols <= dots:
		return byCols
	}
	return byDots
}

// direct computes p, whose beta is zero, in order o without packing, and
// adds bias (n values, or nil for none) to every row of C.
func (p *problem) direct(o order, bias []float32) {
	m, n, k := p.m, p.n, p.k
	switch o {
	case byRows:
		b, ldb, buf := p.opB(false)
		axpyRows(m, n, k, p.alpha, p.a, p.lda, p.transA, b, ldb, bias, p.c, p.ldc)
		release(buf)
	case byCols:
		// C^T = op(B)^T op(A)^T: the rows of op(A)^T are the columns of
		// op(A).
		a, lda, bufA := p.opA(true)
		ct := getBuffer(&poolB, n*m)
		axpyRows(n, m, k, p.alpha, p.b, p.ldb, !p.transB, a, lda, nil, ct.s, m)
		for j := 0; j < n; j++ {
			col := ct.s[j*m : (j+1)*m]
			if bias == nil {
				for i, v := range col {
					p.c[i*p.ldc+j] = v
				}
				continue
			}
			for i, v := range col {
				p.c[i*p.ldc+j] = v + bias[j]
			}
		}
		release(ct)
		release(bufA)
	case byDots:
		a, lda, bufA := p.opA(false)
		bt, ldbt, bufB := p.opB(true)
		dotRows(m, n, k, p.alpha, a, lda, bt, ldbt, bias, p.c, p.ldc)
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

// axpyRows computes C = alpha*A*B + bias (bias may be nil) for the m×k
// matrix A, element (i, p) of which is a[i*lda+p] (a[p*lda+i] with
// transA), the k×n matrix B (row stride ldb) and C (row stride ldc): row i
// of C combines the rows of B with coefficients A(i,p).
func axpyRows(m, n, k int, alpha float32, a []float32, lda int, transA bool, b []float32, ldb int, bias, c []float32, ldc int) {
	ai, ap := lda, 1
	if transA {
		ai, ap = 1, lda
	}
	for i := 0; i < m; i++ {
		z := c[i*ldc : i*ldc+n]
		combineRows(z, a[i*ai:], ap, b, ldb, k)
		scaleAddRow(z, alpha, bias)
	}
}

// combineRows sets z to the sum over q < k (k >= 1) of v[q*vs] times row q
// of b (row stride ldb), added in order of q, four rows at a time: each
// element of z is read and written once per four rows.
func combineRows(z, v []float32, vs int, b []float32, ldb, k int) {
	n := len(z)
	q := 0
	switch {
	case k == 1:
		scaleRow(z, v[0], b[:n])
		return
	case k < 4:
		set2(z, v[0], b[:n], v[vs], b[ldb:ldb+n])
		q = 2
	default:
		clear(z)
	}
	for ; q+4 <= k; q += 4 {
		add4(z, v[q*vs], b[q*ldb:q*ldb+n], v[(q+1)*vs], b[(q+1)*ldb:(q+1)*ldb+n],
			v[(q+2)*vs], b[(q+2)*ldb:(q+2)*ldb+n], v[(q+3)*vs], b[(q+3)*ldb:(q+3)*ldb+n])
	}
	if q+2 <= k {
		add2(z, v[q*vs], b[q*ldb:q*ldb+n], v[(q+1)*vs], b[(q+1)*ldb:(q+1)*ldb+n])
		q += 2
	}
	if q < k {
		add2(z, v[q*vs], b[q*ldb:q*ldb+n], 0, nil)
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

// scaleRow sets z = v*x.
func scaleRow(z []float32, v float32, x []float32) {
	x = x[:len(z)]
	j := 0
	for ; j+unroll <= len(z); j += unroll {
		d, s := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll]
		d[0], d[1], d[2], d[3] = v*s[0], v*s[1], v*s[2], v*s[3]
		d[4], d[5], d[6], d[7] = v*s[4], v*s[5], v*s[6], v*s[7]
	}
	for ; j < len(z); j++ {
		z[j] = v * x[j]
	}
}

// set2 sets z = v*x + w*y.
func set2(z []float32, v float32, x []float32, w float32, y []float32) {
	x, y = x[:len(z)], y[:len(z)]
	j := 0
	for ; j+unroll <= len(z); j += unroll {
		d, s, t := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll]
		d[0], d[1], d[2], d[3] = v*s[0]+w*t[0], v*s[1]+w*t[1], v*s[2]+w*t[2], v*s[3]+w*t[3]
		d[4], d[5], d[6], d[7] = v*s[4]+w*t[4], v*s[5]+w*t[5], v*s[6]+w*t[6], v*s[7]+w*t[7]
	}
	for ; j < len(z); j++ {
		z[j] = v*x[j] + w*y[j]
	}
}

// add2 adds v*x to z and then w*y; with y nil it only adds v*x.
func add2(z []float32, v float32, x []float32, w float32, y []float32) {
	x = x[:len(z)]
	j := 0
	if y == nil {
		for ; j+unroll <= len(z); j += unroll {
			d, s := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll]
			d[0], d[1], d[2], d[3] = d[0]+v*s[0], d[1]+v*s[1], d[2]+v*s[2], d[3]+v*s[3]
			d[4], d[5], d[6], d[7] = d[4]+v*s[4], d[5]+v*s[5], d[6]+v*s[6], d[7]+v*s[7]
		}
		for ; j < len(z); j++ {
			z[j] += v * x[j]
		}
		return
	}
	y = y[:len(z)]
	for ; j+unroll <= len(z); j += unroll {
		d, s, t := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll]
		d[0], d[1], d[2], d[3] = d[0]+v*s[0]+w*t[0], d[1]+v*s[1]+w*t[1], d[2]+v*s[2]+w*t[2], d[3]+v*s[3]+w*t[3]
		d[4], d[5], d[6], d[7] = d[4]+v*s[4]+w*t[4], d[5]+v*s[5]+w*t[5], d[6]+v*s[6]+w*t[6], d[7]+v*s[7]+w*t[7]
	}
	for ; j < len(z); j++ {
		z[j] = z[j] + v*x[j] + w*y[j]
	}
}

// add4 adds u*w, v*x, s*y and t*r to z, in that order.
func add4(z []float32, u float32, w []float32, v float32, x []float32, s float32, y []float32, t float32, r []float32) {
	w, x, y, r = w[:len(z)], x[:len(z)], y[:len(z)], r[:len(z)]
	j := 0
	for ; j+unroll <= len(z); j += unroll {
		d := z[j : j+unroll : j+unroll]
		a, b, c, e := w[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll], r[j:j+unroll:j+unroll]
		d[0] = d[0] + u*a[0] + v*b[0] + s*c[0] + t*e[0]
		d[1] = d[1] + u*a[1] + v*b[1] + s*c[1] + t*e[1]
		d[2] = d[2] + u*a[2] + v*b[2] + s*c[2] + t*e[2]
		d[3] = d[3] + u*a[3] + v*b[3] + s*c[3] + t*e[3]
		d[4] = d[4] + u*a[4] + v*b[4] + s*c[4] + t*e[4]
		d[5] = d[5] + u*a[5] + v*b[5] + s*c[5] + t*e[5]
		d[6] = d[6] + u*a[6] + v*b[6] + s*c[6] + t*e[6]
		d[7] = d[7] + u*a[7] + v*b[7] + s*c[7] + t*e[7]
	}
	for ; j < len(z); j++ {
		z[j] = z[j] + u*w[j] + v*x[j] + s*y[j] + t*r[j]
	}
}

// dotRows computes C = alpha*A*B^T + bias (bias may be nil) for the m×k
// matrix A (row stride lda) and the n×k matrix B (row stride ldb): element
// (i, j) of C is the dot product of rows i of A and j of B. It computes 2×2
// blocks of C, so that four independent sums are in flight; an odd last
// row or column is computed twice over and written once.
func dotRows(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, bias, c []float32, ldc int) {
	for i := 0; i < m; i += 2 {
		i1 := min(i+1, m-1)
		x0, x1 := a[i*lda:i*lda+k], a[i1*lda:i1*lda+k]
		z0, z1 := c[i*ldc:i*ldc+n], c[i1*ldc:i1*ldc+n]
		for j := 0; j < n; j += 2 {
			j1 := min(j+1, n-1)
			s00, s01, s10, s11 := dot4(x0, x1, b[j*ldb:j*ldb+k], b[j1*ldb:j1*ldb+k])
			s00, s01, s10, s11 = alpha*s00, alpha*s01, alpha*s10, alpha*s11
			if bias != nil {
				s00, s01, s10, s11 = s00+bias[j], s01+bias[j1], s10+bias[j], s11+bias[j1]
			}
			z1[j1], z1[j] = s11, s10
			z0[j1], z0[j] = s01, s00
		}
	}
}

// dot4 returns the dot products of x0 and x1 with y0 and y1: sij is xi·yj.
func dot4(x0, x1, y0, y1 []float32) (s00, s01, s10, s11 float32) {
	x1, y0, y1 = x1[:len(x0)], y0[:len(x0)], y1[:len(x0)]
	p := 0
	for ; p+unroll/2 <= len(x0); p += unroll / 2 {
		a, b := x0[p:p+unroll/2:p+unroll/2], x1[p:p+unroll/2:p+unroll/2]
		c, d := y0[p:p+unroll/2:p+unroll/2], y1[p:p+unroll/2:p+unroll/2]
		s00 += a[0] * c[0]
		s01 += a[0] * d[0]
		s10 += b[0] * c[0]
		s11 += b[0] * d[0]
		s00 += a[1] * c[1]
		s01 += a[1] * d[1]
		s10 += b[1] * c[1]
		s11 += b[1] * d[1]
		s00 += a[2] * c[2]
		s01 += a[2] * d[2]
		s10 += b[2] * c[2]
		s11 += b[2] * d[2]
		s00 += a[3] * c[3]
		s01 += a[3] * d[3]
		s10 += b[3] * c[3]
		s11 += b[3] * d[3]
	}
	for ; p < len(x0); p++ {
		s00 += x0[p] * y0[p]
		s01 += x0[p] * y1[p]
		s10 += x1[p] * y0[p]
		s11 += x1[p] * y1[p]
	}
	return s00, s01, s10, s11
}

// ColumnSums sets s[j], for j < n, to the sum of column j of the m×n matrix
// A (row stride lda), adding the rows in order: the product of a row of
// ones and A, computed with the loops of the direct products. It panics
// with a message starting with "gemm: " if the arguments do not describe
// such a matrix.
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
	// 1*x is x: the sums are those of plain additions.
	one := []float32{1}
	combineRows(s[:n], one, 0, a, lda, m)
}
