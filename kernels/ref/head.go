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
	w := Whitening[T]{D: d}
	switch kind {
	case kernels.Spherical:
		w.A = make([]T, d*d)
		for i := 0; i < d; i++ {
			w.A[i*d+i] = exp(-cov[0] / 2)
		}
		w.LogDet = T(d) * cov[0]
	case kernels.Diagonal:
		w.A = make([]T, d*d)
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

// apply returns A x for x[d], or A^T x when trans.
func (w Whitening[T]) apply(x []T, trans bool) []T {
	out := make([]T, w.D)
	MatMul(out, w.A, x, nil, w.D, 1, w.D, trans, false)
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

// head is an LDA head's parameters in whitened coordinates: the whitening
// A, the whitened means m_c = A mu_c and the log-priors log pi_c.
type head[T Float] struct {
	w     Whitening[T]
	m     [][]T
	logPi []T
}

func newHead[T Float](prior, mu, cov []T, c, d int, kind kernels.CovKind) head[T] {
	h := head[T]{w: NewWhitening(cov, d, kind), logPi: LogSoftmax(prior[:c])}
	for k := 0; k < c; k++ {
		h.m = append(h.m, h.w.apply(mu[k*d:(k+1)*d], false))
	}
	return h
}

// LDA computes the discriminants delta[n,c] of z[n,d]:
// delta_c = log pi_c - 1/2 log det Sigma - 1/2 |A z - A mu_c|^2.
func LDA[T Float](delta, z, prior, mu, cov []T, n, c, d int, kind kernels.CovKind) {
	need("LDA", delta, n*c)
	need("LDA", z, n*d)
	h := newHead(prior, mu, cov, c, d, kind)
	for i := 0; i < n; i++ {
		w := h.w.apply(z[i*d:(i+1)*d], false)
		for k := 0; k < c; k++ {
			var q T
			for j := 0; j < d; j++ {
				e := w[j] - h.m[k][j]
				q += e * e
			}
			delta[i*c+k] = h.logPi[k] - h.w.LogDet/2 - q/2
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
	need("LDABackward", z, n*d)
	h := newHead(prior, mu, cov, c, d, kind)
	var total T // sum of all g_nc
	colSum := make([]T, c)
	dm := make([]T, c*d)
	dA := make([]T, d*d)
	for i := 0; i < n; i++ {
		zi := z[i*d : (i+1)*d]
		w := h.w.apply(zi, false)
		dw := make([]T, d)
		for k := 0; k < c; k++ {
			g := ddelta[i*c+k]
			total += g
			colSum[k] += g
			for j := 0; j < d; j++ {
				ge := g * (w[j] - h.m[k][j])
				dw[j] -= ge
				dm[k*d+j] += ge
			}
		}
		copy(dz[i*d:(i+1)*d], h.w.apply(dw, true))
		for r := 0; r < d; r++ {
			for j := 0; j < d; j++ {
				dA[r*d+j] += dw[r] * zi[j]
			}
		}
	}
	// d log_softmax: dprior_c = colSum_c - pi_c * total.
	for k := 0; k < c; k++ {
		dprior[k] = colSum[k] - exp(h.logPi[k])*total
	}
	for k := 0; k < c; k++ {
		copy(dmu[k*d:(k+1)*d], h.w.apply(dm[k*d:(k+1)*d], true))
	}
	for r := 0; r < d; r++ {
		for j := 0; j < d; j++ {
			for k := 0; k < c; k++ {
				dA[r*d+j] += dm[k*d+r] * mu[k*d+j]
			}
		}
	}
	CovGrad(dcov, dA, total, cov, h.w, kind)
}

// CovGrad sets dcov, the gradient of the covariance parameter cov, from dA,
// the gradient of the whitening A, and total, the sum of the score
// gradients (the -1/2 log det Sigma term of every score).
func CovGrad[T Float](dcov, dA []T, total T, cov []T, w Whitening[T], kind kernels.CovKind) {
	d := w.D
	dLogDet := -total / 2
	switch kind {
	case kernels.Spherical:
		// A = exp(-s/2) I, log det = d s.
		var tr T
		for i := 0; i < d; i++ {
			tr += dA[i*d+i] * w.A[i*d+i]
		}
		dcov[0] = -tr/2 + T(d)*dLogDet
	case kernels.Diagonal:
		for i := 0; i < d; i++ {
			dcov[i] = -dA[i*d+i]*w.A[i*d+i]/2 + dLogDet
		}
	case kernels.Full:
		// A = L^-1: dL = -A^T dA A^T; log det = 2 sum log L_ii.
		tmp, dL := make([]T, d*d), make([]T, d*d)
		MatMul(tmp, w.A, dA, nil, d, d, d, true, false)
		MatMul(dL, tmp, w.A, nil, d, d, d, false, true)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				switch {
				case j < i:
					dcov[i*d+j] = -dL[i*d+j]
				case j == i:
					g := -dL[i*d+i] + dLogDet*2/w.L[i*d+i]
					dcov[i*d+i] = g * Sigmoid(cov[i*d+i])
				default:
					dcov[i*d+j] = 0
				}
			}
		}
	}
}
