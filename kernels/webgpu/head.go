package webgpu

import "github.com/deeplda/deeplda/kernels"

// headKernels are the entry points of head.wgsl (see its header comment).
var headKernels = struct {
	prepare, applyA, applyAT, delta, dw, dm, dA, t, finish kernel
}{
	prepare: kernel{File: "head.wgsl", Entry: "prepare", Slots: []slot{out(1), in(6), in(7)}},
	applyA:  kernel{File: "head.wgsl", Entry: "apply_a", Slots: []slot{out(1), in(4)}},
	applyAT: kernel{File: "head.wgsl", Entry: "apply_at", Slots: []slot{out(2), out(1)}},
	delta:   kernel{File: "head.wgsl", Entry: "delta", Slots: []slot{out(2), out(1)}},
	dw:      kernel{File: "head.wgsl", Entry: "bw_dw", Slots: []slot{out(1), in(4)}},
	dm:      kernel{File: "head.wgsl", Entry: "bw_dm", Slots: []slot{out(1), in(4)}},
	dA:      kernel{File: "head.wgsl", Entry: "bw_da", Slots: []slot{out(1), in(4), in(5)}},
	t:       kernel{File: "head.wgsl", Entry: "bw_t", Slots: []slot{out(1)}},
	finish:  kernel{File: "head.wgsl", Entry: "finish", Slots: []slot{out(2), out(3), out(1), in(7)}},
}

// headLayout places the intermediates of the head in one scratch tensor
// (element offsets; see head.wgsl).
type headLayout struct {
	n, c, d, kind, covLen                         int
	a, t, dA, logPi, colSum, logDet, m, dm, w, dw int
	size                                          int
}

// newHeadLayout lays out the scratch of LDA (backward false) or LDABackward.
func newHeadLayout(n, c, d int, kind kernels.CovKind, backward bool) headLayout {
	l := headLayout{n: n, c: c, d: d, kind: int(kind), covLen: kernels.Numel(kind.CovShape(d))}
	next := 0
	take := func(size int) int {
		at := next
		next += size
		return at
	}
	l.a = take(d * d)
	l.logPi = take(c)
	l.logDet = take(1)
	l.m = take(c * d)
	l.w = take(n * d)
	if backward {
		l.colSum = take(c)
		l.dm = take(c * d)
		l.dw = take(n * d)
		l.dA = take(d * d)
		if kind == kernels.Full {
			l.t = take(d * d)
		}
	}
	l.size = next
	return l
}

// params returns the uniform block of one head dispatch of count
// invocations (row is the x extent of its grid); rows, inOff and outOff are
// the operands of apply_a and apply_at.
func (l headLayout) params(count, row, rows, inOff, outOff int) params {
	return params{}.u(l.n, l.c, l.d, l.kind, count, row, rows, inOff, outOff,
		l.a, l.t, l.dA, l.logPi, l.colSum, l.logDet, l.m, l.dm, l.w, l.dw, l.covLen)
}

// headRun records one dispatch of a head kernel over count invocations.
func (b *Backend) headRun(op string, k kernel, l headLayout, count, rows, inOff, outOff int, ts ...kernels.Tensor) {
	if count == 0 {
		return
	}
	g, row := grid((count + 255) / 256)
	b.dispatch(op, k, g, l.params(count, row, rows, inOff, outOff), ts...)
}

// headScratch returns the head's scratch memory for the layout (see
// grow). It is sized for the backward pass's layout of the same shapes
// from the first forward pass on, so that the steps of training after the
// first reuse the same buffer and bind groups.
func (b *Backend) headScratch(l headLayout) kernels.Tensor {
	return b.grow(&b.scratch, newHeadLayout(l.n, l.c, l.d, kernels.CovKind(l.kind), true).size)
}

