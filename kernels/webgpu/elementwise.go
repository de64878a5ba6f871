package webgpu

import "github.com/deeplda/deeplda/kernels"

// elementwise holds the kernels of elementwise.wgsl, for Fill, ReLU and
// ReLUBackward.
var elementwise = struct {
	fill, relu, reluInplace, reluBackward, reluBackwardInplace kernel
}{
	fill:                kernel{File: "elementwise.wgsl", Entry: "fill", Slots: []slot{out(1)}},
	relu:                kernel{File: "elementwise.wgsl", Entry: "relu", Slots: []slot{out(1), in(2)}},
	reluInplace:         kernel{File: "elementwise.wgsl", Entry: "relu_inplace", Slots: []slot{out(1)}},
	reluBackward:        kernel{File: "elementwise.wgsl", Entry: "relu_backward", Slots: []slot{out(1), in(2), in(3)}},
	reluBackwardInplace: kernel{File: "elementwise.wgsl", Entry: "relu_backward_inplace", Slots: []slot{out(1), in(3)}},
}

// flat dispatches an elementwise kernel over n elements.
func (b *Backend) flat(op string, k kernel, n int, value float32, ts ...kernels.Tensor) {
	if n == 0 {
		return
	}
	g, row := grid((n + 255) / 256)
	b.dispatch(op, k, g, params{}.u(n, row).f(value), ts...)
}

// Fill sets every element of t to v.
func (b *Backend) Fill(t kernels.Tensor, v float32) {
	b.flat("Fill", elementwise.fill, kernels.Len(t), v, t)
}

// same reports whether two tensors are the same memory.
func same(a, c kernels.Tensor) bool {
	x, y := gt(a), gt(c)
	return x.buf == y.buf && x.offset == y.offset
}

// ReLU computes y = max(x, 0), in place when y is x.
func (b *Backend) ReLU(y, x kernels.Tensor) {
	kernels.SameSizeDims("ReLU", y, x)
	if same(y, x) {
		b.flat("ReLU", elementwise.reluInplace, kernels.Len(y), 0, y)
		return
	}
	b.flat("ReLU", elementwise.relu, kernels.Len(y), 0, y, x)
}

// ReLUBackward computes dx = dy where y > 0, in place when dx is dy.
func (b *Backend) ReLUBackward(dx, dy, y kernels.Tensor) {
	kernels.SameSizeDims("ReLUBackward", dx, dy, y)
	if same(dx, dy) {
		b.flat("ReLUBackward", elementwise.reluBackwardInplace, kernels.Len(y), 0, dx, y)
		return
	}
	b.flat("ReLUBackward", elementwise.reluBackward, kernels.Len(y), 0, dx, dy, y)
}
