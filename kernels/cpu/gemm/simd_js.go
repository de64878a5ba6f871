//go:build js && wasm && !purego

package gemm

import (
	"math"
	"os"
	"runtime"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/deeplda/deeplda/kernels/cpu/gemm/internal/wasmsimd"
)

// The SIMD macro-kernels of the browser's CPU backend.
//
// Go's WebAssembly port emits no SIMD instructions, so where the JavaScript
// host runs WebAssembly SIMD the packed products run in a small module of
// their own (package wasmsimd), instantiated at start-up beside the Go
// program. It imports the Go program's linear memory and runs the whole
// macro-kernel loop over packed panels of A and B in one call, because a
// call from Go into JavaScript costs about a microsecond. Two kernels may
// load: "wasmsimd4x8" (plain SIMD, a multiply then an add: the same bits
// as the portable Go kernel, whose kc it shares) and "wasmrelaxed4x8"
// (relaxed SIMD's multiply-add, fused where the hardware has FMA). Sgemm
// uses the relaxed one where the host validates it, else the plain one,
// else the portable Go kernel, silently. The environment variable
// DEEPLDA_WASM_SIMD set to "off" keeps the portable kernel, and set to
// "plain" keeps plain SIMD (for benchmarks).
//
// Threads. Where the Go program's memory is a shared one (the page loads
// the build whose memory is shared when it is cross-origin isolated) and
// the host has Web Workers, the preferred kernel also starts Web Workers,
// by default one fewer than the cores less the main thread
// (navigator.hardwareConcurrency - 2, so one core stays the browser's; at
// most maxThreads threads in all; SetThreads changes the number), each
// running the module's worker loop over the same memory, and splits
// every macro call big enough between the main thread and the workers
// that are serving (see simdThreads). Each share is a range of whole tiles
// of C computed exactly as in one call, so the results are the same bits
// on any number of threads.

// simdMR and simdNR are the tile of the SIMD kernels.
const simdMR, simdNR = wasmsimd.MR, wasmsimd.NR

// wasmKernels returns the SIMD kernels the host runs, the preferred one
// first; none where it has no WebAssembly SIMD, or the module cannot be
// instantiated.
func wasmKernels() []*microKernel {
	mode := os.Getenv("DEEPLDA_WASM_SIMD")
	if mode == "off" {
		return nil
	}
	mem, ok := goMemory()
	if !ok {
		return nil
	}
	module := wasmsimd.Module
	shared := isShared(mem)
	if shared {
		module = wasmsimd.SharedModule
	}
	var ks []*microKernel
	if mode != "plain" {
		if k := newSIMDKernel("wasmrelaxed4x8", mem, module(true)); k != nil {
			ks = append(ks, k)
		}
	}
	if k := newSIMDKernel("wasmsimd4x8", mem, module(false)); k != nil {
		ks = append(ks, k)
	}
	if shared && len(ks) > 0 {
		startThreads(ks[0], mem)
	}
	return ks
}

// isShared reports whether the memory mem is a shared one.
func isShared(mem js.Value) bool {
	sab := js.Global().Get("SharedArrayBuffer")
	return sab.Type() == js.TypeFunction && mem.Get("buffer").InstanceOf(sab)
}

// goMemory returns the Go program's WebAssembly.Memory. wasm_exec.js keeps
// it in the Go object that runs the program, which Go code reaches only as
// the receiver of the Go class's _makeFuncWrapper: the method is wrapped
// for the time of one js.FuncOf to note it.
func goMemory() (mem js.Value, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	class := js.Global().Get("Go")
	if class.Type() != js.TypeFunction {
		return js.Value{}, false
	}
	note := js.Global().Get("Function").New("proto", `
		const make = proto._makeFuncWrapper;
		let mem = null;
		proto._makeFuncWrapper = function (id) {
			mem = this._inst.exports.mem;
			return make.call(this, id);
		};
		return () => { proto._makeFuncWrapper = make; return mem; };`)
	done := note.Invoke(class.Get("prototype"))
	js.FuncOf(func(js.Value, []js.Value) any { return nil }).Release()
	mem = done.Invoke()
	if !mem.InstanceOf(js.Global().Get("WebAssembly").Get("Memory")) {
		return js.Value{}, false
	}
	return mem, true
}

