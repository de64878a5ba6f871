//go:build js && wasm && !purego

package gemm

import (
	"math"
	"slices"

	"github.com/deeplda/deeplda/kernels/cpu/gemm/internal/wasmsimd"
)

// Calls is a list of calls of the SIMD module's routines that the module
// makes one after the other in one call from Go (wasmsimd's seq), on the
// thread that claims it (RunCalls). A caller that would otherwise share
// out every routine's call between the threads, and wait for them after
// each, cuts its work into lists of whole pieces that the threads claim
// one at a time: one wait in all, and a thread that the host slows down
// claims fewer.
type Calls struct {
	w      []int32
	lo, hi int // the byte offsets of the thread's scratch (Local)
}

// ProductRows is what the rows of a Product are a multiple of: the
// macro-kernel's micro-panels of A.
const ProductRows = simdMR

// PanelCols is what the columns of a matrix that PackB packs are a
// multiple of: the macro-kernel's micro-panels of B.
const PanelCols = simdNR

// jobClaim is claim's job number.
var jobClaim = int32(wasmsimd.Job("claim"))

// CallsReady reports whether lists of calls can run: the module that the
// products run in has claim.
func CallsReady() bool {
	return len(simdKernels) > 0 && activeKernel == simdKernels[0] && !claimFn.IsUndefined()
}

// Local names the scratch of the first thread, which the calls appended
// from now on use: RunCalls moves their byte offsets into it (the
// arguments of wasmsimd.Pointers) to the scratch of the thread that claims
// the list, the same size, stride bytes further on each thread.
func (l *Calls) Local(scratch []float32) {
	l.lo, l.hi = offset(scratch), offset(scratch)+4*len(scratch)
}

// Add appends the call of the routine job (its number, SIMDJob) with args
// (floats as their bits, at most wasmsimd.MaxArgs).
func (l *Calls) Add(job int, args ...int32) {
	if len(args) > wasmsimd.MaxArgs {
		panic("gemm: a call of more than wasmsimd.MaxArgs arguments")
	}
	n := len(l.w)
	l.w = slices.Grow(l.w, ctlWords)[:n+ctlWords]
	blk := l.w[n:]
	word := int32(job)
	for _, a := range wasmsimd.Pointers[job] {
		if a < len(args) && int(args[a]) >= l.lo && int(args[a]) < l.hi {
			word |= wasmsimd.ShiftBit << a
		}
	}
	blk[wasmsimd.CtlJob/4] = word
	clear(blk[copy(blk[wasmsimd.CtlArgs/4:], args)+wasmsimd.CtlArgs/4:])
}

// Len returns the number of calls in the list.
func (l *Calls) Len() int { return len(l.w) / ctlWords }

// Reset empties the list, keeping its memory, and forgets its scratch.
func (l *Calls) Reset() { l.w, l.lo, l.hi = l.w[:0], 0, 0 }

// PackedBLen returns the floats of a k×n matrix packed by PackB.
func PackedBLen(k, n int) int { return k * roundUp(n, simdNR) }

// PackedALen returns the floats of the scratch that Product packs A into.
func PackedALen() int { return activeKernel.mc * activeKernel.kc }

// TileLen returns the floats of a scratch tile of the macro-kernel.
func TileLen() int { return simdMR * simdNR }

// PackB packs the k×n matrix B (row stride ldb) into dst, PackedBLen(k,
// n) floats, at once, as (*Calls).PackB packs it (the last micro-panel
// zero-padded): for Product's B of any n.
func PackB(dst, b []float32, ldb, k, n int) {
	kc := activeKernel.kc
	for pc := 0; pc < k; pc += kc {
		packB(dst[pc*roundUp(n, simdNR):], false, b, ldb, pc, 0, min(kc, k-pc), n, simdNR)
	}
}

