package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// MatMul computes c = op(a) op(b) (+ bias) through gemm.SgemmBias.
func (b *Backend) MatMul(c, a, bm, bias kernels.Tensor, transA, transB bool) {
	m, n, k := kernels.MatMulDims("MatMul", c, a, bm, bias, transA, transB)
	gemm.SgemmBias(transA, transB, m, n, k, 1, F32(a), a.Shape()[1], F32(bm), bm.Shape()[1], f32(bias), F32(c), n)
}

// MatMulReLU computes c = max(op(a) op(b) + bias, 0) through
// gemm.SgemmBiasReLU.
func (b *Backend) MatMulReLU(c, a, bm, bias kernels.Tensor, transA, transB bool) {
	m, n, k := kernels.MatMulDims("MatMulReLU", c, a, bm, bias, transA, transB)
	gemm.SgemmBiasReLU(transA, transB, m, n, k, 1, F32(a), a.Shape()[1], F32(bm), bm.Shape()[1], f32(bias), F32(c), n)
}

// MatMulMasked computes c = op(a) op(b) where y > 0, else 0, through
// gemm.SgemmMasked.
func (b *Backend) MatMulMasked(c, a, bm, y kernels.Tensor, transA, transB bool) {
	m, n, k := kernels.MatMulDims("MatMulMasked", c, a, bm, nil, transA, transB)
	if ys := y.Shape(); len(ys) != 2 || ys[0] != m || ys[1] != n {
		kernels.Mismatch("MatMulMasked", "y must have the shape of c", c.Shape(), ys)
	}
	gemm.SgemmMasked(transA, transB, m, n, k, 1, F32(a), a.Shape()[1], F32(bm), bm.Shape()[1], F32(y), n, F32(c), n)
}

// BiasGrad sums dy over every dimension but the second.
func (b *Backend) BiasGrad(db, dy kernels.Tensor) {
	outer, ch, inner := kernels.BiasGradDims(db, dy)
	dbf, dyf := F32(db), F32(dy)
	if inner > 1 {
		if biasGradSums(dbf, dyf, outer, ch, inner) {
			return
		}
		// Per channel, a float64 sum of its planes' sums, parallel over
		// channels.
		b.parallel(ch, 1, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				var t float64
				for o := 0; o < outer; o++ {
					t += sum64(dyf[(o*ch+c)*inner:][:inner])
				}
				dbf[c] = float32(t)
			}
		})
		return
	}
	// [N,C]: sum row by row, which reads memory in order and adds in the
	// same order as ref.BiasGrad (so the result is identical).
	gemm.ColumnSums(outer, ch, dyf, ch, dbf)
}

// convGeom checks the operands of a convolution (kernels.CheckConv) and
// returns its geometry.
func convGeom(op string, y, x, w, bias kernels.Tensor, p kernels.ConvParams) ref.Conv {
	g := kernels.CheckConv(op, y, x, w, bias, p)
	return ref.Conv{N: g.N, Ci: g.Ci, H: g.H, W: g.W, Co: g.Co, K: g.K, Stride: p.Stride, Pad: p.Pad, Ho: g.Ho, Wo: g.Wo}
}

// groupsPerThread is the fewest groups a thread that F(2x2, 3x3) cuts a
// convolution's images into (winogradConv): the threads claim a group at
// a time (winogradConvCalls), and a thread that the host slows down leaves
// the others less to wait for when the groups are small, but each group
// reads all the filters again (smaller groups of 7x7 images cost one
// thread 5-9%). Each image's output is the same bits in any group.
const groupsPerThread = 4

