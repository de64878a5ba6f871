package ref

// Conv is the geometry of a 2-D convolution of x[N,Ci,H,W] with
// w[Co,Ci,K,K] into y[N,Co,Ho,Wo].
type Conv struct {
	N, Ci, H, W, Co, K, Stride, Pad, Ho, Wo int
}

// taps calls f with the indices into y, x and w of every product of the
// convolution, filter taps in the padding left out: for each image n,
// output channel co and output position (oh, ow), over input channel ci
// and tap (kh, kw). Each element of y, x or w sees its products in that
// order, which fixes the order of the sums below.
func (g Conv) taps(f func(yi, xi, wi int)) {
	for n := 0; n < g.N; n++ {
		for co := 0; co < g.Co; co++ {
			for oh := 0; oh < g.Ho; oh++ {
				for ow := 0; ow < g.Wo; ow++ {
					yi := ((n*g.Co+co)*g.Ho+oh)*g.Wo + ow
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
								f(yi, ((n*g.Ci+ci)*g.H+ih)*g.W+iw, ((co*g.Ci+ci)*g.K+kh)*g.K+kw)
							}
						}
					}
				}
			}
		}
	}
}

// Conv2D computes the convolution y = x * w + bias (bias may be nil).
func Conv2D[T Float](y, x, w, bias []T, g Conv) {
	need("Conv2D", y, g.N*g.Co*g.Ho*g.Wo)
	plane := g.Ho * g.Wo
	for i := range y[:g.N*g.Co*plane] {
		y[i] = 0
		if bias != nil {
			y[i] = bias[i/plane%g.Co]
		}
	}
	g.taps(func(yi, xi, wi int) { y[yi] += x[xi] * w[wi] })
}

// Conv2DBackwardData computes dx from dy and w.
func Conv2DBackwardData[T Float](dx, dy, w []T, g Conv) {
	need("Conv2DBackwardData", dx, g.N*g.Ci*g.H*g.W)
	clear(dx[:g.N*g.Ci*g.H*g.W])
	g.taps(func(yi, xi, wi int) { dx[xi] += dy[yi] * w[wi] })
}

// Conv2DBackwardFilter computes dw from dy and x.
func Conv2DBackwardFilter[T Float](dw, dy, x []T, g Conv) {
	need("Conv2DBackwardFilter", dw, g.Co*g.Ci*g.K*g.K)
	clear(dw[:g.Co*g.Ci*g.K*g.K])
	g.taps(func(yi, xi, wi int) { dw[wi] += dy[yi] * x[xi] })
}
