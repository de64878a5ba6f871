package model_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// countingBackend counts allocations and frees of whole tensors.
type countingBackend struct {
	*cpu.Backend
	live map[kernels.Tensor]bool
}

func (c *countingBackend) Alloc(dt kernels.DType, shape ...int) kernels.Tensor {
	t := c.Backend.Alloc(dt, shape...)
	c.live[t] = true
	return t
}

func (c *countingBackend) Free(t kernels.Tensor) {
	delete(c.live, t)
	c.Backend.Free(t)
}

// TestReleaseFreesEverything trains a ConvNet step (which allocates every
// activation) and checks that Release frees every tensor the model made.
func TestReleaseFreesEverything(t *testing.T) {
	be := &countingBackend{Backend: cpu.New(), live: map[kernels.Tensor]bool{}}
	m, err := model.New(be, model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 8, 8}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	x, y := be.Backend.Alloc(kernels.Float32, 4, 1, 8, 8), be.Backend.Alloc(kernels.Int32, 4)
	be.WriteInt(y, []int32{0, 1, 2, 0})
	m.TrainStep(x, y)
	if len(be.live) == 0 {
		t.Fatal("the model allocated nothing through the backend")
	}
	m.Release()
	if len(be.live) != 0 {
		t.Errorf("%d tensors still allocated after Release", len(be.live))
	}
}
