package kerneltest

import (
	"fmt"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// adamParams are PyTorch's defaults with lr 1e-3; Step is set per step.
var adamParams = kernels.AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}

// testAdam runs three consecutive Adam steps (t = 1, 2, 3, a new gradient
// each) from zero moments and compares param, m and v after each step with
// ref.Adam run in float64 on its own state; also with every operand a view
// (m and v views of one tensor, so that one op writes two views of it). The
// parameters are N(0, 0.01^2) so that their float32 rounding (about 1e-9) is
// far below the tolerance and the comparison resolves the updates (about
// 1e-3 each) to better than 0.1%.
func testAdam(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, n := range []int{1, 1000, 70001} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) { checkAdam(newEnv(t, b, tol), n) })
	}
	t.Run("views/n=1000", func(t *testing.T) { checkAdam(newViewEnv(t, b, tol), 1000) })
}

// checkAdam runs one case of Adam in e (its operands views when e has views) and compares the outputs with package ref's.
func checkAdam(e *env, n int) {
	pd := e.normal(n, 0, 0.01)
	param := e.state(arg{"param", pd, []int{n}})[0]
	mv := e.state(arg{"m", make([]float32, n), []int{n}}, arg{"v", make([]float32, n), []int{n}})
	wp, wm, wv := F64(pd), make([]float64, n), make([]float64, n)
	for step := 1; step <= 3; step++ {
		gd := e.normal(n, 0.05, 0.1)
		grad := e.in("grad", gd, n)
		p := adamParams
		p.Step = step
		e.desc = fmt.Sprintf("Adam(n %d, %+v, views %v)", n, p, e.views)
		e.b.Adam(param, grad, mv[0], mv[1], p)
		ref.Adam(wp, F64(gd), wm, wv, p)
		e.check("param", param, wp)
		e.check("m", mv[0], wm)
		e.check("v", mv[1], wv)
		e.unchanged()
	}
}
