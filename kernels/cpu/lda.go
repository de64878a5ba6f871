package cpu

import (
	"math"
	"sync"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// lda computes ref.LDA, bit for bit: the head's setup (ldaParts), then its
// pass over the rows (rows: column loops, or WebAssembly assembly).
func lda(delta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	p := newLDAParts(prior, mu, cov, c, d, kind)
	defer p.free()
	p.rows(delta[:n*c], z[:n*d], n)
}

// ldaBackward computes ref.LDABackward, bit for bit: the head's setup, its
// pass over the rows (backwardRows) and the parameters' gradients from the
// rows' sums (grads).
func ldaBackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	p := newLDAParts(prior, mu, cov, c, d, kind)
	defer p.free()
	p.backwardRows(dz[:n*d], ddelta[:n*c], z[:n*d], n)
	p.grads(dprior, dmu, dcov, mu, cov, kind)
}

// ldaParts splits LDA and LDABackward into the work of a step that does
// not depend on the batch, here, and passes over the rows of the batch
// (rows and backwardRows), which keep ref's sums in order. With the
// whitened batch w_i = A z_i (w_i,r = sum over j of A[r,j] z_i,j),
// e_ik = w_i - m_k and the score gradients g_ik = ddelta[i,k], each sum
// taken in order from zero:
//
//	delta[i,k] = off[k] - q_ik/2, q_ik = sum over j of e_ik,j^2
//	dw_i = 0 - g_i0 e_i0 - g_i1 e_i1 - ...
//	dz_i,r = sum over j of A[j,r] dw_i,j
//
// and the sums over the rows i in order from zero in total, colSum, dm
// and dA, from which grads computes the parameters' gradients.
type ldaParts struct {
	c, d  int
	w     ref.Whitening[float32]
	m     []float32 // [c,d]: the whitened means m_k = A mu_k
	logPi []float32 // [c]: the log-softmax of the prior
	off   []float32 // [c]: log pi_k - 1/2 log det Sigma

	// The sums over the rows, zero until a pass sets them.
	total  float32   // of g_ik over i and k, in row-major order
	colSum []float32 // [c]: of g_ik, for each k
	dm     []float32 // [c,d]: of g_ik e_ik, for each k
	dA     []float32 // [d,d]: of dw_i,r z_i,j, for each r, j

	scratch []float32 // d elements for a pass in assembly
	at      []float32 // [d,d]: A^T
	buf     *[]float32
}

// newLDAParts returns the parts of LDA and LDABackward for the head's
// parameters, in a buffer from a pool that free gives back.
func newLDAParts(prior, mu, cov []float32, c, d int, kind kernels.CovKind) ldaParts {
	dd, cd := d*d, c*d
	h, buf := getScratch(2*dd + 2*cd + 2*c + d)
	p := ldaParts{c: c, d: d, buf: h, w: ref.NewWhitening(cov, d, kind), logPi: ref.LogSoftmax(prior[:c])}
	p.m, p.off, buf = buf[:cd], buf[cd:cd+c], buf[cd+c:]
	p.colSum, p.dm, p.dA, buf = buf[:c], buf[c:c+cd], buf[c+cd:c+cd+dd], buf[c+cd+dd:]
	clear(p.colSum)
	clear(p.dm)
	clear(p.dA)
	p.at, p.scratch = buf[:dd], buf[dd:dd+d]
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			p.at[j*d+i] = p.w.A[i*d+j]
		}
	}
	applyTo(p.m, p.w.A, mu, d, c)
	for k := range p.off {
		p.off[k] = p.logPi[k] - p.w.LogDet/2
	}
	return p
}

// free gives p's buffer back to the pool; p is not to be used after.
func (p *ldaParts) free() { putScratch(p.buf) }

