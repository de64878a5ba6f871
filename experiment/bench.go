package experiment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// ConvNetFLOPs is the forward and backward work of the paper's ConvNet per
// 28x28 image (116 M multiply-adds forward, three times that in all).
const ConvNetFLOPs = 695.5e6

// ConvNetBenchSpec is the model that the ConvNet speed figures time: the
// paper's ConvNet on 28x28 inputs with the spherical LDA head and DNLL.
var ConvNetBenchSpec = model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
	Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}

// ToyBenchSpec is the model of the toy step's speed figures: the paper's
// MLP 2-32-2 with the full-covariance LDA head and DNLL.
var ToyBenchSpec = model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
	Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}

// BenchConfig says what a Bench times.
type BenchConfig struct {
	Model string // convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)
	Batch int    // batch size (convnet, mlp)
	Size  int    // matrix size S (matmul)
	Steps int    // timed steps, after one untimed warm-up step
}

// Validate reports the first invalid field as a *SettingError.
func (c BenchConfig) Validate() error {
	return checkSettings(&c)
}

// BenchResult is the timing of a Bench, as "deeplda bench" prints it.
type BenchResult struct {
	Backend         kernels.Info `json:"backend"`
	Model           string       `json:"model"`
	Batch           int          `json:"batch,omitempty"`
	Size            int          `json:"size,omitempty"`
	Steps           int          `json:"steps"`
	SecondsPerStep  float64      `json:"seconds_per_step"`
	ImagesPerSecond float64      `json:"images_per_second,omitempty"`
	GFLOPS          float64      `json:"gflops"`
	// PerStep is what one timed step asked of the device, on backends that
	// count it (kernels.Counting): the average over the timed steps.
	PerStep *kernels.DeviceCounters `json:"per_step,omitempty"`
	// GPUMs is the device time of one step by op family in milliseconds,
	// on backends that time it (kernels.Timing); GPUMsUnavailable says
	// why it is absent on a backend that could time but does not here.
	GPUMs            map[string]float64 `json:"gpu_ms,omitempty"`
	GPUMsUnavailable string             `json:"gpu_ms_unavailable,omitempty"`
	// GPUMsKernels is GPUMs by kernel, keyed "family/entry".
	GPUMsKernels map[string]float64 `json:"gpu_ms_kernels,omitempty"`
}

// Bench is a timing with its inputs (and model) on a backend, the same
// natively ("deeplda bench") and in the browser (the golden page program's
// bench mode).
type Bench struct {
	be    kernels.Backend
	cfg   BenchConfig
	step  func()
	flops float64 // per step
	// Between, when set, runs between timed steps, inside the timing: the
	// page yields to the browser there (a fraction of a millisecond every
	// 50 ms), so that it paints and Stop is heard.
	Between func()
}

// NewBench allocates what cfg times on be.
func NewBench(be kernels.Backend, cfg BenchConfig) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{be: be, cfg: cfg}
	if cfg.Model == "matmul" {
		s := cfg.Size
		x, y, z := be.Alloc(kernels.Float32, s, s), be.Alloc(kernels.Float32, s, s), be.Alloc(kernels.Float32, s, s)
		be.Write(x, randn(s*s))
		be.Write(y, randn(s*s))
		b.step = func() { be.MatMul(z, x, y, nil, false, false) }
		b.flops = 2 * float64(s) * float64(s) * float64(s)
		return b, nil
	}
	spec := ConvNetBenchSpec
	b.flops = ConvNetFLOPs * float64(cfg.Batch)
	if cfg.Model == "mlp" {
		spec = ToyBenchSpec
		b.flops = float64(cfg.Batch) * 6 * (2*32 + 32*2) // linear layers, forward and backward
	}
	m, err := model.New(be, spec)
	if err != nil {
		return nil, err
	}
	x := be.Alloc(kernels.Float32, append([]int{cfg.Batch}, spec.Input...)...)
	xs := randn(cfg.Batch * kernels.Numel(spec.Input))
	y := be.Alloc(kernels.Int32, cfg.Batch)
	labels := make([]int32, cfg.Batch)
	for i := range labels {
		labels[i] = int32(i % spec.Classes)
	}
	// A step uploads its batch, as the trainer's steps do.
	b.step = func() {
		be.Write(x, xs)
		be.WriteInt(y, labels)
		m.TrainStep(x, y)
	}
	return b, nil
}

