//go:build !(js && wasm)

// The module's encoder (see the package comment, in wasmsimd.go). It is
// not built into WebAssembly programs: they embed what it encodes.

package wasmsimd

import (
	"math"

	"github.com/deeplda/deeplda/internal/leb128"
)

// build returns the binary of the module for an mr×nr tile (nr a
// multiple of 4), with relaxed_madd when relaxed is set, for a shared
// memory when shared is set (see Module and SharedModule).
func build(mr, nr int, relaxed, shared bool) []byte {
	var m []byte
	m = append(m, 0, 'a', 's', 'm', 1, 0, 0, 0)
	// Type 0 (macro): nine i32 parameters, alpha and beta (f32), vec
	// (i32). Type 1 (pack): six i32 parameters. Type 2 (worker): one i32.
	// Type 3 (run): two i32. Then the types of the vector routines
	// (vecFuncs), seq's and claim's, one each, function i of type i.
	types := cat(funcType(macroType), funcType(packType))
	funcs := []byte{0, 1}
	exports := cat(name("macro"), []byte{0x00, 0x00}, name("pack"), []byte{0x00, 0x01})
	mb, pb := macro(mr, nr, relaxed), pack()
	code := cat(u32(len(mb)), mb, u32(len(pb)), pb)
	vecs := vecFuncs()
	// The routines, in the order of Routines: macro, pack, the vector
	// routines from function 2 on (4 on in a shared module, after worker
	// and run), then seq and claim, the last functions.
	first := 2
	if shared {
		first = 4
	}
	rs := []routine{{"macro", macroType, 0}, {"pack", packType, 1}}
	for i, v := range vecs {
		rs = append(rs, routine{v.name, v.params, first + i})
	}
	rs = append(rs, routine{"seq", seqType, first + len(vecs)}, routine{"claim", claimType, first + len(vecs) + 1})
	// Import env.mem: a memory of at least 0 pages with no maximum, or a
	// shared one of at most MaxPages.
	limits := []byte{0x00, 0x00}
	if shared {
		limits = cat([]byte{0x03, 0x00}, u32(MaxPages))
		types = cat(types, funcType([]byte{i32}), funcType([]byte{i32, i32}))
		funcs = append(funcs, 2, 3)
		exports = cat(exports, name("worker"), []byte{0x00, 0x02}, name("run"), []byte{0x00, 0x03})
		wb, rb := worker(rs), run(rs)
		code = cat(code, u32(len(wb)), wb, u32(len(rb)), rb)
	}
	lists := rs[:len(rs)-2] // what a list may call
	for _, v := range append(vecs, vecFunc{"seq", seqType, seq(lists)}, vecFunc{"claim", claimType, claim(rs[len(rs)-2].index, shared)}) {
		idx := len(funcs)
		types = cat(types, funcType(v.params))
		funcs = append(funcs, byte(idx))
		exports = cat(exports, name(v.name), []byte{0x00}, u32(idx))
		code = cat(code, u32(len(v.body)), v.body)
	}
	m = section(m, 1, vec(len(funcs), types))
	m = section(m, 2, vec(1, cat(name("env"), name("mem"), []byte{0x02}, limits)))
	m = section(m, 3, vec(len(funcs), funcs))
	m = section(m, 7, vec(len(funcs), exports))
	m = section(m, 10, vec(len(funcs), code))
	return m
}

// macroType and packType are the parameters of macro and pack.
var (
	macroType = []byte{i32, i32, i32, i32, i32, i32, i32, i32, i32, f32, f32, i32}
	packType  = []byte{i32, i32, i32, i32, i32, i32}
)

// vecFuncs are the module's routines for the rest of the CPU backend's
// step: BatchNorm's passes, the convolutions' unfolding and the
// transposition of their outputs, max pooling, the packing of operands
// stored by columns, the transforms of the F(2x2, 3x3) convolutions,
// ReLU and Adam.
func vecFuncs() []vecFunc {
	return append(bnFuncs(), unfoldFunc(), transposeFunc(), poolFunc(false), poolFunc(true), packColsFunc(),
		wgFrameFunc(), wgInFunc(), wgOutFunc(), wgGradFunc(), reluFunc(false), reluFunc(true), adamFunc())
}