// newSIMDKernel returns the kernel of the module bin (from
// wasmsimd.Module), or nil where the host does not validate or cannot
// instantiate it.
func newSIMDKernel(name string, mem js.Value, bin []byte) (k *microKernel) {
	defer func() {
		if recover() != nil {
			k = nil
		}
	}()
	u8 := js.Global().Get("Uint8Array").New(len(bin))
	js.CopyBytesToJS(u8, bin)
	wa := js.Global().Get("WebAssembly")
	if !wa.Call("validate", u8).Bool() {
		return nil
	}
	env := js.Global().Get("Object").New()
	env.Set("mem", mem)
	imports := js.Global().Get("Object").New()
	imports.Set("env", env)
	mod := wa.Get("Module").New(u8)
	inst := wa.Get("Instance").New(mod, imports)
	exports := inst.Get("exports")
	s := &simdMacro{fn: exports.Get("macro"), module: mod, run: exports.Get("run")}
	if packFn.IsUndefined() {
		packFn, packColsFn, claimFn, simdExports = exports.Get("pack"), exports.Get("packcols"), exports.Get("claim"), exports
	}
	k = &microKernel{
		name: name, mr: simdMR, nr: simdNR,
		kc: goKernel.kc, mc: 128,
		direct: directWork,
		macro:  s.block,
	}
	simdMacros[k] = s
	// The variants (for the tests) are one-tile calls of the macro-kernel.
	for rows := 1; rows <= simdMR; rows++ {
		k.rows = append(k.rows, rows)
		var fns []kernelFunc
		for cols := 1; cols <= simdNR; cols++ {
			fns = append(fns, func(kb int, a, b, c []float32, ldc int, alpha, beta float32) {
				var tile [simdMR * simdNR]float32
				s.block(rows, cols, kb, a, b, tile[:], alpha, beta, c, ldc, false)
			})
		}
		k.fns = append(k.fns, fns)
	}
	for cols := 1; cols <= simdNR; cols++ {
		k.cols = append(k.cols, cols)
	}
	return k
}

// simdMacros are the SIMD modules' macro functions by kernel.
var simdMacros = map[*microKernel]*simdMacro{}

// simdMacro is the macro function of an instantiated SIMD module.
type simdMacro struct {
	fn      js.Value
	module  js.Value     // the compiled module, for the workers
	run     js.Value     // the module's run (a shared module's), or undefined
	threads *simdThreads // the workers, or nil
}

// block is macroKernel for the SIMD module (see macroKernel): it checks
// the bounds of everything the module reads or writes, then calls it with
// the byte offsets of the slices in the Go program's memory.
func (s *simdMacro) block(mb, nb, kb int, packedA, packedB, tile []float32, alpha, beta float32, c []float32, ldc int, transC bool) {
	if mb == 0 || nb == 0 {
		return
	}
	_, _, _ = packedA[roundUp(mb, simdMR)*kb-1], packedB[roundUp(nb, simdNR)*kb-1], tile[simdMR*simdNR-1]
	rs, cs, vec := 4*ldc, 4, 1
	if transC {
		_ = c[(nb-1)*ldc+mb-1]
		rs, cs, vec = 4, 4*ldc, 0
	} else {
		_ = c[(mb-1)*ldc+nb-1]
	}
	if s.threads != nil && s.threads.split(s.run, mb, nb, kb, offset(packedA), offset(packedB), offset(c), rs, cs, alpha, beta, vec) {
		runtime.KeepAlive(packedA)
		runtime.KeepAlive(packedB)
		runtime.KeepAlive(c)
		return
	}
	s.fn.Invoke(mb, nb, kb, offset(packedA), offset(packedB), offset(c), rs, cs, offset(tile), alpha, beta, vec)
	runtime.KeepAlive(packedA)
	runtime.KeepAlive(packedB)
	runtime.KeepAlive(tile)
	runtime.KeepAlive(c)
}

