package ref

import "math"

// expHasAsm reports whether math.Exp is assembly here: not in
// WebAssembly.
const expHasAsm = false

// exp64 returns e^x, exactly as math.Exp does in WebAssembly, which has no
// assembly for it (see expPolyTo).
func exp64(x float64) float64 {
	y := [1]float64{x}
	ExpTo(y[:], y[:])
	return y[0]
}

// ExpTo sets dst[i] = e^src[i] for every element of src, computed in
// float64 exactly as math.Exp does in WebAssembly: expPolyTo, whose loop
// in float32 is WebAssembly assembly (exp_wasm.s).
func ExpTo[T Float](dst, src []T) {
	if d, ok := any(dst).([]float32); ok {
		expTo32(d, any(src).([]float32))
		return
	}
	expPolyTo(dst, src)
}

// expTo32 is expPolyTo in float32: expTo32Wasm up to each NaN, that one
// with math.Exp.
func expTo32(dst, src []float32) {
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