// routine is a function of the module that the threads run: its name (as
// in Routines), parameters and function index.
type routine struct {
	name   string
	params []byte
	index  int
}

// dispatch appends the call of the routine that the control block at
// local blk names (its job word: the routine's place in rs) with the
// block's arguments.
func (f *fn) dispatch(blk int, rs []routine) *fn { return f.dispatchShifted(blk, rs, -1, -1) }

// dispatchShifted is dispatch for a call of a list, its job word loaded
// into local job: the routine's place in rs in its low 16 bits, and each
// bit 16+a set where argument a (an i32) is to be moved by local shift
// (see Module). Where job is negative, it is dispatch.
func (f *fn) dispatchShifted(blk int, rs []routine, job, shift int) *fn {
	for k, r := range rs {
		if r.name != Routines[k] || len(r.params) > MaxArgs {
			panic("wasmsimd: routine " + r.name + " is not Routines' or has too many parameters")
		}
		if job < 0 {
			f.get(blk).op(opI32Load).mem(CtlJob)
		} else {
			f.get(job).i32c(ShiftBit - 1).op(opI32And)
		}
		f.i32c(k).op(opI32Eq)
		f.ifOp()
		for a, t := range r.params {
			f.get(blk)
			if t == f32 {
				f.op(opF32Load).mem(CtlArgs + 4*a)
				continue
			}
			f.op(opI32Load).mem(CtlArgs + 4*a)
			if job >= 0 && a < ShiftArgs {
				// + (shift & -(job>>(16+a) & 1))
				f.i32c(0).get(job).i32c(16 + a).op(opI32ShrU).i32c(1).op(opI32And).op(opI32Sub)
				f.get(shift).op(opI32And).op(opI32Add)
			}
		}
		f.call(r.index)
		f.end()
	}
	return f
}

// spinJobs is how many times a worker looks for its next job before it
// sleeps (tens of microseconds): the main thread hands out the next share
// of a product after packing the next block of A, and waking a sleeping
// thread costs as long.
const spinJobs = 1 << 15

// worker returns the body of the worker function (see SharedModule), which
// runs the routines rs.
func worker(rs []routine) []byte {
	const (
		ctl  = iota
		last // locals
		i
	)
	var f fn
	f.get(ctl).atomic(opI32AtomicLoad, CtlSeq).set(last)
	f.get(ctl).i32c(1).atomic(opI32AtomicStore, CtlReady)
	f.loop() // forever
	f.block()
	f.i32c(spinJobs).set(i)
	f.loop() // spin: a new job breaks out to the work
	f.get(ctl).atomic(opI32AtomicLoad, CtlSeq).get(last).op(opI32Ne).brIf(1)
	f.get(i).i32c(1).op(opI32Sub).tee(i).brIf(0)
	f.end()
	// No job while spinning: sleep until the sequence number moves on.
	f.get(ctl).get(last).i64c(-1).atomic(opWait32, CtlSeq).op(opDrop)
	f.br(1)
	f.end()
	f.get(ctl).atomic(opI32AtomicLoad, CtlSeq).set(last)
	f.dispatch(ctl, rs)
	f.get(ctl).get(last).atomic(opI32AtomicStore, CtlDone)
	f.br(0)
	f.end()
	f.end()
	return cat(vec(1, cat(u32(2), []byte{i32})), f.code)
}

