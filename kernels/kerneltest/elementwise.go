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

// testReLU checks y = max(x, 0) exactly, out of place and in place (y == x).
func testReLU(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range reluShapes {
		for _, inPlace := range []bool{false, true} {
			name := dimsName(shape...)
			if inPlace {
				name += ",inplace"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, b, tol)
				xd := reluInput(e, kernels.Numel(shape))
				want := make([]float32, len(xd))
				ref.ReLU(want, xd)
				e.desc = fmt.Sprintf("ReLU(x %v, in place %v)", shape, inPlace)
				if inPlace {
					x := Upload(b, shape, xd)
					b.ReLU(x, x)
					e.exact("y", x, want)
					return
				}
				x, y := e.in("x", xd, shape...), e.out(shape...)
				b.ReLU(y, x)
				e.exact("y", y, want)
				e.unchanged()
			})
		}
	}
}

// testReLUBackward checks dx = dy where y > 0 exactly, out of place and in
// place (dx == dy); y is the ReLU of values with exact zeros.
func testReLUBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range reluShapes {
		for _, inPlace := range []bool{false, true} {
			name := dimsName(shape...)
			if inPlace {
				name += ",inplace"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, b, tol)
				n := kernels.Numel(shape)
				yd := make([]float32, n)
				ref.ReLU(yd, reluInput(e, n))
				dyd := e.normal(n, 0, 1)
				want := make([]float32, n)
				ref.ReLUBackward(want, dyd, yd)
				e.desc = fmt.Sprintf("ReLUBackward(dy %v, in place %v)", shape, inPlace)
				y := e.in("y", yd, shape...)
				if inPlace {
					dy := Upload(b, shape, dyd)
					b.ReLUBackward(dy, dy, y)
					e.exact("dx", dy, want)
				} else {
					dy, dx := e.in("dy", dyd, shape...), e.out(shape...)
					b.ReLUBackward(dx, dy, y)
					e.exact("dx", dx, want)
				}
				e.unchanged()
			})
		}
	}
}
