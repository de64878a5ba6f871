// Package cpu is the pure-Go backend of package kernels: tensors are host
// slices, matrix products and convolutions run through the blocked float32
// GEMM of package gemm (stride-1 convolutions as GEMMs over groups of
// unfolded images, see frame; others as im2col per image), ReLU, max
// pooling and the BatchNorm passes use AVX routines on amd64 with the same
// results as package ref, the LDA head and the DNLL loss have their own
// loops (in WebAssembly, assembly) with ref's results bit for bit, and the
// remaining operations use the plain loops of package ref.
//
// It runs natively and in WebAssembly, and is the fallback wherever WebGPU is
// missing.
package cpu

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// tensor is a host-resident kernels.Tensor.
type tensor struct {
	shape []int
	dt    kernels.DType
	f     []float32
	i     []int32
	view  bool
}

func (t *tensor) Shape() []int         { return t.shape }
func (t *tensor) DType() kernels.DType { return t.dt }

// Backend is the CPU implementation of kernels.Backend. The zero value is
// not usable; call New.
type Backend struct {
	workers int
	pools   [bits.UintSize]sync.Pool // scratch buffers (*[]float32), pools[k] those of 1<<k floats
	// winograd computes the 3x3 convolutions that F(2x2, 3x3) can with
	// it (newWinograd): where the SIMD module runs (winogradDefault).
	winograd bool
}

// New returns a CPU backend that uses up to runtime.GOMAXPROCS(0) goroutines.
func New() *Backend {
	return &Backend{workers: runtime.GOMAXPROCS(0), winograd: winogradDefault}
}

// Info names the backend. Its adapter says on how many threads it computes:
// the goroutines it may use, or in a browser whose page is cross-origin
// isolated the threads that share the matrix products (gemm.Threads).
func (b *Backend) Info() kernels.Info {
	n := max(b.workers, gemm.Threads())
	threads := "threads"
	if n == 1 {
		threads = "thread"
	}
	return kernels.Info{Name: "cpu", Adapter: fmt.Sprintf("Go %s/%s, %d %s", runtime.GOOS, runtime.GOARCH, n, threads)}
}

// F32 returns the host slice of a Float32 tensor of this backend. It panics
// if t is not one.
func F32(t kernels.Tensor) []float32 {
	ct, ok := t.(*tensor)
	if !ok || ct.dt != kernels.Float32 {
		panic(fmt.Sprintf("kernels: cpu: want a cpu Float32 tensor, got %T", t))
	}
	return ct.f
}

func i32(t kernels.Tensor) []int32 {
	ct, ok := t.(*tensor)
	if !ok || ct.dt != kernels.Int32 {
		panic(fmt.Sprintf("kernels: cpu: want a cpu Int32 tensor, got %T", t))
	}
	return ct.i
}

// f32 returns the slice of t, or nil for a nil tensor.
func f32(t kernels.Tensor) []float32 {
	if t == nil {
		return nil
	}
	return F32(t)
}

// Alloc returns a zeroed tensor.
func (b *Backend) Alloc(dt kernels.DType, shape ...int) kernels.Tensor {
	n := kernels.Numel(shape)
	t := &tensor{shape: append([]int{}, shape...), dt: dt}
	if dt == kernels.Int32 {
		t.i = make([]int32, n)
	} else {
		t.f = make([]float32, n)
	}
	return t
}

// View returns a tensor sharing t's memory.
func (b *Backend) View(t kernels.Tensor, offset int, shape ...int) kernels.Tensor {
	ct := t.(*tensor)
	n := kernels.Numel(shape)
	if offset%kernels.ViewAlign != 0 || offset < 0 || offset+n > kernels.Len(ct) {
		kernels.Mismatch("View", fmt.Sprintf("offset %d is unaligned or out of range", offset), ct.shape, shape)
	}
	v := &tensor{shape: append([]int{}, shape...), dt: ct.dt, view: true}
	if ct.dt == kernels.Int32 {
		v.i = ct.i[offset : offset+n : offset+n]
	} else {
		v.f = ct.f[offset : offset+n : offset+n]
	}
	return v
}

// Free drops the memory of t.
func (b *Backend) Free(t kernels.Tensor) {
	if ct := t.(*tensor); !ct.view {
		ct.f, ct.i = nil, nil
	}
}

// Write copies data into t.
func (b *Backend) Write(t kernels.Tensor, data []float32) {
	dst := F32(t)
	if len(data) != len(dst) {
		kernels.Mismatch("Write", fmt.Sprintf("%d values for %d elements", len(data), len(dst)), t.Shape())
	}
	copy(dst, data)
}

// WriteInt copies data into t.
func (b *Backend) WriteInt(t kernels.Tensor, data []int32) {
	dst := i32(t)
	if len(data) != len(dst) {
		kernels.Mismatch("WriteInt", fmt.Sprintf("%d values for %d elements", len(data), len(dst)), t.Shape())
	}
	copy(dst, data)
}

