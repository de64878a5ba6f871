//go:build amd64 || arm64 || loong64 || s390x

package cpu

import "math"

// expHasAsm reports whether math.Exp is assembly here: it is on this
// architecture (and may differ from expPolyTo in the last bit).
const expHasAsm = true

// expTo sets dst[i] = e^src[i] for every element of src: math.Exp in
// float64, rounded to float32.
func expTo(dst, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(math.Exp(float64(v)))
	}
}
