package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestLDABitForBit checks the CPU backend's discriminants and their
// gradients against ref.LDA and ref.LDABackward bit for bit for the three
// covariances and a few sizes; it tests the WebAssembly assembly under
// GOOS=js GOARCH=wasm.
func TestLDABitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	normal := func(k int) []float32 {
		x := make([]float32, k)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	same := func(what string, got, want []float32) {
		t.Helper()
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: [%d] %v, ref %v", what, i, got[i], want[i])
			}
		}
	}
	for _, kind := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
		for _, cd := range [][2]int{{3, 2}, {1, 1}, {10, 5}, {2, 7}, {4, 3}} {
			for _, n := range []int{1, 2, 5, 256} {
				c, d := cd[0], cd[1]
				nc := kernels.Numel(kind.CovShape(d))
				z, prior, mu, cov, ddelta := normal(n*d), normal(c), normal(c*d), normal(nc), normal(n*c)
				what := fmt.Sprintf("%v, c %d, d %d, n %d", kind, c, d, n)
				got, want := normal(n*c), normal(n*c)
				lda(got, z, prior, mu, cov, n, c, d, kind)
				ref.LDA(want, z, prior, mu, cov, n, c, d, kind)
				same("LDA "+what+": delta", got, want)
				// Random outputs, which both must overwrite.
				g := [][]float32{normal(n * d), normal(c), normal(c * d), normal(nc)}
				w := [][]float32{normal(n * d), normal(c), normal(c * d), normal(nc)}
				ldaBackward(g[0], g[1], g[2], g[3], ddelta, z, prior, mu, cov, n, c, d, kind)
				ref.LDABackward(w[0], w[1], w[2], w[3], ddelta, z, prior, mu, cov, n, c, d, kind)
				for i, name := range []string{"dz", "dprior", "dmu", "dcov"} {
					same("LDABackward "+what+": "+name, g[i], w[i])
				}
			}
		}
	}
}

// ldaToy returns random inputs of the toy head's sizes (256 rows, 3
// classes, 2 dimensions, full covariance) for the benchmarks.
func ldaToy() (z, prior, mu, cov, ddelta []float32, n, c, d int) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, c, d = 256, 3, 2
	normal := func(k int) []float32 {
		x := make([]float32, k)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	return normal(n * d), normal(c), normal(c * d), normal(d * d), normal(n * c), n, c, d
}

func BenchmarkLDA(b *testing.B) {
	z, prior, mu, cov, _, n, c, d := ldaToy()
	delta := make([]float32, n*c)
	for b.Loop() {
		lda(delta, z, prior, mu, cov, n, c, d, kernels.Full)
	}
}

func BenchmarkLDABackward(b *testing.B) {
	z, prior, mu, cov, ddelta, n, c, d := ldaToy()
	dz, dprior, dmu, dcov := make([]float32, n*d), make([]float32, c), make([]float32, c*d), make([]float32, d*d)
	for b.Loop() {
		ldaBackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov, n, c, d, kernels.Full)
	}
}
