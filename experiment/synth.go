package experiment

import (
	"github.com/deeplda/deeplda/data/synth"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

// SynthConfig is the toy experiment of the paper (sections 1 and 2 of its
// experiments): the 3-class 2-D Gaussian mixture, with the identity encoder
// (classical LDA) or the MLP Linear(2,32)-ReLU-Linear(32,2) (Deep LDA).
// Its JSON holds its settings under their keys (Setting.Key).
type SynthConfig struct {
	Encoder  string // none or mlp
	Loss     string // nll, ce or dnll
	Lambda   float64
	Cov      string // spherical, diag or full
	Epochs   int
	Batch    int
	LR       float64
	Seed     uint64 // initialisation and shuffling
	DataSeed uint64 // the data set (the test set uses DataSeed+1)
	Train    int
	Test     int
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

// Validate reports the first invalid setting as a *SettingError.
func (c SynthConfig) Validate() error {
	return checkSettings(&c)
}

// SynthSpec returns the model of c (an LDA head on the toy data), checking
// c first (Validate).
func SynthSpec(c SynthConfig) (model.Spec, error) {
	if err := c.Validate(); err != nil {
		return model.Spec{}, err
	}
	enc, _ := model.ParseEncoder(c.Encoder)
	loss, cov, _ := lossCov(c.Loss, c.Cov)
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
	return newRun(be, ReportSynth, c, spec, trainSet, testSet, train.Config{Epochs: c.Epochs, Batch: c.Batch, Seed: c.Seed})
}
