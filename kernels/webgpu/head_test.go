package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

func headNormal(rng *rand.Rand, n int, mean, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(mean + scale*rng.NormFloat64())
	}
	return s
}

// headCov returns a covariance parameter that keeps the head well
// conditioned: log_var near 0, or raw_tril with softplus(diag) near 1 and
// small off-diagonal entries.
func headCov(rng *rand.Rand, d int, kind kernels.CovKind) []float32 {
	switch kind {
	case kernels.Spherical:
		return headNormal(rng, 1, 0.2, 0.3)
	case kernels.Diagonal:
		return headNormal(rng, d, 0, 0.3)
	}
	raw := headNormal(rng, d*d, 0, 0.3/math.Sqrt(float64(d)))
	for i := 0; i < d; i++ {
		raw[i*d+i] = float32(0.5 + 0.3*rng.NormFloat64())
	}
	return raw
}

// headSizes are (N, C, D): the sizes asked for, then N > 256 and D > 256 (a
// column of L^-1 spans several rows per invocation).
var headSizes = [][3]int{{1, 2, 1}, {7, 4, 3}, {65, 10, 9}, {33, 100, 99}, {300, 7, 5}, {5, 3, 300}}

var headKinds = []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full}

// headOperands are the tensors of one LDA/LDABackward call.
type headOperands struct {
	delta, z, prior, mu, cov            kernels.Tensor
	dz, dprior, dmu, dcov, ddelta       kernels.Tensor
	zData, priorData, muData, covData   []float32
	ddeltaData                          []float32
	valueArena, gradArena, zBuf, outBuf kernels.Tensor
}

// newHeadOperands uploads random operands. With views, prior, mu and cov are
// adjacent views of one value arena and dprior, dmu and dcov adjacent views
// of one gradient arena, as in the model; z, dz, delta and ddelta are views
// at nonzero offsets of other buffers.
func newHeadOperands(b *Backend, rng *rand.Rand, n, c, d int, kind kernels.CovKind, views bool) *headOperands {
	o := &headOperands{
		zData:      headNormal(rng, n*d, 0, 1),
		priorData:  headNormal(rng, c, 0, 1),
		muData:     headNormal(rng, c*d, 0, 1),
		covData:    headCov(rng, d, kind),
		ddeltaData: headNormal(rng, n*c, 0, 1/float64(n)),
	}
	covShape := kind.CovShape(d)
	nan := float32(math.NaN())
	if !views {
		o.z = kerneltest.Upload(b, []int{n, d}, o.zData)
		o.prior = kerneltest.Upload(b, []int{c}, o.priorData)
		o.mu = kerneltest.Upload(b, []int{c, d}, o.muData)
		o.cov = kerneltest.Upload(b, covShape, o.covData)
		o.ddelta = kerneltest.Upload(b, []int{n, c}, o.ddeltaData)
		o.delta = b.Alloc(kernels.Float32, n, c)
		o.dz = b.Alloc(kernels.Float32, n, d)
		o.dprior = b.Alloc(kernels.Float32, c)
		o.dmu = b.Alloc(kernels.Float32, c, d)
		o.dcov = b.Alloc(kernels.Float32, covShape...)
		for _, x := range []kernels.Tensor{o.delta, o.dz, o.dprior, o.dmu, o.dcov} {
			b.Fill(x, nan)
		}
		return o
	}
	al := kernels.AlignUp
	covLen := kernels.Numel(covShape)
	offPrior, offMu, offCov := 0, al(c), al(c)+al(c*d)
	size := offCov + al(covLen)
	o.valueArena = b.Alloc(kernels.Float32, size)
	o.gradArena = b.Alloc(kernels.Float32, size)
	b.Fill(o.valueArena, 7)
	b.Fill(o.gradArena, nan)
	o.prior = b.View(o.valueArena, offPrior, c)
	o.mu = b.View(o.valueArena, offMu, c, d)
	o.cov = b.View(o.valueArena, offCov, covShape...)
	b.Write(o.prior, o.priorData)
	b.Write(o.mu, o.muData)
	b.Write(o.cov, o.covData)
	o.dprior = b.View(o.gradArena, offPrior, c)
	o.dmu = b.View(o.gradArena, offMu, c, d)
	o.dcov = b.View(o.gradArena, offCov, covShape...)
	// z and ddelta in one input buffer, dz and delta in one output buffer.
	o.zBuf = b.Alloc(kernels.Float32, kernels.ViewAlign+al(n*d)+n*c)
	o.z = b.View(o.zBuf, kernels.ViewAlign, n, d)
	o.ddelta = b.View(o.zBuf, kernels.ViewAlign+al(n*d), n, c)
	b.Write(o.z, o.zData)
	b.Write(o.ddelta, o.ddeltaData)
	o.outBuf = b.Alloc(kernels.Float32, kernels.ViewAlign+al(n*c)+n*d)
	b.Fill(o.outBuf, nan)
	o.delta = b.View(o.outBuf, kernels.ViewAlign, n, c)
	o.dz = b.View(o.outBuf, kernels.ViewAlign+al(n*c), n, d)
	return o
}

