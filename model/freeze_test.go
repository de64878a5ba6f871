package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// TestFreezeHead trains the same MLP model with and without FreezeHead,
// for each head: after the first step the encoder's parameters are the
// same bits in both (Adam is elementwise and the gradients are equal);
// after five steps the frozen model's head still holds its initial values
// while the other's moved.
func TestFreezeHead(t *testing.T) {
	for _, head := range []model.HeadKind{model.HeadLDA, model.HeadSoftmax} {
		t.Run(head.String(), func(t *testing.T) {
			be := cpu.New()
			spec := model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2, Head: head,
				Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-2, Seed: 3}
			if head == model.HeadSoftmax {
				spec.Loss, spec.Lambda = kernels.CE, 0
			}
			frozenSpec := spec
			frozenSpec.FreezeHead = true
			free, err := model.New(be, spec)
			if err != nil {
				t.Fatal(err)
			}
			frozen, err := model.New(be, frozenSpec)
			if err != nil {
				t.Fatal(err)
			}
			x, y := be.Alloc(kernels.Float32, 6, 2), be.Alloc(kernels.Int32, 6)
			be.Write(x, []float32{1, 0, 0, 1, -1, 0, 0.5, 0.5, -0.5, 1, 2, -1})
			be.WriteInt(y, []int32{0, 1, 2, 0, 1, 2})
			initial := values(t, be, frozen)
			free.TrainStep(x, y)
			frozen.TrainStep(x, y)
			a, b := values(t, be, free), values(t, be, frozen)
			for name, v := range b {
				if strings.HasPrefix(name, "head.") {
					continue
				}
				if !slices.Equal(v, a[name]) {
					t.Errorf("%s after one step: frozen head %v, trained head %v", name, v, a[name])
				}
				if slices.Equal(v, initial[name]) {
					t.Errorf("%s did not move in the first step", name)
				}
			}
			for range 4 {
				free.TrainStep(x, y)
				frozen.TrainStep(x, y)
			}
			a, b = values(t, be, free), values(t, be, frozen)
			heads := 0
			for name, v := range b {
				if !strings.HasPrefix(name, "head.") {
					continue
				}
				heads++
				if !slices.Equal(v, initial[name]) {
					t.Errorf("%s of the frozen head moved: %v, initially %v", name, v, initial[name])
				}
				if slices.Equal(a[name], initial[name]) && name != "head.prior_logits" {
					t.Errorf("%s of the trained head did not move", name)
				}
			}
			if heads == 0 {
				t.Fatal("no head parameters")
			}
		})
	}
}

// values reads every parameter of m by name.
func values(t *testing.T, be kernels.Backend, m *model.Model) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	for _, p := range m.Params {
		v, err := be.Read(p.Value)
		if err != nil {
			t.Fatal(err)
		}
		out[p.Name] = v
	}
	return out
}

// TestFreezeHeadNeedsEncoder checks that a frozen head without an encoder
// is refused.
func TestFreezeHeadNeedsEncoder(t *testing.T) {
	err := model.Spec{Encoder: model.EncoderNone, Input: []int{2}, Classes: 3, Dim: 2, Head: model.HeadLDA, Cov: kernels.Full,
		Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, FreezeHead: true}.Validate()
	if err == nil || !strings.Contains(err.Error(), "a frozen head needs an encoder") {
		t.Errorf("Validate: %v", err)
	}
}