// offset returns the byte offset of s[0] in the linear memory.
func offset(s []float32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) }

// packFn, packColsFn and claimFn are the pack, packcols and claim
// functions of the first SIMD module instantiated, simdExports all its
// exports.
var packFn, packColsFn, claimFn, simdExports js.Value

// SIMDFunc returns the routine name of the SIMD module that the products
// run in (wasmsimd's vector routines, which the rest of the CPU backend
// calls with byte offsets in the Go program's memory), or false where no
// module runs (no WebAssembly SIMD, or DEEPLDA_WASM_SIMD=off).
func SIMDFunc(name string) (js.Value, bool) {
	if simdExports.IsUndefined() {
		return js.Value{}, false
	}
	f := simdExports.Get(name)
	return f, f.Type() == js.TypeFunction
}

// The job numbers of the module's routines that gemm shares out.
var (
	jobMacro    = int32(wasmsimd.Job("macro"))
	jobPack     = wasmsimd.Job("pack")
	jobPackCols = wasmsimd.Job("packcols")
)

// minShareCopy is the fewest floats of one thread's share of a packing:
// below it, waking the workers costs more than they save.
const minShareCopy = 1 << 15

// sharePanels makes the call of the packing routine job over panels
// micro-panels of w floats by kb (dst, src: byte offsets; srcStep: the
// bytes between the sources of two micro-panels; lds as the routine takes
// it) on the serving threads, a range of whole micro-panels each, and
// reports whether it did (see SIMDCalls).
func sharePanels(job, dst, src, srcStep, lds, w, kb, panels int) bool {
	n := min(Threads(), panels, panels*w*kb/minShareCopy)
	return n >= 2 && SIMDCalls(job, n, n, func(i, _ int, a []int32) {
		p0, p1 := panels*i/n, panels*(i+1)/n
		copy(a, []int32{int32(dst + 4*p0*w*kb), int32(src + p0*srcStep), int32(lds), int32(w), int32(kb), int32(p1 - p0)})
	})
}

// minPackCall is the fewest floats wasmCopyPanels copies with one call to
// the SIMD module (a call costs about as much as copying a few hundred
// floats in Go).
const minPackCall = 512

// wasmCopyPanels copies panels whole micro-panels of w columns from kb rows
// of src (row stride lds) into dst with the SIMD module (see
// packRowPanels) and returns panels, or copies nothing and returns 0 when
// there is too little to copy for a call.
func wasmCopyPanels(dst, src []float32, lds, w, kb, panels int) int {
	if panels*w*kb < minPackCall {
		return 0
	}
	_, _ = dst[panels*w*kb-1], src[(kb-1)*lds+panels*w-1]
	packCalls++
	if !sharePanels(jobPack, offset(dst), offset(src), 4*w, 4*lds, w, kb, panels) {
		packFn.Invoke(offset(dst), offset(src), 4*lds, w, kb, panels)
	}
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	return panels
}

// wasmPackCols transposes panels whole micro-panels of w rows of kb floats
// (row stride lds) into dst with the SIMD module's packcols (see packCols)
// and returns panels, or packs nothing and returns 0 when there is too
// little for a call or no module.
func wasmPackCols(dst, src []float32, lds, w, kb, panels int) int {
	if panels*w*kb < minPackCall || packColsFn.IsUndefined() {
		return 0
	}
	_, _ = dst[panels*w*kb-1], src[(panels*w-1)*lds+kb-1]
	packCalls++
	if !sharePanels(jobPackCols, offset(dst), offset(src), 4*w*lds, lds, w, kb, panels) {
		packColsFn.Invoke(offset(dst), offset(src), lds, w, kb, panels)
	}
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	return panels
}

