package webgpu

import "github.com/deeplda/deeplda/kernels"

// The kernels of shaders/batchnorm.wgsl (see its header for the bindings).
var batchNorm = struct {
	stats, statsFinish, apply, eval, backwardReduce, backwardFinish, backwardDx, channelSum, channelSumFinish kernel
}{
	stats:          kernel{File: "batchnorm.wgsl", Entry: "bn_stats", Slots: []slot{out(9), in(10)}},
	statsFinish:    kernel{File: "batchnorm.wgsl", Entry: "bn_stats_finish", Slots: []slot{out(1), out(2), out(3), out(4), in(20)}},
	apply:          kernel{File: "batchnorm.wgsl", Entry: "bn_apply", Slots: []slot{out(5), in(10), in(11), in(12), in(13), in(14)}},
	eval:           kernel{File: "batchnorm.wgsl", Entry: "bn_eval", Slots: []slot{out(5), in(10), in(11), in(12), in(15), in(16)}},
	backwardReduce: kernel{File: "batchnorm.wgsl", Entry: "bn_backward_reduce", Slots: []slot{out(9), in(17), in(10), in(13), in(14)}},
	backwardFinish: kernel{File: "batchnorm.wgsl", Entry: "bn_backward_finish", Slots: []slot{out(6), out(7), in(20)}},
	backwardDx:     kernel{File: "batchnorm.wgsl", Entry: "bn_backward_dx", Slots: []slot{out(8), in(17), in(10), in(11), in(13), in(14), in(18), in(19)}},
	// The bias gradient: a sum per channel.
	channelSum:       kernel{File: "batchnorm.wgsl", Entry: "channel_sum", Slots: []slot{out(9), in(17)}},
	channelSumFinish: kernel{File: "batchnorm.wgsl", Entry: "channel_sum_finish", Slots: []slot{out(7), in(20)}},
}

// The segments of the per-channel reductions (batchnorm.wgsl's header):
// at least bnMinSegment values each, and no more than bring a dispatch to
// bnGroups workgroups.
const (
	bnMinSegment = 4096
	bnGroups     = 1024
)

// bnShape is the geometry of a batch normalisation of x[N,C,...] and the
// segments of its reductions.
type bnShape struct {
	n, c, hw     int
	segs, segLen int
}

// bnCheck checks the operands of op (kernels.BatchNormDims) and returns
// the geometry of x[N,C,...].
func bnCheck(op string, x kernels.Tensor, full, perChannel []kernels.Tensor) bnShape {
	n, c, hw := kernels.BatchNormDims(op, x, full, perChannel)
	return bnShape{n: n, c: c, hw: hw}.segmented()
}

// segmented returns g with the segments of its reductions set.
func (g bnShape) segmented() bnShape {
	g.segs, g.segLen = 1, g.n*g.hw
	if m := g.n * g.hw; g.c > 0 && m > 0 {
		g.segs = max(1, min((m+bnMinSegment-1)/bnMinSegment, bnGroups/g.c))
		g.segLen = (m + g.segs - 1) / g.segs
		g.segs = (m + g.segLen - 1) / g.segLen
	}
	return g
}

// params returns the uniform block of a batch-norm dispatch whose grid has
// row workgroups per row.
func (g bnShape) params(row int, momentum, eps float32) params {
	return params{}.u(g.n, g.c, g.hw, g.n*g.c*g.hw, row).f(float32(g.n*g.hw), momentum, eps).u(g.segs, g.segLen)
}

// bnReduce dispatches the per-segment reduction k (one workgroup per
// segment of each channel, into the backend's scratch) and then finish
// (one invocation per channel), which writes the per-channel results ts.
func (b *Backend) bnReduce(op string, k, finish kernel, g bnShape, momentum, eps float32, in []kernels.Tensor, ts ...kernels.Tensor) {
	if g.c == 0 || g.n*g.hw == 0 {
		return
	}
	// c*segs <= max(c, bnGroups): sized for every layer of a model at once
	// (bind groups, cached by buffer, are then made in the first step only).
	parts := b.grow(&b.bnScratch, 2*max(g.c, bnGroups))
	grp, row := grid(g.c * g.segs)
	b.dispatch(op, k, grp, g.params(row, momentum, eps), append([]kernels.Tensor{parts}, in...)...)
	grp, row = grid((g.c + 255) / 256)
	b.dispatch(op, finish, grp, g.params(row, momentum, eps), append(ts, parts)...)
}