// Read returns a copy of t.
func (b *Backend) Read(t kernels.Tensor) ([]float32, error) {
	return append([]float32{}, F32(t)...), nil
}

// ReadInt returns a copy of t.
func (b *Backend) ReadInt(t kernels.Tensor) ([]int32, error) {
	return append([]int32{}, i32(t)...), nil
}

// Fill sets every element of t to v.
func (b *Backend) Fill(t kernels.Tensor, v float32) {
	s := F32(t)
	for i := range s {
		s[i] = v
	}
}

// Copy copies src into dst.
func (b *Backend) Copy(dst, src kernels.Tensor) {
	d, s := dst.(*tensor), src.(*tensor)
	if kernels.Len(d) != kernels.Len(s) || d.dt != s.dt {
		kernels.Mismatch("Copy", "different sizes or types", d.shape, s.shape)
	}
	copy(d.f, s.f)
	copy(d.i, s.i)
}

// Sync does nothing: CPU operations complete before they return.
func (b *Backend) Sync() error { return nil }

// Close does nothing.
func (b *Backend) Close() {}

// parallel runs fn over [0, n) split into up to b.workers contiguous ranges,
// each at least minChunk long.
func (b *Backend) parallel(n, minChunk int, fn func(lo, hi int)) {
	parts := b.parts(n, minChunk)
	if parts <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// parts returns how many goroutines parallel uses for n elements in chunks
// of at least minChunk.
func (b *Backend) parts(n, minChunk int) int {
	return min(b.workers, max(n/max(minChunk, 1), 1))
}

// scratch returns a buffer of n floats (their values left over) from the
// pool of its size class, the powers of two, so that buffers of a layer's
// sizes come back to it step after step; release puts it back.
func (b *Backend) scratch(n int) *[]float32 {
	k := bits.Len(uint(max(n, 1) - 1))
	if p, ok := b.pools[k].Get().(*[]float32); ok {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n, 1<<k)
	return &s
}

// release puts back a buffer that scratch returned.
func (b *Backend) release(p *[]float32) { b.pools[bits.Len(uint(cap(*p)-1))].Put(p) }

// ReLU computes y = max(x, 0).
func (b *Backend) ReLU(y, x kernels.Tensor) {
	kernels.SameSizeDims("ReLU", y, x)
	ys, xs := F32(y), F32(x)
	b.parallel(len(xs), 1<<16, func(lo, hi int) { relu(ys[lo:hi], xs[lo:hi]) })
}

// ReLUBackward computes dx = dy where y > 0.
func (b *Backend) ReLUBackward(dx, dy, y kernels.Tensor) {
	kernels.SameSizeDims("ReLUBackward", dx, dy, y)
	dxs, dys, ys := F32(dx), F32(dy), F32(y)
	b.parallel(len(ys), 1<<16, func(lo, hi int) { reluBackward(dxs[lo:hi], dys[lo:hi], ys[lo:hi]) })
}

// MaxPool2 computes the 2x2 stride-2 max pool.
func (b *Backend) MaxPool2(y, x kernels.Tensor) {
	xs := kernels.MaxPool2Dims("MaxPool2", y, x, nil)
	h, w := xs[2], xs[3]
	yf, xf := F32(y), F32(x)
	b.parallel(xs[0]*xs[1], 16, func(lo, hi int) {
		maxPool2(yf[lo*(h/2)*(w/2):], xf[lo*h*w:], hi-lo, h, w)
	})
}

// MaxPool2Backward routes dy to the first maximum of each window.
func (b *Backend) MaxPool2Backward(dx, dy, x kernels.Tensor) {
	xs := kernels.MaxPool2Dims("MaxPool2Backward", dy, x, dx)
	h, w := xs[2], xs[3]
	dxf, dyf, xf := F32(dx), F32(dy), F32(x)
	b.parallel(xs[0]*xs[1], 16, func(lo, hi int) {
		maxPool2Backward(dxf[lo*h*w:], dyf[lo*(h/2)*(w/2):], xf[lo*h*w:], hi-lo, h, w)
	})
}

// GlobalAvgPool averages x[N,C,H,W] over H and W.
func (b *Backend) GlobalAvgPool(y, x kernels.Tensor) {
	xs := kernels.GlobalAvgPoolDims("GlobalAvgPool", y, x)
	ref.GlobalAvgPool(F32(y), F32(x), xs[0]*xs[1], xs[2]*xs[3])
}

// GlobalAvgPoolBackward spreads dy over dx.
func (b *Backend) GlobalAvgPoolBackward(dx, dy kernels.Tensor) {
	xs := kernels.GlobalAvgPoolDims("GlobalAvgPoolBackward", dy, dx)
	ref.GlobalAvgPoolBackward(F32(dx), F32(dy), xs[0]*xs[1], xs[2]*xs[3])
}

// BatchNormTrain normalises with batch statistics, parallel over channels.
func (b *Backend) BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar kernels.Tensor, momentum, eps float32) {
	n, c, hw := kernels.BatchNormDims("BatchNormTrain", x, []kernels.Tensor{y}, []kernels.Tensor{mean, invStd, gamma, beta, runMean, runVar})
	yf, xf := F32(y), F32(x)
	mf, isf, gf, bf, rm, rv := F32(mean), F32(invStd), F32(gamma), F32(beta), F32(runMean), F32(runVar)
	if bnTrainShared(yf, mf, isf, xf, gf, bf, rm, rv, n, c, hw, momentum, eps) {
		return
	}
	b.parallel(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			bnTrainChannel(yf, mf, isf, xf, gf, bf, rm, rv, n, c, hw, ch, momentum, eps)
		}
	})
}