// Conv2D computes the convolution as GEMMs over groups of images (see
// frame), parallel over the groups; geometries outside the framed layout
// use im2col + GEMM per image.
func (b *Backend) Conv2D(y, x, w, bias kernels.Tensor, p kernels.ConvParams) {
	g := convGeom("Conv2D", y, x, w, bias, p)
	yf, xf, wf, bf := F32(y), F32(x), F32(w), f32(bias)
	if wg, ok := newWinograd(g, max(b.workers, groupsPerThread*gemm.Threads())); ok && b.winograd {
		b.winogradConv(yf, xf, wf, bf, wg, g.Co, g.Ci, false)
		return
	}
	if f, ok := newFrame(g, b.workers); ok {
		// Op(A) = w [Co, Ci*K*K], passed transposed so that the GEMM packs
		// it with plain row copies.
		wt := b.scratch(len(wf))
		defer b.release(wt)
		rows := g.Ci * g.K * g.K
		for co := 0; co < g.Co; co++ {
			for r, v := range wf[co*rows : (co+1)*rows] {
				(*wt)[r*g.Co+co] = v
			}
		}
		b.convFramed(yf, xf, *wt, bf, f)
		return
	}
	rows, cols := g.Ci*g.K*g.K, g.Ho*g.Wo
	b.parallel(g.N, 1, func(lo, hi int) {
		col := b.scratch(rows * cols)
		defer b.release(col)
		for n := lo; n < hi; n++ {
			im2col(*col, xf[n*g.Ci*g.H*g.W:], g)
			out := yf[n*g.Co*cols : (n+1)*g.Co*cols]
			gemm.Sgemm(false, false, g.Co, cols, rows, 1, wf, rows, *col, cols, 0, out, cols)
			if bf != nil {
				for co := 0; co < g.Co; co++ {
					for i := co * cols; i < (co+1)*cols; i++ {
						out[i] += bf[co]
					}
				}
			}
		}
	})
}

// Conv2DBackwardData computes dx. With stride 1 it is the convolution of dy
// with the flipped, transposed filter and padding K-1-pad, computed as a
// forward convolution; otherwise W^T dy per image followed by col2im.
func (b *Backend) Conv2DBackwardData(dx, dy, w kernels.Tensor, p kernels.ConvParams) {
	g := convGeom("Conv2DBackwardData", dy, dx, w, nil, p)
	dxf, dyf, wf := F32(dx), F32(dy), F32(w)
	if wg, ok := newWinograd(g, max(b.workers, groupsPerThread*gemm.Threads())); ok && b.winograd {
		b.winogradConv(dxf, dyf, wf, nil, wg, g.Co, g.Ci, true)
		return
	}
	back := ref.Conv{N: g.N, Ci: g.Co, H: g.Ho, W: g.Wo, Co: g.Ci, K: g.K, Stride: 1, Pad: g.K - 1 - g.Pad, Ho: g.H, Wo: g.W}
	if f, ok := newFrame(back, b.workers); ok && g.Stride == 1 {
		// wt[(co,kh,kw), ci] = w[co, ci, K-1-kh, K-1-kw]: op(A) of the
		// backward convolution, transposed.
		wt := b.scratch(len(wf))
		defer b.release(wt)
		kk := g.K * g.K
		for co := 0; co < g.Co; co++ {
			for ci := 0; ci < g.Ci; ci++ {
				src := wf[(co*g.Ci+ci)*kk:][:kk]
				for t, v := range src {
					(*wt)[(co*kk+kk-1-t)*g.Ci+ci] = v
				}
			}
		}
		b.convFramed(dxf, dyf, *wt, nil, f)
		return
	}
	rows, cols := g.Ci*g.K*g.K, g.Ho*g.Wo
	b.parallel(g.N, 1, func(lo, hi int) {
		col := b.scratch(rows * cols)
		defer b.release(col)
		for n := lo; n < hi; n++ {
			gemm.Sgemm(true, false, rows, cols, g.Co, 1, wf, rows, dyf[n*g.Co*cols:], cols, 0, *col, cols)
			col2im(dxf[n*g.Ci*g.H*g.W:(n+1)*g.Ci*g.H*g.W], *col, g)
		}
	})
}

// filterParts is the number of partial sums of Conv2DBackwardFilter: the
// batch is cut into this many runs of images whatever the number of
// workers, each run summed in order into its own partial, and the partials
// added in order, so that the gradient (and a whole training run) is the
// same float32 result on machines with any number of cores.
const filterParts = 8

