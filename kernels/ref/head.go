package ref

import (
	"math"
	"sync"

	"github.com/deeplda/deeplda/kernels"
)

// Whitening is the covariance of an LDA head in the form the discriminants
// use: A with A^T A = Sigma^-1 (A = L^-1, lower triangular, for the full head;
// diagonal otherwise) and log det Sigma.
type Whitening[T Float] struct {
	D      int
	A      []T // D×D, row-major
	LogDet T
	L      []T // the Cholesky factor (full head only)
}

// Softplus returns log(1+e^x), stable for large |x|.
func Softplus[T Float](x T) T {
	if x > 20 {
		return x
	}
	return T(math.Log1p(math.Exp(float64(x))))
}

// Sigmoid returns 1/(1+e^-x).
func Sigmoid[T Float](x T) T { return T(1 / (1 + math.Exp(-float64(x)))) }

// CholeskyFromRaw returns L = strict_lower(raw) + diag(softplus(diag(raw)) +
// kernels.MinScale) for raw[d,d].
func CholeskyFromRaw[T Float](raw []T, d int) []T {
	l := make([]T, d*d)
	choleskyFromRaw(l, raw, d)
	return l
}

// choleskyFromRaw is CholeskyFromRaw into l[d,d], which it sets whole.
func choleskyFromRaw[T Float](l, raw []T, d int) {
	clear(l[:d*d])
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			l[i*d+j] = raw[i*d+j]
		}
		l[i*d+i] = Softplus(raw[i*d+i]) + kernels.MinScale
	}
}

// InvertLower returns the inverse of the lower-triangular l[d,d].
func InvertLower[T Float](l []T, d int) []T {
	inv := make([]T, d*d)
	invertLower(inv, l, d)
	return inv
}

// invertLower is InvertLower into inv[d,d], which it sets whole.
func invertLower[T Float](inv, l []T, d int) {
	clear(inv[:d*d])
	for j := 0; j < d; j++ { // column j of the inverse: solve L x = e_j
		inv[j*d+j] = 1 / l[j*d+j]
		for i := j + 1; i < d; i++ {
			var s T
			for k := j; k < i; k++ {
				s += l[i*d+k] * inv[k*d+j]
			}
			inv[i*d+j] = -s / l[i*d+i]
		}
	}
}

// NewWhitening builds the whitening of a head's covariance parameter cov
// (log_var [] or [d], or raw_tril [d,d]).
func NewWhitening[T Float](cov []T, d int, kind kernels.CovKind) Whitening[T] {
	return newWhitening(cov, d, kind, make([]T, 2*d*d))
}

// newWhitening is NewWhitening with A and L in buf[:2*d*d].
func newWhitening[T Float](cov []T, d int, kind kernels.CovKind, buf []T) Whitening[T] {
	w := Whitening[T]{D: d, A: buf[:d*d]}
	switch kind {
	case kernels.Spherical:
		clear(w.A)
		a := exp(-cov[0] / 2)
		for i := 0; i < d; i++ {
			w.A[i*d+i] = a
		}
		w.LogDet = T(d) * cov[0]
	case kernels.Diagonal:
		clear(w.A)
		for i := 0; i < d; i++ {
			w.A[i*d+i] = exp(-cov[i] / 2)
			w.LogDet += cov[i]
		}
	case kernels.Full:
		w.L = buf[d*d : 2*d*d]
		choleskyFromRaw(w.L, cov, d)
		invertLower(w.A, w.L, d)
		for i := 0; i < d; i++ {
			w.LogDet += 2 * log(w.L[i*d+i])
		}
	}
	return w
}

// scratch holds the head's temporaries (the whitened batch and its
// gradient) between calls, a pool per element type (float32, float64): a
// training step would otherwise allocate a few KB for them, and the
// garbage collector's work for those took several percent of a toy step in
// WebAssembly.
var scratch [2]sync.Pool

// getScratch returns a slice of n elements from scratch, of undefined
// contents, and the pool's handle on it, for putScratch to give back.
func getScratch[T Float](n int) (*[]T, []T) {
	p, ok := scratch[scratchIndex[T]()].Get().(*[]T)
	if !ok {
		p = new([]T)
	}
	if cap(*p) < n {
		*p = make([]T, n)
	}
	return p, (*p)[:n]
}

func putScratch[T Float](p *[]T) { scratch[scratchIndex[T]()].Put(p) }

func scratchIndex[T Float]() int {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return 0
	}
	return 1
}