// rowsGo sets delta[n,c], LDA's discriminants of z[n,d], with column loops.
func (p *ldaParts) rowsGo(delta, z []float32, n int) {
	c, d := p.c, p.d
	h, w := getScratch(n * d)
	defer putScratch(h)
	applyTo(w, p.w.A, z, d, n)
	clear(delta)
	for k := 0; k < c; k++ {
		// Column k of delta holds |w_i - m_k|^2 until the last line.
		for j := 0; j < d; j++ {
			sqDiffCol(delta[k:], c, w[j:], d, p.m[k*d+j], n)
		}
		offHalfCol(delta[k:], c, p.off[k], n)
	}
}

// backwardRowsGo sets dz[n,d], LDABackward's gradient of z[n,d] for
// ddelta[n,c], and the sums over the rows, with column loops.
func (p *ldaParts) backwardRowsGo(dz, ddelta, z []float32, n int) {
	c, d := p.c, p.d
	h, buf := getScratch(2 * n * d)
	defer putScratch(h)
	w, dw := buf[:n*d], buf[n*d:]
	applyTo(w, p.w.A, z, d, n)
	clear(dw)
	p.total = sumCol(ddelta, 1, n*c)
	for k := 0; k < c; k++ {
		p.colSum[k] = sumCol(ddelta[k:], c, n)
		for j := 0; j < d; j++ {
			p.dm[k*d+j] = gradCol(dw[j:], w[j:], d, p.m[k*d+j], ddelta[k:], c, n)
		}
	}
	// dz = dw A (rows times A, i.e. A^T applied to each row).
	applyTo(dz, p.at, dw, d, n)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			p.dA[i*d+j] = dotCol(0, dw[i:], d, z[j:], d, n)
		}
	}
}

// grads sets LDABackward's gradients of the parameters from the sums over
// the rows.
func (p *ldaParts) grads(dprior, dmu, dcov, mu, cov []float32, kind kernels.CovKind) {
	c, d := p.c, p.d
	// d log_softmax: dprior_j = colSum_j - pi_j * total.
	for k := 0; k < c; k++ {
		dprior[k] = p.colSum[k] - float32(math.Exp(float64(p.logPi[k])))*p.total
	}
	// dmu = dm A, as dz; dA = dw z^T + dm mu^T.
	applyTo(dmu, p.at, p.dm, d, c)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			p.dA[i*d+j] = dotCol(p.dA[i*d+j], p.dm[i:], d, mu[j:], d, c)
		}
	}
	ref.CovGrad(dcov, p.dA, p.total, cov, p.w, kind)
}

// scratchPool holds the head's temporaries (the whitened batch and its
// gradient) between calls: a training step would otherwise allocate a few
// KB for them, and the garbage collector's work for those took several
// percent of a toy step in WebAssembly.
var scratchPool sync.Pool

// getScratch returns a slice of n floats from scratchPool, of undefined
// contents, and the pool's handle on it, for putScratch to give back.
func getScratch(n int) (*[]float32, []float32) {
	p, ok := scratchPool.Get().(*[]float32)
	if !ok {
		p = new([]float32)
	}
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	return p, (*p)[:n]
}

func putScratch(p *[]float32) { scratchPool.Put(p) }

// applyTo sets out[r,:] = a x[r,:] for a[d,d] and rows x[rows,d]. Like the
// head's other loops, it runs down the columns of its operands, over all
// rows at once, so that its inner loops are long whatever d; each element
// is still summed over j in order.
func applyTo(out, a, x []float32, d, rows int) {
	out = out[:rows*d]
	clear(out)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			axpyCol(out[i:], d, a[i*d+j], x[j:], d, rows)
		}
	}
}

