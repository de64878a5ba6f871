//go:build (!amd64 && !(js && wasm)) || purego

package gemm

// wasmKernels returns no kernel: the WebAssembly SIMD kernels run only in
// a JavaScript host (see simd_js.go).
func wasmKernels() []*microKernel { return nil }

// wasmCopyPanels copies no micro-panel (see copyPanels).
func wasmCopyPanels(dst, src []float32, lds, w, kb, panels int) int { return 0 }

// wasmPackCols packs no micro-panel (see colPanels).
func wasmPackCols(dst, src []float32, lds, w, kb, panels int) int { return 0 }