// PackB appends the calls that pack the k×n matrix B (row stride ldb, n a
// multiple of wasmsimd.NR) into dst, PackedBLen(k, n) floats, for
// Product: in blocks of the kernel's depth kc, each a sequence of
// micro-panels as Sgemm packs them.
func (l *Calls) PackB(dst, b []float32, ldb, k, n int) {
	if n%simdNR != 0 {
		panic("gemm: PackB's n is not a multiple of wasmsimd.NR")
	}
	kc := activeKernel.kc
	for pc := 0; pc < k; pc += kc {
		l.Add(int(jobPack), int32(offset(dst[pc*n:])), int32(offset(b[pc*ldb:])), int32(4*ldb), simdNR, int32(min(kc, k-pc)), int32(n/simdNR))
	}
}

// Product appends the calls that compute C = op(A)*B + beta*C, as
// Sgemm(transA, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc) computes
// it where it packs (above the direct limit), from the same bits: op(A)
// is m×k (m a multiple of wasmsimd.MR), stored as A (row stride lda) or,
// with transA, as its transpose; packedB is B packed by either PackB; C is m×n
// (row stride ldc); bufA (PackedALen floats) and tile (TileLen floats)
// are scratch of the thread's own (Local). The caller checks the
// slices' bounds and keeps them alive until the list has run.
func (l *Calls) Product(transA bool, m, n, k int, a []float32, lda int, packedB []float32, beta float32, c []float32, ldc int, bufA, tile []float32) {
	mc, kc := activeKernel.mc, activeKernel.kc
	if m%simdMR != 0 {
		panic("gemm: Product's m is not a multiple of wasmsimd.MR")
	}
	one := int32(math.Float32bits(1))
	for i0 := 0; i0 < m; i0 += mc {
		mb := min(mc, m-i0)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			b := int32(math.Float32bits(beta))
			if pc > 0 {
				b = one // later k blocks accumulate into C
			}
			if transA {
				l.Add(int(jobPack), int32(offset(bufA)), int32(offset(a[pc*lda+i0:])), int32(4*lda), simdMR, int32(kb), int32(mb/simdMR))
			} else {
				l.Add(int(jobPackCols), int32(offset(bufA)), int32(offset(a[i0*lda+pc:])), int32(lda), simdMR, int32(kb), int32(mb/simdMR))
			}
			l.Add(int(jobMacro), int32(mb), int32(n), int32(kb), int32(offset(bufA)), int32(offset(packedB[pc*roundUp(n, simdNR):])),
				int32(offset(c[i0*ldc:])), int32(4*ldc), 4, int32(offset(tile)), one, b, 1)
		}
	}
}

// RunCalls runs the lists, at most threads of the threads that serve the
// products (see Threads) claiming them one at a time in order, this one
// too, until none is left; else one after the other on this thread. The
// list that thread t claims has its offsets into the first thread's
// scratch (Local) moved t*stride bytes on. What the lists compute must not
// depend on which thread runs which, or in which order. The caller keeps
// what the calls reach alive.
func RunCalls(lists []Calls, threads, stride int) {
	claims = slices.Grow(claims[:0], 1+2*len(lists))[:1+2*len(lists)]
	claims[0] = 0 // the lists claimed
	for i := range lists {
		claims[1+2*i], claims[2+2*i] = int32(offset32(lists[i].w)), int32(lists[i].Len())
	}
	table, counter := offset32(claims[1:]), offset32(claims)
	if sharedCalls != nil && len(lists) >= 2 {
		if n := min(len(lists), threads, sharedCalls.threads.serving()); n >= 2 {
			t := sharedCalls.threads
			for s := range n {
				blk := t.ctl[s*ctlWords:][:ctlWords]
				blk[wasmsimd.CtlJob/4] = jobClaim
				copy(blk[wasmsimd.CtlArgs/4:], []int32{int32(table), int32(len(lists)), int32(counter), int32(s * stride)})
			}
			runShared(sharedCalls.run, t.ctl, n)
			return
		}
	}
	claimFn.Invoke(table, len(lists), counter, 0)
}

// claims is RunCalls's table of the lists, after the counter of those
// claimed.
var claims []int32
