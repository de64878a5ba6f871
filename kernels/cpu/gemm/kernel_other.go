//go:build !amd64 || purego

package gemm

// simdKernels are the WebAssembly SIMD kernels the host runs, the preferred
// one first (see simd_js.go).
var simdKernels = wasmKernels()

// bestKernel returns the micro-kernel to use on this platform: the
// preferred WebAssembly SIMD kernel where the host runs one, else the
// portable Go kernel (everywhere but amd64).
func bestKernel() *microKernel {
	if ks := simdKernels; len(ks) > 0 {
		return ks[0]
	}
	return goKernel
}

// supportedKernels returns every micro-kernel this platform can run, so
// that tests can exercise all of them.
func supportedKernels() []*microKernel { return append([]*microKernel{goKernel}, simdKernels...) }

// transpose4 transposes four rows of kb values; see transpose4Go.
func transpose4(dst []float32, ldd int, src []float32, lds, kb int) {
	transpose4Go(dst, ldd, src, lds, kb)
}

// copyRows reports false: there is no faster way than the generic code.
func copyRows(dst, src []float32, lds, w, kb int) bool { return false }

// asmPacking reports whether the SIMD module's packing (copyPanels) is
// used: in WebAssembly, where the SIMD kernels load. Tests may clear it to
// exercise the portable packing code.
var asmPacking = len(simdKernels) > 0

// copyPanels copies whole micro-panels (see packRowPanels) where
// asmPacking allows, and returns how many it copied.
func copyPanels(dst, src []float32, lds, w, kb, panels int) int {
	if !asmPacking {
		return 0
	}
	return wasmCopyPanels(dst, src, lds, w, kb, panels)
}

// colPanels transposes whole micro-panels (see packCols) where asmPacking
// allows, and returns how many it packed.
func colPanels(dst, src []float32, lds, w, kb, panels int) int {
	if !asmPacking {
		return 0
	}
	return wasmPackCols(dst, src, lds, w, kb, panels)
}
