package cpu

import "math"

// expHasAsm reports whether math.Exp is assembly here: not in
// WebAssembly.
const expHasAsm = false

// expTo sets dst[i] = e^src[i] for every element of src, computed in
// float64 exactly as math.Exp does in WebAssembly: expPolyTo's loop in
// WebAssembly assembly (exp_wasm.s) up to each NaN, that one with
// math.Exp.
func expTo(dst, src []float32) {
	dst = dst[:len(src)]
	for i := 0; i < len(src); i++ {
		i += expTo32Wasm(len(src)-i, &dst[i], &src[i])
		if i < len(src) {
			dst[i] = float32(math.Exp(float64(src[i])))
		}
	}
}

//go:noescape
func expTo32Wasm(n int, dst, src *float32) int
