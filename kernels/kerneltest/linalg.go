package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// matMulSizes are the M×N×K of the MatMul subtests: extents on both sides
// of the usual tile sizes (64 and its divisors), degenerate vectors and a few
// odd, thin shapes, rather than the full cube of {1,63,64,65,127,129}^3 (the
// largest here is 4 MFLOP; all of them, over the transpositions and bias
// variants, about 0.05 GFLOP).
var matMulSizes = [][3]int{
	{1, 1, 1},
	{1, 64, 63},
	{63, 1, 65},
	{64, 64, 64},
	{65, 63, 129},
	{63, 129, 127},
	{127, 65, 1},
	{129, 127, 64},
	{129, 1, 129},
	{1, 127, 65},
	{3, 257, 31},
	{257, 31, 3},
	{31, 3, 257},
}

// testMatMul checks c = op(a) op(b) (+ bias) for the four transpositions,
// with and without bias. Inputs are N(0,1), so |c| is about sqrt(k); the
// float32 sums of k <= 257 products are within about 1e-6 of max|c|.
func testMatMul(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		tA, tB := tr[0], tr[1]
		t.Run(fmt.Sprintf("tA=%v,tB=%v", tA, tB), func(t *testing.T) {
			for _, s := range matMulSizes {
				for _, withBias := range []bool{false, true} {
					name := dimsName(s[:]...)
					if withBias {
						name += "+bias"
					}
					t.Run(name, func(t *testing.T) {
						checkMatMul(newEnv(t, b, tol), s[0], s[1], s[2], tA, tB, withBias)
					})
				}
			}
		})
	}
}

// matMulShapes returns the stored shapes of a and b.
func matMulShapes(m, n, k int, tA, tB bool) (as, bs []int) {
	as, bs = []int{m, k}, []int{k, n}
	if tA {
		as = []int{k, m}
	}
	if tB {
		bs = []int{n, k}
	}
	return as, bs
}

func checkMatMul(e *env, m, n, k int, tA, tB, withBias bool) {
	as, bs := matMulShapes(m, n, k, tA, tB)
	ad, bd := e.normal(m*k, 0, 1), e.normal(k*n, 0, 1)
	a, bm := e.in("a", ad, as...), e.in("b", bd, bs...)
	var bias kernels.Tensor
	var biasd []float32
	if withBias {
		biasd = e.normal(n, 0, 1)
		bias = e.in("bias", biasd, n)
	}
	c := e.out(m, n)
	e.desc = fmt.Sprintf("MatMul(c [%d %d], a %v, b %v, bias %v, transA %v, transB %v)", m, n, as, bs, withBias, tA, tB)
	e.b.MatMul(c, a, bm, bias, tA, tB)
	want := make([]float64, m*n)
	var biasw []float64
	if withBias {
		biasw = f64(biasd)
	}
	ref.MatMul(want, f64(ad), f64(bd), biasw, m, n, k, tA, tB)
	e.check("c", c, want)
	e.unchanged()
}

// testBiasGrad checks db[c] = sum of dy[n,c,...] for 2-D and 4-D dy.
func testBiasGrad(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range [][]int{{1, 7}, {65, 33}, {129, 10}, {2, 33, 7, 7}, {3, 5, 8, 9}, {64, 17, 2, 2}} {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			e.desc = fmt.Sprintf("BiasGrad(dy %v)", shape)
			dyd := e.normal(kernels.Numel(shape), 0.3, 1)
			dy := e.in("dy", dyd, shape...)
			db := e.out(shape[1])
			b.BiasGrad(db, dy)
			want := make([]float64, shape[1])
			ref.BiasGrad(want, f64(dyd), shape[0], shape[1], kernels.Numel(shape[2:]))
			e.check("db", db, want)
			e.unchanged()
		})
	}
}

// The convolution cases: 3x3, pad 1, stride 1 with odd channel counts, and
// one 3x3 stride-2 unpadded case whose last input column is outside every
// window (Conv2DBackwardData must write zeros there).
var convCases = []ref.Conv{
	{N: 2, Ci: 3, H: 7, W: 7, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 8, W: 9, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 3, H: 28, W: 28, Co: 5, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 7, W: 7, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 8, W: 9, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 17, H: 28, W: 28, Co: 33, K: 3, Stride: 1, Pad: 1},
	{N: 2, Ci: 5, H: 9, W: 8, Co: 7, K: 3, Stride: 2, Pad: 0},
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
					bias, biasw = e.in("bias", bd, g.Co), f64(bd)
				}
				y := e.out(ys...)
				e.desc = fmt.Sprintf("Conv2D(x %v, w %v, bias %v, %+v)", xs, ws, withBias, p)
				b.Conv2D(y, x, w, bias, p)
				want := make([]float64, kernels.Numel(ys))
				ref.Conv2D(want, f64(xd), f64(wd), biasw, g)
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
			ref.Conv2DBackwardData(want, f64(dyd), f64(wd), g)
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
			ref.Conv2DBackwardFilter(want, f64(dyd), f64(xd), g)
			e.check("dw", dw, want)
			e.unchanged()
		})
	}
}
