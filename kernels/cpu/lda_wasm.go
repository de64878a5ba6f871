package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// lda computes ref.LDA, bit for bit, with its pass over the rows in
// WebAssembly assembly (lda_wasm.s) after ref.LDAParts.
func lda(delta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	if n == 0 || c == 0 || d == 0 {
		ref.LDA(delta, z, prior, mu, cov, n, c, d, kind)
		return
	}
	a, m, off := ref.LDAParts(prior, mu, cov, c, d, kind)
	_, _, _, _ = delta[n*c-1], z[n*d-1], a[d*d-1], m[c*d-1]
	w := make([]float32, d)
	ldaRowsWasm(n, c, d, &z[0], &a[0], &m[0], &off[0], &w[0], &delta[0])
}

//go:noescape
func ldaRowsWasm(n, c, d int, z, a, m, off, w, delta *float32)
