package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// benchShape is one matrix product measured by BenchmarkSgemm.
type benchShape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

// benchShapes are square products plus the shapes a small ConvNet (im2col +
// GEMM, per image of a batch of 64) and a tiny MLP actually issue.
var benchShapes = []benchShape{
	{"sq64", false, false, 64, 64, 64},
	{"sq128", false, false, 128, 128, 128},
	{"sq256", false, false, 256, 256, 256},
	{"sq512", false, false, 512, 512, 512},
	{"sq1024", false, false, 1024, 1024, 1024},

	// Conv layer 1: 64 out-channels, 64 in-channels × 3×3, 28×28 output.
	// Forward Y = W·col, weight gradient dW = dY·colᵀ, input gradient
	// dcol = Wᵀ·dY.
	{"conv1_fwd_64x784x576", false, false, 64, 784, 576},
	{"conv1_dW_64x576x784_NT", false, true, 64, 576, 784},
	{"conv1_dX_576x784x64_TN", true, false, 576, 784, 64},
	// Conv layer 2: 128 out-channels, 128×3×3 inputs, 14×14 output.
	{"conv2_fwd_128x196x1152", false, false, 128, 196, 1152},
	{"conv2_dW_128x1152x196_NT", false, true, 128, 1152, 196},
	{"conv2_dX_1152x196x128_TN", true, false, 1152, 196, 128},
	// Conv layer 3: 256 out-channels, 256×3×3 inputs, 7×7 output.
	{"conv3_fwd_256x49x2304", false, false, 256, 49, 2304},
	{"conv3_dW_256x2304x49_NT", false, true, 256, 2304, 49},
	{"conv3_dX_2304x49x256_TN", true, false, 2304, 49, 256},

	// Tiny MLP, batch 256: 2 → 32 → 2. The products of model.Linear
	// (weights [out,in]): forward Y = X·Wᵀ, weight gradient dW = dYᵀ·X,
	// input gradient dX = dY·W.
	{"mlp_fwd1_256x32x2_NT", false, true, 256, 32, 2},
	{"mlp_fwd2_256x2x32_NT", false, true, 256, 2, 32},
	{"mlp_dW2_2x32x256_TN", true, false, 2, 32, 256},
	{"mlp_dX2_256x32x2_NN", false, false, 256, 32, 2},
	{"mlp_dW1_32x2x256_TN", true, false, 32, 2, 256},
}

// BenchmarkSgemm measures Sgemm ("deeplda") and gonum's blas32.Gemm
// ("gonum") on the same shapes and reports GFLOP/s (2·m·n·k per call).
func BenchmarkSgemm(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		ar, ac := s.m, s.k
		if s.transA {
			ar, ac = s.k, s.m
		}
		br, bc := s.k, s.n
		if s.transB {
			br, bc = s.n, s.k
		}
		a := randSlice(rng, ar*ac)
		bb := randSlice(rng, br*bc)
		c := randSlice(rng, s.m*s.n)
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}

		b.Run(s.name+"/deeplda", func(b *testing.B) {
			for b.Loop() {
				Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, ac, bb, bc, 0, c, s.n)
			}
			report(b)
		})
		b.Run(s.name+"/gonum", func(b *testing.B) {
			tA, tB := blas.NoTrans, blas.NoTrans
			if s.transA {
				tA = blas.Trans
			}
			if s.transB {
				tB = blas.Trans
			}
			ga := blas32.General{Rows: ar, Cols: ac, Stride: ac, Data: a}
			gb := blas32.General{Rows: br, Cols: bc, Stride: bc, Data: bb}
			gc := blas32.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: c}
			for b.Loop() {
				blas32.Gemm(tA, tB, 1, ga, gb, 0, gc)
			}
			report(b)
		})
	}
}

// randSlice returns n floats uniform in [-1, 1).
func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 2*rng.Float32() - 1
	}
	return s
}

// BenchmarkKernel measures each micro-kernel alone on packed, L1-resident
// data, i.e. the ceiling the blocked algorithm can approach.
func BenchmarkKernel(b *testing.B) {
	for _, kern := range supportedKernels() {
		const k = 256
		a := make([]float32, k*kern.mr)
		bp := make([]float32, k*kern.nr)
		c := make([]float32, kern.mr*kern.nr)
		b.Run(fmt.Sprintf("%s/k=%d", kern.name, k), func(b *testing.B) {
			for b.Loop() {
				kern.fns[len(kern.rows)-1][len(kern.cols)-1](k, a, bp, c, kern.nr, 1, 1)
			}
			flops := 2 * float64(kern.mr*kern.nr*k)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
