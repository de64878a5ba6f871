package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// poolShapes have even and odd heights and widths (floor mode drops the last
// row or column), planes of one row or column (no window at all: y is
// empty and dx all zeros), and 65 and N*C = 66 planes.
var poolShapes = [][]int{
	{1, 1, 2, 2}, {2, 3, 8, 8}, {2, 3, 7, 9}, {2, 33, 9, 7}, {1, 5, 28, 28}, {1, 65, 2, 2},
	{1, 1, 1, 1}, {1, 2, 1, 5}, {2, 2, 6, 1},
}

// poolInputs are the kinds of max pooling input: N(0,1) values; values
// drawn from {-1, -0, 0, 1}, so that most windows hold several equal maxima
// (and -0 ties with 0); and a constant, so that every window is a four-way
// tie.
var poolInputs = []string{"normal", "ties", "constant"}

// poolViewShape is the shape of the pooling subtests whose operands are
// views.
var poolViewShape = []int{2, 3, 7, 9}

// poolInput returns n values of the given kind (see poolInputs).
func poolInput(e *env, n int, kind string) []float32 {
	x := make([]float32, n)
	switch kind {
	case "ties":
		levels := []float32{-1, float32(math.Copysign(0, -1)), 0, 1}
		for i := range x {
			x[i] = levels[e.rng.IntN(len(levels))]
		}
	case "constant":
		for i := range x {
			x[i] = 0.5
		}
	default:
		x = e.normal(n, 0, 1)
	}
	return x
}

func poolName(shape []int, kind string) string {
	if kind == "normal" {
		return dimsName(shape...)
	}
	return dimsName(shape...) + "," + kind
}

// testMaxPool2 checks the 2x2 stride-2 max pool exactly, and with both
// operands views.
func testMaxPool2(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range poolShapes {
		for _, kind := range poolInputs {
			t.Run(poolName(shape, kind), func(t *testing.T) { checkMaxPool2(newEnv(t, b, tol), shape, kind) })
		}
	}
	t.Run("views/"+poolName(poolViewShape, "ties"), func(t *testing.T) { checkMaxPool2(newViewEnv(t, b, tol), poolViewShape, "ties") })
}

// checkMaxPool2 runs one case of MaxPool2 in e (its operands views when e has views) and compares the outputs with package ref's.
func checkMaxPool2(e *env, shape []int, kind string) {
	n, c, h, w := shape[0], shape[1], shape[2], shape[3]
	ys := []int{n, c, h / 2, w / 2}
	xd := poolInput(e, kernels.Numel(shape), kind)
	x, y := e.in("x", xd, shape...), e.out(ys...)
	e.desc = fmt.Sprintf("MaxPool2(x %v %s, views %v)", shape, kind, e.views)
	e.b.MaxPool2(y, x)
	want := make([]float32, kernels.Numel(ys))
	ref.MaxPool2(want, xd, n*c, h, w)
	e.exact("y", y, want)
	e.unchanged()
}

// testMaxPool2Backward checks exactly that dy goes to the first maximum of
// each window (in the order (0,0), (0,1), (1,0), (1,1)) and that elements
// outside every window (odd H or W) get zero, on one plane where the rule
// is written out and on random ones, and with every operand a view.
func testMaxPool2Backward(t *testing.T, b kernels.Backend, tol Tolerance) {
	t.Run("first-maximum", func(t *testing.T) { checkMaxPool2FirstMaximum(newEnv(t, b, tol)) })
	for _, shape := range poolShapes {
		for _, kind := range poolInputs {
			t.Run(poolName(shape, kind), func(t *testing.T) { checkMaxPool2Backward(newEnv(t, b, tol), shape, kind) })
		}
	}
	t.Run("views/"+poolName(poolViewShape, "ties"), func(t *testing.T) {
		checkMaxPool2Backward(newViewEnv(t, b, tol), poolViewShape, "ties")
	})
}

// checkMaxPool2Backward runs one case of MaxPool2Backward in e (its operands views when e has views) and compares the outputs with package ref's.
func checkMaxPool2Backward(e *env, shape []int, kind string) {
	n, c, h, w := shape[0], shape[1], shape[2], shape[3]
	ys := []int{n, c, h / 2, w / 2}
	xd := poolInput(e, kernels.Numel(shape), kind)
	dyd := e.normal(kernels.Numel(ys), 0, 1)
	ins := e.ins(arg{"x", xd, shape}, arg{"dy", dyd, ys})
	dx := e.out(shape...)
	e.desc = fmt.Sprintf("MaxPool2Backward(x %v %s, dy %v, views %v)", shape, kind, ys, e.views)
	e.b.MaxPool2Backward(dx, ins[1], ins[0])
	want := make([]float32, kernels.Numel(shape))
	ref.MaxPool2Backward(want, dyd, xd, n*c, h, w)
	e.exact("dx", dx, want)
	e.unchanged()
}

