package experiment

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// BenchmarkToyDNLL times the paper's 100-epoch Deep LDA toy run (MLP 2-32-2,
// full head, DNLL, batch 256, 20,000 points) on the CPU backend, training
// only. Compare with bench/pytorch_baseline.py toy (run with -cpu 1).
func BenchmarkToyDNLL(b *testing.B) {
	c := DefaultSynth()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r, err := NewSynth(cpu.New(), c)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for !r.Done() {
			if _, err := r.Trainer.RunEpoch(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkConvNetStep times one training step (forward, backward, Adam) of
// the paper's ConvNet with the spherical LDA head and DNLL on 28x28 inputs,
// reporting images/s and GFLOP/s (695.5 MFLOP per image). Compare with
// bench/pytorch_baseline.py convnet.
func BenchmarkConvNetStep(b *testing.B) {
	for _, batch := range []int{64, 256} {
		b.Run(map[int]string{64: "batch64", 256: "batch256"}[batch], func(b *testing.B) {
			be := cpu.New()
			m, err := model.New(be, ConvNetBenchSpec)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			xs := make([]float32, batch*28*28)
			ys := make([]int32, batch)
			for i := range xs {
				xs[i] = float32(rng.NormFloat64())
			}
			for i := range ys {
				ys[i] = int32(rng.IntN(10))
			}
			x, y := be.Alloc(kernels.Float32, batch, 1, 28, 28), be.Alloc(kernels.Int32, batch)
			be.Write(x, xs)
			be.WriteInt(y, ys)
			m.TrainStep(x, y) // allocate the activations
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.TrainStep(x, y)
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(batch)/sec, "images/s")
			b.ReportMetric(float64(batch)*ConvNetFLOPs/sec/1e9, "GFLOP/s")
		})
	}
}
