package webgpu

import (
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
)

// BenchmarkHeadStep times the head's share of a training step at CIFAR-100
// size (N=1024, C=100, D=99): LDA, Loss with its gradient, LDABackward and
// a Read of the statistics. The covariance parameter is zero (the identity
// for log_var, softplus(0) on the diagonal of L for raw_tril).
func BenchmarkHeadStep(bm *testing.B) {
	b, err := New()
	if err != nil {
		bm.Skipf("SKIPPED: no WebGPU backend: %v", err)
	}
	defer b.Close()
	n, c, d := 1024, 100, 99
	for _, kind := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
		bm.Run(kind.String(), func(bm *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			random := func(shape ...int) kernels.Tensor {
				return kerneltest.Upload(b, shape, randData(rng, kernels.Numel(shape)))
			}
			alloc := func(shape ...int) kernels.Tensor { return b.Alloc(kernels.Float32, shape...) }
			z, prior, mu, cov := random(n, d), random(c), random(c, d), alloc(kind.CovShape(d)...)
			delta, ddelta := alloc(n, c), alloc(n, c)
			dz, dprior, dmu, dcov := alloc(n, d), alloc(c), alloc(c, d), alloc(kind.CovShape(d)...)
			labels := make([]int32, n)
			for i := range labels {
				labels[i] = int32(rng.IntN(c))
			}
			y := kerneltest.UploadInt(b, []int{n}, labels)
			stats := alloc(kernels.StatsLen)
			for bm.Loop() {
				b.LDA(delta, z, prior, mu, cov, kind)
				b.Loss(ddelta, stats, delta, y, kernels.DNLL, 0.01, 1)
				b.LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov, kind)
				if _, err := b.Read(stats); err != nil {
					bm.Fatal(err)
				}
			}
		})
	}
}