// packCalls counts the module's packing calls (for TestPackColsSIMD).
var packCalls int

// maxThreads is the most threads (the main one included) that run the
// products.
const maxThreads = 8

// minShareWork is the fewest multiply-adds of one thread's share of a
// macro call: below it, waking the workers costs more than they save.
const minShareWork = 1 << 17

// ctlWords is the size of a control block in 32-bit words.
const ctlWords = wasmsimd.CtlBytes / 4

// simdThreads is the main thread and the Web Workers that share its macro
// calls (see wasmsimd.SharedModule): one control block and one scratch tile
// per thread, in Go memory, which the workers read and write.
type simdThreads struct {
	ctl   []int32   // maxThreads control blocks of ctlWords words; block 0 is the main thread's
	tiles []float32 // maxThreads scratch tiles of simdMR*simdNR floats
	n     int       // threads started, the main one included
	want  int       // threads to use (set)
	ready int       // threads serving: the main one and workers 1..ready-1
	cores int       // the host's (navigator.hardwareConcurrency)

	module, mem, url js.Value // what a new worker is sent: the module, the memory, the script's URL
}

// workerJS is the source of a worker: it instantiates the SIMD module it
// is sent over the shared memory and serves its control block forever.
const workerJS = `onmessage = function (e) {
  const d = e.data;
  const inst = new WebAssembly.Instance(d.module, {env: {mem: d.mem}});
  inst.exports.worker(d.ctl);
};`

// startThreads prepares the threads of kernel k (from a shared module)
// where the host is cross-origin isolated, has Web Workers and more than
// one core, and starts the default number of them (see setThreads);
// otherwise k keeps one thread. The workers load in the background: a
// macro call uses those that are serving by then.
func startThreads(k *microKernel, mem js.Value) {
	defer func() { _ = recover() }() // a host that refuses workers keeps one thread
	g := js.Global()
	if !g.Get("crossOriginIsolated").Truthy() || g.Get("Worker").Type() != js.TypeFunction || g.Get("navigator").Type() != js.TypeObject {
		return
	}
	cores := g.Get("navigator").Get("hardwareConcurrency").Int()
	if cores < 2 {
		return
	}
	s := simdMacros[k]
	blob := g.Get("Blob").New([]any{workerJS}, map[string]any{"type": "text/javascript"})
	t := &simdThreads{
		ctl: make([]int32, maxThreads*ctlWords), tiles: make([]float32, maxThreads*simdMR*simdNR),
		n: 1, want: 1, ready: 1, cores: cores,
		module: s.module, mem: mem, url: g.Get("URL").Call("createObjectURL", blob),
	}
	s.threads = t
	sharedCalls = s
	jsThreads = t.serving
	jsSetThreads = t.set
	t.set(0)
}

// SIMDJob returns the job number of the SIMD module's routine name, for
// SIMDCalls, or -1 where the module has none of that name.
func SIMDJob(name string) int { return wasmsimd.Job(name) }

// sharedCalls is the module whose threads SIMDCalls runs on (the preferred
// kernel's, whose routines SIMDFunc returns), or nil where none started.
var sharedCalls *simdMacro

