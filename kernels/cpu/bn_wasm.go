//go:build js && wasm && !purego

package cpu

import (
	"math"
	"runtime"
	"syscall/js"
	"unsafe"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// simdPlanes are the passes of bnPlanes in the WebAssembly SIMD module of
// the products (gemm.SIMDFunc), one call a pass over all of a channel's
// planes (a call from Go costs about a microsecond). BatchNorm's layers
// make their passes as lists of calls instead, a channel's call a list
// (bnPass); these serve a channel at a time, where lists cannot run.
type simdPlanes struct {
	fns *[len(bnRoutines)]js.Value // the routines
}

// bnRoutines are the module's BatchNorm routines, in the order of
// simdPlanes.fns.
var bnRoutines = [...]string{"bnsum", "bnsumsq", "bnscale", "bngradsums", "bngradinput"}

// The routines by their place in bnRoutines.
const (
	bnSum = iota
	bnSumSq
	bnScale
	bnGradSums
	bnGradInput
)

// wasmBN is the module's BatchNorm passes, nil where no module runs.
var wasmBN = loadBN()

// loadBN returns the module's BatchNorm passes, or nil.
func loadBN() *simdPlanes {
	var fns [len(bnRoutines)]js.Value
	for r, name := range bnRoutines {
		fn, ok := gemm.SIMDFunc(name)
		if !ok {
			return nil
		}
		fns[r] = fn
	}
	return &simdPlanes{fns: &fns}
}

// at returns the byte offset of s[0] in the linear memory.
func at(s []float32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) }

// bnOut is where the module's sums land, a slot for each channel of a
// pass (bnPass; the first for simdPlanes): a variable of the package,
// which the compiler reads anew after a call (a new array that only an
// offset leaves could live on the stack, its zeros assumed). The Go
// program runs on one thread.
var bnOut = make([][2]float64, 1)

// outAt returns the byte offset of bnOut[ch], cleared.
func outAt(ch int) int32 {
	bnOut[ch] = [2]float64{}
	return int32(uintptr(unsafe.Pointer(&bnOut[ch])))
}

// out returns the byte offset of simdPlanes's slot of bnOut, cleared.
func (p *simdPlanes) out() int { return int(outAt(0)) }

// call makes the call of routine r (its place in bnRoutines) with args
// (ints and float32s).
func (p *simdPlanes) call(r int, args ...any) { p.fns[r].Invoke(args...) }

func (p *simdPlanes) sum(x []float32, n, hw, stride int) float64 {
	p.call(bnSum, p.out(), at(x), n, hw, 4*stride)
	runtime.KeepAlive(x)
	return bnOut[0][0]
}

func (p *simdPlanes) sumSqDev(x []float32, n, hw, stride int, mu float32) float64 {
	p.call(bnSumSq, p.out(), at(x), n, hw, 4*stride, mu)
	runtime.KeepAlive(x)
	return bnOut[0][0]
}

func (p *simdPlanes) scaleShift(y, x []float32, n, hw, stride int, alpha, shift float32) {
	p.call(bnScale, at(y), at(x), n, hw, 4*stride, alpha, shift)
	runtime.KeepAlive(y)
	runtime.KeepAlive(x)
}

func (p *simdPlanes) gradSums(dy, x []float32, n, hw, stride int, mean, invStd float32) (db, dg float64) {
	p.call(bnGradSums, p.out(), at(dy), at(x), n, hw, 4*stride, mean, invStd)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
	return bnOut[0][0], bnOut[0][1]
}

func (p *simdPlanes) gradInput(dx, dy, x []float32, n, hw, stride int, mean, invStd, k, m, db, dg float32) {
	p.call(bnGradInput, at(dx), at(dy), at(x), n, hw, 4*stride, mean, invStd, k, m, db, dg)
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
}

// bnJobs are the job numbers of bnRoutines, for gemm.SIMDCalls.
var bnJobs = func() (jobs [len(bnRoutines)]int) {
	for r, name := range bnRoutines {
		jobs[r] = gemm.SIMDJob(name)
	}
	return jobs
}()

