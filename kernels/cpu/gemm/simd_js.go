//go:build js && wasm && !purego

package gemm

import (
	"os"
	"runtime"
	"syscall/js"
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

// simdMR and simdNR are the tile of the SIMD kernels.
const simdMR, simdNR = 4, 8

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
	var ks []*microKernel
	if mode != "plain" {
		if k := newSIMDKernel("wasmrelaxed4x8", mem, wasmsimd.Module(simdMR, simdNR, true)); k != nil {
			ks = append(ks, k)
		}
	}
	if k := newSIMDKernel("wasmsimd4x8", mem, wasmsimd.Module(simdMR, simdNR, false)); k != nil {
		ks = append(ks, k)
	}
	return ks
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
	inst := wa.Get("Instance").New(wa.Get("Module").New(u8), imports)
	exports := inst.Get("exports")
	s := &simdMacro{fn: exports.Get("macro")}
	if packFn.IsUndefined() {
		packFn = exports.Get("pack")
	}
	k = &microKernel{
		name: name, mr: simdMR, nr: simdNR,
		kc: goKernel.kc, mc: 128,
		direct: directWork,
		macro:  s.block,
	}
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

// simdMacro is the macro function of an instantiated SIMD module.
type simdMacro struct{ fn js.Value }

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
	MacroCalls++
	MacroFlops += mb * nb * kb
	s.fn.Invoke(mb, nb, kb, offset(packedA), offset(packedB), offset(c), rs, cs, offset(tile), alpha, beta, vec)
	runtime.KeepAlive(packedA)
	runtime.KeepAlive(packedB)
	runtime.KeepAlive(tile)
	runtime.KeepAlive(c)
}

// offset returns the byte offset of s[0] in the linear memory.
func offset(s []float32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) }

// packFn is the pack function of the first SIMD module instantiated.
var packFn js.Value

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
	PackCalls++
	packFn.Invoke(offset(dst), offset(src), 4*lds, w, kb, panels)
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	return panels
}

var MacroCalls, MacroFlops, PackCalls int