// run returns the body of the run function (see SharedModule), which runs
// the routines rs.
func run(rs []routine) []byte {
	const (
		ctl = iota
		n
		t // locals
		blk
		seq
	)
	var f fn
	// Wake the workers: seq+1 in each block, then notify its waiter.
	f.i32c(1).set(t)
	f.block().loop()
	f.get(t).get(n).op(opI32GeS).brIf(1)
	f.get(ctl).get(t).i32c(CtlBytes).op(opI32Mul).op(opI32Add).set(blk)
	f.get(blk).get(blk).atomic(opI32AtomicLoad, CtlSeq).i32c(1).op(opI32Add).atomic(opI32AtomicStore, CtlSeq)
	f.get(blk).i32c(1).atomic(opNotify, CtlSeq).op(opDrop)
	f.get(t).i32c(1).op(opI32Add).set(t)
	f.br(0)
	f.end().end()
	// The main thread's own share.
	f.dispatch(ctl, rs)
	// Wait for the workers (the main thread of a page may not sleep).
	f.i32c(1).set(t)
	f.block().loop()
	f.get(t).get(n).op(opI32GeS).brIf(1)
	f.get(ctl).get(t).i32c(CtlBytes).op(opI32Mul).op(opI32Add).set(blk)
	f.get(blk).atomic(opI32AtomicLoad, CtlSeq).set(seq)
	f.loop()
	f.get(blk).atomic(opI32AtomicLoad, CtlDone).get(seq).op(opI32Ne).brIf(0)
	f.end()
	f.get(t).i32c(1).op(opI32Add).set(t)
	f.br(0)
	f.end().end()
	f.end()
	return cat(vec(1, cat(u32(3), []byte{i32})), f.code)
}

// seqType is the type of seq: a list's offset, its length and the shift
// of its arguments.
var seqType = []byte{i32, i32, i32}

// seq returns the body of seq(list, n, shift), which makes the n calls
// that the list at list describes, one after the other: each a block of
// CtlBytes bytes laid out as a control block's job word and arguments
// (see Routines), a routine of rs, the arguments that the job word marks
// moved by shift (see Module).
func seq(rs []routine) []byte {
	const (
		list = iota
		n
		shift
		blk // locals
		end
		job
	)
	var f fn
	f.get(list).get(n).i32c(CtlBytes).op(opI32Mul).op(opI32Add).set(end)
	f.get(list).set(blk)
	f.block().loop()
	f.get(blk).get(end).op(opI32GeU).brIf(1)
	f.get(blk).op(opI32Load).mem(CtlJob).set(job)
	f.dispatchShifted(blk, rs, job, shift)
	f.get(blk).i32c(CtlBytes).op(opI32Add).set(blk)
	f.br(0)
	f.end().end()
	f.end()
	return cat(vec(1, cat(u32(3), []byte{i32})), f.code)
}

// claimType is the type of claim: a table of lists, its length, the
// counter of the lists claimed and the shift of their arguments.
var claimType = []byte{i32, i32, i32, i32}

// claim returns the body of claim(table, count, counter, shift), which
// claims lists of the table at table (count pairs of i32: a list's offset
// and length) one at a time, adding one to the i32 at counter, and makes
// each with seq (function seqFn) and shift, until none is left: with
// atomics on a shared memory, where the threads claim from one counter.
func claim(seqFn int, shared bool) []byte {
	const (
		table = iota
		count
		counter
		shift
		i // local
	)
	var f fn
	f.block().loop()
	if shared {
		f.get(counter).i32c(1).atomic(opI32AtomicRmwAdd, 0)
	} else {
		f.get(counter).get(counter).op(opI32Load).mem(0).tee(i).i32c(1).op(opI32Add).op(opI32Store).mem(0).get(i)
	}
	f.tee(i).get(count).op(opI32GeU).brIf(1)
	f.get(table).get(i).i32c(8).op(opI32Mul).op(opI32Add).tee(i).op(opI32Load).mem(0)
	f.get(i).op(opI32Load).mem(4)
	f.get(shift).call(seqFn)
	f.br(0)
	f.end().end()
	f.end()
	return cat(vec(1, cat(u32(1), []byte{i32})), f.code)
}

// funcType returns the encoding of a function type with the given
// parameters and no result.
func funcType(params []byte) []byte { return cat([]byte{0x60}, vec(len(params), params), []byte{0}) }

