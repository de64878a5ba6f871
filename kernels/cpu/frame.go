package cpu

import (
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// frame is the layout of the stride-1 convolutions (0 <= pad <= K-1): each
// input plane is first copied into a zero "framed" plane, so that the rows
// of the unfolded (im2col) matrix are gathered without bounds tests.
//
// A framed plane has row stride wq = W+pad: pad zero rows above and below,
// and pad zero columns before each row, which are also the right padding
// of the row before. Output (oh, ow) then reads tap (kh, kw) at
// (oh+kh)*wq + ow+kw of the framed plane, so row (c, kh, kw) of an image's
// unfolded matrix is Ho rows of Wo floats at stride wq, from offset
// kh*wq + kw: one gatherRows call.
//
// Several images (a group) are unfolded side by side into one GEMM, so that
// small planes still make products with many columns.
type frame struct {
	g     ref.Conv
	wq    int // row stride of a framed plane
	plane int // floats per framed plane, with the slack gatherRows reads
	hw    int // GEMM columns per image: Ho*Wo
	group int // images per GEMM
}

// frameColumns is the number of GEMM columns that a group aims at: enough
// for small planes (49 columns for 7x7) to make products of a useful size,
// while a group's unfolded matrix stays small. Measured at batch 64, 256
// to 1024 all do as well. (A variable so that tests can make groups of
// every size.)
//
// Together with filterParts, the group size sets the order of the sums of
// Conv2DBackwardFilter (the same on any number of cores). The evaluation
// accuracy at the end of traintest.Trajectory's 30 steps is chaotic in
// that order: across group sizes 192 to 1024 (before filterParts) the LDA
// head ended 246 to 254 of 512 images right (PyTorch: 253); it is 249
// now, on 1, 2 and 4 cores.
var frameColumns = 384

// newFrame returns the framed layout of g, cut into at least min(parts,
// N) groups (to share out between workers, or filterParts partial sums),
// and whether g has one.
func newFrame(g ref.Conv, parts int) (frame, bool) {
	if g.Stride != 1 || g.Pad < 0 || g.Pad > g.K-1 || g.N == 0 || g.Ho <= 0 || g.Wo <= 0 {
		return frame{}, false
	}
	f := frame{g: g, wq: g.W + g.Pad, hw: g.Ho * g.Wo}
	// The last row of the last tap ends at (Ho-1+K-1)*wq + K-1 + Wo
	// <= (H+2*pad)*wq + K-1; gatherRows may read 7 floats past it.
	f.plane = (g.H+2*g.Pad)*f.wq + g.K - 1 + 7
	f.group = min(ceilDiv(frameColumns, f.hw), ceilDiv(g.N, parts))
	return f, true
}

// ceilDiv returns ceil(a/b) for a >= 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// groups returns the number of groups of images.
func (f *frame) groups() int { return ceilDiv(f.g.N, f.group) }

// images returns the first image of group i and the number of its images.
func (f *frame) images(i int) (n0, imgs int) {
	n0 = i * f.group
	return n0, min(f.group, f.g.N-n0)
}

// unfold fills col[Ci*K*K, imgs*hw] from images n0..n0+imgs-1 of
// x[N,Ci,H,W], framing the planes of one channel into planes (imgs*f.plane
// floats) first, channel by channel in the SIMD module where it runs
// (unfoldSIMD; the channels shared out between its threads where several
// serve, unfoldShared), else in Go. It writes col in order, so that what a row's
// copy writes past it is overwritten by the next, and up to 7 floats past
// the end of the unfolded matrix (see colLen).
func (f *frame) unfold(col, planes, x []float32, n0, imgs int) {
	clear(planes)
	if unfoldShared(f, col, planes, x, n0, imgs) {
		return
	}
	for c := 0; c < f.g.Ci; c++ {
		if !unfoldSIMD(f, col, planes, x, n0, imgs, c) {
			f.unfoldChannel(col, planes, x, n0, imgs, c)
		}
	}
}

// colValue returns element (c*K*K+t, p) of the unfolded matrix of the
// images from n0 (see unfold; p < imgs*hw): tap t of channel c at output
// pixel p%hw of image n0+p/hw, zero in the padding.
func (f *frame) colValue(x []float32, n0, c, t, p int) float32 {
	g := f.g
	i, q := p/f.hw, p%f.hw
	h, w := q/g.Wo+t/g.K-g.Pad, q%g.Wo+t%g.K-g.Pad
	if h < 0 || h >= g.H || w < 0 || w >= g.W {
		return 0
	}
	return x[(((n0+i)*g.Ci+c)*g.H+h)*g.W+w]
}

// unfoldChannel is unfold's work for channel c, in Go.
func (f *frame) unfoldChannel(col, planes, x []float32, n0, imgs, c int) {
	g := f.g
	kk, ld := g.K*g.K, imgs*f.hw
	for i := 0; i < imgs; i++ {
		src := x[((n0+i)*g.Ci+c)*g.H*g.W:][:g.H*g.W]
		data := planes[i*f.plane+g.Pad*f.wq+g.Pad:]
		for h := 0; h < g.H; h++ {
			copy(data[h*f.wq:][:g.W], src[h*g.W:][:g.W])
		}
	}
	for t := 0; t < kk; t++ {
		for i := 0; i < imgs; i++ {
			gatherRows(col[(c*kk+t)*ld+i*f.hw:], planes[i*f.plane+t/g.K*f.wq+t%g.K:], g.Ho, g.Wo, f.wq)
		}
	}
}

// colLen returns the length of the unfolded matrix of a group with the
// slack that unfold writes past its end.
func (f *frame) colLen() int { return f.g.Ci*f.g.K*f.g.K*f.group*f.hw + 7 }

// convFramed computes y[N,Co,Ho,Wo] = conv(x, w) + bias (bias may be nil)
// for the geometry of f, where wt is w transposed: [Ci*K*K, Co]. The
// groups are shared out between the workers. Each GEMM computes the
// transpose of the output, col^T wt (one row per output pixel), so that
// its long side is the GEMM's M, which gemm splits into chunks without
// packing the filter more than once, and Co (a multiple of 32 in the
// ConvNet) fills the micro-tiles' columns.
func (b *Backend) convFramed(y, x, wt, bias []float32, f frame) {
	g := f.g
	rows := g.Ci * g.K * g.K
	b.parallel(f.groups(), 1, func(lo, hi int) {
		col, out, planes := b.scratch(f.colLen()), b.scratch(f.group*f.hw*g.Co), b.scratch(f.group*f.plane)
		defer b.release(col)
		defer b.release(out)
		defer b.release(planes)
		for grp := lo; grp < hi; grp++ {
			n0, imgs := f.images(grp)
			ld := imgs * f.hw
			f.unfold(*col, *planes, x, n0, imgs)
			gemm.Sgemm(true, false, ld, g.Co, rows, 1, *col, ld, wt, g.Co, 0, *out, g.Co)
			transposeImages(y[n0*g.Co*f.hw:], *out, imgs, f.hw, g.Co, bias)
		}
	})
}

// transposeImages is transposeBias for imgs images one after the other in
// d and in s, on the SIMD module's threads where they serve
// (transposeShared).
func transposeImages(d, s []float32, imgs, rows, cols int, bias []float32) {
	if transposeShared(d, s, imgs, rows, cols, bias) {
		return
	}
	for i := 0; i < imgs; i++ {
		transposeBias(d[i*rows*cols:], s[i*rows*cols:], rows, cols, bias)
	}
}

// transposeBias sets d[c*rows+r] = s[r*cols+c] + bias[c] (bias nil: none)
// for r < rows, c < cols: an image's output from the product's [pixels,
// channels] layout, in the SIMD module where it runs (transposeSIMD).
func transposeBias(d, s []float32, rows, cols int, bias []float32) {
	d, s = d[:rows*cols], s[:rows*cols]
	if bias != nil {
		bias = bias[:cols]
	}
	if !transposeSIMD(d, s, rows, cols, bias) {
		transposeBiasGo(d, s, rows, cols, bias)
	}
}

// transposeBiasGo is transposeBias in Go.
func transposeBiasGo(d, s []float32, rows, cols int, bias []float32) {
	for c := 0; c < cols; c++ {
		dc := d[c*rows:][:rows]
		if bias == nil {
			for r := range dc {
				dc[r] = s[r*cols+c]
			}
			continue
		}
		bv := bias[c]
		for r := range dc {
			dc[r] = s[r*cols+c] + bv
		}
	}
}

// sumRows is how many rows of the partials sumPartials adds at a time.
const sumRows = 16

// sumPartials writes into dw (co rows of rows values) the transposed sum of
// the partials (rows×co each): dw[c*rows+r] = 0 + p0[r*co+c] + p1[r*co+c]
// + ..., in that order. It adds sumRows rows of every partial at a time,
// reading each partial in order and writing dw a row of sumRows at a time.
func sumPartials(b *Backend, dw []float32, partial []*[]float32, rows, co int) {
	blocks := ceilDiv(rows, sumRows)
	b.parallel(blocks, 1, func(lo, hi int) {
		sums := b.scratch(sumRows * co)
		defer b.release(sums)
		for blk := lo; blk < hi; blk++ {
			r0 := blk * sumRows
			rb := min(sumRows, rows-r0)
			s := (*sums)[:rb*co]
			clear(s)
			for _, acc := range partial {
				for k, v := range (*acc)[r0*co:][:len(s)] {
					s[k] += v
				}
			}
			for c := 0; c < co; c++ {
				d := dw[c*rows+r0:][:rb]
				for i := range d {
					d[i] = s[i*co+c]
				}
			}
		}
	})
}

// convFramedFilter computes dw[Co, Ci*K*K] = sum over images of dy times
// the unfolded x^T for the geometry of f (made for filterParts groups).
// Each of filterParts partial sums accumulates dw^T = col dy^T over a run
// of groups (so that the larger operand, col, is the GEMM's A and packed
// once); the workers share out the partials, which are then added in
// order and transposed into dw.
func (b *Backend) convFramedFilter(dw, dy, x []float32, f frame) {
	g := f.g
	rows := g.Ci * g.K * g.K
	parts := min(filterParts, f.groups())
	partial := make([]*[]float32, parts)
	b.parallel(parts, 1, func(lo, hi int) {
		col, dyg, planes := b.scratch(f.colLen()), b.scratch(g.Co*f.group*f.hw), b.scratch(f.group*f.plane)
		defer b.release(col)
		defer b.release(dyg)
		defer b.release(planes)
		for part := lo; part < hi; part++ {
			acc := b.scratch(len(dw))
			partial[part] = acc
			beta := float32(0)
			for grp := part * f.groups() / parts; grp < (part+1)*f.groups()/parts; grp++ {
				n0, imgs := f.images(grp)
				ld := imgs * f.hw
				f.unfold(*col, *planes, x, n0, imgs)
				// dyg[co, i*hw+p] = dy[n0+i, co, p]: the group's images
				// side by side, as in col.
				for co := 0; co < g.Co; co++ {
					for i := 0; i < imgs; i++ {
						copy((*dyg)[co*ld+i*f.hw:][:f.hw], dy[((n0+i)*g.Co+co)*f.hw:][:f.hw])
					}
				}
				gemm.Sgemm(false, true, rows, g.Co, ld, 1, *col, ld, *dyg, ld, beta, *acc, g.Co)
				beta = 1
			}
		}
	})
	sumPartials(b, dw, partial, rows, g.Co)
	for _, acc := range partial {
		b.release(acc)
	}
}
