package webgpu

import (
	"github.com/deeplda/deeplda/kernels"
)

// The kernels of conv.wgsl: implicit GEMMs that gather the patches of the
// convolution into their workgroup tiles (no im2col matrix is materialised).
var convKernels = struct {
	forward, backwardData, backwardFilter kernel
}{
	forward:        kernel{"conv.wgsl", "conv_forward", []slot{out(1), in(3), in(4), in(5)}},
	backwardData:   kernel{"conv.wgsl", "conv_backward_data", []slot{out(1), in(2), in(4)}},
	backwardFilter: kernel{"conv.wgsl", "conv_backward_filter", []slot{out(1), in(2), in(3)}},
}

// convGeometry is the geometry of a convolution of x[n,ci,h,w] with
// w[co,ci,k,k] into y[n,co,ho,wo].
type convGeometry struct {
	n, ci, h, w, co, k, ho, wo int
	p                          kernels.ConvParams
}

// convCheck checks the operands of a convolution (kernels.CheckConv) and
// returns its geometry.
func convCheck(op string, y, x, w, bias kernels.Tensor, p kernels.ConvParams) convGeometry {
	g := kernels.CheckConv(op, y, x, w, bias, p)
	return convGeometry{n: g.N, ci: g.Ci, h: g.H, w: g.W, co: g.Co, k: g.K, ho: g.Ho, wo: g.Wo, p: p}
}

// convDispatch records one implicit GEMM of conv.wgsl with gm x gn outputs
// and a reduction of length gk whose index has the mixed radix (r1, r2) in
// its two lowest digits.
func (b *Backend) convDispatch(op string, k kernel, g convGeometry, hasBias bool, gm, gn, gk, r1, r2 int, ts ...kernels.Tensor) {
	if gm == 0 || gn == 0 {
		return
	}
	// The slice depth in the reduction index's mixed radix.
	stepHi, stepMid, stepLo := 0, 0, 0
	if r1 > 0 && r2 > 0 {
		stepHi, stepMid, stepLo = gemmDepth/(r1*r2), gemmDepth/r2%r1, gemmDepth%r2
	}
	tilesN := (gn + gemmTileN - 1) / gemmTileN
	grp, row := gemmGrid((gm + gemmTileM - 1) / gemmTileM * tilesN)
	p := params{}.u(g.n, g.ci, g.h, g.w, g.co, g.k, g.p.Stride, g.p.Pad, g.ho, g.wo, gemmFlag(hasBias), tilesN, row,
		gm, gn, gk, stepHi, stepMid, stepLo)
	b.dispatch(op, k, grp, p, ts...)
}

// Conv2D computes y = conv(x, w) (+ bias[Co]) as the GEMM
// y[Co, N*Ho*Wo] = w[Co, Ci*K*K] patches(x)[Ci*K*K, N*Ho*Wo].
func (b *Backend) Conv2D(y, x, w, bias kernels.Tensor, p kernels.ConvParams) {
	g := convCheck("Conv2D", y, x, w, bias, p)
	gemmDisjoint("Conv2D", y, x, w, bias)
	hasBias := bias != nil
	if !hasBias {
		bias = x // bound read-only and never read
	}
	b.convDispatch("Conv2D", convKernels.forward, g, hasBias, g.co, g.n*g.ho*g.wo, g.ci*g.k*g.k, g.k, g.k, y, x, w, bias)
}

// Conv2DBackwardData computes dx as the GEMM
// dx[Ci, N*H*W] = w^T[Ci, Co*K*K] gathered(dy)[Co*K*K, N*H*W], where the
// gather reads, for input pixel (ih, iw) and tap (kh, kw), the output pixel
// that the tap connects it to (if any: (ih+pad-kh) must be a multiple of the
// stride).
func (b *Backend) Conv2DBackwardData(dx, dy, w kernels.Tensor, p kernels.ConvParams) {
	g := convCheck("Conv2DBackwardData", dy, dx, w, nil, p)
	gemmDisjoint("Conv2DBackwardData", dx, dy, w)
	b.convDispatch("Conv2DBackwardData", convKernels.backwardData, g, false, g.ci, g.n*g.h*g.w, g.co*g.k*g.k, g.k, g.k, dx, dy, w)
}

// Conv2DBackwardFilter computes dw as the GEMM
// dw[Co, Ci*K*K] = dy[Co, N*Ho*Wo] patches(x)^T[N*Ho*Wo, Ci*K*K], reducing
// over the batch and the output pixels.
func (b *Backend) Conv2DBackwardFilter(dw, dy, x kernels.Tensor, p kernels.ConvParams) {
	g := convCheck("Conv2DBackwardFilter", dy, x, dw, nil, p)
	gemmDisjoint("Conv2DBackwardFilter", dw, dy, x)
	b.convDispatch("Conv2DBackwardFilter", convKernels.backwardFilter, g, false, g.co, g.ci*g.k*g.k, g.n*g.ho*g.wo, g.ho, g.wo, dw, dy, x)
}