// Value types.
const (
	i32  = 0x7f
	f32  = 0x7d
	f64  = 0x7c
	v128 = 0x7b
)

// Parameters of macro, as local indices.
const (
	pMB = iota
	pNB
	pKB
	pA
	pB
	pC
	pRS
	pCS
	pTile
	pAlpha
	pBeta
	pVec
	nParams
)

// macro returns the body (locals and code) of the macro function.
func macro(mr, nr int, relaxed bool) []byte {
	if nr%4 != 0 || mr < 1 || nr < 4 {
		panic("wasmsimd: bad tile")
	}
	nv := nr / 4 // vectors per row of the tile
	var f fn
	// Locals after the parameters: i32 scalars, one f32, then v128s.
	next := nParams
	local := func() int { next++; return next - 1 }
	jr, ir, aRow, bCol, pa, pb, p := local(), local(), local(), local(), local(), local(), local()
	rows, cols, cp, q, i, j, t := local(), local(), local(), local(), local(), local(), local()
	nI32 := next - nParams
	v := local()
	vBase := next
	acc := make([]int, mr*nv)
	for k := range acc {
		acc[k] = local()
	}
	bv := make([]int, nv)
	for k := range bv {
		bv[k] = local()
	}
	av, valpha, vbeta := local(), local(), local()
	nV128 := next - vBase

	// valpha, vbeta = splat(alpha), splat(beta); bCol = b; jr = 0.
	f.get(pAlpha).simd(opF32x4Splat).set(valpha)
	f.get(pBeta).simd(opF32x4Splat).set(vbeta)
	f.get(pB).set(bCol)
	f.i32c(0).set(jr)
	f.block().loop() // over the micro-panels of B: jr += nr
	f.get(jr).get(pNB).op(opI32GeS).brIf(1)
	f.get(pA).set(aRow)
	f.i32c(0).set(ir)
	f.block().loop() // over the micro-panels of A: ir += mr
	f.get(ir).get(pMB).op(opI32GeS).brIf(1)

	// The tile: kb rank-1 updates.
	f.get(aRow).set(pa)
	f.get(bCol).set(pb)
	for _, a := range acc {
		f.v128zero().set(a)
	}
	f.get(pKB).set(p)
	f.loop()
	for h, b := range bv {
		f.get(pb).vmem(opV128Load, 16*h).set(b)
	}
	for r := 0; r < mr; r++ {
		f.get(pa).vmem(opV128Load32Splat, 4*r).set(av)
		for h, b := range bv {
			a := acc[r*nv+h]
			if relaxed {
				f.get(av).get(b).get(a).simd(opF32x4RelaxedMadd).set(a)
			} else {
				f.get(a).get(av).get(b).simd(opF32x4Mul).simd(opF32x4Add).set(a)
			}
		}
	}
	f.get(pa).i32c(4 * mr).op(opI32Add).set(pa)
	f.get(pb).i32c(4 * nr).op(opI32Add).set(pb)
	f.get(p).i32c(1).op(opI32Sub).tee(p).brIf(0)
	f.end()
	for _, a := range acc {
		f.get(a).get(valpha).simd(opF32x4Mul).set(a)
	}

	// rows, cols = what is left of the block, at most mr and nr.
	f.get(pMB).get(ir).op(opI32Sub).set(rows)
	f.get(pNB).get(jr).op(opI32Sub).set(cols)
	f.i32c(mr).get(rows).get(rows).i32c(mr).op(opI32GtS).op(opSelect).set(rows)
	f.i32c(nr).get(cols).get(cols).i32c(nr).op(opI32GtS).op(opSelect).set(cols)
	// cp = c + ir*rs + jr*cs.
	f.get(pC).get(ir).get(pRS).op(opI32Mul).op(opI32Add).get(jr).get(pCS).op(opI32Mul).op(opI32Add).set(cp)

	// A whole tile with vec: vector stores, row by row.
	f.get(rows).i32c(mr).op(opI32Eq).get(cols).i32c(nr).op(opI32Eq).op(opI32And).get(pVec).op(opI32And)
	f.ifOp()
	f.get(pBeta).f32c(0).op(opF32Ne)
	f.ifOp()
	for r := 0; r < mr; r++ {
		for h := 0; h < nv; h++ {
			f.get(cp).get(acc[r*nv+h]).get(cp).vmem(opV128Load, 16*h).get(vbeta).simd(opF32x4Mul).simd(opF32x4Add).vmem(opV128Store, 16*h)
		}
		f.get(cp).get(pRS).op(opI32Add).set(cp)
	}
	f.elseOp()
	for r := 0; r < mr; r++ {
		for h := 0; h < nv; h++ {
			f.get(cp).get(acc[r*nv+h]).vmem(opV128Store, 16*h)
		}
		f.get(cp).get(pRS).op(opI32Add).set(cp)
	}
	f.end()
	f.elseOp()
	// Any other tile: to the scratch tile, then element by element.
	for r := 0; r < mr; r++ {
		for h := 0; h < nv; h++ {
			f.get(pTile).get(acc[r*nv+h]).vmem(opV128Store, 4*(r*nr+4*h))
		}
	}
	f.i32c(0).set(i)
	f.loop() // rows of the tile: i++, cp += rs
	f.get(pTile).get(i).i32c(4 * nr).op(opI32Mul).op(opI32Add).set(t)
	f.get(cp).set(q)
	f.i32c(0).set(j)
	f.loop() // columns: j++, t += 4, q += cs
	f.get(t).op(opF32Load).mem(0).set(v)
	f.get(pBeta).f32c(0).op(opF32Ne)
	f.ifOp()
	f.get(pBeta).get(q).op(opF32Load).mem(0).op(opF32Mul).get(v).op(opF32Add).set(v)
	f.end()
	f.get(q).get(v).op(opF32Store).mem(0)
	f.get(t).i32c(4).op(opI32Add).set(t)
	f.get(q).get(pCS).op(opI32Add).set(q)
	f.get(j).i32c(1).op(opI32Add).tee(j).get(cols).op(opI32LtS).brIf(0)
	f.end()
	f.get(cp).get(pRS).op(opI32Add).set(cp)
	f.get(i).i32c(1).op(opI32Add).tee(i).get(rows).op(opI32LtS).brIf(0)
	f.end()
	f.end()

	f.get(aRow).get(pKB).i32c(4 * mr).op(opI32Mul).op(opI32Add).set(aRow)
	f.get(ir).i32c(mr).op(opI32Add).set(ir)
	f.br(0)
	f.end().end()
	f.get(bCol).get(pKB).i32c(4 * nr).op(opI32Mul).op(opI32Add).set(bCol)
	f.get(jr).i32c(nr).op(opI32Add).set(jr)
	f.br(0)
	f.end().end()
	f.end()

	locals := vec(3, cat(u32(nI32), []byte{i32}, u32(1), []byte{f32}, u32(nV128), []byte{v128}))
	return cat(locals, f.code)
}