// SIMDCalls makes count calls of the SIMD module's routine job (its number,
// wasmsimd.Job) on the threads that serve the products, at most most at
// once (see Threads): args(i, slot, a) writes the arguments of call i into
// a (floats as their bits, at most wasmsimd.MaxArgs), where slot, less
// than most, numbers the calls that run at the same time, so that each may
// have scratch memory of its own. Calls that run at once must not write
// what the others read or write. SIMDCalls reports false, having made
// none, where fewer than two threads serve or count or most is below two:
// the caller then makes the calls itself. The caller keeps what the calls
// reach alive.
func SIMDCalls(job, count, most int, args func(i, slot int, a []int32)) bool {
	if sharedCalls == nil || count < 2 {
		return false
	}
	t := sharedCalls.threads
	n := min(t.serving(), most)
	if n < 2 {
		return false
	}
	for i0 := 0; i0 < count; i0 += n {
		k := min(n, count-i0)
		for s := 0; s < k; s++ {
			blk := t.ctl[s*ctlWords:][:ctlWords]
			blk[wasmsimd.CtlJob/4] = int32(job)
			args(i0+s, s, blk[wasmsimd.CtlArgs/4:])
		}
		runShared(sharedCalls.run, t.ctl, k)
	}
	return true
}

// set makes n threads (the main one included, at most maxThreads and the
// host's cores) share the products from now on, starting the workers that
// are missing; n < 1 means the default, one fewer than the host's cores,
// which leaves one to the browser (whose own threads paint the page): on
// two cores, one thread.
func (t *simdThreads) set(n int) {
	if n < 1 {
		n = t.cores - 1
	}
	t.want = max(1, min(n, maxThreads, t.cores))
	for ; t.n < t.want; t.n++ {
		msg := map[string]any{"module": t.module, "mem": t.mem, "ctl": offset32(t.ctl[t.n*ctlWords:])}
		js.Global().Get("Worker").New(t.url).Call("postMessage", msg)
	}
}

// serving returns how many threads serve the products now: the main one
// and the workers that have started, in order, up to the number set.
func (t *simdThreads) serving() int {
	for t.ready < t.n && t.ctl[t.ready*ctlWords+wasmsimd.CtlReady/4] != 0 {
		t.ready++
	}
	return min(t.ready, t.want)
}

// split runs one macro call (its arguments as byte offsets, see
// simdMacro.block) on the serving threads through run, each share a range
// of whole tiles along the side of C with more tiles, and reports whether
// it did; it does not when the call is too small to share or no worker
// serves yet.
func (t *simdThreads) split(run js.Value, mb, nb, kb, a, b, c, rs, cs int, alpha, beta float32, vec int) bool {
	rowTiles, colTiles := ceilDiv(mb, simdMR), ceilDiv(nb, simdNR)
	n := min(t.serving(), max(rowTiles, colTiles), mb*nb*kb/minShareWork)
	if n < 2 {
		return false
	}
	for s := 0; s < n; s++ {
		sm, sn, sa, sb, sc := mb, nb, a, b, c
		if rowTiles >= colTiles {
			i0, i1 := rowTiles*s/n*simdMR, min(rowTiles*(s+1)/n*simdMR, mb)
			sm, sa, sc = i1-i0, a+4*i0*kb, c+i0*rs
		} else {
			j0, j1 := colTiles*s/n*simdNR, min(colTiles*(s+1)/n*simdNR, nb)
			sn, sb, sc = j1-j0, b+4*j0*kb, c+j0*cs
		}
		t.ctl[s*ctlWords+wasmsimd.CtlJob/4] = jobMacro
		args := t.ctl[s*ctlWords+wasmsimd.CtlArgs/4:]
		tile := offset(t.tiles[s*simdMR*simdNR:])
		copy(args, []int32{int32(sm), int32(sn), int32(kb), int32(sa), int32(sb), int32(sc), int32(rs), int32(cs), int32(tile),
			int32(math.Float32bits(alpha)), int32(math.Float32bits(beta)), int32(vec)})
	}
	runShared(run, t.ctl, n)
	return true
}

// runShared makes the n calls of the control blocks ctl at once through
// run (a shared module's), counting the round and its time (SharedTime).
func runShared(run js.Value, ctl []int32, n int) {
	start := time.Now()
	run.Invoke(offset32(ctl), n)
	sharedTime += time.Since(start)
	sharedRounds++
}

// offset32 returns the byte offset of s[0] in the linear memory.
func offset32(s []int32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) }
