package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// The convolution cases: 3x3, pad 1, stride 1 with odd channel counts,
// one 3x3 stride-2 unpadded case whose last input column is outside every
// window (Conv2DBackwardData must write zeros there), and one whose filter
// gradient reduces over 2,700 terms, which the WebGPU backend splits into
// chunks of 912 with a shorter last one.
var convCases = []ref.Conv{
	{N: 2, Ci: 3, H: 7, W: 7, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 8, W: 9, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 28, W: 28, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 7, W: 7, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 8, W: 9, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 28, W: 28, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 5, H: 9, W: 8, Co: 7, K: 3, Stride: 2, Pad: 0},
	{N: 3, Ci: 2, H: 30, W: 30, Co: 3, K: 3, Stride: 1, Pad: 1},
}

func convName(g ref.Conv) string {
	return fmt.Sprintf("N%d,Ci%d,H%d,W%d,Co%d,K%d,s%d,p%d", g.N, g.Ci, g.H, g.W, g.Co, g.K, g.Stride, g.Pad)
}

func convSetup(g ref.Conv) (ref.Conv, kernels.ConvParams, []int, []int, []int) {
	p := kernels.ConvParams{Stride: g.Stride, Pad: g.Pad}
	g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
	return g, p, []int{g.N, g.Ci, g.H, g.W}, []int{g.Co, g.Ci, g.K, g.K}, []int{g.N, g.Co, g.Ho, g.Wo}
}

// testConv2D checks the forward convolution, with and without bias. The
// weights are scaled by 1/sqrt(Ci*K*K) so that |y| is about 1; each output
// sums at most Ci*K*K = 153 products.
func testConv2D(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g0 := range convCases {
		for _, withBias := range []bool{false, true} {
			name := convName(g0)
			if withBias {
				name += "+bias"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, b, tol)
				g, p, xs, ws, ys := convSetup(g0)
				xd := e.normal(kernels.Numel(xs), 0, 1)
				wd := e.normal(kernels.Numel(ws), 0, 1/math.Sqrt(float64(g.Ci*g.K*g.K)))
				x, w := e.in("x", xd, xs...), e.in("w", wd, ws...)
				var bias kernels.Tensor
				var biasw []float64
				if withBias {
					bd := e.normal(g.Co, 0, 1)
					bias, biasw = e.in("bias", bd, g.Co), F64(bd)
				}
				y := e.out(ys...)
				e.desc = fmt.Sprintf("Conv2D(x %v, w %v, bias %v, %+v)", xs, ws, withBias, p)
				b.Conv2D(y, x, w, bias, p)
				want := make([]float64, kernels.Numel(ys))
				ref.Conv2D(want, F64(xd), F64(wd), biasw, g)
				e.check("y", y, want)
				e.unchanged()
			})
		}
	}
}

// testConv2DBackwardData checks dx = the transposed convolution of dy; each
// element sums at most Co*K*K = 297 products.
func testConv2DBackwardData(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g0 := range convCases {
		t.Run(convName(g0), func(t *testing.T) {
			e := newEnv(t, b, tol)
			g, p, xs, ws, ys := convSetup(g0)
			dyd := e.normal(kernels.Numel(ys), 0, 1)
			wd := e.normal(kernels.Numel(ws), 0, 1/math.Sqrt(float64(g.Ci*g.K*g.K)))
			dy, w := e.in("dy", dyd, ys...), e.in("w", wd, ws...)
			dx := e.out(xs...)
			e.desc = fmt.Sprintf("Conv2DBackwardData(dy %v, w %v, %+v)", ys, ws, p)
			b.Conv2DBackwardData(dx, dy, w, p)
			want := make([]float64, kernels.Numel(xs))
			ref.Conv2DBackwardData(want, F64(dyd), F64(wd), g)
			e.check("dx", dx, want)
			e.unchanged()
		})
	}
}

// testConv2DBackwardFilter checks dw = the correlation of dy with x over the
// batch; each element sums up to N*Ho*Wo = 1568 products, the longest sums
// of the convolution tests.
func testConv2DBackwardFilter(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g0 := range convCases {
		t.Run(convName(g0), func(t *testing.T) {
			e := newEnv(t, b, tol)
			g, p, xs, ws, ys := convSetup(g0)
			dyd := e.normal(kernels.Numel(ys), 0, 1)
			xd := e.normal(kernels.Numel(xs), 0, 1)
			dy, x := e.in("dy", dyd, ys...), e.in("x", xd, xs...)
			dw := e.out(ws...)
			e.desc = fmt.Sprintf("Conv2DBackwardFilter(dy %v, x %v, %+v)", ys, xs, p)
			b.Conv2DBackwardFilter(dw, dy, x, p)
			want := make([]float64, kernels.Numel(ws))
			ref.Conv2DBackwardFilter(want, F64(dyd), F64(xd), g)
			e.check("dw", dw, want)
			e.unchanged()
		})
	}
}
