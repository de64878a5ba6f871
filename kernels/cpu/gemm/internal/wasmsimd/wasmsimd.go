// Package wasmsimd holds, in the WebAssembly binary format, the SIMD
// module that the gemm package runs in the browser's CPU backend (its
// macro-kernel and packing), with the rest of the CPU backend's vector
// routines (bn.go, conv.go, pool.go), and its encoder.
//
// Go's WebAssembly port emits no SIMD instructions, so the gemm package
// instantiates this small module beside the Go program: it imports the Go
// program's linear memory (as env.mem) and is called with byte offsets of
// Go slices in it. [Module] and [SharedModule] return its bytes, which
// the encoder (module.go, not built into WebAssembly programs) wrote to
// modules/ at development time: go generate rewrites them, and
// TestModulesUpToDate checks that they are what the encoder encodes. Its export "pack" copies
// micro-panels for the packing of A and B (see pack); its export "macro"
// multiplies a packed block of A by a packed block of B into C, as the gemm
// package's macroKernel does with a micro-kernel:
//
//	macro(mb, nb, kb, a, b, c, rs, cs, tile i32, alpha, beta f32, vec i32)
//
// a holds ceil(mb/mr) micro-panels of mr rows and depth kb (element (i, p)
// of the block at a[(i/mr)*mr*kb + p*mr + i%mr]), b holds ceil(nb/nr)
// micro-panels of nr columns (element (p, j) at b[(j/nr)*nr*kb + p*nr +
// j%nr]), both zero-padded, and element (i, j) of the mb×nb block of C is
// the float32 at byte offset c + i*rs + j*cs. Each element becomes
//
//	alpha*sum_p A(i,p)*B(p,j) + beta*C(i,j)
//
// summed over p = 0, 1, ..., kb-1 in order from zero; with beta zero C is
// not read (NaNs in it are ignored). The module keeps an mr×nr tile of C in
// v128 accumulators: per step of p, one load of nr/4 vectors of B, one
// splat of each of the mr values of A, and mr*nr/4 multiply-adds, either a
// multiply then an add (plain SIMD: the same bits as the scalar Go kernel)
// or one relaxed f32x4.relaxed_madd (relaxed SIMD, fused where the
// hardware has FMA, so the last bit may differ). A whole tile with vec set
// (rs a row stride, cs 4) is stored with vector stores; any other tile goes
// through tile, mr*nr floats of scratch, and is merged element by element.
//
// Its export "seq" makes a list of calls of the other routines, one after
// the other, in one call from the Go program:
//
//	seq(list, n, shift i32)
//
// where list is the byte offset of n blocks of CtlBytes bytes, each laid
// out as a control block's job word (CtlJob: the routine's place in
// Routines in its low 16 bits) and arguments (from CtlArgs on); a list may
// call neither seq nor claim. Bit ShiftBit<<a of the job word marks
// argument a (an i32, a < ShiftArgs) as a byte offset into the scratch of
// the thread that makes the list: seq adds shift to it, so that a list made
// with one thread's scratch runs on any thread's. Its export "claim"
// makes lists that the threads claim one at a time:
//
//	claim(table, count, counter, shift i32)
//
// where table holds count pairs of i32, a list's offset and length:
// until the i32 at counter (which claim adds one to, atomically in a
// shared memory) reaches count, claim makes the list it names with seq and
// shift. Threads run lists too: a control block whose job is seq or claim
// runs them (see SharedModule); each thread that claims from one counter
// passes its own shift.
package wasmsimd

import _ "embed"

// MR and NR are the module's tile of C: MR rows of NR columns.
const MR, NR = 4, 8

// The modules, as the encoder wrote them (see TestModulesUpToDate).
var (
	//go:embed modules/plain.wasm
	plain []byte
	//go:embed modules/relaxed.wasm
	relaxed []byte
	//go:embed modules/shared-plain.wasm
	sharedPlain []byte
	//go:embed modules/shared-relaxed.wasm
	sharedRelaxed []byte
)

// Module returns the binary of the module for an MR×NR tile, with
// relaxed_madd when withRelaxed is set, over a memory that is not shared
// (the Go program's ordinary memory).
func Module(withRelaxed bool) []byte {
	if withRelaxed {
		return relaxed
	}
	return plain
}