// applyTo sets out[r,:] = A x[r,:] for rows x[rows,d]. Like the head's
// other loops, it runs down the columns of its operands, over all rows at
// once, so that its inner loops are long whatever d; each element is still
// summed over j in order.
func (w Whitening[T]) applyTo(out, x []T, rows int) {
	d := w.D
	out = out[:rows*d]
	clear(out)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			axpyCol(out[i:], d, w.A[i*d+j], x[j:], d, rows)
		}
	}
}

// LogSoftmax returns the log-softmax of v.
func LogSoftmax[T Float](v []T) []T {
	out := make([]T, len(v))
	logSoftmax(out, v)
	return out
}

// logSoftmax is LogSoftmax into out.
func logSoftmax[T Float](out, v []T) {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(float64(x - m))
	}
	lse := m + T(math.Log(s))
	for i, x := range v {
		out[i] = x - lse
	}
}

// LDA computes the discriminants delta[n,c] of z[n,d]:
// delta_c = log pi_c - 1/2 log det Sigma - 1/2 |A z - A mu_c|^2.
func LDA[T Float](delta, z, prior, mu, cov []T, n, c, d int, kind kernels.CovKind) {
	need("LDA", delta, n*c)
	p := NewLDAParts(prior, mu, cov, c, d, kind)
	defer p.Free()
	p.Rows(delta, z, n)
}

// LDABackward computes the gradients of LDA for ddelta[n,c]. The gradient of
// raw_tril is zero above the diagonal.
//
// In whitened coordinates w = A z, m_c = A mu_c, e = w - m_c:
// d delta/d e = -e, so dw_n = -sum_c g_nc e_nc and dm_c = sum_n g_nc e_nc;
// then dz = A^T dw, dmu = A^T dm, dA = dw z^T + dm mu^T, and dA is carried to
// the covariance parameter together with the -1/2 log det Sigma term.
func LDABackward[T Float](dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov []T, n, c, d int, kind kernels.CovKind) {
	need("LDABackward", ddelta, n*c)
	p := NewLDAParts(prior, mu, cov, c, d, kind)
	defer p.Free()
	p.BackwardRows(dz, ddelta, z, n)
	p.Grads(dprior, dmu, dcov, mu, cov, kind)
}

// LDAParts splits LDA and LDABackward into the work of a step that does
// not depend on the batch, here, and passes over the rows of the batch
// (Rows and BackwardRows), which a backend may run its own way (kernels/cpu
// does in WebAssembly) if it keeps their sums in order. With the whitened
// batch w_i = A z_i (w_i,r = sum over j of A[r,j] z_i,j), e_ik = w_i - m_k
// and the score gradients g_ik = ddelta[i,k], each sum taken in order from
// zero:
//
//	delta[i,k] = Off[k] - q_ik/2, q_ik = sum over j of e_ik,j^2
//	dw_i = 0 - g_i0 e_i0 - g_i1 e_i1 - ...
//	dz_i,r = sum over j of A[j,r] dw_i,j
//
// and the sums over the rows i in order from zero in Total, ColSum, DM
// and DA, from which Grads computes the parameters' gradients.
type LDAParts[T Float] struct {
	C, D  int
	W     Whitening[T]
	M     []T // [c,d]: the whitened means m_k = A mu_k
	LogPi []T // [c]: the log-softmax of the prior
	Off   []T // [c]: log pi_k - 1/2 log det Sigma

	// The sums over the rows, zero until a pass sets them.
	Total  T   // of g_ik over i and k, in row-major order
	ColSum []T // [c]: of g_ik, for each k
	DM     []T // [c,d]: of g_ik e_ik, for each k
	DA     []T // [d,d]: of dw_i,r z_i,j, for each r, j

	// Scratch is d elements of scratch for a backend's pass.
	Scratch []T

	at, tmp, dL []T // Grads' temporaries, d×d each
	buf         *[]T
}

// NewLDAParts returns the parts of LDA and LDABackward for the head's
// parameters, in a buffer from a pool that Free gives back.
func NewLDAParts[T Float](prior, mu, cov []T, c, d int, kind kernels.CovKind) LDAParts[T] {
	dd, cd := d*d, c*d
	h, buf := getScratch[T](6*dd + 2*cd + 3*c + d)
	p := LDAParts[T]{C: c, D: d, buf: h}
	p.W = newWhitening(cov, d, kind, buf[:2*dd])
	buf = buf[2*dd:]
	p.M, p.LogPi, p.Off, buf = buf[:cd], buf[cd:cd+c], buf[cd+c:cd+2*c], buf[cd+2*c:]
	p.ColSum, p.DM, p.DA, buf = buf[:c], buf[c:c+cd], buf[c+cd:c+cd+dd], buf[c+cd+dd:]
	clear(p.ColSum)
	clear(p.DM)
	clear(p.DA)
	p.at, p.tmp, p.dL, p.Scratch = buf[:dd], buf[dd:2*dd], buf[2*dd:3*dd], buf[3*dd:3*dd+d]
	p.W.applyTo(p.M, mu, c)
	logSoftmax(p.LogPi, prior[:c])
	for k := range p.Off {
		p.Off[k] = p.LogPi[k] - p.W.LogDet/2
	}
	return p
}

