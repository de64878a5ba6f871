//go:build !wasm

package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// lda computes the discriminants with ref.LDA.
func lda(delta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	ref.LDA(delta, z, prior, mu, cov, n, c, d, kind)
}

// ldaBackward computes the head's gradients with ref.LDABackward.
func ldaBackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov []float32, n, c, d int, kind kernels.CovKind) {
	ref.LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov, n, c, d, kind)
}
