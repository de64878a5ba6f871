package experiment

import (
	"context"
	"fmt"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
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
// reporting images/s and GFLOP/s (695.5 MFLOP per image), and in a
// JavaScript host the threads of the SIMD module that served the last
// step (module-threads) and, where several did, the share of the steps'
// time outside the calls shared out between them (serial-fraction) and
// the rounds of such calls a step (rounds/step; see gemm.SharedTime). Compare with bench/pytorch_baseline.py convnet.
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
			shared0, rounds0 := gemm.SharedTime()
			for i := 0; i < b.N; i++ {
				m.TrainStep(x, y)
			}
			shared, rounds := gemm.SharedTime()
			shared, rounds = shared-shared0, rounds-rounds0
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(batch)/sec, "images/s")
			b.ReportMetric(float64(batch)*ConvNetFLOPs/sec/1e9, "GFLOP/s")
			if gemm.SIMD() {
				b.ReportMetric(float64(gemm.Threads()), "module-threads")
			}
			if gemm.Threads() >= 2 {
				b.ReportMetric(1-shared.Seconds()/b.Elapsed().Seconds(), "serial-fraction")
				b.ReportMetric(float64(rounds)/float64(b.N), "rounds/step")
			}
		})
	}
}

// TestBenchSuiteTable runs a small suite on the CPU backend: one row per
// benchmark in order, the ConvNet step's rate as a fraction of the largest
// matmul's, and no device counts on a backend that keeps none.
func TestBenchSuiteTable(t *testing.T) {
	c := SuiteConfig{Sizes: []int{16, 32}, Batches: []int{2}, ToyBatch: 8, Steps: 1}
	var seen int
	rs, err := RunSuite(context.Background(), cpu.New(), c, SuiteHooks{Each: func(BenchResult) { seen++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || seen != 4 || rs[1].Size != 32 || rs[2].Model != "convnet" || rs[3].Model != "mlp" || rs[3].Batch != 8 {
		t.Fatalf("results %+v (%d reported); want matmul 16, matmul 32, ConvNet batch 2, toy batch 8", rs, seen)
	}
	table := SuiteTable(rs)
	t.Log("\n" + table)
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "Backend cpu on ") || !strings.Contains(lines[2], "of the 32 matmul") || !strings.HasPrefix(lines[7], "| toy step, batch 8 |") {
		t.Fatalf("table:\n%s", table)
	}
	frac := fmt.Sprintf("| %.0f%% |", 100*rs[2].GFLOPS/rs[1].GFLOPS)
	if !strings.Contains(lines[6], frac) || !strings.Contains(lines[6], "| - | - | - | - | - | - | - |") {
		t.Errorf("ConvNet row %q; want %s and no counts", lines[6], frac)
	}
	if strings.Contains(lines[7], "%") {
		t.Errorf("toy row %q; want no fraction of the matmul's rate", lines[7])
	}
	if err := (SuiteConfig{Batches: []int{64}, ToyBatch: 8, Steps: 1}).Validate(); err == nil {
		t.Error("a suite without matmul sizes validated")
	}
}

// TestRunBenchesStops: RunBenches times the benchmarks in order and stops
// at one that fails, with the results before it.
func TestRunBenchesStops(t *testing.T) {
	cfgs := []BenchConfig{{Model: "matmul", Batch: 1, Size: 16, Steps: 1}, {Model: "mlp", Batch: 4, Size: 1, Steps: 2}, {Model: "resnet", Batch: 1, Size: 1, Steps: 1}, {Model: "matmul", Batch: 1, Size: 8, Steps: 1}}
	rs, err := RunBenches(context.Background(), cpu.New(), cfgs, SuiteHooks{})
	if err == nil || len(rs) != 2 || rs[0].Size != 16 || rs[1].Model != "mlp" || rs[1].Steps != 2 {
		t.Fatalf("results %+v, error %v; want matmul 16 and the toy step's 2 steps, then resnet's error", rs, err)
	}
}

// TestBenchParseSuite: empty lists keep the defaults, others replace them,
// and anything but positive whole numbers is refused, naming the list.
func TestBenchParseSuite(t *testing.T) {
	c, err := ParseSuite("", "", 3)
	if d := DefaultSuite(); err != nil || !slices.Equal(c.Sizes, d.Sizes) || !slices.Equal(c.Batches, d.Batches) || c.Steps != 3 {
		t.Errorf("ParseSuite of empty lists: %+v, %v; want the defaults with 3 steps", c, err)
	}
	if c, err := ParseSuite("8, 16", "2", 1); err != nil || !slices.Equal(c.Sizes, []int{8, 16}) || !slices.Equal(c.Batches, []int{2}) {
		t.Errorf("ParseSuite: %+v, %v", c, err)
	}
	for _, bad := range [][2]string{{"8,-1", ""}, {"", "64,"}, {"1e3", ""}} {
		if _, err := ParseSuite(bad[0], bad[1], 1); err == nil || !strings.Contains(err.Error(), "must list positive whole numbers") {
			t.Errorf("ParseSuite(%q, %q): %v", bad[0], bad[1], err)
		}
	}
	if _, err := ParseSuite("", "", 0); err == nil {
		t.Error("ParseSuite accepted 0 steps")
	}
}

// TestBenchTableCounts formats what a step asks of the device and the
// device times by op family, or why there are none.
func TestBenchTableCounts(t *testing.T) {
	c := kernels.DeviceCounters{Passes: 1, Dispatches: 84, Submits: 1, Uploads: 3, UploadBytes: 27784, BindGroupsCreated: 0.5}
	rs := []BenchResult{
		{Model: "matmul", Size: 64, GFLOPS: 10, PerStep: &c, GPUMsUnavailable: "adapter lacks timestamp-query"},
		{Model: "convnet", Batch: 2, GFLOPS: 5, PerStep: &c, GPUMs: map[string]float64{"matmul": 41900.78, "adam": 0.25}},
	}
	table := SuiteTable(rs)
	for _, want := range []string{
		"| 1 | 84 | 1 | 3 (27784) | 0 | 0.5 | none: adapter lacks timestamp-query |",
		"| 50% | 1 | 84 | 1 | 3 (27784) | 0 | 0.5 | adam 0.25, matmul 41901 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// countingCPU is the CPU backend with device counters that the test sets.
type countingCPU struct {
	kernels.Backend
	c kernels.DeviceCounters
}

func (b *countingCPU) DeviceCounters() kernels.DeviceCounters { return b.c }

// TestBenchStepCountsSkipWarmUpEpoch: the run's average per step leaves
// out the first epoch and adds up the later ones; a backend that counts
// nothing reports nothing.
func TestBenchStepCountsSkipWarmUpEpoch(t *testing.T) {
	be := &countingCPU{Backend: cpu.New()}
	var s stepCounts
	epoch := func(work kernels.DeviceCounters, steps int) *kernels.DeviceCounters {
		before := be.c
		be.c = be.c.Add(work)
		return s.epoch(be, before, steps)
	}
	if got := epoch(kernels.DeviceCounters{Submits: 100, PipelinesCreated: 30}, 10); got != nil {
		t.Fatalf("after the first epoch: %+v; want none", *got)
	}
	epoch(kernels.DeviceCounters{Submits: 10, Readbacks: 1}, 10)
	got := epoch(kernels.DeviceCounters{Submits: 20, Readbacks: 1}, 20)
	if want := (kernels.DeviceCounters{Submits: 1, Readbacks: 2.0 / 30}); got == nil || *got != want {
		t.Fatalf("per step %v; want %+v", got, want)
	}
	var plain stepCounts
	plain.epoch(cpu.New(), kernels.DeviceCounters{}, 10)
	if got := plain.epoch(cpu.New(), kernels.DeviceCounters{}, 10); got != nil {
		t.Errorf("the CPU backend: %+v; want none", *got)
	}
}

// TestBenchWebGPURunReportsPerStep: a toy run on WebGPU records in its
// report what a training step asked of the device: one pass and one
// submission, no creation, one read-back per reporting interval.
func TestBenchWebGPURunReportsPerStep(t *testing.T) {
	gpu := webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	c := DefaultSynth()
	c.Train, c.Test, c.Epochs = 2560, 256, 3 // 10 steps an epoch: one report each
	r, err := NewSynth(gpu, c)
	if err != nil {
		t.Fatal(err)
	}
	for !r.Done() {
		if err := r.Epoch(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	got := r.Report.WebGPUPerStep
	if got == nil {
		t.Fatal("no webgpu_per_step in the report")
	}
	t.Logf("webgpu_per_step: %+v", *got)
	if got.Passes != 1 || got.Submits != 1 || got.Readbacks != 0.1 || got.BuffersCreated+got.PipelinesCreated+got.BindGroupsCreated != 0 {
		t.Errorf("per step %+v; want one pass and submission, 0.1 read-backs, no creation", *got)
	}
}

// TestBenchRunKeepsPerStepAfterMove: a run that moves from a counting
// backend to one that counts nothing (the page goes on on the CPU when
// WebGPU fails) keeps webgpu_per_step in its report.
func TestBenchRunKeepsPerStepAfterMove(t *testing.T) {
	be := &countingCPU{Backend: cpu.New()}
	c := DefaultSynth()
	c.Train, c.Test, c.Epochs = 512, 64, 3
	r, err := NewSynth(be, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if i == 2 {
			r.Model.Backend = be.Backend // the same tensors, no counters
		}
		if err := r.Epoch(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if got := r.Report.WebGPUPerStep; (got == nil) != (i == 0) {
			t.Fatalf("after epoch %d: webgpu_per_step %v", i+1, got)
		}
	}
}
