//go:build !amd64 && !arm64 && !loong64 && !s390x && !wasm

package cpu

// expHasAsm reports whether math.Exp is assembly here: not on this
// architecture.
const expHasAsm = false

// expTo sets dst[i] = e^src[i] for every element of src, computed in
// float64 exactly as math.Exp does on this architecture (see expPolyTo).
func expTo(dst, src []float32) { expPolyTo(dst, src) }
