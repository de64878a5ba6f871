//go:build js && wasm && !purego

package cpu

import (
	"fmt"
	"math"
	"runtime"
	"syscall/js"
	"unsafe"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// simdPlanes are the passes of bnPlanes in the WebAssembly SIMD module of
// the products (gemm.SIMDFunc): one call a pass over all of a channel's
// planes (a call costs about a microsecond), made at once or, for a
// channel of bnShared, handed to the round that makes the calls of all
// its channels at once.
type simdPlanes struct {
	fns   *[len(bnRoutines)]js.Value // the routines
	slot  int                        // its sums land in bnOut[slot]
	round chan<- planeCall           // bnShared's, or nil: calls at once
	done  chan struct{}              // bnShared's word that the call was made
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

// bnOut is where the module's sums land, a slot for each channel that
// bnShared computes at once (the first for wasmBN's own calls): a
// variable of the package, which the compiler reads anew after a call (a
// new array that only an offset leaves could live on the stack, its zeros
// assumed). The Go program runs on one thread, and a channel reads its
// slot only once its call is made.
var bnOut = make([][2]float64, 1)

// out returns the byte offset of p's slot of bnOut, cleared.
func (p *simdPlanes) out() int {
	bnOut[p.slot] = [2]float64{}
	return int(uintptr(unsafe.Pointer(&bnOut[p.slot])))
}

// call makes the call of routine r (its place in bnRoutines) with args
// (ints and float32s), at once or in bnShared's round.
func (p *simdPlanes) call(r int, args ...any) {
	if p.round == nil {
		p.fns[r].Invoke(args...)
		return
	}
	p.round <- planeCall{slot: p.slot, r: r, args: args}
	<-p.done
}

func (p *simdPlanes) sum(x []float32, n, hw, stride int) float64 {
	p.call(bnSum, p.out(), at(x), n, hw, 4*stride)
	runtime.KeepAlive(x)
	return bnOut[p.slot][0]
}

func (p *simdPlanes) sumSqDev(x []float32, n, hw, stride int, mu float32) float64 {
	p.call(bnSumSq, p.out(), at(x), n, hw, 4*stride, mu)
	runtime.KeepAlive(x)
	return bnOut[p.slot][0]
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
	return bnOut[p.slot][0], bnOut[p.slot][1]
}

func (p *simdPlanes) gradInput(dx, dy, x []float32, n, hw, stride int, mean, invStd, k, m, db, dg float32) {
	p.call(bnGradInput, at(dx), at(dy), at(x), n, hw, 4*stride, mean, invStd, k, m, db, dg)
	runtime.KeepAlive(dx)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
}

// planeCall is a call that a channel of bnShared hands to its round.
type planeCall struct {
	slot, r int
	args    []any
}

// bnJobs are the job numbers of bnRoutines, for gemm.SIMDCalls.
var bnJobs = func() (jobs [len(bnRoutines)]int) {
	for r, name := range bnRoutines {
		jobs[r] = gemm.SIMDJob(name)
	}
	return jobs
}()

// bnShared runs pass(p, ch) for the channels 0..channels-1 with the SIMD
// module's threads, all channels at once, and reports whether it did
// (not on one thread): each channel runs in a goroutine of its own,
// whose calls (the same passes in the same order) are collected, a pass
// of every channel at a time, and made as lists of calls that the threads
// claim, a call each (gemm.RunCalls). Every channel computes what it
// computes alone: the same bits on any number of threads.
func bnShared(channels int, pass func(p bnPlanes, ch int)) bool {
	n := min(gemm.Threads(), channels)
	if wasmBN == nil || n < 2 || !gemm.CallsReady() {
		return false
	}
	if len(bnOut) < channels {
		bnOut = make([][2]float64, channels)
	}
	calls := make(chan planeCall)
	slots := make([]simdPlanes, channels)
	finished := make(chan struct{}, channels)
	for s := range slots {
		slots[s] = simdPlanes{fns: wasmBN.fns, slot: s, round: calls, done: make(chan struct{})}
		go func() {
			pass(&slots[s], s)
			finished <- struct{}{}
		}()
	}
	batch := make([]planeCall, 0, channels)
	for active := channels; active > 0; {
		// One word from each channel: its next call, or that it has
		// finished.
		batch = batch[:0]
		for left := active; left > 0; left-- {
			select {
			case c := <-calls:
				batch = append(batch, c)
			case <-finished:
				active--
			}
		}
		makeCalls(batch)
		for _, c := range batch {
			slots[c.slot].done <- struct{}{}
		}
	}
	return true
}

// makeCalls makes the calls of batch, a list each that the threads claim.
func makeCalls(batch []planeCall) {
	if len(batch) == 0 {
		return
	}
	lists := callLists(len(batch))
	for i, c := range batch {
		var a [12]int32 // the most arguments of a BatchNorm routine (bngradinput's)
		words(a[:len(c.args)], c.args)
		lists[i].Add(bnJobs[c.r], a[:len(c.args)]...)
	}
	gemm.RunCalls(lists, len(lists), 0)
}

// words writes args (ints and float32s) into a as 32-bit words, floats as
// their bits.
func words(a []int32, args []any) {
	for i, v := range args {
		switch v := v.(type) {
		case int:
			a[i] = int32(v)
		case float32:
			a[i] = int32(math.Float32bits(v))
		default:
			panic(fmt.Sprintf("kernels: cpu: a SIMD call's argument of type %T", v))
		}
	}
}

// biasGradSums sets db[c] to the float64 sum of channel c of dy
// ([outer, ch, inner]) as a float32, each channel one pass of the SIMD
// module's bnsum (Σ x), the channels shared out between its threads where
// several serve (bnShared), and reports whether it did: not where no module
// runs.
func biasGradSums(db, dy []float32, outer, ch, inner int) bool {
	if wasmBN == nil || outer == 0 {
		return false
	}
	_, _ = db[ch-1], dy[outer*ch*inner-1]
	pass := func(p bnPlanes, c int) { db[c] = float32(p.sum(dy[c*inner:], outer, inner, ch*inner)) }
	if !bnShared(ch, pass) {
		for c := range ch {
			pass(wasmBN, c)
		}
	}
	return true
}

// bnTrainShared does BatchNormTrain's work with the channels shared out
// between the SIMD module's threads (bnShared) and reports whether it did.
func bnTrainShared(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw int, momentum, eps float32) bool {
	return hw > 0 && n > 0 && bnShared(c, func(p bnPlanes, ch int) {
		bnTrainPlanes(p, y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
	})
}

// bnBackwardShared does BatchNormBackward's work as bnTrainShared.
func bnBackwardShared(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw int) bool {
	return hw > 0 && n > 0 && bnShared(c, func(p bnPlanes, ch int) {
		bnBackwardPlanes(p, dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
	})
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
