//go:build amd64 || arm64 || loong64 || s390x

package ref

import "math"

// expHasAsm reports whether math.Exp is assembly here: it is on this
// architecture (and may differ from expPolyTo in the last bit).
const expHasAsm = true

// exp64 returns e^x: math.Exp, which is assembly on this architecture.
func exp64(x float64) float64 { return math.Exp(x) }

// ExpTo sets dst[i] = e^src[i] for every element of src: math.Exp in
// float64, rounded to T.
func ExpTo[T Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(math.Exp(float64(v)))
	}
}