// pack returns the body of the pack function,
//
//	pack(dst, src, lds, w, kb, panels i32)
//
// which copies panels micro-panels of w columns (w a multiple of 4) and
// depth kb: micro-panel q takes columns q*w to q*w+w-1 of the kb rows at
// byte offset src (row stride lds bytes), and lands, row after row, at
// dst + q*w*kb*4. kb and panels are at least 1.
func pack() []byte {
	const (
		dst = iota
		src
		lds
		w
		kb
		panels
		q // locals
		p
		h
		s
		pan
		wb
	)
	var f fn
	f.get(w).i32c(4).op(opI32Mul).set(wb)
	f.get(src).set(pan)
	f.get(panels).set(q)
	f.loop() // micro-panels: pan += wb
	f.get(pan).set(s)
	f.get(kb).set(p)
	f.loop() // rows: s += lds
	f.i32c(0).set(h)
	f.loop() // vectors of a row: h += 16, dst += 16
	f.get(dst).get(s).get(h).op(opI32Add).vmem(opV128Load, 0).vmem(opV128Store, 0)
	f.get(dst).i32c(16).op(opI32Add).set(dst)
	f.get(h).i32c(16).op(opI32Add).tee(h).get(wb).op(opI32LtS).brIf(0)
	f.end()
	f.get(s).get(lds).op(opI32Add).set(s)
	f.get(p).i32c(1).op(opI32Sub).tee(p).brIf(0)
	f.end()
	f.get(pan).get(wb).op(opI32Add).set(pan)
	f.get(q).i32c(1).op(opI32Sub).tee(q).brIf(0)
	f.end()
	f.end()
	return cat(vec(1, cat(u32(wb-q+1), []byte{i32})), f.code)
}

