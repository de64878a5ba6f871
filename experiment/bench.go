package experiment

import (
	"context"
	"math/rand/v2"
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

// BenchConfig says what a Bench times.
type BenchConfig struct {
	Model string // convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)
	Batch int    // batch size (convnet, mlp)
	Size  int    // matrix size S (matmul)
	Steps int    // timed steps, after one untimed warm-up step
}

// Validate reports the first invalid field as a *SettingError.
func (c BenchConfig) Validate() error {
	return firstError(
		checkChoice("model", c.Model),
		checkAtLeast("batch", c.Batch, 1),
		checkAtLeast("size", c.Size, 1),
		checkAtLeast("steps", c.Steps, 1),
	)
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
}

// Bench is a timing with its inputs (and model) on a backend, the same
// natively ("deeplda bench") and in the browser (the golden page program's
// bench mode).
type Bench struct {
	be    kernels.Backend
	cfg   BenchConfig
	step  func()
	flops float64 // per step
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
		spec = model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
			Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
		b.flops = float64(cfg.Batch) * 6 * (2*32 + 32*2) // linear layers, forward and backward
	}
	m, err := model.New(be, spec)
	if err != nil {
		return nil, err
	}
	x := be.Alloc(kernels.Float32, append([]int{cfg.Batch}, spec.Input...)...)
	be.Write(x, randn(cfg.Batch*kernels.Numel(spec.Input)))
	y := be.Alloc(kernels.Int32, cfg.Batch)
	labels := make([]int32, cfg.Batch)
	for i := range labels {
		labels[i] = int32(i % spec.Classes)
	}
	be.WriteInt(y, labels)
	b.step = func() { m.TrainStep(x, y) }
	return b, nil
}

// WarmUp runs one untimed step (compiling the pipelines, allocating the
// activations) and waits for it.
func (b *Bench) WarmUp() error {
	b.step()
	return b.be.Sync()
}

// Time runs the timed steps, from a drained queue to a drained queue.
func (b *Bench) Time(ctx context.Context) (BenchResult, error) {
	res := BenchResult{Backend: b.be.Info(), Model: b.cfg.Model, Steps: b.cfg.Steps}
	if err := b.be.Sync(); err != nil {
		return res, err
	}
	start := time.Now()
	for i := 0; i < b.cfg.Steps; i++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		b.step()
	}
	if err := b.be.Sync(); err != nil {
		return res, err
	}
	sec := time.Since(start).Seconds() / float64(b.cfg.Steps)
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

// randn returns n standard normal numbers of a fixed seed.
func randn(n int) []float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}
