// Package ref holds the plain-loop reference implementation of every
// operation in package kernels, generic over float32 and float64.
//
// It is written to be read and trusted, not to be fast: it is the oracle that
// every backend is tested against, and its float64 instantiation is the one
// checked against finite differences. Functions take row-major slices and
// their dimensions; they panic (with a "ref:" prefix) on slices that are too
// short.
package ref

import (
	"fmt"
	"math"
)

// Float is the element type of the reference operations.
type Float interface{ ~float32 | ~float64 }

func need[T any](op string, s []T, n int) {
	if len(s) < n {
		panic(fmt.Sprintf("ref: %s: slice of length %d, need %d", op, len(s), n))
	}
}

func exp[T Float](x T) T  { return T(exp64(float64(x))) }
func log[T Float](x T) T  { return T(math.Log(float64(x))) }
func sqrt[T Float](x T) T { return T(math.Sqrt(float64(x))) }

// MatMul computes c[m,n] = op(a) op(b) (+ bias[n] per row when bias is not
// nil), where op(a) is m×k (a is k×m when transA) and op(b) is k×n (b is n×k
// when transB).
func MatMul[T Float](c, a, b, bias []T, m, n, k int, transA, transB bool) {
	need("MatMul", c, m*n)
	need("MatMul", a, m*k)
	need("MatMul", b, k*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for p := 0; p < k; p++ {
				av := a[i*k+p]
				if transA {
					av = a[p*m+i]
				}
				bv := b[p*n+j]
				if transB {
					bv = b[j*k+p]
				}
				s += av * bv
			}
			if bias != nil {
				s += bias[j]
			}
			c[i*n+j] = s
		}
	}
}

// BiasGrad computes db[c] = sum over o and i of dy[o, c, i] for dy of shape
// [outer, ch, inner].
func BiasGrad[T Float](db, dy []T, outer, ch, inner int) {
	need("BiasGrad", dy, outer*ch*inner)
	for c := 0; c < ch; c++ {
		var s T
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				s += dy[(o*ch+c)*inner+i]
			}
		}
		db[c] = s
	}
}

// Conv is the geometry of a 2-D convolution of x[N,Ci,H,W] with
// w[Co,Ci,K,K] into y[N,Co,Ho,Wo].
type Conv struct {
	N, Ci, H, W, Co, K, Stride, Pad, Ho, Wo int
}

// Conv2D computes the convolution y = x * w + bias (bias may be nil).
func Conv2D[T Float](y, x, w, bias []T, g Conv) {
	need("Conv2D", y, g.N*g.Co*g.Ho*g.Wo)
	for n := 0; n < g.N; n++ {
		for co := 0; co < g.Co; co++ {
			for oh := 0; oh < g.Ho; oh++ {
				for ow := 0; ow < g.Wo; ow++ {
					var s T
					if bias != nil {
						s = bias[co]
					}
					for ci := 0; ci < g.Ci; ci++ {
						for kh := 0; kh < g.K; kh++ {
							ih := oh*g.Stride - g.Pad + kh
							if ih < 0 || ih >= g.H {
								continue
							}
							for kw := 0; kw < g.K; kw++ {
								iw := ow*g.Stride - g.Pad + kw
								if iw < 0 || iw >= g.W {
									continue
								}
								s += x[((n*g.Ci+ci)*g.H+ih)*g.W+iw] * w[((co*g.Ci+ci)*g.K+kh)*g.K+kw]
							}
						}
					}
					y[((n*g.Co+co)*g.Ho+oh)*g.Wo+ow] = s
				}
			}
		}
	}
}