func TestHeadLDA(t *testing.T) {
	b := openBackend(t)
	for _, views := range []bool{false, true} {
		for _, kind := range headKinds {
			for _, sz := range headSizes {
				n, c, d := sz[0], sz[1], sz[2]
				name := fmt.Sprintf("%v/%dx%dx%d/views=%v", kind, n, c, d, views)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(n*10000+c*100+d), uint64(kind)))
					o := newHeadOperands(b, rng, n, c, d, kind, views)
					b.LDA(o.delta, o.z, o.prior, o.mu, o.cov, kind)
					b.LDABackward(o.dz, o.dprior, o.dmu, o.dcov, o.ddelta, o.z, o.prior, o.mu, o.cov, kind)
					if err := b.Sync(); err != nil {
						t.Fatalf("Sync: %v", err)
					}
					z, prior, mu, cov := kerneltest.F64(o.zData), kerneltest.F64(o.priorData), kerneltest.F64(o.muData), kerneltest.F64(o.covData)
					delta := make([]float64, n*c)
					ref.LDA(delta, z, prior, mu, cov, n, c, d, kind)
					kerneltest.Compare(t, "delta", nil, kerneltest.Download(t, b, o.delta), delta, gpuTol)
					dz, dprior, dmu, dcov := make([]float64, n*d), make([]float64, c), make([]float64, c*d), make([]float64, len(cov))
					ref.LDABackward(dz, dprior, dmu, dcov, kerneltest.F64(o.ddeltaData), z, prior, mu, cov, n, c, d, kind)
					kerneltest.Compare(t, "dz", nil, kerneltest.Download(t, b, o.dz), dz, gpuTol)
					kerneltest.Compare(t, "dprior", nil, kerneltest.Download(t, b, o.dprior), dprior, gpuTol)
					kerneltest.Compare(t, "dmu", nil, kerneltest.Download(t, b, o.dmu), dmu, gpuTol)
					kerneltest.Compare(t, "dcov", nil, kerneltest.Download(t, b, o.dcov), dcov, gpuTol)
					// The inputs are unchanged.
					for _, in := range []struct {
						name string
						x    kernels.Tensor
						want []float32
					}{{"z", o.z, o.zData}, {"prior", o.prior, o.priorData}, {"mu", o.mu, o.muData}, {"cov", o.cov, o.covData}, {"ddelta", o.ddelta, o.ddeltaData}} {
						got := kerneltest.Download(t, b, in.x)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(in.want[i]) {
								t.Errorf("input %s modified at %d: %v, was %v", in.name, i, got[i], in.want[i])
								break
							}
						}
					}
					if views {
						// The padding between the views is untouched.
						g := kerneltest.Download(t, b, o.gradArena)
						if pad := kernels.AlignUp(c) - 1; pad >= c && g[pad] == g[pad] {
							t.Errorf("gradient arena padding at %d written: %v", pad, g[pad])
						}
						v := kerneltest.Download(t, b, o.valueArena)
						if pad := kernels.AlignUp(c) - 1; pad >= c && v[pad] != 7 {
							t.Errorf("value arena padding at %d changed: %v", pad, v[pad])
						}
					}
				})
			}
		}
	}
}

// TestHeadWritableViewsOfOneBuffer checks that one dispatch binding several
// disjoint writable views of one buffer validates with wgpu: LDABackward's
// last dispatch writes dprior and dcov, adjacent views of one gradient
// arena (and Adam's writes m and v, adjacent views of one buffer, below).
func TestHeadWritableViewsOfOneBuffer(t *testing.T) {
	b := openBackend(t)
	n, c, d := 5, 3, 2
	for _, kind := range headKinds {
		rng := rand.New(rand.NewPCG(1, uint64(kind)))
		o := newHeadOperands(b, rng, n, c, d, kind, true)
		b.LDABackward(o.dz, o.dprior, o.dmu, o.dcov, o.ddelta, o.z, o.prior, o.mu, o.cov, kind)
		if err := b.Sync(); err != nil {
			t.Fatalf("%v: LDABackward into views of one arena: %v", kind, err)
		}
		z, prior, mu, cov := kerneltest.F64(o.zData), kerneltest.F64(o.priorData), kerneltest.F64(o.muData), kerneltest.F64(o.covData)
		dz, dprior, dmu, dcov := make([]float64, n*d), make([]float64, c), make([]float64, c*d), make([]float64, len(cov))
		ref.LDABackward(dz, dprior, dmu, dcov, kerneltest.F64(o.ddeltaData), z, prior, mu, cov, n, c, d, kind)
		kerneltest.Compare(t, kind.String()+" dprior", nil, kerneltest.Download(t, b, o.dprior), dprior, gpuTol)
		kerneltest.Compare(t, kind.String()+" dcov", nil, kerneltest.Download(t, b, o.dcov), dcov, gpuTol)
	}
}

// BenchmarkHeadStep times the head's share of a training step at CIFAR-100
// size (N=1024, C=100, D=99): LDA, Loss with its gradient, LDABackward and
// a Read of the statistics.
func BenchmarkHeadStep(bm *testing.B) {
	b, err := New()
	if err != nil {
		bm.Skipf("SKIPPED: no WebGPU backend: %v", err)
	}
	defer b.Close()
	n, c, d := 1024, 100, 99
	for _, kind := range headKinds {
		bm.Run(kind.String(), func(bm *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			o := newHeadOperands(b, rng, n, c, d, kind, true)
			y := b.Alloc(kernels.Int32, n)
			b.WriteInt(y, headLabels(rng, n, c))
			stats := b.Alloc(kernels.Float32, kernels.StatsLen)
			for bm.Loop() {
				b.LDA(o.delta, o.z, o.prior, o.mu, o.cov, kind)
				b.Loss(o.ddelta, stats, o.delta, y, kernels.DNLL, 0.01, 1)
				b.LDABackward(o.dz, o.dprior, o.dmu, o.dcov, o.ddelta, o.z, o.prior, o.mu, o.cov, kind)
				if _, err := b.Read(stats); err != nil {
					bm.Fatal(err)
				}
			}
		})
	}
}
