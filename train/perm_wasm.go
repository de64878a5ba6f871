package train

// permInto sets p to a random permutation of 0..len(p)-1, the one
// rand.New(src).Perm(len(p)) returns for a rand.PCG in src's state, drawing
// the same numbers from src, as the Go loop of perm_other.go does, in
// WebAssembly assembly (perm_wasm.s): the generator's steps, the bounded
// draws and the swaps in structured loops instead of Go's branches.
func permInto(p []int, src *pcg) {
	if len(p) == 0 {
		return
	}
	permWasm(len(p), &p[0], src)
}

// permWasm is permInto on the n ints at p (n >= 1; n < 2^32, as any slice
// in WebAssembly's 32-bit memory).
//
//go:noescape
func permWasm(n int, p *int, src *pcg)
