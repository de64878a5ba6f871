package ref

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
