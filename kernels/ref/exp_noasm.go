//go:build !amd64 && !arm64 && !loong64 && !s390x && !wasm

package ref

// expHasAsm reports whether math.Exp is assembly here: not on this
// architecture.
const expHasAsm = false

// exp64 returns e^x, exactly as math.Exp does on this architecture, which
// has no assembly for it (see expPolyTo).
func exp64(x float64) float64 {
	y := [1]float64{x}
	expPolyTo(y[:], y[:])
	return y[0]
}

// ExpTo sets dst[i] = e^src[i] for every element of src, computed in
// float64 exactly as math.Exp does on this architecture (see expPolyTo).
func ExpTo[T Float](dst, src []T) { expPolyTo(dst, src) }
