package kerneltest

import (
	"fmt"
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

// transposes are the four (transA, transB) of MatMul.
var transposes = [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}

// testMatMul checks c = op(a) op(b) (+ bias) for the four transpositions,
// with and without bias, and with every operand a view (a 65x63x33 product
// with bias for each transposition). Inputs are N(0,1), so |c| is about
// sqrt(k); the float32 sums of k <= 257 products are within about 1e-6 of
// max|c|.
func testMatMul(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, tr := range transposes {
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
			t.Run("views/65x63x33+bias", func(t *testing.T) { checkMatMul(newViewEnv(t, b, tol), 65, 63, 33, tA, tB, true) })
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

// checkMatMul runs one case of MatMul in e (its operands views when e has views) and compares the outputs with package ref's.
func checkMatMul(e *env, m, n, k int, tA, tB, withBias bool) {
	as, bs := matMulShapes(m, n, k, tA, tB)
	ad, bd := e.normal(m*k, 0, 1), e.normal(k*n, 0, 1)
	args := []arg{{"a", ad, as}, {"b", bd, bs}}
	var biasd []float32
	if withBias {
		biasd = e.normal(n, 0, 1)
		args = append(args, arg{"bias", biasd, []int{n}})
	}
	ins := e.ins(args...)
	var bias kernels.Tensor
	if withBias {
		bias = ins[2]
	}
	c := e.out(m, n)
	e.desc = fmt.Sprintf("MatMul(c [%d %d], a %v, b %v, bias %v, transA %v, transB %v, views %v)", m, n, as, bs, withBias, tA, tB, e.views)
	e.b.MatMul(c, ins[0], ins[1], bias, tA, tB)
	want := make([]float64, m*n)
	ref.MatMul(want, F64(ad), F64(bd), F64(biasd), m, n, k, tA, tB)
	e.check("c", c, want)
	e.unchanged()
}

// biasGradShapes are the dy of the BiasGrad subtests, [N,C] and [N,C,...]:
// channel sums of 1 to 5,577 terms, over more than 256 rows, over more and
// fewer than 256 trailing elements, a rank-3 dy, and sums of more than
// 4,096 terms (which the WebGPU backend cuts into segments).
var biasGradShapes = [][]int{
	{1, 7}, {65, 33}, {129, 10}, {300, 17}, {2, 33, 7, 7}, {3, 5, 8, 9}, {64, 17, 2, 2},
	{2, 3, 28, 28}, {1, 129, 255}, {4, 2, 257}, {5000, 3}, {33, 5, 13, 13},
}

// testBiasGrad checks db[c] = sum of dy[n,c,...], and with both operands
// views.
func testBiasGrad(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range biasGradShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkBiasGrad(newEnv(t, b, tol), shape) })
	}
	t.Run("views/2x33x7x7", func(t *testing.T) { checkBiasGrad(newViewEnv(t, b, tol), []int{2, 33, 7, 7}) })
}

// checkBiasGrad runs one case of BiasGrad in e (its operands views when e has views) and compares the outputs with package ref's.
func checkBiasGrad(e *env, shape []int) {
	e.desc = fmt.Sprintf("BiasGrad(dy %v, views %v)", shape, e.views)
	dyd := e.normal(kernels.Numel(shape), 0.3, 1)
	dy := e.in("dy", dyd, shape...)
	db := e.out(shape[1])
	e.b.BiasGrad(db, dy)
	want := make([]float64, shape[1])
	ref.BiasGrad(want, F64(dyd), shape[0], shape[1], kernels.Numel(shape[2:]))
	e.check("db", db, want)
	e.unchanged()
}
