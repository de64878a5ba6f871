package cpu

// relu computes y = max(x, 0) as ref.ReLU does, in the SIMD module where
// it runs (reluSIMD), else in WebAssembly assembly (relu_wasm.s).
func relu(y, x []float32) {
	if len(x) == 0 || reluSIMD(y, x) {
		return
	}
	_ = y[len(x)-1]
	reluWasm(len(x), &y[0], &x[0])
}

// reluBackward computes dx = dy where y > 0 as ref.ReLUBackward does, in
// the SIMD module where it runs (reluBackwardSIMD), else in WebAssembly
// assembly.
func reluBackward(dx, dy, y []float32) {
	if len(y) == 0 || reluBackwardSIMD(dx, dy, y) {
		return
	}
	_, _ = dx[len(y)-1], dy[len(y)-1]
	reluBackwardWasm(len(y), &dx[0], &dy[0], &y[0])
}

//go:noescape
func reluWasm(n int, y, x *float32)

//go:noescape
func reluBackwardWasm(n int, dx, dy, y *float32)
