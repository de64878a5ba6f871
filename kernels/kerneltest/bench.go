package kerneltest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// BenchOp times run on be, syncing before and after and reading one element
// of out back so that the work is really done, and reports GFLOP/s (flops
// the work of one run).
func BenchOp(bb *testing.B, be kernels.Backend, flops float64, out kernels.Tensor, run func()) {
	run() // compile pipelines and warm caches outside the timing
	if err := be.Sync(); err != nil {
		bb.Fatal(err)
	}
	bb.ResetTimer()
	for range bb.N {
		run()
	}
	if err := be.Sync(); err != nil {
		bb.Fatal(err)
	}
	if _, err := be.Read(be.View(out, 0, 1)); err != nil {
		bb.Fatal(err)
	}
	bb.StopTimer()
	bb.ReportMetric(flops*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// RandomTensor allocates a float32 tensor of shape on be holding standard
// normal values from rng.
func RandomTensor(be kernels.Backend, rng *rand.Rand, shape ...int) kernels.Tensor {
	t := be.Alloc(kernels.Float32, shape...)
	data := make([]float32, kernels.Numel(shape))
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	be.Write(t, data)
	return t
}

// BenchMatMul times square float32 products of sizes 256, 512 and 1024 on
// be, reporting GFLOP/s.
func BenchMatMul(bb *testing.B, be kernels.Backend) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{256, 512, 1024} {
		x, y, z := RandomTensor(be, rng, n, n), RandomTensor(be, rng, n, n), be.Alloc(kernels.Float32, n, n)
		bb.Run(fmt.Sprint(n), func(bb *testing.B) {
			BenchOp(bb, be, 2*float64(n)*float64(n)*float64(n), z, func() { be.MatMul(z, x, y, nil, false, false) })
		})
		for _, t := range []kernels.Tensor{x, y, z} {
			be.Free(t)
		}
	}
}

// BenchConv times the three convolution ops at the shapes of the paper
// ConvNet's layers (3x3, stride 1, pad 1) at batch 16, reporting GFLOP/s.
func BenchConv(bb *testing.B, be kernels.Backend) {
	rng := rand.New(rand.NewPCG(17, 18))
	const batch = 16
	p := kernels.ConvParams{Stride: 1, Pad: 1}
	for _, l := range []struct{ c, hw int }{{64, 28}, {128, 14}, {256, 7}} {
		x := RandomTensor(be, rng, batch, l.c, l.hw, l.hw)
		dy := RandomTensor(be, rng, batch, l.c, l.hw, l.hw)
		w := RandomTensor(be, rng, l.c, l.c, 3, 3)
		bias := RandomTensor(be, rng, l.c)
		dx := be.Alloc(kernels.Float32, batch, l.c, l.hw, l.hw)
		dw := be.Alloc(kernels.Float32, l.c, l.c, 3, 3)
		flops := 2 * float64(batch*l.c*l.hw*l.hw) * float64(l.c*9)
		for _, op := range []struct {
			name string
			out  kernels.Tensor
			run  func()
		}{
			{"forward", dx, func() { be.Conv2D(dx, x, w, bias, p) }},
			{"backward-data", dx, func() { be.Conv2DBackwardData(dx, dy, w, p) }},
			{"backward-filter", dw, func() { be.Conv2DBackwardFilter(dw, dy, x, p) }},
		} {
			bb.Run(fmt.Sprintf("ci%d_co%d_%dx%d/%s", l.c, l.c, l.hw, l.hw, op.name), func(bb *testing.B) {
				BenchOp(bb, be, flops, op.out, op.run)
			})
		}
		for _, t := range []kernels.Tensor{x, dy, w, bias, dx, dw} {
			be.Free(t)
		}
	}
}