// grow returns *t, a scratch tensor kept on the backend and bound whole,
// first replaced by one of n floats when it holds fewer.
func (b *Backend) grow(t *kernels.Tensor, n int) kernels.Tensor {
	n = max(n, 1)
	if *t == nil || kernels.Len(*t) < n {
		if *t != nil {
			b.Free(*t)
		}
		*t = b.Alloc(kernels.Float32, n)
	}
	return *t
}

// headPrepare records the dispatches shared by LDA and LDABackward: A, log
// det Sigma and log pi, then m = A mu and w = A z.
func (b *Backend) headPrepare(op string, l headLayout, scratch, z, prior, mu, cov kernels.Tensor) {
	g, row := grid(max(l.d, 1))
	b.dispatch(op, headKernels.prepare, g, l.params(0, row, 0, 0, 0), scratch, prior, cov)
	b.headRun(op, headKernels.applyA, l, l.c*l.d, l.c, 0, l.m, scratch, mu)
	b.headRun(op, headKernels.applyA, l, l.n*l.d, l.n, 0, l.w, scratch, z)
}

// LDA computes the discriminants delta[N,C] of z[N,D]:
// delta_c = log pi_c - 1/2 log det Sigma - 1/2 |A z - A mu_c|^2 with
// A^T A = Sigma^-1 (see kernels/ref/head.go). Four dispatches: prepare,
// m = A mu, w = A z, delta.
func (b *Backend) LDA(delta, z, prior, mu, cov kernels.Tensor, kind kernels.CovKind) {
	n, c, d := kernels.HeadDims("LDA", delta, z, prior, mu, cov, kind)
	if n*c == 0 {
		return
	}
	l := newHeadLayout(n, c, d, kind, false)
	scratch := b.headScratch(l)
	b.headPrepare("LDA", l, scratch, z, prior, mu, cov)
	b.headRun("LDA", headKernels.delta, l, n*c, 0, 0, 0, delta, scratch)
}

// LDABackward computes the gradients of LDA for ddelta, as ref.LDABackward
// does: in whitened coordinates dw and dm, then dz = A^T dw, dmu = A^T dm,
// the lower triangle of dA = dw^T z + dm^T mu (its diagonal for the
// spherical and diagonal heads), and the chain to the covariance parameter
// (dL = -A^T dA A^T for the full head). The gradient of raw_tril is zero
// above the diagonal. Ten dispatches (eight for the spherical and diagonal
// heads), all O(N*C*D) or less.
//
// dprior and dcov are written by one dispatch and may be disjoint views of
// one buffer (as in the model's gradient arena). No output may share a
// buffer with an input, though: wgpu rejects a dispatch that binds one
// buffer both writable and read-only, even in disjoint ranges.
func (b *Backend) LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov kernels.Tensor, kind kernels.CovKind) {
	const op = "LDABackward"
	n, c, d := kernels.HeadDims(op, ddelta, z, prior, mu, cov, kind, dz, dprior, dmu, dcov)
	l := newHeadLayout(n, c, d, kind, true)
	scratch := b.headScratch(l)
	b.headPrepare(op, l, scratch, z, prior, mu, cov)
	k := headKernels
	b.headRun(op, k.dw, l, n*d, 0, 0, 0, scratch, ddelta)
	b.headRun(op, k.dm, l, c*d, 0, 0, 0, scratch, ddelta)
	b.headRun(op, k.applyAT, l, n*d, n, l.dw, 0, dz, scratch)
	b.headRun(op, k.applyAT, l, c*d, c, l.dm, 0, dmu, scratch)
	if kind == kernels.Full {
		b.headRun(op, k.dA, l, d*d, 0, 0, 0, scratch, z, mu)
		b.headRun(op, k.t, l, d*d, 0, 0, 0, scratch)
	} else {
		b.headRun(op, k.dA, l, d, 0, 0, 0, scratch, z, mu)
	}
	b.headRun(op, k.finish, l, max(c, l.covLen), 0, 0, 0, dprior, dcov, scratch, cov)
}