// Free gives p's buffer back to the pool; p is not to be used after.
func (p *LDAParts[T]) Free() { putScratch(p.buf) }

// Rows sets delta[n,c], LDA's discriminants of z[n,d].
func (p *LDAParts[T]) Rows(delta, z []T, n int) {
	c, d := p.C, p.D
	h, w := getScratch[T](n * d)
	defer putScratch(h)
	p.W.applyTo(w, z, n)
	delta = delta[:n*c]
	clear(delta)
	for k := 0; k < c; k++ {
		// Column k of delta holds |w_i - m_k|^2 until the last line.
		for j := 0; j < d; j++ {
			sqDiffCol(delta[k:], c, w[j:], d, p.M[k*d+j], n)
		}
		offHalfCol(delta[k:], c, p.Off[k], n)
	}
}

// BackwardRows sets dz[n,d], LDABackward's gradient of z[n,d] for
// ddelta[n,c], and the sums over the rows.
func (p *LDAParts[T]) BackwardRows(dz, ddelta, z []T, n int) {
	c, d := p.C, p.D
	h, buf := getScratch[T](2 * n * d)
	defer putScratch(h)
	w, dw := buf[:n*d], buf[n*d:]
	p.W.applyTo(w, z, n)
	clear(dw)
	p.Total = sumCol(ddelta, 1, n*c)
	for k := 0; k < c; k++ {
		p.ColSum[k] = sumCol(ddelta[k:], c, n)
		for j := 0; j < d; j++ {
			p.DM[k*d+j] = gradCol(dw[j:], w[j:], d, p.M[k*d+j], ddelta[k:], c, n)
		}
	}
	// dz = dw A (rows times A, i.e. A^T applied to each row).
	Whitening[T]{D: d, A: transposeTo(p.at, p.W.A, d)}.applyTo(dz, dw, n)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			p.DA[i*d+j] = dotCol(0, dw[i:], d, z[j:], d, n)
		}
	}
}

// Grads sets LDABackward's gradients of the parameters from the sums over
// the rows.
func (p *LDAParts[T]) Grads(dprior, dmu, dcov, mu, cov []T, kind kernels.CovKind) {
	c, d, wh := p.C, p.D, p.W
	// d log_softmax: dprior_j = colSum_j - pi_j * total.
	for k := 0; k < c; k++ {
		dprior[k] = p.ColSum[k] - exp(p.LogPi[k])*p.Total
	}
	// dmu = dm A, as dz; dA = dw z^T + dm mu^T.
	at := transposeTo(p.at, wh.A, d)
	Whitening[T]{D: d, A: at}.applyTo(dmu, p.DM, c)
	dA := p.DA
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			dA[i*d+j] = dotCol(dA[i*d+j], p.DM[i:], d, mu[j:], d, c)
		}
	}
	dLogDet := -p.Total / 2
	switch kind {
	case kernels.Spherical:
		// A = exp(-s/2) I, log det = d s.
		var tr T
		for i := 0; i < d; i++ {
			tr += dA[i*d+i] * wh.A[i*d+i]
		}
		dcov[0] = -tr/2 + T(d)*dLogDet
	case kernels.Diagonal:
		for i := 0; i < d; i++ {
			dcov[i] = -dA[i*d+i]*wh.A[i*d+i]/2 + dLogDet
		}
	case kernels.Full:
		// A = L^-1: dL = -A^T dA A^T; log det = 2 sum log L_ii.
		MatMul(p.tmp, at, dA, nil, d, d, d, false, false)
		MatMul(p.dL, p.tmp, at, nil, d, d, d, false, false)
		dL := p.dL
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				switch {
				case j < i:
					dcov[i*d+j] = -dL[i*d+j]
				case j == i:
					g := -dL[i*d+i] + dLogDet*2/wh.L[i*d+i]
					dcov[i*d+i] = g * Sigmoid(cov[i*d+i])
				default:
					dcov[i*d+j] = 0
				}
			}
		}
	}
}

