package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestLDABitForBit checks the CPU backend's discriminants against ref.LDA
// bit for bit for the three covariances and a few sizes; it tests the
// WebAssembly assembly under GOOS=js GOARCH=wasm.
func TestLDABitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	normal := func(k int) []float32 {
		x := make([]float32, k)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	for _, kind := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
		for _, cd := range [][2]int{{3, 2}, {1, 1}, {10, 5}, {2, 7}} {
			for _, n := range []int{1, 5, 256} {
				c, d := cd[0], cd[1]
				z, prior, mu, cov := normal(n*d), normal(c), normal(c*d), normal(kernels.Numel(kind.CovShape(d)))
				got, want := make([]float32, n*c), make([]float32, n*c)
				lda(got, z, prior, mu, cov, n, c, d, kind)
				ref.LDA(want, z, prior, mu, cov, n, c, d, kind)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("LDA %v, c %d, d %d, n %d: delta[%d] %v, ref %v", kind, c, d, n, i, got[i], want[i])
					}
				}
			}
		}
	}
}
