package webgpu

import (
	"github.com/deeplda/deeplda/kernels"
)

// The kernels of conv.wgsl: implicit GEMMs that gather the patches of the
// convolution into their workgroup tiles (no im2col matrix is materialised).
var convKernels = struct {
	forward, backwardData, backwardFilter, splitSum kernel
}{
	forward:        kernel{File: "conv.wgsl", Entry: "conv_forward", Slots: []slot{out(1), in(3), in(4), in(5)}},
	backwardData:   kernel{File: "conv.wgsl", Entry: "conv_backward_data", Slots: []slot{out(1), in(2), in(4)}},
	backwardFilter: kernel{File: "conv.wgsl", Entry: "conv_backward_filter", Slots: []slot{out(1), in(2), in(3)}},
	splitSum:       kernel{File: "conv.wgsl", Entry: "conv_split_sum", Slots: []slot{out(1), in(6)}},
}

// Split reductions of the filter gradient (conv.wgsl's header): chunks of
// at least splitMinChunk terms, and no more chunks than bring the
// workgroups of a dispatch to splitGroups (a few per core of a large GPU).
const (
	splitMinChunk = 1024
	splitGroups   = 512
)

// convSplits returns the number of chunks and their length (a multiple
// of gemmMaxDepth) for a reduction of gk terms into tiles tiles.
func convSplits(tiles, gk int) (splits, chunk int) {
	splits = min((gk+splitMinChunk-1)/splitMinChunk, max(1, splitGroups/tiles))
	if splits <= 1 {
		return 1, gk
	}
	chunk = ((gk+splits-1)/splits + gemmMaxDepth - 1) / gemmMaxDepth * gemmMaxDepth
	return (gk + chunk - 1) / chunk, chunk
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

// convDispatch records one implicit GEMM of conv.wgsl on tile t with gm x
// gn outputs and a reduction of length gk whose index has the mixed radix
// (r1, r2) in its two lowest digits, cut into splits chunks of chunk terms
// (1 and gk: not cut).
func (b *Backend) convDispatch(op string, k kernel, t gemmTile, g convGeometry, hasBias bool, gm, gn, gk, r1, r2, splits, chunk int, ts ...kernels.Tensor) {
	if gm == 0 || gn == 0 {
		return
	}
	// The slice depth in the reduction index's mixed radix.
	stepHi, stepMid, stepLo := 0, 0, 0
	if r1 > 0 && r2 > 0 {
		stepHi, stepMid, stepLo = t.K/(r1*r2), t.K/r2%r1, t.K%r2
	}
	tilesN := (gn + gemmTileN - 1) / gemmTileN
	grp, row := gemmGrid(t.tiles(gm, gn) * splits)
	b.dispatch(op, k.on(t), grp, convParams(g, hasBias, tilesN, row, gm, gn, gk, stepHi, stepMid, stepLo, splits, chunk), ts...)
}

// convParams is conv.wgsl's parameter block.
func convParams(g convGeometry, hasBias bool, tilesN, row, gm, gn, gk, stepHi, stepMid, stepLo, splits, chunk int) params {
	return params{}.u(g.n, g.ci, g.h, g.w, g.co, g.k, g.p.Stride, g.p.Pad, g.ho, g.wo, gemmFlag(hasBias), tilesN, row,
		gm, gn, gk, stepHi, stepMid, stepLo, splits, chunk)
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
	gk := g.ci * g.k * g.k
	b.convDispatch("Conv2D", convKernels.forward, b.tileFor(g.co), g, hasBias, g.co, g.n*g.ho*g.wo, gk, g.k, g.k, 1, gk, y, x, w, bias)
}

// Conv2DBackwardData computes dx as the GEMM
// dx[Ci, N*H*W] = w^T[Ci, Co*K*K] gathered(dy)[Co*K*K, N*H*W], where the
// gather reads, for input pixel (ih, iw) and tap (kh, kw), the output pixel
// that the tap connects it to (if any: (ih+pad-kh) must be a multiple of the
// stride).
func (b *Backend) Conv2DBackwardData(dx, dy, w kernels.Tensor, p kernels.ConvParams) {
	g := convCheck("Conv2DBackwardData", dy, dx, w, nil, p)
	gemmDisjoint("Conv2DBackwardData", dx, dy, w)
	gk := g.co * g.k * g.k
	b.convDispatch("Conv2DBackwardData", convKernels.backwardData, b.tileFor(g.ci), g, false, g.ci, g.n*g.h*g.w, gk, g.k, g.k, 1, gk, dx, dy, w)
}

// Conv2DBackwardFilter computes dw as the GEMM
// dw[Co, Ci*K*K] = dy[Co, N*Ho*Wo] patches(x)^T[N*Ho*Wo, Ci*K*K], reducing
// over the batch and the output pixels; a long reduction into few tiles is
// split into chunks whose partial sums land in the backend's split scratch
// and are then added in order (conv.wgsl).
func (b *Backend) Conv2DBackwardFilter(dw, dy, x kernels.Tensor, p kernels.ConvParams) {
	g := convCheck("Conv2DBackwardFilter", dy, x, dw, nil, p)
	gemmDisjoint("Conv2DBackwardFilter", dw, dy, x)
	gm, gn, gk := g.co, g.ci*g.k*g.k, g.n*g.ho*g.wo
	t := b.tileFor(gm)
	splits, chunk := convSplits(t.tiles(gm, gn), gk)
	if splits == 1 || gm*gn == 0 {
		b.convDispatch("Conv2DBackwardFilter", convKernels.backwardFilter, t, g, false, gm, gn, gk, g.ho, g.wo, 1, gk, dw, dy, x)
		return
	}
	parts := b.grow(&b.splitScratch, splits*gm*gn)
	b.convDispatch("Conv2DBackwardFilter", convKernels.backwardFilter, t, g, false, gm, gn, gk, g.ho, g.wo, splits, chunk, parts, dy, x)
	grp, row := grid((gm*gn + 255) / 256)
	b.dispatch("Conv2DBackwardFilter", convKernels.splitSum, grp, convParams(g, false, 0, row, gm, gn, gk, 0, 0, 0, splits, chunk), dw, parts)
}