// Column loops. The head's loops run over the n rows of a column at a time,
// unrolled 4 times, rather than over the c classes or d dimensions of a
// row: c and d are small (3 and 2 for the toy) and n is the batch. Short
// loops cost their iterations more than their arithmetic in WebAssembly,
// where Go compiles each taken branch to a jump through a dispatch table.
// Each output is still accumulated in the order of ref's loops, so the
// results do not change. Column x of stride xs has elements x[i*xs].
// axpyCol adds a*x to y for columns of n elements.
func axpyCol(y []float32, ys int, a float32, x []float32, xs, n int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		y[i*ys] += a * x[i*xs]
		y[(i+1)*ys] += a * x[(i+1)*xs]
		y[(i+2)*ys] += a * x[(i+2)*xs]
		y[(i+3)*ys] += a * x[(i+3)*xs]
	}
	for ; i < n; i++ {
		y[i*ys] += a * x[i*xs]
	}
}

// sqDiffCol adds (x-m)^2 to q for columns of n elements.
func sqDiffCol(q []float32, qs int, x []float32, xs int, m float32, n int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		e0, e1, e2, e3 := x[i*xs]-m, x[(i+1)*xs]-m, x[(i+2)*xs]-m, x[(i+3)*xs]-m
		q[i*qs] += e0 * e0
		q[(i+1)*qs] += e1 * e1
		q[(i+2)*qs] += e2 * e2
		q[(i+3)*qs] += e3 * e3
	}
	for ; i < n; i++ {
		e := x[i*xs] - m
		q[i*qs] += e * e
	}
}

// offHalfCol sets q to off - q/2 for a column of n elements.
func offHalfCol(q []float32, qs int, off float32, n int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		q[i*qs] = off - q[i*qs]/2
		q[(i+1)*qs] = off - q[(i+1)*qs]/2
		q[(i+2)*qs] = off - q[(i+2)*qs]/2
		q[(i+3)*qs] = off - q[(i+3)*qs]/2
	}
	for ; i < n; i++ {
		q[i*qs] = off - q[i*qs]/2
	}
}

// sumCol returns the sum of the n elements of column x, in order.
func sumCol(x []float32, xs, n int) float32 {
	var s float32
	i := 0
	for ; i+4 <= n; i += 4 {
		s += x[i*xs]
		s += x[(i+1)*xs]
		s += x[(i+2)*xs]
		s += x[(i+3)*xs]
	}
	for ; i < n; i++ {
		s += x[i*xs]
	}
	return s
}

// dotCol returns s plus the products of the columns x and y of n elements,
// added in order.
func dotCol(s float32, x []float32, xs int, y []float32, ys, n int) float32 {
	i := 0
	for ; i+4 <= n; i += 4 {
		s += x[i*xs] * y[i*ys]
		s += x[(i+1)*xs] * y[(i+1)*ys]
		s += x[(i+2)*xs] * y[(i+2)*ys]
		s += x[(i+3)*xs] * y[(i+3)*ys]
	}
	for ; i < n; i++ {
		s += x[i*xs] * y[i*ys]
	}
	return s
}

// gradCol is one (class, dimension) term of LDABackward for the n rows:
// with e_i = w_i - m and the score gradients g_i, it subtracts g_i*e_i from
// dw_i and returns the sum of the g_i*e_i. w and dw have stride ws, g has
// stride gs.
func gradCol(dw, w []float32, ws int, m float32, g []float32, gs, n int) float32 {
	var s float32
	i := 0
	for ; i+4 <= n; i += 4 {
		ge0 := g[i*gs] * (w[i*ws] - m)
		ge1 := g[(i+1)*gs] * (w[(i+1)*ws] - m)
		ge2 := g[(i+2)*gs] * (w[(i+2)*ws] - m)
		ge3 := g[(i+3)*gs] * (w[(i+3)*ws] - m)
		dw[i*ws] -= ge0
		dw[(i+1)*ws] -= ge1
		dw[(i+2)*ws] -= ge2
		dw[(i+3)*ws] -= ge3
		s += ge0
		s += ge1
		s += ge2
		s += ge3
	}
	for ; i < n; i++ {
		ge := g[i*gs] * (w[i*ws] - m)
		dw[i*ws] -= ge
		s += ge
	}
	return s
}
