package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// lda computes ref.LDA, bit for bit, with its pass over the rows
// (ref.LDAParts.Rows) in WebAssembly assembly (lda_wasm.s).
func lda(delta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	if n == 0 || c == 0 || d == 0 {
		ref.LDA(delta, z, prior, mu, cov, n, c, d, kind)
		return
	}
	p := ref.NewLDAParts(prior, mu, cov, c, d, kind)
	defer p.Free()
	_, _ = delta[n*c-1], z[n*d-1]
	if d == 2 {
		ldaRows2Wasm(n, c, &z[0], &p.W.A[0], &p.M[0], &p.Off[0], &delta[0])
	} else {
		ldaRowsWasm(n, c, d, &z[0], &p.W.A[0], &p.M[0], &p.Off[0], &p.Scratch[0], &delta[0])
	}
}

// ldaBackward computes ref.LDABackward, bit for bit, with its pass over the
// rows (ref.LDAParts.BackwardRows) in WebAssembly assembly (lda_wasm.s).
func ldaBackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	if n == 0 || c == 0 || d == 0 {
		ref.LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov, n, c, d, kind)
		return
	}
	p := ref.NewLDAParts(prior, mu, cov, c, d, kind)
	defer p.Free()
	_, _, _ = dz[n*d-1], ddelta[n*c-1], z[n*d-1]
	if d == 2 {
		ldaBackwardRows2Wasm(n, c, &z[0], &ddelta[0], &p.W.A[0], &p.M[0], &dz[0], &p.ColSum[0], &p.DM[0], &p.DA[0], &p.Total)
	} else {
		ldaBackwardRowsWasm(n, c, d, &z[0], &ddelta[0], &p.W.A[0], &p.M[0], &p.Scratch[0], &dz[0], &p.ColSum[0], &p.DM[0], &p.DA[0], &p.Total)
	}
	p.Grads(dprior, dmu, dcov, mu, cov, kind)
}

//go:noescape
func ldaRowsWasm(n, c, d int, z, a, m, off, w, delta *float32)

//go:noescape
func ldaRows2Wasm(n, c int, z, a, m, off, delta *float32)

//go:noescape
func ldaBackwardRowsWasm(n, c, d int, z, ddelta, a, m, dw, dz, colSum, dm, dA, total *float32)

//go:noescape
func ldaBackwardRows2Wasm(n, c int, z, ddelta, a, m, dz, colSum, dm, dA, total *float32)
