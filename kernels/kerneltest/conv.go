package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// convCases are the convolution geometries: 3x3, pad 1, stride 1 with odd
// channel counts; 3x3 stride-2 unpadded ones whose last input column is
// outside every window (Conv2DBackwardData must write zeros there); 1x1,
// 2x2, 4x4 (stride 3), 5x5 (stride 2, pad 2) and 7x7 filters, the last
// larger than its 5x5 input; a single pixel; channel counts of 64 and
// either side of the usual tile sizes (up to 127 and 129); and one whose
// filter gradient reduces over 2,700 terms, which the WebGPU backend splits
// into chunks of 912 with a shorter last one.
var convCases = []ref.Conv{
	{N: 2, Ci: 3, H: 7, W: 7, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 8, W: 9, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 28, W: 28, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 7, W: 7, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 8, W: 9, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 28, W: 28, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 4, Ci: 16, H: 14, W: 14, Co: 16, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 64, H: 8, W: 8, Co: 64, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 17, W: 15, Co: 129, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 5, H: 9, W: 8, Co: 7, K: 3, Stride: 2, Pad: 0},
	{N: 3, Ci: 17, H: 8, W: 7, Co: 33, K: 3, Stride: 2, Pad: 0},
	{N: 1, Ci: 65, H: 9, W: 13, Co: 127, K: 3, Stride: 1, Pad: 0},
	{N: 1, Ci: 1, H: 1, W: 1, Co: 1, K: 1, Stride: 1, Pad: 0},
	{N: 1, Ci: 4, H: 6, W: 6, Co: 65, K: 1, Stride: 1, Pad: 0},
	{N: 3, Ci: 127, H: 5, W: 6, Co: 63, K: 1, Stride: 2, Pad: 0},
	{N: 1, Ci: 2, H: 10, W: 10, Co: 3, K: 2, Stride: 2, Pad: 0},
	{N: 1, Ci: 33, H: 12, W: 12, Co: 17, K: 4, Stride: 3, Pad: 1},
	{N: 2, Ci: 5, H: 11, W: 10, Co: 3, K: 5, Stride: 2, Pad: 2},
	{N: 2, Ci: 7, H: 5, W: 5, Co: 6, K: 7, Stride: 1, Pad: 3},
	{N: 3, Ci: 2, H: 30, W: 30, Co: 3, K: 3, Stride: 1, Pad: 1},
}

// convViewCase is the geometry of the convolutions whose operands are views.
var convViewCase = ref.Conv{N: 2, Ci: 17, H: 8, W: 9, Co: 33, K: 3, Stride: 1, Pad: 1}

func convName(g ref.Conv) string {
	return fmt.Sprintf("N%d,Ci%d,H%d,W%d,Co%d,K%d,s%d,p%d", g.N, g.Ci, g.H, g.W, g.Co, g.K, g.Stride, g.Pad)
}

func convSetup(g ref.Conv) (ref.Conv, kernels.ConvParams, []int, []int, []int) {
	p := kernels.ConvParams{Stride: g.Stride, Pad: g.Pad}
	g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
	return g, p, []int{g.N, g.Ci, g.H, g.W}, []int{g.Co, g.Ci, g.K, g.K}, []int{g.N, g.Co, g.Ho, g.Wo}
}

// convWeights returns w[Co,Ci,K,K] in N(0, 1/(Ci*K*K)), so that the
// convolution of N(0,1) values is about N(0,1) too.
func convWeights(e *env, g ref.Conv) []float32 {
	return e.normal(g.Co*g.Ci*g.K*g.K, 0, 1/math.Sqrt(float64(g.Ci*g.K*g.K)))
}

// testConv2D checks the forward convolution, with and without bias, and
// with every operand a view. Each output sums at most Ci*K*K = 585
// products.
func testConv2D(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g := range convCases {
		for _, withBias := range []bool{false, true} {
			name := convName(g)
			if withBias {
				name += "+bias"
			}
			t.Run(name, func(t *testing.T) { checkConv2D(newEnv(t, b, tol), g, withBias) })
		}
	}
	t.Run("views/"+convName(convViewCase)+"+bias", func(t *testing.T) { checkConv2D(newViewEnv(t, b, tol), convViewCase, true) })
}