// checkMaxPool2FirstMaximum pins the rule on one 5x5 plane, without the
// reference: the maxima of each window are equal, so each dy must go to the
// first of them in window order.
func checkMaxPool2FirstMaximum(e *env) {
	// Windows (row-major): (0,0) four equal maxima; (0,1) ties (0,1) and
	// (1,1); (1,0) ties (1,0) and (1,1); (1,1) only (1,1).
	x := e.in("x", []float32{
		3, 3, 0, 5, 9,
		3, 3, 0, 5, 9,
		1, 0, 2, 1, 9,
		4, 4, 2, 7, 9,
		9, 9, 9, 9, 9,
	}, 1, 1, 5, 5)
	y := e.out(1, 1, 2, 2)
	e.desc = "MaxPool2 of a plane of ties"
	e.b.MaxPool2(y, x)
	e.exact("y", y, []float32{3, 5, 4, 7})
	dy := e.in("dy", []float32{10, 20, 30, 40}, 1, 1, 2, 2)
	dx := e.out(1, 1, 5, 5)
	e.desc = "MaxPool2Backward of a plane of ties"
	e.b.MaxPool2Backward(dx, dy, x)
	e.exact("dx", dx, []float32{
		10, 0, 0, 20, 0,
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 0,
		30, 0, 0, 40, 0,
		0, 0, 0, 0, 0,
	})
	e.unchanged()
}

// gapShapes have planes of 1 to 1320 values, either side of 256 (255, 256:
// the WebGPU backend reduces planes of 256 values or more with a workgroup
// each), with 1 to 65 channels.
var gapShapes = [][]int{
	{3, 5, 1, 1}, {2, 3, 1, 7}, {2, 33, 7, 7}, {2, 17, 8, 9}, {3, 5, 15, 17}, {2, 65, 16, 16},
	{1, 65, 28, 28}, {2, 1, 40, 33},
}

// gapViewShape is the shape of the global average pooling subtests whose
// operands are views.
var gapViewShape = []int{2, 17, 8, 9}

// testGlobalAvgPool checks the mean over H and W (sums of up to 1320 terms;
// the inputs have a non-zero mean so that the results are not all tiny),
// and with both operands views.
func testGlobalAvgPool(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range gapShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkGlobalAvgPool(newEnv(t, b, tol), shape) })
	}
	t.Run("views/"+dimsName(gapViewShape...), func(t *testing.T) { checkGlobalAvgPool(newViewEnv(t, b, tol), gapViewShape) })
}

// checkGlobalAvgPool runs one case of GlobalAvgPool in e (its operands views when e has views) and compares the outputs with package ref's.
func checkGlobalAvgPool(e *env, shape []int) {
	nc, hw := shape[0]*shape[1], shape[2]*shape[3]
	xd := e.normal(kernels.Numel(shape), 0.5, 1)
	x, y := e.in("x", xd, shape...), e.out(shape[0], shape[1])
	e.desc = fmt.Sprintf("GlobalAvgPool(x %v, views %v)", shape, e.views)
	e.b.GlobalAvgPool(y, x)
	want := make([]float64, nc)
	ref.GlobalAvgPool(want, F64(xd), nc, hw)
	e.check("y", y, want)
	e.unchanged()
}

// testGlobalAvgPoolBackward checks dx[n,c,:,:] = dy[n,c]/(H*W) (one
// rounded division per element), and with both operands views.
func testGlobalAvgPoolBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range gapShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkGlobalAvgPoolBackward(newEnv(t, b, tol), shape) })
	}
	t.Run("views/"+dimsName(gapViewShape...), func(t *testing.T) {
		checkGlobalAvgPoolBackward(newViewEnv(t, b, tol), gapViewShape)
	})
}

// checkGlobalAvgPoolBackward runs one case of GlobalAvgPoolBackward in e (its operands views when e has views) and compares the outputs with package ref's.
func checkGlobalAvgPoolBackward(e *env, shape []int) {
	nc, hw := shape[0]*shape[1], shape[2]*shape[3]
	dyd := e.normal(nc, 0, 1)
	dy, dx := e.in("dy", dyd, shape[0], shape[1]), e.out(shape...)
	e.desc = fmt.Sprintf("GlobalAvgPoolBackward(dy [%d %d], dx %v, views %v)", shape[0], shape[1], shape, e.views)
	e.b.GlobalAvgPoolBackward(dx, dy)
	want := make([]float64, kernels.Numel(shape))
	ref.GlobalAvgPoolBackward(want, F64(dyd), nc, hw)
	e.check("dx", dx, want)
	e.unchanged()
}
