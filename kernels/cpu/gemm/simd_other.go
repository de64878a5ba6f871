//go:build (!amd64 && !(js && wasm)) || purego

package gemm

// wasmKernels returns no kernel: the WebAssembly SIMD kernels run only in
// a JavaScript host (see simd_js.go).
func wasmKernels() []*microKernel { return nil }