// Opcodes.
const (
	opBlock         = 0x02
	opLoop          = 0x03
	opIf            = 0x04
	opElse          = 0x05
	opEnd           = 0x0b
	opBr            = 0x0c
	opBrIf          = 0x0d
	opSelect        = 0x1b
	opGet           = 0x20
	opSet           = 0x21
	opTee           = 0x22
	opF32Load       = 0x2a
	opF32Store      = 0x38
	opI32C          = 0x41
	opI64C          = 0x42
	opF32C          = 0x43
	opCall          = 0x10
	opDrop          = 0x1a
	opI32Load       = 0x28
	opI32Eq         = 0x46
	opI32Ne         = 0x47
	opI32LtS        = 0x48
	opI32GtS        = 0x4a
	opI32GeS        = 0x4e
	opI32GeU        = 0x4f
	opF32Ne         = 0x5c
	opF32Lt         = 0x5d
	opF32Gt         = 0x5e
	opI32Add        = 0x6a
	opI32Sub        = 0x6b
	opI32Mul        = 0x6c
	opI32DivS       = 0x6d
	opI32And        = 0x71
	opI32ShrU       = 0x76
	opI32Store      = 0x36
	opF32Add        = 0x92
	opF32Sub        = 0x93
	opF32Mul        = 0x94
	opF32Div        = 0x95
	opF32Sqrt       = 0x91
	opF64Add        = 0xa0
	opF64Mul        = 0xa2
	opF64PromoteF32 = 0xbb
	opF64Store      = 0x39
)

// SIMD opcodes (after the 0xfd prefix).
const (
	opV128Load         = 0x00
	opV128Load32Splat  = 0x09
	opV128Store        = 0x0b
	opV128Const        = 0x0c
	opF32x4Splat       = 0x13
	opI8x16Shuffle     = 0x0d
	opF64x2ExtractLane = 0x21
	opF64x2PromoteLow  = 0x5f
	opF32x4Lt          = 0x43
	opF32x4Gt          = 0x44
	opV128And          = 0x4e
	opV128AndNot       = 0x4f
	opV128Bitselect    = 0x52
	opF32x4Neg         = 0xe1
	opF32x4Sqrt        = 0xe3
	opF32x4Add         = 0xe4
	opF32x4Sub         = 0xe5
	opF32x4Mul         = 0xe6
	opF32x4Div         = 0xe7
	opF64x2Add         = 0xf0
	opF64x2Mul         = 0xf2
	opF32x4RelaxedMadd = 0x105
)

// Atomic opcodes (after the 0xfe prefix).
const (
	opNotify          = 0x00
	opWait32          = 0x01
	opI32AtomicLoad   = 0x10
	opI32AtomicStore  = 0x17
	opI32AtomicRmwAdd = 0x1e
)

// fn accumulates the code of a function body.
type fn struct{ code []byte }

