package webgpu_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
)

// TestCountsPerTrainingStep holds the goals for a training step after the
// warm-up step, for the toy model and the ConvNet (at a small batch: the
// counts do not depend on it): one compute pass and one submission, no
// read-back, no creation of any kind, and three uploads (the batch's
// inputs and labels, the step's uniform blocks).
func TestCountsPerTrainingStep(t *testing.T) {
	be := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	for _, m := range []string{"mlp", "convnet"} {
		const steps = 3
		b, err := experiment.NewBench(be, experiment.BenchConfig{Model: m, Batch: 2, Size: 1, Steps: steps})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WarmUp(); err != nil {
			t.Fatal(err)
		}
		r, err := b.Time(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c := r.PerStep
		if c == nil {
			t.Fatalf("%s: no per_step counters", m)
		}
		t.Logf("%s, per step: %+v", m, *c)
		want := kernels.DeviceCounters{Passes: 1, Dispatches: c.Dispatches, Submits: 1, Uploads: 3, UploadBytes: c.UploadBytes}
		if *c != want || c.Dispatches < 2 || c.Dispatches != float64(int(c.Dispatches)) {
			t.Errorf("%s: per step %+v; want one pass and one submission, three uploads, no read-back or creation, a whole number of dispatches", m, *c)
		}
	}
}

// TestTimingPerOpFamily times a ConvNet step by op family with timestamp
// queries: every family of the step has a positive time, and together they
// take no longer than the step's wall-clock time (with a margin for the
// split passes). On an adapter without timestamp queries the result must
// say so instead, with no times, and the rest is skipped loudly.
func TestTimingPerOpFamily(t *testing.T) {
	be := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	b, err := experiment.NewBench(be, experiment.BenchConfig{Model: "convnet", Batch: 2, Size: 1, Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WarmUp(); err != nil {
		t.Fatal(err)
	}
	r, err := b.Time(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.GPUMsUnavailable != "" {
		if r.GPUMs != nil {
			t.Fatalf("gpu_ms %v with gpu_ms_unavailable %q", r.GPUMs, r.GPUMsUnavailable)
		}
		t.Skipf("SKIPPED: no device timing on %s: %s", be.Info().Adapter, r.GPUMsUnavailable)
	}
	t.Logf("gpu_ms per step: %v; wall clock %.1f ms", r.GPUMs, 1e3*r.SecondsPerStep)
	sum := 0.0
	for _, f := range []string{"conv", "batchnorm", "matmul", "pool", "elementwise", "head", "loss", "adam"} {
		if r.GPUMs[f] <= 0 {
			t.Errorf("no time for %s", f)
		}
		sum += r.GPUMs[f]
	}
	if len(r.GPUMs) != 8 || sum > 2*1e3*r.SecondsPerStep {
		t.Errorf("gpu_ms %v (sum %.1f ms); want the 8 families of the step, within twice the wall clock %.1f ms", r.GPUMs, sum, 1e3*r.SecondsPerStep)
	}
}

// TestLostDeviceInjected loses the device after the second training step
// through webgpu.LoseDeviceEnv: Sync succeeds before it and fails with
// kernels.ErrDeviceLost after it, and so does every Read.
func TestLostDeviceInjected(t *testing.T) {
	t.Setenv(webgpu.LoseDeviceEnv, "2")
	be := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	b, err := experiment.NewBench(be, experiment.BenchConfig{Model: "mlp", Batch: 4, Size: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WarmUp(); err != nil { // step 1
		t.Fatalf("step 1: %v", err)
	}
	if _, err := b.Time(context.Background()); !errors.Is(err, kernels.ErrDeviceLost) { // step 2
		t.Fatalf("after step 2: %v; want ErrDeviceLost", err)
	}
	if _, err := be.Read(be.Alloc(kernels.Float32, 3)); !errors.Is(err, webgpu.ErrDeviceLost) {
		t.Fatalf("Read after the loss: %v; want ErrDeviceLost", err)
	}
}

// TestLostDeviceEnvRejectsGarbage: a value that is no positive number of
// steps is an error of New, not a silent no-op.
func TestLostDeviceEnvRejectsGarbage(t *testing.T) {
	t.Setenv(webgpu.LoseDeviceEnv, "soon")
	if b, err := webgpu.New(); err == nil {
		b.Close()
		t.Fatal("New accepted a bad " + webgpu.LoseDeviceEnv)
	}
}

// TestCountsUniformRingWraps records more dispatches than the uniform ring
// holds (1024) before anything is submitted: each dispatch must still see
// its own uniforms, and each submission uploads its uniforms in one write
// (the read-back creates its staging buffer, the first Fill its pipeline).
func TestCountsUniformRingWraps(t *testing.T) {
	be := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	const n = 2100
	x := be.Alloc(kernels.Float32, n*kernels.ViewAlign)
	if err := be.Sync(); err != nil {
		t.Fatal(err)
	}
	before := be.DeviceCounters()
	for i := range n {
		be.Fill(be.View(x, i*kernels.ViewAlign, kernels.ViewAlign), float32(i))
	}
	got, err := be.Read(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if v := got[i*kernels.ViewAlign+i%kernels.ViewAlign]; v != float32(i) {
			t.Fatalf("view %d holds %v", i, v)
		}
	}
	c := be.DeviceCounters().Sub(before)
	if want := (kernels.DeviceCounters{Passes: 3, Dispatches: n, Submits: 3, Uploads: 3, UploadBytes: n * 256, Readbacks: 1, ReadbackBytes: n * kernels.ViewAlign * 4,
		BuffersCreated: 1, PipelinesCreated: 1, BindGroupsCreated: n}); c != want {
		t.Errorf("counters %+v; want %+v", c, want)
	}
}
