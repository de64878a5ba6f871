package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// unfused hides the CPU backend's fused products (kernels.ReLUFuser), so
// that the model runs its Linear and ReLU layers one by one.
type unfused struct{ kernels.Backend }

// TestReLUFusionTrainsTheSame trains the toy MLP for a few steps with the
// fused Linear+ReLU products and without them, and checks that every
// parameter and the embeddings come out the same, bit for bit.
func TestReLUFusionTrainsTheSame(t *testing.T) {
	fusedBe := cpu.New()
	if _, ok := kernels.Backend(fusedBe).(kernels.ReLUFuser); !ok {
		t.Fatal("the CPU backend does not fuse: the test would compare a model with itself")
	}
	if _, ok := kernels.Backend(unfused{fusedBe}).(kernels.ReLUFuser); ok {
		t.Fatal("the wrapper still fuses")
	}
	spec := model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-2, Seed: 7}
	const n = 64
	r := rand.New(rand.NewPCG(1, 2))
	xs, ys := make([]float32, 2*n), make([]int32, n)
	for i := range ys {
		ys[i] = int32(r.IntN(3))
		xs[2*i], xs[2*i+1] = float32(r.NormFloat64())+float32(ys[i]), float32(r.NormFloat64())
	}
	run := func(be kernels.Backend) (*model.Model, []float32) {
		m, err := model.New(be, spec)
		if err != nil {
			t.Fatal(err)
		}
		x, y := be.Alloc(kernels.Float32, n, 2), be.Alloc(kernels.Int32, n)
		be.Write(x, xs)
		be.WriteInt(y, ys)
		for range 20 {
			m.TrainStep(x, y)
		}
		z, _ := m.Forward(x, false)
		zs, err := be.Read(z)
		if err != nil {
			t.Fatal(err)
		}
		return m, zs
	}
	a, za := run(fusedBe)
	b, zb := run(unfused{cpu.New()})
	for i, p := range a.Params {
		va, _ := a.Backend.Read(p.Value)
		vb, _ := b.Backend.Read(b.Params[i].Value)
		for j := range va {
			if math.Float32bits(va[j]) != math.Float32bits(vb[j]) {
				t.Fatalf("%s[%d]: %v fused, %v unfused", p.Name, j, va[j], vb[j])
			}
		}
	}
	for j := range za {
		if math.Float32bits(za[j]) != math.Float32bits(zb[j]) {
			t.Fatalf("z[%d]: %v fused, %v unfused", j, za[j], zb[j])
		}
	}
}