// Conv2DBackwardFilter computes dw as the sum over images of dy col^T in
// filterParts partial sums over runs of groups of images (see frame), or of
// images for geometries outside the framed layout.
func (b *Backend) Conv2DBackwardFilter(dw, dy, x kernels.Tensor, p kernels.ConvParams) {
	g := convGeom("Conv2DBackwardFilter", dy, x, dw, nil, p)
	dwf, dyf, xf := F32(dw), F32(dy), F32(x)
	if wg, ok := newWinograd(g, filterParts); ok && b.winograd {
		b.winogradFilter(dwf, dyf, xf, wg, g.Ci, g.Co)
		return
	}
	if f, ok := newFrame(g, filterParts); ok {
		b.convFramedFilter(dwf, dyf, xf, f)
		return
	}
	rows, cols := g.Ci*g.K*g.K, g.Ho*g.Wo
	parts := min(filterParts, g.N)
	partial := make([][]float32, parts)
	b.parallel(parts, 1, func(lo, hi int) {
		col := b.scratch(rows * cols)
		defer b.release(col)
		for part := lo; part < hi; part++ {
			acc := dwf
			if part > 0 {
				acc = make([]float32, len(dwf))
			}
			partial[part] = acc
			beta := float32(0)
			for n := part * g.N / parts; n < (part+1)*g.N/parts; n++ {
				im2col(*col, xf[n*g.Ci*g.H*g.W:], g)
				gemm.Sgemm(false, true, g.Co, rows, cols, 1, dyf[n*g.Co*cols:], cols, *col, cols, beta, acc, rows)
				beta = 1
			}
		}
	})
	for _, acc := range partial[1:] {
		for i, v := range acc {
			dwf[i] += v
		}
	}
}

// validRange returns the output columns [lo, hi) whose input column
// ow*stride - pad + kw lies inside [0, w).
func validRange(g ref.Conv, kw int) (lo, hi int) {
	// iw >= 0  <=>  ow >= ceil((pad-kw)/stride); iw < W  <=>  ow <= (W-1+pad-kw)/stride.
	lo = max(0, (g.Pad-kw+g.Stride-1)/g.Stride)
	if g.Pad-kw < 0 {
		lo = 0
	}
	hi = min(g.Wo, max(0, (g.W-1+g.Pad-kw)/g.Stride+1))
	if g.W-1+g.Pad-kw < 0 {
		hi = 0
	}
	return lo, max(lo, hi)
}

// im2col unfolds one image x[Ci,H,W] into col[Ci*K*K, Ho*Wo].
func im2col(col, x []float32, g ref.Conv) {
	cols := g.Ho * g.Wo
	for c := 0; c < g.Ci; c++ {
		for kh := 0; kh < g.K; kh++ {
			for kw := 0; kw < g.K; kw++ {
				dst := col[((c*g.K+kh)*g.K+kw)*cols:][:cols]
				lo, hi := validRange(g, kw)
				for oh := 0; oh < g.Ho; oh++ {
					ih := oh*g.Stride - g.Pad + kh
					row := dst[oh*g.Wo : (oh+1)*g.Wo]
					if ih < 0 || ih >= g.H {
						clear(row)
						continue
					}
					src := x[(c*g.H+ih)*g.W:][:g.W]
					clear(row[:lo])
					clear(row[hi:])
					if g.Stride == 1 {
						copy(row[lo:hi], src[lo-g.Pad+kw:])
						continue
					}
					for ow := lo; ow < hi; ow++ {
						row[ow] = src[ow*g.Stride-g.Pad+kw]
					}
				}
			}
		}
	}
}

// col2im folds col[Ci*K*K, Ho*Wo] back into one image dx[Ci,H,W], summing
// overlaps; dx is overwritten.
func col2im(dx, col []float32, g ref.Conv) {
	clear(dx)
	cols := g.Ho * g.Wo
	for c := 0; c < g.Ci; c++ {
		for kh := 0; kh < g.K; kh++ {
			for kw := 0; kw < g.K; kw++ {
				src := col[((c*g.K+kh)*g.K+kw)*cols:][:cols]
				lo, hi := validRange(g, kw)
				for oh := 0; oh < g.Ho; oh++ {
					ih := oh*g.Stride - g.Pad + kh
					if ih < 0 || ih >= g.H {
						continue
					}
					dst := dx[(c*g.H+ih)*g.W:][:g.W]
					row := src[oh*g.Wo : (oh+1)*g.Wo]
					if g.Stride == 1 {
						d := dst[lo-g.Pad+kw : hi-g.Pad+kw]
						for i, v := range row[lo:hi] {
							d[i] += v
						}
						continue
					}
					for ow := lo; ow < hi; ow++ {
						dst[ow*g.Stride-g.Pad+kw] += row[ow]
					}
				}
			}
		}
	}
}