// WarmUp runs one untimed step (compiling the pipelines, allocating the
// activations) and waits for it.
func (b *Bench) WarmUp() error {
	b.step()
	return b.be.Sync()
}

// Time runs the timed steps, from a drained queue to a drained queue, and
// reports what they asked of the device where the backend counts it. Where
// the backend can time the device by op family, it then runs the steps
// once more under timestamp queries (apart, since those split the compute
// passes) for GPUMs.
func (b *Bench) Time(ctx context.Context) (BenchResult, error) {
	res := BenchResult{Backend: b.be.Info(), Model: b.cfg.Model, Steps: b.cfg.Steps}
	counting, counts := b.be.(kernels.Counting)
	var before kernels.DeviceCounters
	if err := b.be.Sync(); err != nil {
		return res, err
	}
	if counts {
		before = counting.DeviceCounters()
	}
	start := time.Now()
	if err := b.steps(ctx); err != nil {
		return res, err
	}
	sec := time.Since(start).Seconds() / float64(b.cfg.Steps)
	if sec <= 0 {
		// A browser's clock ticks every 5 µs to 1 ms: a tiny benchmark can
		// take no time by it, and its rates would be infinite.
		return res, fmt.Errorf("%d steps took less than one tick of the clock: time more steps", b.cfg.Steps)
	}
	if counts {
		per := counting.DeviceCounters().Sub(before).Per(b.cfg.Steps)
		res.PerStep = &per
	}
	if timing, ok := b.be.(kernels.Timing); ok {
		if err := b.timeDevice(ctx, timing, &res); err != nil {
			return res, err
		}
	}
	res.SecondsPerStep = sec
	res.GFLOPS = b.flops / sec / 1e9
	if b.cfg.Model == "matmul" {
		res.Size = b.cfg.Size
	} else {
		res.Batch = b.cfg.Batch
		res.ImagesPerSecond = float64(b.cfg.Batch) / sec
	}
	return res, nil
}

// steps runs the configured steps and waits for them.
func (b *Bench) steps(ctx context.Context) error {
	for i := 0; i < b.cfg.Steps; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i > 0 && b.Between != nil {
			b.Between()
		}
		b.step()
	}
	return b.be.Sync()
}

// timeDevice runs the steps under the backend's timestamp queries and
// fills res's device times per step, or says why there are none.
func (b *Bench) timeDevice(ctx context.Context, t kernels.Timing, res *BenchResult) error {
	if err := t.StartTiming(); err != nil {
		res.GPUMsUnavailable = err.Error()
		return nil
	}
	err := b.steps(ctx)
	ms, stopErr := t.StopTiming()
	if err = errors.Join(err, stopErr); err != nil {
		return err
	}
	res.GPUMs, res.GPUMsKernels = map[string]float64{}, map[string]float64{}
	for key, v := range ms {
		v /= float64(b.cfg.Steps)
		family, _, _ := strings.Cut(key, "/")
		res.GPUMs[family] += v
		res.GPUMsKernels[key] = v
	}
	return nil
}

// randn returns n standard normal numbers of a fixed seed.
func randn(n int) []float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// SuiteConfig says what RunSuite times.
type SuiteConfig struct {
	Sizes    []int `json:"sizes"`     // matmul sizes S (SxSxS products)
	Batches  []int `json:"batches"`   // ConvNet batch sizes
	ToyBatch int   `json:"toy_batch"` // the toy step's batch size
	Steps    int   `json:"steps"`     // timed steps of each, after one untimed warm-up step
}

