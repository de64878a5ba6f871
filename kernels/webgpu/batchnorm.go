package webgpu

import "github.com/deeplda/deeplda/kernels"

// The kernels of shaders/batchnorm.wgsl (see its header for the bindings).
var batchNorm = struct {
	stats, apply, eval, backwardReduce, backwardDx kernel
}{
	stats:          kernel{"batchnorm.wgsl", "bn_stats", []slot{out(1), out(2), out(3), out(4), in(10)}},
	apply:          kernel{"batchnorm.wgsl", "bn_apply", []slot{out(5), in(10), in(11), in(12), in(13), in(14)}},
	eval:           kernel{"batchnorm.wgsl", "bn_eval", []slot{out(5), in(10), in(11), in(12), in(15), in(16)}},
	backwardReduce: kernel{"batchnorm.wgsl", "bn_backward_reduce", []slot{out(6), out(7), in(17), in(10), in(13), in(14)}},
	backwardDx:     kernel{"batchnorm.wgsl", "bn_backward_dx", []slot{out(8), in(17), in(10), in(11), in(13), in(14), in(18), in(19)}},
}

// bnShape is the geometry of a batch normalisation of x[N,C,...].
type bnShape struct {
	n, c, hw int
}

// bnCheck checks the operands of op (kernels.BatchNormDims) and returns
// the geometry of x[N,C,...].
func bnCheck(op string, x kernels.Tensor, full, perChannel []kernels.Tensor) bnShape {
	n, c, hw := kernels.BatchNormDims(op, x, full, perChannel)
	return bnShape{n, c, hw}
}

// params returns the uniform block of a batch-norm dispatch whose grid has
// row workgroups per row.
func (g bnShape) params(row int, momentum, eps float32) params {
	return params{}.u(g.n, g.c, g.hw, g.n*g.c*g.hw, row).f(float32(g.n*g.hw), momentum, eps)
}

// perChannel dispatches k with one workgroup per channel.
func (b *Backend) bnPerChannel(op string, k kernel, g bnShape, momentum, eps float32, ts ...kernels.Tensor) {
	if g.c == 0 {
		return
	}
	grp, row := grid(g.c)
	b.dispatch(op, k, grp, g.params(row, momentum, eps), ts...)
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
// workgroup per channel computes the mean, then the centred variance (two
// passes over x, as package ref does), writes mean and invStd and updates
// the running estimates; an elementwise dispatch then writes
// y = x alpha + shift with alpha = invStd gamma and shift = beta - mean alpha.
func (b *Backend) BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar kernels.Tensor, momentum, eps float32) {
	const op = "BatchNormTrain"
	g := bnCheck(op, x, []kernels.Tensor{y}, []kernels.Tensor{mean, invStd, gamma, beta, runMean, runVar})
	b.bnPerChannel(op, batchNorm.stats, g, momentum, eps, mean, invStd, runMean, runVar, x)
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
// per channel sums dbeta = sum dy and dgamma = sum dy xhat, then an
// elementwise dispatch writes dx = gamma invStd / m (m dy - dbeta - xhat dgamma).
func (b *Backend) BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd kernels.Tensor) {
	const op = "BatchNormBackward"
	g := bnCheck(op, x, []kernels.Tensor{dx, dy}, []kernels.Tensor{dgamma, dbeta, gamma, mean, invStd})
	b.bnPerChannel(op, batchNorm.backwardReduce, g, 0, 0, dgamma, dbeta, dy, x, mean, invStd)
	b.bnElementwise(op, batchNorm.backwardDx, g, 0, dx, dy, x, gamma, mean, invStd, dgamma, dbeta)
}
