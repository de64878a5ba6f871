package cpu

import (
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// frame is the layout of the stride-1 convolutions (0 <= pad <= K-1),
// which lets im2col copy whole rows of the GEMM's B matrix at once.
//
// Each input plane is copied into a zero "framed" plane of row stride
// wq = W+pad: pad zero rows above and below, and pad zero columns before
// each row, which are also the right padding of the row before. Output
// column j = oh*wq + ow of an image then reads tap (kh, kw) of channel c at
// j + kh*wq + kw of its framed plane, so row (c, kh, kw) of the unfolded
// matrix is one contiguous slice of the plane, n1 = Ho*wq long. Columns
// with ow >= Wo (K-1-pad per output row, one for the usual pad 1) are
// computed too, and discarded.
//
// Several images (group) are unfolded side by side into one GEMM, so that
// small planes still make products with many columns: fewer, larger GEMMs
// that pack the filter less often per image.
type frame struct {
	g     ref.Conv
	wq    int // row stride of a framed plane
	plane int // floats per framed plane
	n1    int // GEMM columns per image
	group int // images per GEMM
}

// frameColumns is the number of GEMM columns that a group aims at: enough
// for small planes (49 columns for 7x7) to make products of a useful size,
// while a group's unfolded matrix stays small. Measured at batch 64, 256
// to 1024 all do as well. (A variable so that tests can make groups of
// every size.)
var frameColumns = 256

// newFrame returns the framed layout of g, for up to workers groups in
// parallel, and whether g has one.
func newFrame(g ref.Conv, workers int) (frame, bool) {
	if g.Stride != 1 || g.Pad < 0 || g.Pad > g.K-1 || g.N == 0 || g.Ho <= 0 || g.Wo <= 0 {
		return frame{}, false
	}
	f := frame{g: g, wq: g.W + g.Pad}
	// The last tap of the last column reads (Ho+K-1)*wq + K-2.
	f.plane = (g.H+2*g.Pad)*f.wq + g.K - 1
	f.n1 = g.Ho * f.wq
	f.group = min(ceilDiv(frameColumns, f.n1), ceilDiv(g.N, workers))
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

// unfold fills the rows of col[Ci*K*K, imgs*n1] of channels c0..c1-1 from
// images n0..n0+imgs-1 of x[N,Ci,H,W], framing each plane into plane
// (f.plane floats) first. With discard, the discarded columns are zeroed.
func (f *frame) unfold(col, plane, x []float32, n0, imgs, c0, c1 int, discard bool) {
	g := f.g
	kk, ld := g.K*g.K, imgs*f.n1
	clear(plane)
	data := plane[g.Pad*f.wq+g.Pad:]
	for c := c0; c < c1; c++ {
		for i := 0; i < imgs; i++ {
			src := x[((n0+i)*g.Ci+c)*g.H*g.W:][:g.H*g.W]
			for h := 0; h < g.H; h++ {
				copy(data[h*f.wq:][:g.W], src[h*g.W:][:g.W])
			}
			for t := 0; t < kk; t++ {
				row := col[(c*kk+t)*ld+i*f.n1:][:f.n1]
				copy(row, plane[t/g.K*f.wq+t%g.K:])
				if discard {
					f.discard(row)
				}
			}
		}
	}
}

// discard zeroes the discarded columns (ow >= Wo) of one image's n1
// columns.
func (f *frame) discard(cols []float32) {
	for oh := 0; oh < f.g.Ho; oh++ {
		for j := oh*f.wq + f.g.Wo; j < (oh+1)*f.wq; j++ {
			cols[j] = 0
		}
	}
}

// convFramed computes y[N,Co,Ho,Wo] = conv(x, w) + bias (bias may be nil)
// for the geometry of f, where wt is w transposed: [Ci*K*K, Co]. The
// groups are shared out between the workers. Each GEMM computes the
// transpose of the output, col^T wt (one row per output column), so that
// its long side is the GEMM's M, which gemm splits into chunks without
// packing the filter more than once, and Co (a multiple of 32 in the
// ConvNet) fills the micro-tiles' columns.
func (b *Backend) convFramed(y, x, wt, bias []float32, f frame) {
	g := f.g
	rows, hw := g.Ci*g.K*g.K, g.Ho*g.Wo
	b.parallel(f.groups(), 1, func(lo, hi int) {
		col, out, plane := b.scratch(rows*f.group*f.n1), b.scratch(f.group*f.n1*g.Co), b.scratch(f.plane)
		defer b.pool.Put(col)
		defer b.pool.Put(out)
		defer b.pool.Put(plane)
		for grp := lo; grp < hi; grp++ {
			n0, imgs := f.images(grp)
			ld := imgs * f.n1
			f.unfold(*col, *plane, x, n0, imgs, 0, g.Ci, false)
			gemm.Sgemm(true, false, ld, g.Co, rows, 1, *col, ld, wt, g.Co, 0, *out, g.Co)
			for i := 0; i < imgs; i++ {
				for co := 0; co < g.Co; co++ {
					var bv float32
					if bias != nil {
						bv = bias[co]
					}
					dst := y[((n0+i)*g.Co+co)*hw:][:hw]
					for oh := 0; oh < g.Ho; oh++ {
						d := dst[oh*g.Wo:][:g.Wo]
						s := (*out)[(i*f.n1+oh*f.wq)*g.Co+co:][:(g.Wo-1)*g.Co+1]
						if bias == nil {
							for ow := range d {
								d[ow] = s[ow*g.Co]
							}
							continue
						}
						for ow := range d {
							d[ow] = s[ow*g.Co] + bv
						}
					}
				}
			}
		}
	})
}

// convFramedFilter computes dw[Co, Ci*K*K] = sum over images of dy times
// the unfolded x^T for the geometry of f. Each worker accumulates
// dw^T = col dy^T over its groups (so that the larger operand, col, is the
// GEMM's A and packed once), and the partial sums are transposed into dw.
// The discarded columns are zeroed in col and dy so that they bring no
// non-finite values of x into dw (0 * Inf is NaN).
func (b *Backend) convFramedFilter(dw, dy, x []float32, f frame) {
	g := f.g
	rows, hw := g.Ci*g.K*g.K, g.Ho*g.Wo
	parts := min(b.workers, f.groups())
	partial := make([]*[]float32, parts)
	b.parallel(parts, 1, func(lo, hi int) {
		col, dyq, plane := b.scratch(rows*f.group*f.n1), b.scratch(g.Co*f.group*f.n1), b.scratch(f.plane)
		defer b.pool.Put(col)
		defer b.pool.Put(dyq)
		defer b.pool.Put(plane)
		for part := lo; part < hi; part++ {
			acc := b.scratch(len(dw))
			partial[part] = acc
			beta := float32(0)
			for grp := part * f.groups() / parts; grp < (part+1)*f.groups()/parts; grp++ {
				n0, imgs := f.images(grp)
				ld := imgs * f.n1
				f.unfold(*col, *plane, x, n0, imgs, 0, g.Ci, true)
				for co := 0; co < g.Co; co++ {
					for i := 0; i < imgs; i++ {
						src := dy[((n0+i)*g.Co+co)*hw:][:hw]
						dst := (*dyq)[co*ld+i*f.n1:][:f.n1]
						for oh := 0; oh < g.Ho; oh++ {
							copy(dst[oh*f.wq:][:g.Wo], src[oh*g.Wo:][:g.Wo])
						}
						f.discard(dst)
					}
				}
				gemm.Sgemm(false, true, rows, g.Co, ld, 1, *col, ld, *dyq, ld, beta, *acc, g.Co)
				beta = 1
			}
		}
	})
	b.parallel(g.Co, 1, func(lo, hi int) {
		for co := lo; co < hi; co++ {
			for r := range dw[co*rows : (co+1)*rows] {
				var s float32
				for _, acc := range partial {
					s += (*acc)[r*g.Co+co]
				}
				dw[co*rows+r] = s
			}
		}
	})
	for _, acc := range partial {
		b.pool.Put(acc)
	}
}