// DefaultSuite is the GPU table of BENCHMARKS.md: the 1024, 2048 and 4096
// matmuls, the ConvNet step at batch 64 and 256, the toy step at batch 256.
func DefaultSuite() SuiteConfig {
	return SuiteConfig{Sizes: []int{1024, 2048, 4096}, Batches: []int{64, 256}, ToyBatch: 256, Steps: 10}
}

// ParseSuite returns the default suite with the matmul sizes and the
// ConvNet batches of comma-separated lists (an empty list keeps the
// default) and steps timed steps, as "deeplda bench -suite" and the page's
// bench=1 take them.
func ParseSuite(sizes, batches string, steps int) (SuiteConfig, error) {
	c := DefaultSuite()
	c.Steps = steps
	for _, p := range []struct {
		name, list string
		v          *[]int
	}{{"sizes", sizes, &c.Sizes}, {"batches", batches, &c.Batches}} {
		if p.list == "" {
			continue
		}
		*p.v = nil
		fields := strings.Split(p.list, ",")
		if max := setting(p.name).Max; len(fields) > max {
			return c, settingError(p.name, "%s must list at most %d numbers, got %d", p.name, max, len(fields))
		}
		for _, f := range fields {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return c, settingError(p.name, "%s must list positive whole numbers, got %q", p.name, f)
			}
			*p.v = append(*p.v, n)
		}
	}
	return c, c.Validate()
}

// Configs lists the benchmarks of the suite in the order RunSuite runs them.
func (c SuiteConfig) Configs() []BenchConfig {
	var cs []BenchConfig
	for _, s := range c.Sizes {
		cs = append(cs, BenchConfig{Model: "matmul", Batch: 1, Size: s, Steps: c.Steps})
	}
	for _, n := range c.Batches {
		cs = append(cs, BenchConfig{Model: "convnet", Batch: n, Size: 1, Steps: c.Steps})
	}
	return append(cs, BenchConfig{Model: "mlp", Batch: c.ToyBatch, Size: 1, Steps: c.Steps})
}

