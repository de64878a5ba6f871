package experiment

import (
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
)

// TestWebGPUMatchesCPU trains the toy DNLL experiment on both backends from
// the same seed: the test accuracies must agree within 0.5 points and the
// training curves closely.
func TestWebGPUMatchesCPU(t *testing.T) {
	gpu := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	c := DefaultSynth()
	c.Epochs = 5
	run := func(be kernels.Backend) *Run {
		r, err := NewSynth(be, c)
		if err != nil {
			t.Fatal(err)
		}
		for !r.Done() {
			if err := r.Epoch(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Finish(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(cpu.New()).Report, run(gpu).Report
	if d := math.Abs(float64(a.Test.Accuracy - b.Test.Accuracy)); d > 0.005 {
		t.Errorf("test accuracy: cpu %.4f, webgpu %.4f", a.Test.Accuracy, b.Test.Accuracy)
	}
	for i := range a.History {
		la, lb := float64(a.History[i].Loss), float64(b.History[i].Loss)
		if math.Abs(la-lb) > 1e-2*math.Abs(la)+1e-3 {
			t.Errorf("epoch %d loss: cpu %.6f, webgpu %.6f", i+1, la, lb)
		}
	}
	t.Logf("test accuracy cpu %.4f webgpu %.4f (%s)", a.Test.Accuracy, b.Test.Accuracy, b.Backend.Adapter)
}