func (f *fn) op(o byte) *fn      { f.code = append(f.code, o); return f }
func (f *fn) get(l int) *fn      { f.code = append(append(f.code, opGet), u32(l)...); return f }
func (f *fn) set(l int) *fn      { f.code = append(append(f.code, opSet), u32(l)...); return f }
func (f *fn) tee(l int) *fn      { f.code = append(append(f.code, opTee), u32(l)...); return f }
func (f *fn) br(depth int) *fn   { f.code = append(append(f.code, opBr), u32(depth)...); return f }
func (f *fn) brIf(depth int) *fn { f.code = append(append(f.code, opBrIf), u32(depth)...); return f }
func (f *fn) block() *fn         { f.code = append(f.code, opBlock, 0x40); return f }
func (f *fn) loop() *fn          { f.code = append(f.code, opLoop, 0x40); return f }
func (f *fn) ifOp() *fn          { f.code = append(f.code, opIf, 0x40); return f }
func (f *fn) elseOp() *fn        { f.code = append(f.code, opElse); return f }
func (f *fn) end() *fn           { f.code = append(f.code, opEnd); return f }
func (f *fn) i32c(v int) *fn     { f.code = append(append(f.code, opI32C), s32(v)...); return f }
func (f *fn) i64c(v int) *fn     { f.code = append(append(f.code, opI64C), s32(v)...); return f }
func (f *fn) call(i int) *fn     { f.code = append(append(f.code, opCall), u32(i)...); return f }

// f32c pushes the f32 constant x.
func (f *fn) f32c(x float32) *fn {
	b := math.Float32bits(x)
	f.code = append(f.code, opF32C, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
	return f
}

// simd appends the SIMD instruction o.
func (f *fn) simd(o int) *fn {
	f.code = append(append(f.code, 0xfd), u32(o)...)
	return f
}

// lane appends a lane index (of an extract or replace).
func (f *fn) lane(i byte) *fn { f.code = append(f.code, i); return f }

// shuffle32 replaces the two v128s on the stack by the four 32-bit lanes
// named (0-3 the first's, 4-7 the second's).
func (f *fn) shuffle32(lanes ...byte) *fn {
	f.simd(opI8x16Shuffle)
	for _, l := range lanes {
		f.code = append(f.code, 4*l, 4*l+1, 4*l+2, 4*l+3)
	}
	return f
}

// shuffleHigh replaces the two v128s on the stack by one whose two halves
// are both the upper half of the first (lanes 2 and 3 of a f32x4 moved to
// 0 and 1).
func (f *fn) shuffleHigh() *fn {
	f.simd(opI8x16Shuffle)
	for range 2 {
		f.code = append(f.code, 8, 9, 10, 11, 12, 13, 14, 15)
	}
	return f
}

// v128zero pushes a v128 of zeros.
func (f *fn) v128zero() *fn {
	f.simd(opV128Const)
	f.code = append(f.code, make([]byte, 16)...)
	return f
}

// mem appends the memory argument of a load or a store: an alignment hint
// of 4 bytes and offset.
func (f *fn) mem(offset int) *fn {
	f.code = append(append(f.code, 2), u32(offset)...)
	return f
}

// atomic appends the atomic instruction o on the 32-bit word at the given
// byte offset (atomics take their natural alignment, as mem gives).
func (f *fn) atomic(o, offset int) *fn {
	f.code = append(append(f.code, 0xfe), u32(o)...)
	return f.mem(offset)
}

// vmem appends the SIMD load or store o at the given byte offset.
func (f *fn) vmem(o, offset int) *fn { return f.simd(o).mem(offset) }

// u32 returns the unsigned LEB128 encoding of v.
func u32(v int) []byte { return leb128.AppendUnsigned(nil, uint64(v)) }

// s32 returns the signed LEB128 encoding of v.
func s32(v int) []byte { return leb128.AppendSigned(nil, int64(v)) }

// vec returns a vector of n items whose encodings are items.
func vec(n int, items []byte) []byte { return cat(u32(n), items) }

// name returns the encoding of the name s.
func name(s string) []byte { return vec(len(s), []byte(s)) }

// section appends section id with contents body to m.
func section(m []byte, id byte, body []byte) []byte {
	return append(append(append(m, id), u32(len(body))...), body...)
}

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