// Conv2DBackwardData computes dx from dy and w.
func Conv2DBackwardData[T Float](dx, dy, w []T, g Conv) {
	need("Conv2DBackwardData", dx, g.N*g.Ci*g.H*g.W)
	clear(dx[:g.N*g.Ci*g.H*g.W])
	for n := 0; n < g.N; n++ {
		for co := 0; co < g.Co; co++ {
			for oh := 0; oh < g.Ho; oh++ {
				for ow := 0; ow < g.Wo; ow++ {
					d := dy[((n*g.Co+co)*g.Ho+oh)*g.Wo+ow]
					for ci := 0; ci < g.Ci; ci++ {
						for kh := 0; kh < g.K; kh++ {
							ih := oh*g.Stride - g.Pad + kh
							if ih < 0 || ih >= g.H {
								continue
							}
							for kw := 0; kw < g.K; kw++ {
								iw := ow*g.Stride - g.Pad + kw
								if iw < 0 || iw >= g.W {
									continue
								}
								dx[((n*g.Ci+ci)*g.H+ih)*g.W+iw] += d * w[((co*g.Ci+ci)*g.K+kh)*g.K+kw]
							}
						}
					}
				}
			}
		}
	}
}

// Conv2DBackwardFilter computes dw from dy and x.
func Conv2DBackwardFilter[T Float](dw, dy, x []T, g Conv) {
	need("Conv2DBackwardFilter", dw, g.Co*g.Ci*g.K*g.K)
	for co := 0; co < g.Co; co++ {
		for ci := 0; ci < g.Ci; ci++ {
			for kh := 0; kh < g.K; kh++ {
				for kw := 0; kw < g.K; kw++ {
					var s T
					for n := 0; n < g.N; n++ {
						for oh := 0; oh < g.Ho; oh++ {
							ih := oh*g.Stride - g.Pad + kh
							if ih < 0 || ih >= g.H {
								continue
							}
							for ow := 0; ow < g.Wo; ow++ {
								iw := ow*g.Stride - g.Pad + kw
								if iw < 0 || iw >= g.W {
									continue
								}
								s += dy[((n*g.Co+co)*g.Ho+oh)*g.Wo+ow] * x[((n*g.Ci+ci)*g.H+ih)*g.W+iw]
							}
						}
					}
					dw[((co*g.Ci+ci)*g.K+kh)*g.K+kw] = s
				}
			}
		}
	}
}

// BatchNormTrain normalises x[n,c,hw] with batch statistics; see
// kernels.Backend.BatchNormTrain.
func BatchNormTrain[T Float](y, mean, invStd, x, gamma, beta, runMean, runVar []T, n, c, hw int, momentum, eps T) {
	need("BatchNormTrain", x, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
	}
}

// BatchNormTrainChannel is BatchNormTrain for channel ch alone.
func BatchNormTrainChannel[T Float](y, mean, invStd, x, gamma, beta, runMean, runVar []T, n, c, hw, ch int, momentum, eps T) {
	// The sums run in float64 whatever T is, as PyTorch's CPU kernels do:
	// a float32 sum over N*H*W (50,176 values for the first layer at batch
	// 64) drifts by more than the rest of the step's rounding.
	m := T(n * hw)
	var s float64
	for i := 0; i < n; i++ {
		for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
			s += float64(v)
		}
	}
	mu := T(s / float64(n*hw))
	var ss float64
	for i := 0; i < n; i++ {
		for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
			d := float64(v - mu)
			ss += d * d
		}
	}
	variance := T(ss / float64(n*hw))
	is := 1 / sqrt(variance+eps)
	mean[ch], invStd[ch] = mu, is
	// y = x alpha + shift with alpha = gamma/std, as PyTorch evaluates it,
	// so that outputs near zero round the same way before a ReLU.
	alpha := is * gamma[ch]
	shift := beta[ch] - mu*alpha
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			y[off+j] = x[off+j]*alpha + shift
		}
	}
	unbiased := variance
	if m > 1 {
		unbiased = T(ss / float64(n*hw-1))
	}
	runMean[ch] = (1-momentum)*runMean[ch] + momentum*mu
	runVar[ch] = (1-momentum)*runVar[ch] + momentum*unbiased
}

// BatchNormEval normalises x[n,c,hw] with the running estimates.
func BatchNormEval[T Float](y, x, gamma, beta, runMean, runVar []T, n, c, hw int, eps T) {
	need("BatchNormEval", x, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormEvalChannel(y, x, gamma, beta, runMean, runVar, n, c, hw, ch, eps)
	}
}