// SharedModule returns the binary of the module for a shared memory (the
// Go program's memory made shared, of at most MaxPages pages), which also
// exports the functions that run its routines on several threads: in each
// Web Worker
//
//	worker(ctl i32)
//
// serves the thread's control block at byte offset ctl forever, and on the
// main thread
//
//	run(ctl, n i32)
//
// runs n calls at once: it wakes the workers of the control blocks
// ctl+1*CtlBytes ... ctl+(n-1)*CtlBytes, makes the call of block ctl
// itself, then waits until every worker has finished its call. A control
// block holds, as 32-bit words: the job's sequence number (CtlSeq), the
// last sequence number its worker finished (CtlDone), that the worker is
// serving (CtlReady), which routine to call (CtlJob: its place in
// Routines), then the call's arguments from CtlArgs on (floats as their
// bits), at most MaxArgs. The caller writes every block's call, then calls
// run; a worker that has finished its call spins for a short while for
// the next job before it sleeps.
func SharedModule(withRelaxed bool) []byte {
	if withRelaxed {
		return sharedRelaxed
	}
	return sharedPlain
}

// MaxPages is the maximum size, in 64 KiB pages, of the shared memory that
// SharedModule imports.
const MaxPages = 65536

// The layout of a control block (see SharedModule): byte offsets and size,
// and the most arguments a call has.
const (
	CtlSeq   = 0
	CtlDone  = 4
	CtlReady = 8
	CtlJob   = 12
	CtlArgs  = 16
	CtlBytes = 128 // two cache lines: the threads' blocks share none
	MaxArgs  = (CtlBytes - CtlArgs) / 4
)

// ShiftBit is the bit of a list's job word that marks its first argument
// as moved by seq's shift (see Module); ShiftArgs arguments can be.
const (
	ShiftBit  = 1 << 16
	ShiftArgs = 16
)

// Routines are the module's routines that its threads run (see
// SharedModule), in the order of their job numbers: the macro-kernel, the
// packing, BatchNorm's passes (bn.go), the convolutions' unfolding and the
// transposition of their outputs (conv.go), max pooling and its gradient
// (pool.go), the packing of operands stored by columns and the transforms
// of the F(2x2, 3x3) convolutions (winograd.go), ReLU (relu.go) and Adam
// (adam.go), then seq, which makes a list of calls of the others, and
// claim, which makes lists that the threads claim (see Module).
var Routines = []string{"macro", "pack", "bnsum", "bnsumsq", "bnscale", "bngradsums", "bngradinput", "unfold", "transpose", "maxpool", "maxpoolback", "packcols", "wgframe", "wgin", "wgout", "wggrad", "relu", "reluback", "adam", "seq", "claim"}

// Pointers are the places of the arguments of each of Routines (in its
// order) that are byte offsets into the memory: those that a list's job
// word can mark for seq's shift.
var Pointers = [][]int{
	{3, 4, 5, 8}, // macro: a, b, c, tile
	{0, 1},       // pack: dst, src
	{0, 1},       // bnsum: out, x
	{0, 1},       // bnsumsq: out, x
	{0, 1},       // bnscale: y, x
	{0, 1, 2},    // bngradsums: out, dy, x
	{0, 1, 2},    // bngradinput: dx, dy, x
	{0, 1, 2},    // unfold: col, planes, x
	{0, 1, 6},    // transpose: dst, src, bias
	{0, 1},       // maxpool: y, x
	{0, 1, 2},    // maxpoolback: dx, dy, x
	{0, 1},       // packcols: dst, src
	{0, 1},       // wgframe: planes, x
	{0, 1},       // wgin: v, planes
	{0, 1, 8},    // wgout: out, m, spare
	{0, 1, 8},    // wggrad: z, dyt, zero
	{0, 1},       // relu: y, x
	{0, 1, 2},    // reluback: dx, dy, y
	{0, 1, 2, 3}, // adam: param, grad, m, v
	{0},          // seq: list
	{0, 2},       // claim: table, counter
}

// Job returns the job number of the routine name (its place in Routines),
// or -1 where the module has none of that name.
func Job(name string) int {
	for k, r := range Routines {
		if r == name {
			return k
		}
	}
	return -1
}
