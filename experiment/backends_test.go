package experiment

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

// openWebGPU opens the WebGPU backend, closed when t ends. Without an
// adapter the test fails in CI (CI set) and says loudly that it skipped
// elsewhere.
func openWebGPU(t *testing.T) *webgpu.Backend {
	t.Helper()
	gpu, err := webgpu.New()
	if err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, webgpu.ErrNoAdapter) {
			t.Fatalf("no WebGPU backend: %v", err)
		}
		t.Skipf("SKIPPED: no WebGPU adapter (%v)", err)
	}
	t.Cleanup(func() { gpu.Close() })
	return gpu
}

// TestWebGPUMatchesCPU trains the toy DNLL experiment on both backends from
// the same seed: the test accuracies must agree within 0.5 points and the
// training curves closely.
func TestWebGPUMatchesCPU(t *testing.T) {
	gpu := openWebGPU(t)
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
