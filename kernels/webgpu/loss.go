package webgpu

import "github.com/deeplda/deeplda/kernels"

// lossKernels are the entry points of loss.wgsl: with and without the
// gradient output.
var lossKernels = struct{ stats, grad kernel }{
	stats: kernel{File: "loss.wgsl", Entry: "loss", Slots: []slot{out(2), in(3), in(4)}},
	grad:  kernel{File: "loss.wgsl", Entry: "loss_grad", Slots: []slot{out(1), out(2), in(3), in(4)}},
}

// Loss adds the batch's loss sum, correct count and size to stats and, when
// dscores is not nil, writes the gradient of the batch-mean loss with
// respect to scores[N,C] (see ref.Loss). step is recorded in
// stats[StatBadStep] if the loss sum is not finite and the slot is
// negative. One workgroup loops over the rows and reduces them, so the sums
// are right for any N; labels must lie in [0, C).
func (b *Backend) Loss(dscores, stats, scores, y kernels.Tensor, kind kernels.LossKind, lambda float32, step int) {
	n, c := kernels.LossDims(dscores, stats, scores, y, kind)
	p := params{}.u(n, c, int(kind)).f(lambda, float32(step), float32(n))
	if dscores == nil {
		b.dispatch("Loss", lossKernels.stats, groups{1, 1, 1}, p, stats, scores, y)
		return
	}
	b.dispatch("Loss", lossKernels.grad, groups{1, 1, 1}, p, dscores, stats, scores, y)
}