// BatchNormEvalChannel is BatchNormEval for channel ch alone.
func BatchNormEvalChannel[T Float](y, x, gamma, beta, runMean, runVar []T, n, c, hw, ch int, eps T) {
	alpha := gamma[ch] / sqrt(runVar[ch]+eps)
	shift := beta[ch] - runMean[ch]*alpha
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			y[off+j] = x[off+j]*alpha + shift
		}
	}
}

// BatchNormBackward computes the gradients of BatchNormTrain.
func BatchNormBackward[T Float](dx, dgamma, dbeta, dy, x, gamma, mean, invStd []T, n, c, hw int) {
	need("BatchNormBackward", dy, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
	}
}

// BatchNormBackwardChannel is BatchNormBackward for channel ch alone.
func BatchNormBackwardChannel[T Float](dx, dgamma, dbeta, dy, x, gamma, mean, invStd []T, n, c, hw, ch int) {
	m := T(n * hw)
	var db64, dg64 float64 // float64 sums, as in BatchNormTrainChannel
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			db64 += float64(dy[off+j])
			dg64 += float64(dy[off+j] * (x[off+j] - mean[ch]) * invStd[ch])
		}
	}
	db, dg := T(db64), T(dg64)
	dgamma[ch], dbeta[ch] = dg, db
	k := gamma[ch] * invStd[ch] / m
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			xhat := (x[off+j] - mean[ch]) * invStd[ch]
			dx[off+j] = k * (m*dy[off+j] - db - xhat*dg)
		}
	}
}

// ReLU computes y = max(x, 0) (NaN stays NaN). It is written as a
// comparison, which compiles to straight-line code on every target (the
// builtin max is a runtime call in WebAssembly).
func ReLU[T Float](y, x []T) {
	for i, v := range x {
		if v < 0 {
			v = 0
		}
		y[i] = v
	}
}

// ReLUBackward computes dx = dy where y > 0, else 0.
func ReLUBackward[T Float](dx, dy, y []T) {
	for i, v := range y {
		if v > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}

// MaxPool2 computes the 2x2 stride-2 max pool of x[nc,h,w] (floor mode).
func MaxPool2[T Float](y, x []T, nc, h, w int) {
	ho, wo := h/2, w/2
	for p := 0; p < nc; p++ {
		for i := 0; i < ho; i++ {
			for j := 0; j < wo; j++ {
				_, v := argmax2(x, p, h, w, i, j)
				y[(p*ho+i)*wo+j] = v
			}
		}
	}
}

// argmax2 returns the index and value of the first maximum of a 2x2 window.
func argmax2[T Float](x []T, p, h, w, i, j int) (int, T) {
	base := (p*h+2*i)*w + 2*j
	best := base
	for _, d := range [3]int{1, w, w + 1} {
		if x[base+d] > x[best] {
			best = base + d
		}
	}
	return best, x[best]
}

// MaxPool2Backward routes dy to the first maximum of each window of x.
func MaxPool2Backward[T Float](dx, dy, x []T, nc, h, w int) {
	ho, wo := h/2, w/2
	clear(dx[:nc*h*w])
	for p := 0; p < nc; p++ {
		for i := 0; i < ho; i++ {
			for j := 0; j < wo; j++ {
				k, _ := argmax2(x, p, h, w, i, j)
				dx[k] += dy[(p*ho+i)*wo+j]
			}
		}
	}
}

// GlobalAvgPool computes y[p] as the mean of x[p, 0:hw].
func GlobalAvgPool[T Float](y, x []T, nc, hw int) {
	for p := 0; p < nc; p++ {
		var s T
		for _, v := range x[p*hw : (p+1)*hw] {
			s += v
		}
		y[p] = s / T(hw)
	}
}

// GlobalAvgPoolBackward spreads dy[p] evenly over dx[p, 0:hw].
func GlobalAvgPoolBackward[T Float](dx, dy []T, nc, hw int) {
	for p := 0; p < nc; p++ {
		g := dy[p] / T(hw)
		for i := p * hw; i < (p+1)*hw; i++ {
			dx[i] = g
		}
	}
}
