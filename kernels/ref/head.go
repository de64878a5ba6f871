package ref

import (
	"math"

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
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			l[i*d+j] = raw[i*d+j]
		}
		l[i*d+i] = Softplus(raw[i*d+i]) + kernels.MinScale
	}
	return l
}

// InvertLower returns the inverse of the lower-triangular l[d,d].
func InvertLower[T Float](l []T, d int) []T {
	inv := make([]T, d*d)
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
	return inv
}

// NewWhitening builds the whitening of a head's covariance parameter cov
// (log_var [] or [d], or raw_tril [d,d]).
func NewWhitening[T Float](cov []T, d int, kind kernels.CovKind) Whitening[T] {
	w := Whitening[T]{D: d, A: make([]T, d*d)}
	switch kind {
	case kernels.Spherical:
		a := exp(-cov[0] / 2)
		for i := 0; i < d; i++ {
			w.A[i*d+i] = a
		}
		w.LogDet = T(d) * cov[0]
	case kernels.Diagonal:
		for i := 0; i < d; i++ {
			w.A[i*d+i] = exp(-cov[i] / 2)
			w.LogDet += cov[i]
		}
	case kernels.Full:
		w.L = CholeskyFromRaw(cov, d)
		w.A = InvertLower(w.L, d)
		for i := 0; i < d; i++ {
			w.LogDet += 2 * log(w.L[i*d+i])
		}
	}
	return w
}

// apply returns out[r,:] = A x[r,:] for rows x[rows,d].
func (w Whitening[T]) apply(x []T, rows int) []T {
	d := w.D
	out := make([]T, rows*d)
	for r := 0; r < rows; r++ {
		for i := 0; i < d; i++ {
			var s T
			for j := 0; j < d; j++ {
				s += w.A[i*d+j] * x[r*d+j]
			}
			out[r*d+i] = s
		}
	}
	return out
}

// LogSoftmax returns the log-softmax of v.
func LogSoftmax[T Float](v []T) []T {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(float64(x - m))
	}
	lse := m + T(math.Log(s))
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = x - lse
	}
	return out
}

// LDA computes the discriminants delta[n,c] of z[n,d]:
// delta_c = log pi_c - 1/2 log det Sigma - 1/2 |A z - A mu_c|^2.
func LDA[T Float](delta, z, prior, mu, cov []T, n, c, d int, kind kernels.CovKind) {
	need("LDA", delta, n*c)
	wh := NewWhitening(cov, d, kind)
	w, m := wh.apply(z, n), wh.apply(mu, c)
	logpi := LogSoftmax(prior[:c])
	for i := 0; i < n; i++ {
		for k := 0; k < c; k++ {
			var q T
			for j := 0; j < d; j++ {
				e := w[i*d+j] - m[k*d+j]
				q += e * e
			}
			delta[i*c+k] = logpi[k] - wh.LogDet/2 - q/2
		}
	}
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
	wh := NewWhitening(cov, d, kind)
	w, m := wh.apply(z, n), wh.apply(mu, c)
	dw := make([]T, n*d)
	dm := make([]T, c*d)
	colSum := make([]T, c)
	var total T
	for i := 0; i < n; i++ {
		for k := 0; k < c; k++ {
			g := ddelta[i*c+k]
			colSum[k] += g
			total += g
			for j := 0; j < d; j++ {
				e := w[i*d+j] - m[k*d+j]
				dw[i*d+j] -= g * e
				dm[k*d+j] += g * e
			}
		}
	}
	// d log_softmax: dprior_j = colSum_j - pi_j * total.
	logpi := LogSoftmax(prior[:c])
	for k := 0; k < c; k++ {
		dprior[k] = colSum[k] - exp(logpi[k])*total
	}
	// dz = dw A, dmu = dm A (rows times A, i.e. A^T applied to each row).
	at := Whitening[T]{D: d, A: transpose(wh.A, d)}
	copy(dz, at.apply(dw, n))
	copy(dmu, at.apply(dm, c))
	dA := make([]T, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var s T
			for r := 0; r < n; r++ {
				s += dw[r*d+i] * z[r*d+j]
			}
			for r := 0; r < c; r++ {
				s += dm[r*d+i] * mu[r*d+j]
			}
			dA[i*d+j] = s
		}
	}
	dLogDet := -total / 2
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
		dL := matmul(matmul(transpose(wh.A, d), dA, d), transpose(wh.A, d), d)
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

func transpose[T Float](a []T, d int) []T {
	t := make([]T, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			t[j*d+i] = a[i*d+j]
		}
	}
	return t
}

func matmul[T Float](a, b []T, d int) []T {
	c := make([]T, d*d)
	MatMul(c, a, b, nil, d, d, d, false, false)
	return c
}

// Loss returns the sum over the n rows of scores[n,c] of the loss for labels
// y and the number of rows whose first argmax is the label; when dscores is
// not nil it receives the gradient of the mean loss.
func Loss[T Float](dscores, scores []T, y []int32, n, c int, kind kernels.LossKind, lambda T) (sum T, correct int) {
	need("Loss", scores, n*c)
	for i := 0; i < n; i++ {
		row := scores[i*c : (i+1)*c]
		label := int(y[i])
		best := 0
		for k := range row {
			if row[k] > row[best] {
				best = k
			}
		}
		if best == label {
			correct++
		}
		var l T
		switch kind {
		case kernels.NLL:
			l = -row[label]
		case kernels.CE:
			l = -LogSoftmax(row)[label]
		case kernels.DNLL:
			var s T
			for _, v := range row {
				s += exp(v)
			}
			l = -row[label] + lambda*s
		}
		sum += l
		if dscores == nil {
			continue
		}
		drow := dscores[i*c : (i+1)*c]
		switch kind {
		case kernels.NLL:
			clear(drow)
		case kernels.CE:
			for k, v := range LogSoftmax(row) {
				drow[k] = exp(v)
			}
		case kernels.DNLL:
			for k, v := range row {
				drow[k] = lambda * exp(v)
			}
		}
		drow[label]--
		for k := range drow {
			drow[k] /= T(n)
		}
	}
	return sum, correct
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
