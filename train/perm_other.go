//go:build !wasm

package train

import "math/bits"

// permInto sets p to a random permutation of 0..len(p)-1, the one
// rand.New(src).Perm(len(p)) returns for a rand.PCG in src's state, drawing
// the same numbers from src: math/rand/v2's Fisher-Yates shuffle with its
// unbiased bounded draws (Lemire's multiply-and-reject, as Rand.uint64n on
// a 64-bit platform), but with the draws and swaps inline instead of
// through an interface and a closure per element, and into p instead of a
// new slice every epoch. In WebAssembly it runs in assembly (perm_wasm.s).
func permInto(p []int, src *pcg) {
	for i := range p {
		p[i] = i
	}
	for i := len(p) - 1; i > 0; i-- {
		n := uint64(i + 1)
		var j uint64
		if n&(n-1) == 0 {
			j = src.Uint64() & (n - 1)
		} else {
			hi, lo := bits.Mul64(src.Uint64(), n)
			if lo < n {
				thresh := -n % n
				for lo < thresh {
					hi, lo = bits.Mul64(src.Uint64(), n)
				}
			}
			j = hi
		}
		p[i], p[j] = p[j], p[i]
	}
}
