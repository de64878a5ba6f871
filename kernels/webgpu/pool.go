package webgpu

import (
	"github.com/deeplda/deeplda/kernels"
)

// The kernels of shaders/pool.wgsl (see its header for the bindings).
var pooling = struct {
	max2, max2Backward, avg, avgWG, avgBackward kernel
}{
	max2:         kernel{File: "pool.wgsl", Entry: "max_pool2", Slots: []slot{out(1), in(10)}},
	max2Backward: kernel{File: "pool.wgsl", Entry: "max_pool2_backward", Slots: []slot{out(2), in(11), in(10)}},
	avg:          kernel{File: "pool.wgsl", Entry: "global_avg_pool", Slots: []slot{out(1), in(10)}},
	avgWG:        kernel{File: "pool.wgsl", Entry: "global_avg_pool_wg", Slots: []slot{out(1), in(10)}},
	avgBackward:  kernel{File: "pool.wgsl", Entry: "global_avg_pool_backward", Slots: []slot{out(2), in(11)}},
}

// avgPoolWGMin is the plane size from which GlobalAvgPool sums each plane
// with a workgroup rather than one invocation.
const avgPoolWGMin = 256

// poolParams packs the uniform block of shaders/pool.wgsl for images of
// h x w and a dispatch of total invocations (or planes).
func poolParams(total, row, h, w int) params {
	return params{}.u(total, row, h, w, h/2, w/2, h*w).f(float32(h * w))
}

// poolFlat dispatches k with one invocation per unit of work (total of them).
func (b *Backend) poolFlat(op string, k kernel, total, h, w int, ts ...kernels.Tensor) {
	if total == 0 {
		return
	}
	g, row := grid((total + 255) / 256)
	b.dispatch(op, k, g, poolParams(total, row, h, w), ts...)
}

// MaxPool2 computes the 2x2, stride 2 max pool of x[N,C,H,W] into
// y[N,C,H/2,W/2] (floor mode), one invocation per output. Ties go to the
// first maximum in window order.
func (b *Backend) MaxPool2(y, x kernels.Tensor) {
	xs := kernels.MaxPool2Dims("MaxPool2", y, x, nil)
	h, w := xs[2], xs[3]
	b.poolFlat("MaxPool2", pooling.max2, xs[0]*xs[1]*(h/2)*(w/2), h, w, y, x)
}

// MaxPool2Backward routes dy to the first maximum of each window of x and
// writes zeros everywhere else in dx (including the last row and column when
// H or W is odd), one invocation per window of the ceil(H/2) x ceil(W/2)
// grid.
func (b *Backend) MaxPool2Backward(dx, dy, x kernels.Tensor) {
	xs := kernels.MaxPool2Dims("MaxPool2Backward", dy, x, dx)
	n, c, h, w := xs[0], xs[1], xs[2], xs[3]
	if kernels.Len(dx) == 0 {
		return
	}
	if kernels.Len(dy) == 0 { // H or W is 1: no window, nothing routed
		b.Fill(dx, 0)
		return
	}
	b.poolFlat("MaxPool2Backward", pooling.max2Backward, n*c*((h+1)/2)*((w+1)/2), h, w, dx, dy, x)
}

// GlobalAvgPool computes y[N,C] as the mean of x[N,C,H,W] over H and W: one
// invocation per plane summing in order, or one workgroup per plane when the
// planes are large.
func (b *Backend) GlobalAvgPool(y, x kernels.Tensor) {
	xs := kernels.GlobalAvgPoolDims("GlobalAvgPool", y, x)
	nc, h, w := xs[0]*xs[1], xs[2], xs[3]
	if nc == 0 {
		return
	}
	if h*w >= avgPoolWGMin {
		g, row := grid(nc)
		b.dispatch("GlobalAvgPool", pooling.avgWG, g, poolParams(nc, row, h, w), y, x)
		return
	}
	b.poolFlat("GlobalAvgPool", pooling.avg, nc, h, w, y, x)
}

// GlobalAvgPoolBackward spreads dy[N,C] evenly over dx[N,C,H,W]:
// dx = dy / (H W), one invocation per element of dx.
func (b *Backend) GlobalAvgPoolBackward(dx, dy kernels.Tensor) {
	xs := kernels.GlobalAvgPoolDims("GlobalAvgPoolBackward", dy, dx)
	b.poolFlat("GlobalAvgPoolBackward", pooling.avgBackward, kernels.Len(dx), xs[2], xs[3], dx, dy)
}
