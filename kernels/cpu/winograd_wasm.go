//go:build js && wasm && !purego

package cpu

import (
	"math"
	"runtime"
	"syscall/js"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// winogradDefault is true: in WebAssembly, with 128-bit vectors, the
// products are most of a step, and F(2x2, 3x3) makes 2.25 times fewer of
// them in the ConvNet's 28x28 and 14x14 convolutions (1.7 in the 7x7
// ones), for transforms that the SIMD module does in a few percent of
// the step.
const winogradDefault = true

// The SIMD module's transforms of the F(2x2, 3x3) convolutions (see
// wasmsimd's winograd.go), undefined where no module runs, and their job
// numbers.
var (
	wgFrameFn, hasWgFrameFn = gemm.SIMDFunc("wgframe")
	wgInFn, hasWgInFn       = gemm.SIMDFunc("wgin")
	wgOutFn, hasWgOutFn     = gemm.SIMDFunc("wgout")
	wgGradFn, hasWgGradFn   = gemm.SIMDFunc("wggrad")
	jobWgFrame              = gemm.SIMDJob("wgframe")
	jobWgIn                 = gemm.SIMDJob("wgin")
	jobWgOut                = gemm.SIMDJob("wgout")
	jobWgGrad               = gemm.SIMDJob("wggrad")
)

// simdCalls makes count calls of the SIMD module's routine fn (job number
// job), args(i, slot) the arguments of call i: shared out between the
// module's threads where several serve (slot numbering the calls that run
// at once, below gemm.Threads()), else one after the other here (slot 0).
// The arguments are i32 values.
func simdCalls(fn js.Value, job, count int, args func(i, slot int) []int32) {
	simdCallsFloats(fn, job, count, math.MaxInt, args)
}

// simdCallsFloats is simdCalls for routines whose arguments from
// floatsFrom on are f32 values, given as their bits.
func simdCallsFloats(fn js.Value, job, count, floatsFrom int, args func(i, slot int) []int32) {
	if gemm.SIMDCalls(job, count, count, func(i, slot int, a []int32) { copy(a, args(i, slot)) }) {
		return
	}
	vals := make([]any, 0, 16)
	for i := 0; i < count; i++ {
		vals = vals[:0]
		for k, a := range args(i, 0) {
			if k >= floatsFrom {
				vals = append(vals, float64(math.Float32frombits(uint32(a))))
				continue
			}
			vals = append(vals, int(a))
		}
		fn.Invoke(vals...)
	}
}

// frameSIMD does frameChannelsLast's work (the frame cleared) in the
// SIMD module, one call an image, and reports whether it did.
func frameSIMD(wg *winograd, planes, x []float32, n0, imgs, c int) bool {
	if !hasWgFrameFn {
		return false
	}
	hw := wg.h * wg.w
	_, _ = planes[imgs*wg.hp*wg.wp*c-1], x[(n0+imgs)*c*hw-1]
	simdCalls(wgFrameFn, jobWgFrame, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(planes[i*wg.hp*wg.wp*c:])), int32(at(x[(n0+i)*c*hw:])), int32(c), int32(wg.h), int32(wg.w), int32(wg.wp)}
	})
	runtime.KeepAlive(planes)
	runtime.KeepAlive(x)
	return true
}

// inputSIMD does inputTransform's work in the SIMD module, one call an
// image, and reports whether it did (c a multiple of 4).
func inputSIMD(wg *winograd, v, planes []float32, imgs, c int) bool {
	if !hasWgInFn || c%4 != 0 {
		return false
	}
	nt, per := wg.tiles(imgs), wg.th*wg.tw
	_, _ = v[16*pointLen(nt, c)-1], planes[imgs*wg.hp*wg.wp*c-1]
	simdCalls(wgInFn, jobWgIn, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(v[i*per*c:])), int32(at(planes[i*wg.hp*wg.wp*c:])), int32(c), int32(wg.th), int32(wg.tw), int32(wg.wp), int32(4 * pointLen(nt, c))}
	})
	runtime.KeepAlive(v)
	runtime.KeepAlive(planes)
	return true
}

// outputSIMD does outputTransform's work in the SIMD module, one call an
// image, and reports whether it did (d a multiple of 4).
func outputSIMD(wg *winograd, out, m []float32, imgs, d int) bool {
	if !hasWgOutFn || d%4 != 0 {
		return false
	}
	nt, per, hw := wg.tiles(imgs), wg.th*wg.tw, wg.h*wg.w
	_, _ = out[imgs*hw*d-1], m[16*pointLen(nt, d)-1]
	spare := make([]float32, gemm.Threads()*d) // each slot's pixels past the edges
	simdCalls(wgOutFn, jobWgOut, imgs, func(i, slot int) []int32 {
		return []int32{int32(at(out[i*hw*d:])), int32(at(m[i*per*d:])), int32(d), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4 * pointLen(nt, d)), int32(at(spare[slot*d:]))}
	})
	runtime.KeepAlive(out)
	runtime.KeepAlive(m)
	runtime.KeepAlive(spare)
	return true
}

// gradSIMD does gradTransform's work in the SIMD module, one call an
// image, and reports whether it did (d a multiple of 4).
func gradSIMD(wg *winograd, z, dyt []float32, imgs, d int) bool {
	if !hasWgGradFn || d%4 != 0 {
		return false
	}
	nt, per, hw := wg.tiles(imgs), wg.th*wg.tw, wg.h*wg.w
	_, _ = z[16*pointLen(nt, d)-1], dyt[imgs*hw*d-1]
	zero := make([]float32, d) // the gradients past the edges
	simdCalls(wgGradFn, jobWgGrad, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(z[i*per*d:])), int32(at(dyt[i*hw*d:])), int32(d), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4 * pointLen(nt, d)), int32(at(zero))}
	})
	runtime.KeepAlive(z)
	runtime.KeepAlive(dyt)
	runtime.KeepAlive(zero)
	return true
}
