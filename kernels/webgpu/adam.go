package webgpu

import (
	"math"

	"github.com/deeplda/deeplda/kernels"
)

var adamKernel = kernel{File: "adam.wgsl", Entry: "adam", Slots: []slot{out(1), out(2), out(3), in(4)}}

// Adam updates param in place from grad with the moments m and v, in one
// fused elementwise dispatch. The bias corrections are computed in float64
// on the host, as PyTorch does with Python floats, and the scalars reach the
// shader as float32, as PyTorch converts them for float32 tensors.
func (b *Backend) Adam(param, grad, m, v kernels.Tensor, p kernels.AdamParams) {
	n := kernels.SameSizeDims("Adam", param, grad, m, v)
	if n == 0 {
		return
	}
	bc1 := 1 - math.Pow(p.Beta1, float64(p.Step))
	bc2 := 1 - math.Pow(p.Beta2, float64(p.Step))
	g, row := grid((n + 255) / 256)
	b.dispatch("Adam", adamKernel, g, params{}.u(n, row).f(
		float32(p.Beta1), float32(1-p.Beta1), float32(p.Beta2), float32(1-p.Beta2),
		float32(p.LR/bc1), float32(math.Sqrt(bc2)), float32(p.Eps)), param, m, v, grad)
	b.stepDone()
}