// checkConv2D runs one case of Conv2D in e (its operands views when e has views) and compares the outputs with package ref's.
func checkConv2D(e *env, g0 ref.Conv, withBias bool) {
	g, p, xs, ws, ys := convSetup(g0)
	xd, wd := e.normal(kernels.Numel(xs), 0, 1), convWeights(e, g)
	args := []arg{{"x", xd, xs}, {"w", wd, ws}}
	var bd []float32
	if withBias {
		bd = e.normal(g.Co, 0, 1)
		args = append(args, arg{"bias", bd, []int{g.Co}})
	}
	ins := e.ins(args...)
	var bias kernels.Tensor
	if withBias {
		bias = ins[2]
	}
	y := e.out(ys...)
	e.desc = fmt.Sprintf("Conv2D(x %v, w %v, bias %v, %+v, views %v)", xs, ws, withBias, p, e.views)
	e.b.Conv2D(y, ins[0], ins[1], bias, p)
	want := make([]float64, kernels.Numel(ys))
	ref.Conv2D(want, F64(xd), F64(wd), F64(bd), g)
	e.check("y", y, want)
	e.unchanged()
}

// testConv2DBackwardData checks dx = the transposed convolution of dy, and
// with every operand a view; each element sums at most Co*K*K = 1161
// products.
func testConv2DBackwardData(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g := range convCases {
		t.Run(convName(g), func(t *testing.T) { checkConv2DBackwardData(newEnv(t, b, tol), g) })
	}
	t.Run("views/"+convName(convViewCase), func(t *testing.T) { checkConv2DBackwardData(newViewEnv(t, b, tol), convViewCase) })
}

// checkConv2DBackwardData runs one case of Conv2DBackwardData in e (its operands views when e has views) and compares the outputs with package ref's.
func checkConv2DBackwardData(e *env, g0 ref.Conv) {
	g, p, xs, ws, ys := convSetup(g0)
	dyd, wd := e.normal(kernels.Numel(ys), 0, 1), convWeights(e, g)
	ins := e.ins(arg{"dy", dyd, ys}, arg{"w", wd, ws})
	dx := e.out(xs...)
	e.desc = fmt.Sprintf("Conv2DBackwardData(dy %v, w %v, %+v, views %v)", ys, ws, p, e.views)
	e.b.Conv2DBackwardData(dx, ins[0], ins[1], p)
	want := make([]float64, kernels.Numel(xs))
	ref.Conv2DBackwardData(want, F64(dyd), F64(wd), g)
	e.check("dx", dx, want)
	e.unchanged()
}

// testConv2DBackwardFilter checks dw = the correlation of dy with x over the
// batch, and with every operand a view; each element sums N*Ho*Wo products,
// up to 2,700, the longest sums of the convolution tests.
func testConv2DBackwardFilter(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, g := range convCases {
		t.Run(convName(g), func(t *testing.T) { checkConv2DBackwardFilter(newEnv(t, b, tol), g) })
	}
	t.Run("views/"+convName(convViewCase), func(t *testing.T) { checkConv2DBackwardFilter(newViewEnv(t, b, tol), convViewCase) })
}

// checkConv2DBackwardFilter runs one case of Conv2DBackwardFilter in e (its operands views when e has views) and compares the outputs with package ref's.
func checkConv2DBackwardFilter(e *env, g0 ref.Conv) {
	g, p, xs, ws, ys := convSetup(g0)
	dyd, xd := e.normal(kernels.Numel(ys), 0, 1), e.normal(kernels.Numel(xs), 0, 1)
	ins := e.ins(arg{"dy", dyd, ys}, arg{"x", xd, xs})
	dw := e.out(ws...)
	e.desc = fmt.Sprintf("Conv2DBackwardFilter(dy %v, x %v, %+v, views %v)", ys, xs, p, e.views)
	e.b.Conv2DBackwardFilter(dw, ins[0], ins[1], p)
	want := make([]float64, kernels.Numel(ws))
	ref.Conv2DBackwardFilter(want, F64(dyd), F64(xd), g)
	e.check("dw", dw, want)
	e.unchanged()
}
