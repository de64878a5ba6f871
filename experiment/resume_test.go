package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
	"github.com/deeplda/deeplda/train"
)

// TestWebGPUSnapshotResumesOnCPU trains a toy run and an image run (the
// ConvNet with BatchNorm) on WebGPU, snapshots them in the middle of an
// epoch, moves the snapshot to a run on the CPU backend and trains both to
// the end. The CPU run must start from the snapshot bit for bit, and end
// within float32 tolerance of the uninterrupted WebGPU run: for every
// parameter, the L2 distance between the two ends within 1% of how far the
// uninterrupted run moved it after the snapshot (measured with lavapipe:
// at most 1e-5 on the toy run, 2.4e-4 on the ConvNet; losing Adam's first
// moments on the way gives 0.6 and 0.9). The ConvNet's convolution biases
// are left out: BatchNorm cancels them, so their gradient is rounding
// noise, which Adam turns into steps of up to the learning rate on any
// backend.
func TestWebGPUSnapshotResumesOnCPU(t *testing.T) {
	gpu := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	synth := DefaultSynth()
	synth.Epochs, synth.Train, synth.Test = 3, 2000, 200
	img := DefaultImages()
	img.Epochs, img.Batch, img.LimitTrain, img.LimitTest, img.Val, img.EvalBatch = 3, 16, 32, 16, 0, 16
	data := fakeImages(32, 16, 2)
	for _, tc := range []struct {
		name string
		new  func(kernels.Backend) (*Run, error)
	}{
		{"synth", func(be kernels.Backend) (*Run, error) { return NewSynth(be, synth) }},
		{"images", func(be kernels.Backend) (*Run, error) {
			r, err := NewImagesFrom(be, img, data)
			if err != nil {
				return nil, err
			}
			return r.Run, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func(be kernels.Backend) *Run {
				r, err := tc.new(be)
				if err != nil {
					t.Fatal(err)
				}
				r.Trainer.Cfg.ReportEvery = 1
				t.Cleanup(r.Model.Release)
				return r
			}
			g, c := mk(gpu), mk(cpu.New())
			steps := g.Trainer.StepsPerEpoch()
			at := steps + steps/2
			var snap *train.Snapshot
			for !g.Done() {
				err := g.Epoch(context.Background(), func(p train.Progress) {
					if p.TotalStep == at {
						var err error
						if snap, err = g.Trainer.Snapshot(); err != nil {
							t.Fatal(err)
						}
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if snap == nil {
				t.Fatalf("no snapshot at step %d", at)
			}
			if err := c.Trainer.Restore(snap); err != nil {
				t.Fatal(err)
			}
			moved, err := c.Model.TrainingState()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range snap.Model.Names() {
				a, b := snap.Model.Tensors[n], moved.Tensors[n]
				if !slices.Equal(a.F32, b.F32) || !slices.Equal(a.I32, b.I32) {
					t.Errorf("%s changed on the way to the CPU", n)
				}
			}
			for !c.Done() {
				if err := c.Epoch(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
			}
			want, err := g.Model.TrainingState()
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Model.TrainingState()
			if err != nil {
				t.Fatal(err)
			}
			// Per parameter, the distance between the two ends relative to
			// how far the uninterrupted run moved after the snapshot.
			worst, worstName := 0.0, ""
			for _, p := range g.Model.Params {
				if strings.HasPrefix(p.Name, "enc.conv") && strings.HasSuffix(p.Name, ".bias") {
					continue
				}
				a, b, s := want.Tensors[p.Name].F32, got.Tensors[p.Name].F32, snap.Model.Tensors[p.Name].F32
				var diff, moved float64
				for i := range a {
					diff += math.Pow(float64(a[i]-b[i]), 2)
					moved += math.Pow(float64(a[i]-s[i]), 2)
				}
				if r := math.Sqrt(diff / max(moved, 1e-30)); r > worst {
					worst, worstName = r, p.Name
				}
			}
			t.Logf("%d steps on WebGPU, %d on the CPU: the ends differ by %.3g of the last %d steps' movement at most (%s)",
				at, g.Model.Step()-at, worst, g.Model.Step()-at, worstName)
			if worst > 1e-2 {
				t.Errorf("the resumed run ends %.3g (relative to the movement since the snapshot) from the uninterrupted one in %s; want at most 1e-2", worst, worstName)
			}
			if g.Model.Step() != c.Model.Step() || g.Trainer.Epoch() != c.Trainer.Epoch() {
				t.Errorf("the CPU run ends at step %d, epoch %d; WebGPU at %d, %d", c.Model.Step(), c.Trainer.Epoch(), g.Model.Step(), g.Trainer.Epoch())
			}
			if len(c.Report.History) != len(g.Report.History)-snap.Epoch {
				t.Errorf("the CPU run has %d epochs of history, want %d", len(c.Report.History), len(g.Report.History)-snap.Epoch)
			}
		})
	}
}
