package experiment

import (
	"fmt"
	"math"

	"github.com/deeplda/deeplda/data/synth"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

// SynthConfig is the toy experiment of the paper (sections 1 and 2 of its
// experiments): the 3-class 2-D Gaussian mixture, with the identity encoder
// (classical LDA) or the MLP Linear(2,32)-ReLU-Linear(32,2) (Deep LDA).
type SynthConfig struct {
	Encoder  string  `json:"encoder"` // none or mlp
	Loss     string  `json:"loss"`    // nll, ce or dnll
	Lambda   float64 `json:"lambda"`
	Cov      string  `json:"cov"` // spherical, diag or full
	Epochs   int     `json:"epochs"`
	Batch    int     `json:"batch"`
	LR       float64 `json:"lr"`
	Seed     uint64  `json:"seed"`      // initialisation and shuffling
	DataSeed uint64  `json:"data_seed"` // the data set (the test set uses DataSeed+1)
	Train    int     `json:"train"`
	Test     int     `json:"test"`
}

// DefaultSynth returns the paper's settings: DNLL with lambda 0.01, full
// covariance, 100 epochs of Adam (lr 1e-3) at batch 256 on 20,000 training
// and 4,000 test points.
func DefaultSynth() SynthConfig {
	return SynthConfig{
		Encoder: model.EncoderMLP.String(), Loss: kernels.DNLL.String(), Lambda: 0.01, Cov: kernels.Full.String(),
		Epochs: 100, Batch: 256, LR: 1e-3, Seed: 1, DataSeed: 0, Train: 20000, Test: 4000,
	}
}

// Validate reports the first invalid setting in the words of the flags.
func (c SynthConfig) Validate() error {
	if enc, err := model.ParseEncoder(c.Encoder); err != nil || enc == model.EncoderConvNet {
		return fmt.Errorf("-encoder must be mlp or none, got %q", c.Encoder)
	}
	switch {
	case c.Train < 2 || c.Test < 1:
		return fmt.Errorf("need at least 2 training and 1 test points, got %d and %d", c.Train, c.Test)
	case c.Epochs < 1:
		return fmt.Errorf("-epochs must be at least 1, got %d", c.Epochs)
	case c.Batch < 1:
		return fmt.Errorf("-batch must be at least 1, got %d", c.Batch)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("-lr must be a finite number > 0, got %v", c.LR)
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("-lambda must be a finite number >= 0, got %v", c.Lambda)
	}
	_, _, err := lossCov(c.Loss, c.Cov)
	return err
}

// SynthSpec returns the model of c (an LDA head on the toy data), checking
// c first (Validate).
func SynthSpec(c SynthConfig) (model.Spec, error) {
	if err := c.Validate(); err != nil {
		return model.Spec{}, err
	}
	enc, err := model.ParseEncoder(c.Encoder)
	if err != nil {
		return model.Spec{}, err
	}
	loss, cov, err := lossCov(c.Loss, c.Cov)
	if err != nil {
		return model.Spec{}, err
	}
	return model.Spec{
		Encoder: enc, Input: []int{synth.Dim}, Classes: synth.Classes, Dim: synth.Dim,
		Head: model.HeadLDA, Cov: cov, Loss: loss, Lambda: c.Lambda, LR: c.LR, Seed: c.Seed,
	}, nil
}

// SynthData returns the training and test sets of c.
func SynthData(c SynthConfig) (trainSet, testSet train.Dataset) {
	gen := func(n int, seed uint64) train.Dataset {
		x, y := synth.Generate(n, seed)
		return train.Dataset{X: x, Y: y, Shape: []int{synth.Dim}, Classes: synth.Classes}
	}
	return gen(c.Train, c.DataSeed), gen(c.Test, c.DataSeed+1)
}

// NewSynth prepares a toy run on be.
func NewSynth(be kernels.Backend, c SynthConfig) (*Run, error) {
	spec, err := SynthSpec(c)
	if err != nil {
		return nil, err
	}
	trainSet, testSet := SynthData(c)
	return newRun(be, "synth", c, spec, trainSet, testSet, train.Config{Epochs: c.Epochs, Batch: c.Batch, Seed: c.Seed})
}