// BatchNormEval normalises with the running estimates.
func (b *Backend) BatchNormEval(y, x, gamma, beta, runMean, runVar kernels.Tensor, eps float32) {
	n, c, hw := kernels.BatchNormDims("BatchNormEval", x, []kernels.Tensor{y}, []kernels.Tensor{gamma, beta, runMean, runVar})
	yf, xf, gf, bf, rm, rv := F32(y), F32(x), F32(gamma), F32(beta), F32(runMean), F32(runVar)
	b.parallel(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			ref.BatchNormEvalChannel(yf, xf, gf, bf, rm, rv, n, c, hw, ch, eps)
		}
	})
}

// BatchNormBackward computes the gradients of BatchNormTrain.
func (b *Backend) BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd kernels.Tensor) {
	n, c, hw := kernels.BatchNormDims("BatchNormBackward", x, []kernels.Tensor{dx, dy}, []kernels.Tensor{dgamma, dbeta, gamma, mean, invStd})
	dxf, dgf, dbf, dyf, xf := F32(dx), F32(dgamma), F32(dbeta), F32(dy), F32(x)
	gf, mf, isf := F32(gamma), F32(mean), F32(invStd)
	if bnBackwardShared(dxf, dgf, dbf, dyf, xf, gf, mf, isf, n, c, hw) {
		return
	}
	b.parallel(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			bnBackwardChannel(dxf, dgf, dbf, dyf, xf, gf, mf, isf, n, c, hw, ch)
		}
	})
}

// LDA computes the discriminants of the head (lda: column loops; in
// WebAssembly, assembly).
func (b *Backend) LDA(delta, z, prior, mu, cov kernels.Tensor, kind kernels.CovKind) {
	n, c, d := kernels.HeadDims("LDA", delta, z, prior, mu, cov, kind)
	lda(F32(delta), F32(z), F32(prior), F32(mu), F32(cov), n, c, d, kind)
}

// LDABackward computes the gradients of the head (ldaBackward: column
// loops; in WebAssembly, assembly).
func (b *Backend) LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov kernels.Tensor, kind kernels.CovKind) {
	n, c, d := kernels.HeadDims("LDABackward", ddelta, z, prior, mu, cov, kind, dz, dprior, dmu, dcov)
	ldaBackward(F32(dz), F32(dprior), F32(dmu), F32(dcov), F32(ddelta), F32(z), F32(prior), F32(mu), F32(cov), n, c, d, kind)
}

// Loss accumulates the loss statistics and writes the score gradient.
func (b *Backend) Loss(dscores, stats, scores, y kernels.Tensor, kind kernels.LossKind, lambda float32, step int) {
	n, c := kernels.LossDims(dscores, stats, scores, y, kind)
	sum, correct := loss(f32(dscores), F32(scores), i32(y), n, c, kind, lambda)
	st := F32(stats)
	st[kernels.StatLoss] += sum
	st[kernels.StatCorrect] += float32(correct)
	st[kernels.StatCount] += float32(n)
	if (math.IsNaN(float64(sum)) || math.IsInf(float64(sum), 0)) && st[kernels.StatBadStep] < 0 {
		st[kernels.StatBadStep] = float32(step)
	}
}

// Adam updates param in place: in the SIMD module where it runs
// (adamSIMD), else parallel over chunks.
func (b *Backend) Adam(param, grad, m, v kernels.Tensor, p kernels.AdamParams) {
	kernels.SameSizeDims("Adam", param, grad, m, v)
	pf, gf, mf, vf := F32(param), F32(grad), F32(m), F32(v)
	if adamSIMD(pf, gf, mf, vf, p) {
		return
	}
	if b.parts(len(pf), 1<<15) <= 1 {
		// One part, without the closure's allocation.
		ref.Adam(pf, gf, mf, vf, p)
		return
	}
	b.parallel(len(pf), 1<<15, func(lo, hi int) {
		ref.Adam(pf[lo:hi], gf[lo:hi], mf[lo:hi], vf[lo:hi], p)
	})
}
