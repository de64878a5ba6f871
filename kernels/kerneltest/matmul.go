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
		biasw = F64(biasd)
	}
	ref.MatMul(want, F64(ad), F64(bd), biasw, m, n, k, tA, tB)
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
			ref.BiasGrad(want, F64(dyd), shape[0], shape[1], kernels.Numel(shape[2:]))
			e.check("db", db, want)
			e.unchanged()
		})
	}
}