// transposeTo sets t[d,d] to the transpose of a[d,d] and returns it.
func transposeTo[T Float](t, a []T, d int) []T {
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			t[j*d+i] = a[i*d+j]
		}
	}
	return t
}

// Loss returns the sum over the n rows of scores[n,c] of the loss for labels
// y and the number of rows whose first argmax is the label; when dscores is
// not nil it receives the gradient of the mean loss.
func Loss[T Float](dscores, scores []T, y []int32, n, c int, kind kernels.LossKind, lambda T) (sum T, correct int) {
	need("Loss", scores, n*c)
	if kind == kernels.DNLL {
		return dnllLoss(dscores, scores, y, n, c, lambda)
	}
	for i := 0; i < n; i++ {
		row := scores[i*c : (i+1)*c]
		label := int(y[i])
		var drow []T
		if dscores != nil {
			drow = dscores[i*c : (i+1)*c]
		}
		best := argmax(row)
		var l T
		switch kind {
		case kernels.NLL:
			l = -row[label]
			if drow != nil {
				clear(drow)
				drow[label] = -1 / T(n)
			}
		case kernels.CE:
			ls := LogSoftmax(row)
			l = -ls[label]
			if drow != nil {
				for k, v := range ls {
					drow[k] = exp(v)
				}
				drow[label]--
				for k := range drow {
					drow[k] /= T(n)
				}
			}
		}
		if best == label {
			correct++
		}
		sum += l
	}
	return sum, correct
}

// dnllLoss is Loss for the DNLL loss, -score_label + lambda sum_k
// e^score_k. It takes the exps in one loop (into dscores when there) and
// then, row by row, the argmax, the sum of the exps and the gradient
// (lambda e^score_k - [k = label]) / n in their place, with no branch in
// the loop over the classes (branches cost in WebAssembly).
func dnllLoss[T Float](dscores, scores []T, y []int32, n, c int, lambda T) (sum T, correct int) {
	exps := dscores
	if exps == nil {
		exps = make([]T, n*c)
	}
	ExpTo(exps[:n*c], scores[:n*c])
	nf := T(n)
	for i := 0; i < n; i++ {
		row := scores[i*c : (i+1)*c]
		erow := exps[i*c : (i+1)*c]
		label := int(y[i])
		el := erow[label]
		var s T
		if dscores != nil {
			for k, e := range erow {
				s += e
				erow[k] = lambda * e / nf
			}
			erow[label] = (lambda*el - 1) / nf
		} else {
			for _, e := range erow {
				s += e
			}
		}
		if argmax(row) == label {
			correct++
		}
		sum += -row[label] + lambda*s
	}
	return sum, correct
}

// argmax returns the index of the first maximum of row.
func argmax[T Float](row []T) int {
	best := 0
	for k, v := range row {
		if v > row[best] {
			best = k
		}
	}
	return best
}

// Adam applies one Adam step (PyTorch's formulation) to param in place.
func Adam[T Float](param, grad, m, v []T, p kernels.AdamParams) {
	b1, b2 := p.Beta1, p.Beta2
	bc1 := 1 - math.Pow(b1, float64(p.Step))
	bc2 := 1 - math.Pow(b2, float64(p.Step))
	stepSize := T(p.LR / bc1)
	sqrtBC2 := T(math.Sqrt(bc2))
	for i := range param {
		g := grad[i]
		m[i] = T(b1)*m[i] + T(1-b1)*g
		v[i] = T(b2)*v[i] + T(1-b2)*g*g
		param[i] -= stepSize * m[i] / (sqrt(v[i])/sqrtBC2 + T(p.Eps))
	}
}

// Column loops. The head's loops run over the n rows of a column at a time,
// unrolled 4 times, rather than over the c classes or d dimensions of a
// row: c and d are small (3 and 2 for the toy) and n is the batch. Short
// loops cost their iterations more than their arithmetic in WebAssembly,
// where Go compiles each taken branch to a jump through a dispatch table.
// Each output is still accumulated in the order of the plain loops, so the
// results do not change. Column x of stride xs has elements x[i*xs].

// axpyCol adds a*x to y for columns of n elements.
func axpyCol[T Float](y []T, ys int, a T, x []T, xs, n int) {
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
func sqDiffCol[T Float](q []T, qs int, x []T, xs int, m T, n int) {
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
func offHalfCol[T Float](q []T, qs int, off T, n int) {
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
func sumCol[T Float](x []T, xs, n int) T {
	var s T
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
func dotCol[T Float](s T, x []T, xs int, y []T, ys, n int) T {
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
func gradCol[T Float](dw, w []T, ws int, m T, g []T, gs, n int) T {
	var s T
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
