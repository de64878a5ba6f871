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

// frameColumns is the number of GEMM columns that a group aims at:
// enough for the filter (op(A)) to be packed a few times per group only.
const frameColumns = 2048

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

// scratch returns the sizes of the framed planes and of the unfolded
// matrix of one group.
func (f *frame) scratch() (framed, col int) {
	return f.group * f.g.Ci * f.plane, f.g.Ci * f.g.K * f.g.K * f.group * f.n1
}

// unfold frames images n0..n0+imgs-1 of x[N,Ci,H,W] into framed and unfolds
// them into col[Ci*K*K, imgs*n1].
func (f *frame) unfold(col, framed, x []float32, n0, imgs int) {
	g := f.g
	framed = framed[:imgs*g.Ci*f.plane]
	clear(framed)
	for i := 0; i < imgs; i++ {
		for c := 0; c < g.Ci; c++ {
			src := x[((n0+i)*g.Ci+c)*g.H*g.W:][:g.H*g.W]
			dst := framed[(i*g.Ci+c)*f.plane+g.Pad*f.wq+g.Pad:]
			for h := 0; h < g.H; h++ {
				copy(dst[h*f.wq:][:g.W], src[h*g.W:][:g.W])
			}
		}
	}
	ld := imgs * f.n1
	for c := 0; c < g.Ci; c++ {
		for kh := 0; kh < g.K; kh++ {
			for kw := 0; kw < g.K; kw++ {
				row := col[((c*g.K+kh)*g.K+kw)*ld:][:ld]
				for i := 0; i < imgs; i++ {
					copy(row[i*f.n1:][:f.n1], framed[(i*g.Ci+c)*f.plane+kh*f.wq+kw:][:f.n1])
				}
			}
		}
	}
}

// convFramed computes y[N,Co,Ho,Wo] = conv(x, w) + bias (bias may be nil)
// for the geometry of f, where wt is w transposed: [Ci*K*K, Co].
func (b *Backend) convFramed(y, x, wt, bias []float32, f frame) {
	g := f.g
	rows, hw := g.Ci*g.K*g.K, g.Ho*g.Wo
	b.parallel(f.groups(), 1, func(lo, hi int) {
		nFramed, nCol := f.scratch()
		buf := b.scratch(nFramed + nCol + g.Co*f.group*f.n1)
		defer b.pool.Put(buf)
		framed, col, out := (*buf)[:nFramed], (*buf)[nFramed:nFramed+nCol], (*buf)[nFramed+nCol:]
		for grp := lo; grp < hi; grp++ {
			n0, imgs := f.images(grp)
			ld := imgs * f.n1
			f.unfold(col, framed, x, n0, imgs)
			gemm.Sgemm(true, false, g.Co, ld, rows, 1, wt, g.Co, col, ld, 0, out, ld)
			for i := 0; i < imgs; i++ {
				for co := 0; co < g.Co; co++ {
					dst := y[((n0+i)*g.Co+co)*hw:][:hw]
					src := out[co*ld+i*f.n1:][:f.n1]
					for oh := 0; oh < g.Ho; oh++ {
						d, s := dst[oh*g.Wo:][:g.Wo], src[oh*f.wq:][:g.Wo]
						if bias == nil {
							copy(d, s)
							continue
						}
						for j, v := range s {
							d[j] = v + bias[co]
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
func (b *Backend) convFramedFilter(dw, dy, x []float32, f frame) {
	g := f.g
	rows, hw := g.Ci*g.K*g.K, g.Ho*g.Wo
	parts := min(b.workers, f.groups())
	partial := make([]*[]float32, parts)
	b.parallel(parts, 1, func(lo, hi int) {
		nFramed, nCol := f.scratch()
		buf := b.scratch(nFramed + nCol + g.Co*f.group*f.n1)
		defer b.pool.Put(buf)
		framed, col, dyq := (*buf)[:nFramed], (*buf)[nFramed:nFramed+nCol], (*buf)[nFramed+nCol:]
		for part := lo; part < hi; part++ {
			acc := b.scratch(len(dw))
			partial[part] = acc
			beta := float32(0)
			for grp := part * f.groups() / parts; grp < (part+1)*f.groups()/parts; grp++ {
				n0, imgs := f.images(grp)
				ld := imgs * f.n1
				f.unfold(col, framed, x, n0, imgs)
				// The discarded columns must not bring non-finite values
				// of x into dw (0 * Inf is NaN): zero them in col and dy.
				dyq := dyq[:g.Co*ld]
				for r := 0; r < rows*imgs; r++ {
					discard(col[r*f.n1:][:f.n1], f)
				}
				for i := 0; i < imgs; i++ {
					for co := 0; co < g.Co; co++ {
						src := dy[((n0+i)*g.Co+co)*hw:][:hw]
						dst := dyq[co*ld+i*f.n1:][:f.n1]
						for oh := 0; oh < g.Ho; oh++ {
							copy(dst[oh*f.wq:][:g.Wo], src[oh*g.Wo:][:g.Wo])
						}
						discard(dst, f)
					}
				}
				gemm.Sgemm(false, true, rows, g.Co, ld, 1, col, ld, dyq, ld, beta, *acc, g.Co)
				beta = 1
			}
		}
	})
	for co := 0; co < g.Co; co++ {
		for r := range dw[co*rows : (co+1)*rows] {
			var s float32
			for _, acc := range partial {
				s += (*acc)[r*g.Co+co]
			}
			dw[co*rows+r] = s
		}
	}
	for _, acc := range partial {
		b.pool.Put(acc)
	}
}

// discard zeroes the discarded columns (ow >= Wo) of one image's n1
// columns.
func discard(cols []float32, f frame) {
	for oh := 0; oh < f.g.Ho; oh++ {
		clear(cols[oh*f.wq+f.g.Wo : (oh+1)*f.wq])
	}
}
