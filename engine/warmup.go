package engine

import (
	"context"
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// warmUp takes tiny toy runs through every step a real one takes:
// training, evaluation, the figures, the report and the checkpoint; on
// the CPU with both encoders, and on be too when it is another backend. A
// browser compiles WebAssembly functions when they are first called (and
// WebGPU its pipelines when first used); doing it before the first run
// keeps those stalls out of it. An error means that be failed.
func warmUp(cpu, be kernels.Backend) error {
	for _, enc := range []model.EncoderKind{model.EncoderMLP, model.EncoderNone} {
		if err := warmUpRun(cpu, enc); err != nil {
			return fmt.Errorf("warming up the CPU backend: %w", err)
		}
	}
	if err := warmUpConvNet(cpu); err != nil {
		return fmt.Errorf("warming up the CPU backend: %w", err)
	}
	if be != cpu {
		return warmUpRun(be, model.EncoderMLP)
	}
	return nil
}

// warmUpRun takes one tiny run with the given encoder through a run's
// steps on be. A panic comes back as an error.
func warmUpRun(be kernels.Backend, encoder model.EncoderKind) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	c := experiment.DefaultSynth()
	c.Encoder, c.Train, c.Test, c.Epochs, c.Batch = encoder.String(), 64, 32, 1, 32
	run, err := experiment.NewSynth(be, c)
	if err != nil {
		return err
	}
	defer run.Model.Release()
	if err := run.Epoch(context.Background(), nil); err != nil {
		return err
	}
	if err := run.Finish(); err != nil {
		return err
	}
	run.Figures()
	run.Base().ConsistencyFigure()
	reportJSON(run)
	st, err := run.Model.State()
	if err != nil {
		return err
	}
	if _, err := safetensors.Encode(st); err != nil {
		return err
	}
	return be.Sync()
}

// warmUpConvNet takes one training step and one evaluation-mode forward
// pass of the images' ConvNet on be, over a few blank 28x28 images: its
// convolutions, BatchNorm and pooling are none of the toy's, and their
// first calls would otherwise fall into an image run's first steps.
func warmUpConvNet(be kernels.Backend) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	const n = 4
	m, err := model.New(be, model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3})
	if err != nil {
		return err
	}
	defer m.Release()
	x, y := be.Alloc(kernels.Float32, n, 1, 28, 28), be.Alloc(kernels.Int32, n)
	defer be.Free(x)
	defer be.Free(y)
	m.TrainStep(x, y)
	if _, err := m.ReadStats(); err != nil {
		return err
	}
	m.Forward(x, false)
	return be.Sync()
}
