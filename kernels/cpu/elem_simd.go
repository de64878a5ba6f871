//go:build js && wasm && !purego

package cpu

import (
	"math"
	"runtime"
	"syscall/js"

	"github.com/deeplda/deeplda/kernels"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// The SIMD module's elementwise routines, the ReLU pair and Adam (see
// wasmsimd's relu.go and adam.go), undefined where no module runs, and
// their job numbers.
var (
	reluFn, hasReluFn         = gemm.SIMDFunc("relu")
	reluBackFn, hasReluBackFn = gemm.SIMDFunc("reluback")
	adamFn, hasAdamFn         = gemm.SIMDFunc("adam")
	jobRelu                   = gemm.SIMDJob("relu")
	jobReluBack               = gemm.SIMDJob("reluback")
	jobAdam                   = gemm.SIMDJob("adam")
)

// minShareElem is the fewest floats of one thread's share of an
// elementwise pass: below it, waking the workers costs more than they
// save.
const minShareElem = 1 << 15

// elemCalls makes the calls of the module's routine fn (job number job)
// over n floats, in runs of whole vectors shared out between the module's
// threads where several serve and n is large enough; args(lo, hi) are the
// arguments of the run [lo, hi), f32 values from floatsFrom on (see
// simdCallsFloats).
func elemCalls(fn js.Value, job, n, floatsFrom int, args func(lo, hi int) []int32) {
	parts := min(gemm.Threads(), max(n/minShareElem, 1))
	simdCallsFloats(fn, job, parts, floatsFrom, func(i, _ int) []int32 {
		lo, hi := n*i/parts/4*4, n*(i+1)/parts/4*4
		if i == parts-1 {
			hi = n
		}
		return args(lo, hi)
	})
}

// reluSIMD does relu's work in the SIMD module and reports whether it did.
func reluSIMD(y, x []float32) bool {
	if !hasReluFn {
		return false
	}
	_ = y[len(x)-1]
	elemCalls(reluFn, jobRelu, len(x), math.MaxInt, func(lo, hi int) []int32 {
		return []int32{int32(at(y[lo:])), int32(at(x[lo:])), int32(hi - lo)}
	})
	runtime.KeepAlive(y)
	runtime.KeepAlive(x)
	return true
}

// reluBackwardSIMD does reluBackward's work in the SIMD module and reports
// whether it did.
func reluBackwardSIMD(dx, dy, y []float32) bool {
	if !hasReluBackFn {
		return false
	}
	_, _ = dx[len(y)-1], dy[len(y)-1]
	elemCalls(reluBackFn, jobReluBack, len(y), math.MaxInt, func(lo, hi int) []int32 {
		return []int32{int32(at(dx[lo:])), int32(at(dy[lo:])), int32(at(y[lo:])), int32(hi - lo)}
	})
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(y)
	return true
}

// adamSIMD does Adam's update in the SIMD module and reports whether it
// did: the same float32 operations as ref.Adam, on the constants that it
// rounds to float32.
func adamSIMD(param, grad, m, v []float32, p kernels.AdamParams) bool {
	n := len(param)
	if !hasAdamFn || n == 0 {
		return false
	}
	_, _, _ = grad[n-1], m[n-1], v[n-1]
	b1, b2 := p.Beta1, p.Beta2
	bc1 := 1 - math.Pow(b1, float64(p.Step))
	bc2 := 1 - math.Pow(b2, float64(p.Step))
	bits := func(x float64) int32 { return int32(math.Float32bits(float32(x))) }
	elemCalls(adamFn, jobAdam, n, 5, func(lo, hi int) []int32 {
		return []int32{int32(at(param[lo:])), int32(at(grad[lo:])), int32(at(m[lo:])), int32(at(v[lo:])), int32(hi - lo),
			bits(b1), bits(1 - b1), bits(b2), bits(1 - b2), bits(p.LR / bc1), bits(math.Sqrt(bc2)), bits(p.Eps)}
	})
	runtime.KeepAlive(param)
	runtime.KeepAlive(grad)
	runtime.KeepAlive(m)
	runtime.KeepAlive(v)
	return true
}
