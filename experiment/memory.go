package experiment

import (
	"fmt"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/model"
)

// Memory is the memory that a run may take, as its front end knows it:
// the native command this machine's, the page its WebAssembly memory.
type Memory struct {
	Bytes int64  // 0: unknown, no bound
	Of    string // what holds it, in words: "this machine's memory"
}

// toyPointBytes is what the toy experiment keeps for each training or test
// point besides its training step (the point, its embedding, scores and
// the figures' copies): measured as the peak resident memory of deeplda
// synth at -train 100000 and 400000 (about 130 bytes a point), rounded up.
const toyPointBytes = 160

// fits checks that need bytes fit in mem, naming the setting whose value
// asks for them.
func (mem Memory) fits(need int64, name string, value int, what string) error {
	if mem.Bytes <= 0 || need <= mem.Bytes {
		return nil
	}
	return settingError(name, "%s %d needs about %s for %s, more than the %s of %s", name, value, gib(need), what, gib(mem.Bytes), mem.Of)
}

// gib writes a size in GiB (MiB below one GiB).
func gib(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// CheckMemory checks that the toy run of c fits in mem: its training step
// at c.Batch and its points. The error names the setting that asks for
// the most.
func (c SynthConfig) CheckMemory(mem Memory) error {
	spec, err := SynthSpec(c)
	if err != nil {
		return err
	}
	step := model.StepBytes(spec, min(c.Batch, c.Train))
	train, test := toyPointBytes*int64(c.Train), toyPointBytes*int64(c.Test)
	name, value := "batch", c.Batch
	switch {
	case train >= test && train > step:
		name, value = "train", c.Train
	case test > train && test > step:
		name, value = "test", c.Test
	}
	return mem.fits(step+train+test, name, value, "the toy run")
}

// CheckMemory checks that the image run of c fits in mem: the ConvNet's
// training step at c.Batch, or its evaluation at c.EvalBatch when larger.
func (c ImageConfig) CheckMemory(mem Memory) error {
	d, err := images.Lookup(c.Data)
	if err != nil {
		return err
	}
	spec, err := ImageSpec(c, d.Shape, d.Classes)
	if err != nil {
		return err
	}
	name, value := "batch", c.Batch
	if c.EvalBatch > c.Batch {
		name, value = "eval-batch", c.EvalBatch
	}
	return mem.fits(model.StepBytes(spec, value), name, value, "the ConvNet's step on "+c.Data)
}

// CheckMemory checks that the benchmark of c fits in mem.
func (c BenchConfig) CheckMemory(mem Memory) error {
	switch c.Model {
	case "matmul":
		return mem.fits(3*4*int64(c.Size)*int64(c.Size), "size", c.Size, "three float32 matrices")
	case "mlp":
		return mem.fits(model.StepBytes(ToyBenchSpec, c.Batch), "batch", c.Batch, "the toy step")
	}
	return mem.fits(model.StepBytes(ConvNetBenchSpec, c.Batch), "batch", c.Batch, "the ConvNet's step")
}

// CheckMemory checks that each benchmark of the suite fits in mem (they
// run one after another, each freeing what it took).
func (c SuiteConfig) CheckMemory(mem Memory) error {
	for _, b := range c.Configs() {
		if err := b.CheckMemory(mem); err != nil {
			return err
		}
	}
	return nil
}

// CheckMemory checks that evaluating a checkpoint of the paper's ConvNet
// on c.Data fits in mem: its forward passes at c.EvalBatch and the
// BatchNorm recalibration's at c.Batch (the head, unknown before the
// checkpoint is read, is small beside them).
func (c EvalConfig) CheckMemory(mem Memory) error {
	img := DefaultImages()
	img.Data, img.Batch, img.EvalBatch = c.Data, c.Batch, c.EvalBatch
	return img.CheckMemory(mem)
}
