//go:build js && wasm && !purego

package cpu

import (
	"runtime"
	"syscall/js"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// The SIMD module's ReLU pair (see wasmsimd's relu.go), undefined where no
// module runs, and their job numbers.
var (
	reluFn, hasReluFn         = gemm.SIMDFunc("relu")
	reluBackFn, hasReluBackFn = gemm.SIMDFunc("reluback")
	jobRelu                   = gemm.SIMDJob("relu")
	jobReluBack               = gemm.SIMDJob("reluback")
)

// minShareRelu is the fewest floats of one thread's share of a ReLU pass:
// below it, waking the workers costs more than they save.
const minShareRelu = 1 << 15

// reluCalls makes the calls of the module's routine fn (job number job)
// over n floats, in runs of whole vectors shared out between the module's
// threads where several serve and n is large enough; args(lo, hi) are the
// arguments of the run [lo, hi).
func reluCalls(fn js.Value, job, n int, args func(lo, hi int) []int32) {
	parts := min(gemm.Threads(), max(n/minShareRelu, 1))
	simdCalls(fn, job, parts, func(i, _ int) []int32 {
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
	reluCalls(reluFn, jobRelu, len(x), func(lo, hi int) []int32 {
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
	reluCalls(reluBackFn, jobReluBack, len(y), func(lo, hi int) []int32 {
		return []int32{int32(at(dx[lo:])), int32(at(dy[lo:])), int32(at(y[lo:])), int32(hi - lo)}
	})
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(y)
	return true
}