// bnPass makes, for each of the channels 0..c-1, the call of routine r
// (its place in bnRoutines) with the arguments that args appends to a
// (floats as their bits), a list a channel that the SIMD module's threads
// claim (gemm.RunCalls). A channel's call computes what it computes alone:
// the same bits on any number of threads. The caller keeps what the calls
// reach alive.
func bnPass(c, r int, args func(a []int32, ch int) []int32) {
	var a [12]int32 // the most arguments of a BatchNorm routine (bngradinput's)
	lists := callLists(c)
	for ch := range lists {
		lists[ch].Add(bnJobs[r], args(a[:0], ch)...)
	}
	gemm.RunCalls(lists, gemm.Threads(), 0)
}

// bnLists reports whether BatchNorm's passes over c channels can run as
// lists of calls (bnPass), and makes room for their sums.
func bnLists(c int) bool {
	if wasmBN == nil || !gemm.CallsReady() {
		return false
	}
	if len(bnOut) < c {
		bnOut = make([][2]float64, c)
	}
	return true
}

// f32bits returns v's bits as a call's argument.
func f32bits(v float32) int32 { return int32(math.Float32bits(v)) }

// biasGradSums sets db[c] to the float64 sum of channel c of dy
// ([outer, ch, inner]) as a float32, each channel one pass of the SIMD
// module's bnsum (Σ x) in a list of calls (bnPass), and reports whether
// it did: not where no module runs.
func biasGradSums(db, dy []float32, outer, ch, inner int) bool {
	if outer == 0 || !bnLists(ch) {
		return false
	}
	_, _ = db[ch-1], dy[outer*ch*inner-1]
	bnPass(ch, bnSum, func(a []int32, c int) []int32 {
		return append(a, outAt(c), int32(at(dy[c*inner:])), int32(outer), int32(inner), int32(4*ch*inner))
	})
	runtime.KeepAlive(dy)
	for c := range ch {
		db[c] = float32(bnOut[c][0])
	}
	return true
}

// bnTrainShared does BatchNormTrain's work with each pass over the
// channels one round of lists of calls (bnPass), the scalars between them
// bnTrainPlanes's, and reports whether it did.
func bnTrainShared(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw int, momentum, eps float32) bool {
	if hw == 0 || n == 0 || !bnLists(c) {
		return false
	}
	_, _ = x[n*c*hw-1], y[n*c*hw-1]
	planes := func(a []int32, s []float32, ch int) []int32 {
		return append(a, int32(at(s[ch*hw:])), int32(n), int32(hw), int32(4*c*hw))
	}
	bnPass(c, bnSum, func(a []int32, ch int) []int32 { return planes(append(a, outAt(ch)), x, ch) })
	bnPass(c, bnSumSq, func(a []int32, ch int) []int32 {
		mean[ch] = float32(bnOut[ch][0] / float64(n*hw))
		return append(planes(append(a, outAt(ch)), x, ch), f32bits(mean[ch]))
	})
	bnPass(c, bnScale, func(a []int32, ch int) []int32 {
		alpha, shift := bnTrainScalars(mean[ch], bnOut[ch][0], n*hw, ch, mean, invStd, gamma, beta, runMean, runVar, momentum, eps)
		return append(planes(append(a, int32(at(y[ch*hw:]))), x, ch), f32bits(alpha), f32bits(shift))
	})
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
	return true
}

// bnBackwardShared does BatchNormBackward's work as bnTrainShared.
func bnBackwardShared(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw int) bool {
	if hw == 0 || n == 0 || !bnLists(c) {
		return false
	}
	_, _, _ = dx[n*c*hw-1], dy[n*c*hw-1], x[n*c*hw-1]
	planes := func(a []int32, ch int) []int32 {
		return append(a, int32(at(dy[ch*hw:])), int32(at(x[ch*hw:])), int32(n), int32(hw), int32(4*c*hw), f32bits(mean[ch]), f32bits(invStd[ch]))
	}
	bnPass(c, bnGradSums, func(a []int32, ch int) []int32 { return planes(append(a, outAt(ch)), ch) })
	bnPass(c, bnGradInput, func(a []int32, ch int) []int32 {
		k, m, db, dg := bnGradScalars(bnOut[ch][0], bnOut[ch][1], n*hw, ch, dgamma, dbeta, gamma, invStd)
		return append(planes(append(a, int32(at(dx[ch*hw:]))), ch), f32bits(k), f32bits(m), f32bits(db), f32bits(dg))
	})
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
	return true
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
