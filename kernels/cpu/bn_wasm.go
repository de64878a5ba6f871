//go:build js && wasm && !purego

package cpu

import (
	"runtime"
	"syscall/js"
	"unsafe"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// simdPlanes are the passes of bnPlanes in the WebAssembly SIMD module of
// the products (gemm.SIMDFunc): one call a pass over all of a channel's
// planes (a call costs about a microsecond).
type simdPlanes struct {
	sumFn, sumSqFn, scaleFn, gradSumsFn, gradInputFn js.Value
}

// wasmBN is the module's BatchNorm passes, nil where no module runs.
var wasmBN = loadBN()

// loadBN returns the module's BatchNorm passes, or nil.
func loadBN() *simdPlanes {
	var p simdPlanes
	for _, f := range []struct {
		name string
		fn   *js.Value
	}{{"bnsum", &p.sumFn}, {"bnsumsq", &p.sumSqFn}, {"bnscale", &p.scaleFn}, {"bngradsums", &p.gradSumsFn}, {"bngradinput", &p.gradInputFn}} {
		fn, ok := gemm.SIMDFunc(f.name)
		if !ok {
			return nil
		}
		*f.fn = fn
	}
	return &p
}

// at returns the byte offset of s[0] in the linear memory.
func at(s []float32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) }

// bnOut is where the module's sums land: a variable of the package, which
// the compiler reads anew after a call (a new array that only an offset
// leaves could live on the stack, its zeros assumed). The Go program runs
// on one thread and a call into the module does not switch goroutines.
var bnOut [2]float64

// out returns the byte offset of bnOut, cleared.
func out() int {
	bnOut = [2]float64{}
	return int(uintptr(unsafe.Pointer(&bnOut)))
}

func (p *simdPlanes) sum(x []float32, n, hw, stride int) float64 {
	p.sumFn.Invoke(out(), at(x), n, hw, 4*stride)
	runtime.KeepAlive(x)
	return bnOut[0]
}

func (p *simdPlanes) sumSqDev(x []float32, n, hw, stride int, mu float32) float64 {
	p.sumSqFn.Invoke(out(), at(x), n, hw, 4*stride, mu)
	runtime.KeepAlive(x)
	return bnOut[0]
}

func (p *simdPlanes) scaleShift(y, x []float32, n, hw, stride int, alpha, shift float32) {
	p.scaleFn.Invoke(at(y), at(x), n, hw, 4*stride, alpha, shift)
	runtime.KeepAlive(y)
	runtime.KeepAlive(x)
}

func (p *simdPlanes) gradSums(dy, x []float32, n, hw, stride int, mean, invStd float32) (db, dg float64) {
	p.gradSumsFn.Invoke(out(), at(dy), at(x), n, hw, 4*stride, mean, invStd)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
	return bnOut[0], bnOut[1]
}

func (p *simdPlanes) gradInput(dx, dy, x []float32, n, hw, stride int, mean, invStd, k, m, db, dg float32) {
	p.gradInputFn.Invoke(at(dx), at(dy), at(x), n, hw, 4*stride, mean, invStd, k, m, db, dg)
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
}

// bnTrainChannel is ref.BatchNormTrainChannel with its passes over the
// planes of channel ch in the SIMD module: the same float32 arithmetic,
// and float64 sums added in another order.
func bnTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32) {
	if wasmBN == nil || hw == 0 || n == 0 {
		ref.BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
		return
	}
	bnTrainPlanes(wasmBN, y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
}

// bnBackwardChannel is ref.BatchNormBackwardChannel with its passes over
// the planes of channel ch in the SIMD module, like bnTrainChannel.
func bnBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int) {
	if wasmBN == nil || hw == 0 || n == 0 {
		ref.BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
		return
	}
	bnBackwardPlanes(wasmBN, dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
}
