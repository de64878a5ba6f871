//go:build js && wasm && !purego

package cpu

import (
	"runtime"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// poolFn and poolBackFn are the SIMD module's max-pool routines, undefined
// where no module runs.
var (
	poolFn, hasPoolFn         = gemm.SIMDFunc("maxpool")
	poolBackFn, hasPoolBackFn = gemm.SIMDFunc("maxpoolback")
)

// maxPool2 computes ref.MaxPool2 for nc planes of h×w, in the SIMD module
// where it runs: the same bits.
func maxPool2(y, x []float32, nc, h, w int) {
	if !hasPoolFn || nc*(h/2)*(w/2) == 0 {
		ref.MaxPool2(y, x, nc, h, w)
		return
	}
	_, _ = y[nc*(h/2)*(w/2)-1], x[nc*h*w-1]
	poolFn.Invoke(at(y), at(x), nc, h, w)
	runtime.KeepAlive(y)
	runtime.KeepAlive(x)
}

// maxPool2Backward computes ref.MaxPool2Backward, in the SIMD module where
// it runs (dx cleared first: the module writes the windows, not the odd
// last row or column).
func maxPool2Backward(dx, dy, x []float32, nc, h, w int) {
	if !hasPoolBackFn || nc*(h/2)*(w/2) == 0 {
		ref.MaxPool2Backward(dx, dy, x, nc, h, w)
		return
	}
	_, _, _ = dx[nc*h*w-1], dy[nc*(h/2)*(w/2)-1], x[nc*h*w-1]
	clear(dx[:nc*h*w])
	poolBackFn.Invoke(at(dx), at(dy), at(x), nc, h, w)
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
}
