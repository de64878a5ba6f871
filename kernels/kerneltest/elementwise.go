package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// reluShapes include one tensor of more than 2^16 elements, which a backend
// is likely to split across threads or workgroups.
var reluShapes = [][]int{{1}, {3, 5, 7, 11}, {65, 33}, {2, 33, 40, 40}}

// reluInput returns N(0,1) values of which about one in eight is an exact
// zero, half of those negative zeros.
func reluInput(e *env, n int) []float32 {
	x := e.normal(n, 0, 1)
	for i := range x {
		switch e.rng.IntN(16) {
		case 0:
			x[i] = 0
		case 1:
			x[i] = float32(math.Copysign(0, -1))
		}
	}
	return x
}

// testReLU checks y = max(x, 0) exactly, out of place and in place (y ==
// x), and with the operands views.
func testReLU(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range reluShapes {
		for _, inPlace := range []bool{false, true} {
			t.Run(reluName(shape, inPlace), func(t *testing.T) { checkReLU(newEnv(t, b, tol), shape, inPlace) })
		}
	}
	for _, inPlace := range []bool{false, true} {
		t.Run("views/"+reluName(reluViewShape, inPlace), func(t *testing.T) { checkReLU(newViewEnv(t, b, tol), reluViewShape, inPlace) })
	}
}

// reluViewShape is the shape of the ReLU subtests whose operands are views.
var reluViewShape = []int{2, 33, 7, 7}

func reluName(shape []int, inPlace bool) string {
	if inPlace {
		return dimsName(shape...) + ",inplace"
	}
	return dimsName(shape...)
}

// checkReLU runs one case of ReLU in e (its operands views when e has views) and compares the outputs with package ref's.
func checkReLU(e *env, shape []int, inPlace bool) {
	xd := reluInput(e, kernels.Numel(shape))
	want := make([]float32, len(xd))
	ref.ReLU(want, xd)
	e.desc = fmt.Sprintf("ReLU(x %v, in place %v, views %v)", shape, inPlace, e.views)
	if inPlace {
		x := e.state(arg{"x", xd, shape})[0]
		e.b.ReLU(x, x)
		e.exact("y", x, want)
	} else {
		x, y := e.in("x", xd, shape...), e.out(shape...)
		e.b.ReLU(y, x)
		e.exact("y", y, want)
	}
	e.unchanged()
}

// testReLUBackward checks dx = dy where y > 0 exactly, out of place and in
// place (dx == dy), and with the operands views; y is the ReLU of values
// with exact zeros.
func testReLUBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range reluShapes {
		for _, inPlace := range []bool{false, true} {
			t.Run(reluName(shape, inPlace), func(t *testing.T) { checkReLUBackward(newEnv(t, b, tol), shape, inPlace) })
		}
	}
	for _, inPlace := range []bool{false, true} {
		t.Run("views/"+reluName(reluViewShape, inPlace), func(t *testing.T) {
			checkReLUBackward(newViewEnv(t, b, tol), reluViewShape, inPlace)
		})
	}
}

// checkReLUBackward runs one case of ReLUBackward in e (its operands views when e has views) and compares the outputs with package ref's.
func checkReLUBackward(e *env, shape []int, inPlace bool) {
	n := kernels.Numel(shape)
	yd := make([]float32, n)
	ref.ReLU(yd, reluInput(e, n))
	dyd := e.normal(n, 0, 1)
	want := make([]float32, n)
	ref.ReLUBackward(want, dyd, yd)
	e.desc = fmt.Sprintf("ReLUBackward(dy %v, in place %v, views %v)", shape, inPlace, e.views)
	if inPlace {
		y := e.in("y", yd, shape...)
		dy := e.state(arg{"dy", dyd, shape})[0]
		e.b.ReLUBackward(dy, dy, y)
		e.exact("dx", dy, want)
	} else {
		ins := e.ins(arg{"dy", dyd, shape}, arg{"y", yd, shape})
		dx := e.out(shape...)
		e.b.ReLUBackward(dx, ins[0], ins[1])
		e.exact("dx", dx, want)
	}
	e.unchanged()
}
