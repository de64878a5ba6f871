package kerneltest

import (
	"fmt"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// poolShapes have even and odd heights and widths (floor mode drops the last
// row or column), and one with N*C = 66 planes.
var poolShapes = [][]int{{1, 1, 2, 2}, {2, 3, 8, 8}, {2, 3, 7, 9}, {2, 33, 9, 7}, {1, 5, 28, 28}}

// poolInput returns N(0,1) values or, with ties, values quantised to four
// levels so that most windows hold several equal maxima.
func poolInput(e *env, n int, ties bool) []float32 {
	if !ties {
		return e.normal(n, 0, 1)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(e.rng.IntN(4)) - 1.5
	}
	return x
}

func poolName(shape []int, ties bool) string {
	if ties {
		return dimsName(shape...) + ",ties"
	}
	return dimsName(shape...)
}

// testMaxPool2 checks the 2x2 stride-2 max pool exactly.
func testMaxPool2(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range poolShapes {
		for _, ties := range []bool{false, true} {
			t.Run(poolName(shape, ties), func(t *testing.T) {
				e := newEnv(t, b, tol)
				n, c, h, w := shape[0], shape[1], shape[2], shape[3]
				ys := []int{n, c, h / 2, w / 2}
				xd := poolInput(e, kernels.Numel(shape), ties)
				x, y := e.in("x", xd, shape...), e.out(ys...)
				e.desc = fmt.Sprintf("MaxPool2(x %v)", shape)
				b.MaxPool2(y, x)
				want := make([]float32, kernels.Numel(ys))
				ref.MaxPool2(want, xd, n*c, h, w)
				e.exact("y", y, want)
				e.unchanged()
			})
		}
	}
}

// testMaxPool2Backward checks exactly that dy goes to the first maximum of
// each window (in the order (0,0), (0,1), (1,0), (1,1)) and that elements
// outside every window (odd H or W) get zero.
func testMaxPool2Backward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range poolShapes {
		for _, ties := range []bool{false, true} {
			t.Run(poolName(shape, ties), func(t *testing.T) {
				e := newEnv(t, b, tol)
				n, c, h, w := shape[0], shape[1], shape[2], shape[3]
				ys := []int{n, c, h / 2, w / 2}
				xd := poolInput(e, kernels.Numel(shape), ties)
				dyd := e.normal(kernels.Numel(ys), 0, 1)
				x, dy, dx := e.in("x", xd, shape...), e.in("dy", dyd, ys...), e.out(shape...)
				e.desc = fmt.Sprintf("MaxPool2Backward(x %v, dy %v)", shape, ys)
				b.MaxPool2Backward(dx, dy, x)
				want := make([]float32, kernels.Numel(shape))
				ref.MaxPool2Backward(want, dyd, xd, n*c, h, w)
				e.exact("dx", dx, want)
				e.unchanged()
			})
		}
	}
}

var gapShapes = [][]int{{3, 5, 1, 1}, {2, 33, 7, 7}, {2, 17, 8, 9}, {1, 65, 28, 28}}

// testGlobalAvgPool checks the mean over H and W (sums of up to 784 terms;
// the inputs have a non-zero mean so that the results are not all tiny).
func testGlobalAvgPool(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range gapShapes {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			nc, hw := shape[0]*shape[1], shape[2]*shape[3]
			xd := e.normal(kernels.Numel(shape), 0.5, 1)
			x, y := e.in("x", xd, shape...), e.out(shape[0], shape[1])
			e.desc = fmt.Sprintf("GlobalAvgPool(x %v)", shape)
			b.GlobalAvgPool(y, x)
			want := make([]float64, nc)
			ref.GlobalAvgPool(want, F64(xd), nc, hw)
			e.check("y", y, want)
			e.unchanged()
		})
	}
}

// testGlobalAvgPoolBackward checks dx[n,c,:,:] = dy[n,c]/(H*W) (one
// rounded division per element).
func testGlobalAvgPoolBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range gapShapes {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			nc, hw := shape[0]*shape[1], shape[2]*shape[3]
			dyd := e.normal(nc, 0, 1)
			dy, dx := e.in("dy", dyd, shape[0], shape[1]), e.out(shape...)
			e.desc = fmt.Sprintf("GlobalAvgPoolBackward(dy [%d %d], dx %v)", shape[0], shape[1], shape)
			b.GlobalAvgPoolBackward(dx, dy)
			want := make([]float64, kernels.Numel(shape))
			ref.GlobalAvgPoolBackward(want, F64(dyd), nc, hw)
			e.check("dx", dx, want)
			e.unchanged()
		})
	}
}