// Validate reports the first invalid setting, named as the command's flags
// are.
func (c SuiteConfig) Validate() error {
	if len(c.Sizes) == 0 {
		return settingError("sizes", "sizes must list at least one matrix size")
	}
	for _, b := range c.Configs() {
		if err := b.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// SuiteHooks are what RunSuite calls as it goes; either may be nil.
type SuiteHooks struct {
	Each    func(BenchResult) // with every result as it comes
	Between func()            // between timed steps (Bench.Between)
}

// RunSuite times each benchmark of c on be in turn, calling hooks.
func RunSuite(ctx context.Context, be kernels.Backend, c SuiteConfig, hooks SuiteHooks) ([]BenchResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return RunBenches(ctx, be, c.Configs(), hooks)
}

// RunBenches times each of cfgs on be in turn (a warm-up step, then the
// timed ones), calling hooks; on an error it returns the results so far.
func RunBenches(ctx context.Context, be kernels.Backend, cfgs []BenchConfig, hooks SuiteHooks) ([]BenchResult, error) {
	var rs []BenchResult
	for _, cfg := range cfgs {
		b, err := NewBench(be, cfg)
		if err != nil {
			return rs, err
		}
		b.Between = hooks.Between
		if err := b.WarmUp(); err != nil {
			return rs, fmt.Errorf("%s warm-up: %w", cfg.Model, err)
		}
		r, err := b.Time(ctx)
		if err != nil {
			return rs, fmt.Errorf("%s: %w", cfg.Model, err)
		}
		if hooks.Each != nil {
			hooks.Each(r)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// SuiteTable formats the results of RunSuite as a Markdown table for
// BENCHMARKS.md: the rate of each benchmark, the ConvNet steps' rates as a
// fraction of the largest matmul's, what a step asks of the device where
// the backend counts it, and its device time by op family where the
// backend times it.
func SuiteTable(rs []BenchResult) string {
	var ref BenchResult
	for _, r := range rs {
		if r.Model == "matmul" && r.Size >= ref.Size {
			ref = r
		}
	}
	var s strings.Builder
	if len(rs) > 0 {
		fmt.Fprintf(&s, "Backend %s on %s.\n\n", rs[0].Backend.Name, rs[0].Backend.Adapter)
	}
	fmt.Fprintf(&s, "| benchmark | s/step | GFLOP/s | images/s | of the %d matmul | passes | dispatches | submits | uploads (bytes) | read-backs | creations | device ms |\n", ref.Size)
	s.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		name := map[string]string{"matmul": fmt.Sprintf("matmul %d", r.Size), "convnet": fmt.Sprintf("ConvNet step, batch %d", r.Batch), "mlp": fmt.Sprintf("toy step, batch %d", r.Batch)}[r.Model]
		images, frac := "", ""
		if r.Model != "matmul" {
			images = fmt.Sprintf("%.1f", r.ImagesPerSecond)
		}
		if r.Model == "convnet" && ref.GFLOPS > 0 {
			frac = fmt.Sprintf("%.0f%%", 100*r.GFLOPS/ref.GFLOPS)
		}
		counts := "- | - | - | - | - | -"
		if c := r.PerStep; c != nil {
			counts = fmt.Sprintf("%s | %s | %s | %s (%s) | %s | %s", num(c.Passes), num(c.Dispatches), num(c.Submits),
				num(c.Uploads), num(c.UploadBytes), num(c.Readbacks), num(c.BuffersCreated+c.PipelinesCreated+c.BindGroupsCreated))
		}
		fmt.Fprintf(&s, "| %s | %.4g | %.3g | %s | %s | %s | %s |\n", name, r.SecondsPerStep, r.GFLOPS, images, frac, counts, deviceMs(r))
	}
	return s.String()
}

// num formats a count per step: whole numbers without decimals.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// milliseconds formats a time in ms: three significant digits, whole
// milliseconds from 100 on.
func milliseconds(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// deviceMs formats the device times of a result by op family, or why
// there are none.
func deviceMs(r BenchResult) string {
	if r.GPUMs == nil {
		if r.GPUMsUnavailable != "" {
			return "none: " + r.GPUMsUnavailable
		}
		return "-"
	}
	families := slices.Sorted(maps.Keys(r.GPUMs))
	parts := make([]string, len(families))
	for i, f := range families {
		parts[i] = f + " " + milliseconds(r.GPUMs[f])
	}
	return strings.Join(parts, ", ")
}

// stepCounts averages what a run's training steps ask of the device (on
// backends that count it, kernels.Counting) over its epochs after the
// first one of the process, whose first step compiles the pipelines and
// allocates the activations; the statistics' read-backs at the reporting
// interval count, the evaluation after each epoch does not.
type stepCounts struct {
	warm  bool // an epoch has run in this process
	work  kernels.DeviceCounters
	steps int
}

// epoch adds the device work of the epoch that started with the reading
// before (RunEpoch's only) and ran steps steps, and returns the average
// per step so far, or nil while there is none (no counting backend, or the
// first epoch).
func (s *stepCounts) epoch(be kernels.Backend, before kernels.DeviceCounters, steps int) *kernels.DeviceCounters {
	c, ok := be.(kernels.Counting)
	if !ok {
		return nil
	}
	if s.warm {
		s.work = s.work.Add(c.DeviceCounters().Sub(before))
		s.steps += steps
	}
	s.warm = true
	if s.steps == 0 {
		return nil
	}
	per := s.work.Per(s.steps)
	return &per
}

// deviceCounters reads be's counters, zero where it keeps none.
func deviceCounters(be kernels.Backend) kernels.DeviceCounters {
	if c, ok := be.(kernels.Counting); ok {
		return c.DeviceCounters()
	}
	return kernels.DeviceCounters{}
}
