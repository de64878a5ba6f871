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
	if !sharePlanes(jobPool, nc, h*w, func(p0, p1 int) []int32 {
		return []int32{int32(at(y[p0*(h/2)*(w/2):])), int32(at(x[p0*h*w:])), int32(p1 - p0), int32(h), int32(w)}
	}) {
		poolFn.Invoke(at(y), at(x), nc, h, w)
	}
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
	if !sharePlanes(jobPoolBack, nc, h*w, func(p0, p1 int) []int32 {
		return []int32{int32(at(dx[p0*h*w:])), int32(at(dy[p0*(h/2)*(w/2):])), int32(at(x[p0*h*w:])), int32(p1 - p0), int32(h), int32(w)}
	}) {
		poolBackFn.Invoke(at(dx), at(dy), at(x), nc, h, w)
	}
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
}

// The job numbers of the pooling routines.
var (
	jobPool     = gemm.SIMDJob("maxpool")
	jobPoolBack = gemm.SIMDJob("maxpoolback")
)

// minSharePlanes is the fewest floats of input that one thread's share
// of a pooling takes: below it, waking the workers costs more than they
// save.
const minSharePlanes = 1 << 14

// sharePlanes makes the call of the pooling routine job over nc planes of
// size floats on the SIMD module's threads, a range of planes each (args
// gives the arguments of planes p0..p1-1), and reports whether it did (see
// gemm.SIMDCalls).
func sharePlanes(job, nc, size int, args func(p0, p1 int) []int32) bool {
	n := min(gemm.Threads(), nc, nc*size/minSharePlanes)
	return n >= 2 && gemm.SIMDCalls(job, n, n, func(i, _ int, a []int32) {
		copy(a, args(nc*i/n, nc*(i+1)/n))
	})
}