// bnElementwise dispatches k with one invocation per element of x.
func (b *Backend) bnElementwise(op string, k kernel, g bnShape, eps float32, ts ...kernels.Tensor) {
	total := g.n * g.c * g.hw
	if total == 0 {
		return
	}
	grp, row := grid((total + 255) / 256)
	b.dispatch(op, k, grp, g.params(row, 0, eps), ts...)
}

// BatchNormTrain normalises x[N,C,...] with its batch statistics: one
// workgroup per segment of each channel computes the segment's mean, then
// its centred sum of squares (two passes, as package ref does); one
// invocation per channel combines them, writes mean and invStd and updates
// the running estimates; an elementwise dispatch then writes
// y = x alpha + shift with alpha = invStd gamma and shift = beta - mean alpha.
func (b *Backend) BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar kernels.Tensor, momentum, eps float32) {
	const op = "BatchNormTrain"
	g := bnCheck(op, x, []kernels.Tensor{y}, []kernels.Tensor{mean, invStd, gamma, beta, runMean, runVar})
	b.bnReduce(op, batchNorm.stats, batchNorm.statsFinish, g, momentum, eps, []kernels.Tensor{x}, mean, invStd, runMean, runVar)
	b.bnElementwise(op, batchNorm.apply, g, eps, y, x, gamma, beta, mean, invStd)
}

// BatchNormEval normalises x with the running estimates:
// y = x alpha + shift with alpha = gamma / sqrt(runVar + eps) and
// shift = beta - runMean alpha.
func (b *Backend) BatchNormEval(y, x, gamma, beta, runMean, runVar kernels.Tensor, eps float32) {
	const op = "BatchNormEval"
	g := bnCheck(op, x, []kernels.Tensor{y}, []kernels.Tensor{gamma, beta, runMean, runVar})
	b.bnElementwise(op, batchNorm.eval, g, eps, y, x, gamma, beta, runMean, runVar)
}

// BatchNormBackward computes the gradients of BatchNormTrain: one workgroup
// per segment of each channel sums dy and dy xhat, one invocation per
// channel adds the segments' sums into dbeta and dgamma, then an
// elementwise dispatch writes dx = gamma invStd / m (m dy - dbeta - xhat dgamma).
func (b *Backend) BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd kernels.Tensor) {
	const op = "BatchNormBackward"
	g := bnCheck(op, x, []kernels.Tensor{dx, dy}, []kernels.Tensor{dgamma, dbeta, gamma, mean, invStd})
	b.bnReduce(op, batchNorm.backwardReduce, batchNorm.backwardFinish, g, 0, 0, []kernels.Tensor{dy, x, mean, invStd}, dgamma, dbeta)
	b.bnElementwise(op, batchNorm.backwardDx, g, 0, dx, dy, x, gamma, mean, invStd, dgamma, dbeta)
}

// BiasGrad computes db[c] = sum of dy[n, c, ...] over n and the trailing
// dimensions, with BatchNorm's segmented per-channel reduction (dy has
// the layout of x[N,C,...]).
func (b *Backend) BiasGrad(db, dy kernels.Tensor) {
	outer, ch, inner := kernels.BiasGradDims(db, dy)
	gemmDisjoint("BiasGrad", db, dy)
	if ch == 0 {
		return
	}
	if outer*inner == 0 {
		b.Fill(db, 0) // nothing to sum
		return
	}
	g := bnShape{n: outer, c: ch, hw: inner}.segmented()
	b.bnReduce("BiasGrad", batchNorm.channelSum, batchNorm.channelSumFinish, g, 0, 0, []kernels.Tensor{dy}, db)
}
