// Package config is the browser trainer's configuration: the demos and
// their presets, the form's fields and the URL query (the native command's
// flag names plus demo, compare, lambdas and autostart), both made from
// the settings table experiment.Settings with the page's own words for it
// (docs: labels, hints, the demos that show each, the page's bounds), and
// validated by the native command's rules (experiment.SynthConfig.Validate, ImageConfig.Validate),
// and the training runs a configuration plans.
//
// It has no build tags: the DOM layer in package main (wasm/) uses it in the
// browser, and its tests run natively.
package config

import (
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/model"
)

// Demo names one of the page's demos (the value of the demo query key).
type Demo string

// The demos, in the order of the page's tabs.
const (
	Classical Demo = "classical" // 1: classical LDA on the toy data (identity encoder)
	Deep      Demo = "deep"      // 2: Deep LDA on the toy data (the default)
	Images    Demo = "images"    // 3: image training (the paper's ConvNet)
	Sweep     Demo = "sweep"     // 4: the lambda sweep
)

// DemoInfo describes a demo for its tab and its introduction.
type DemoInfo struct {
	Demo  Demo
	Tab   string // short tab label
	Title string
	Intro string // one paragraph of plain text
	// Trainable is false for a demo that has no trainer in this version.
	Trainable bool
}

// Demos lists the demos in tab order.
var Demos = []DemoInfo{
	{Classical, "1 · Classical LDA", "Classical LDA on the toy data",
		"The identity encoder: the LDA head sees the 2-D inputs directly. Full-batch gradient maximum likelihood (NLL, Adam) " +
			"recovers the closed-form LDA estimate; cross-entropy (CE) from the same start classifies as well but moves the means " +
			"away from the class clouds. Compare the coloured (learned) and grey (closed-form refit) ellipses.", true},
	{Deep, "2 · Deep LDA", "Deep LDA on the toy data",
		"An MLP encoder Linear(2,32)-ReLU-Linear(32,2) feeds the LDA head. CE classifies well but its Gaussians drift off " +
			"the class clouds. NLL and DNLL (λ = 0.01) keep them on the clouds and look alike until about epoch 60; then, " +
			"in the log det Σ figure, NLL's covariance keeps shrinking (to about −15 at epoch 100) while DNLL's levels off (about −11).", true},
	{Images, "3 · Images", "Deep LDA on images",
		"The paper's ConvNet (three blocks of two 3×3 Conv-BN-ReLU, global average pooling, a linear map to C−1 dimensions) " +
			"with an LDA head trained by DNLL, CE or NLL, or a softmax head, on Fashion-MNIST, MNIST, CIFAR-10 or CIFAR-100. " +
			"On the CPU the page trains some 20-30 images a second with WebAssembly SIMD on one core and a few without (WebGPU on a software adapter is slower still), so the defaults are small: 2,000 training images, 2 epochs, about 3 minutes of training. " +
			"The BatchNorm statistics are recomputed before the final evaluation (the page reports both accuracies). " +
			"The models trained natively on the full data sets open under Trained model; Open both heads shows the LDA and the softmax head side by side.", true},
	{Sweep, "4 · λ sweep", "The λ sweep",
		"DNLL with a spherical head on the toy MLP, trained once per λ. Accuracy and calibration stay flat while the learned " +
			"σ grows with λ: λ acts as a temperature knob.", true},
}

// Info returns the description of d (the deep demo's for an unknown d).
func Info(d Demo) DemoInfo {
	for _, i := range Demos {
		if i.Demo == d {
			return i
		}
	}
	return Demos[1]
}

// ParseDemo accepts a demo's name or its tab number (1 to 4).
func ParseDemo(s string) (Demo, bool) {
	for k, i := range Demos {
		if s == string(i.Demo) || s == string(rune('1'+k)) {
			return i.Demo, true
		}
	}
	return Deep, false
}

// CompareLosses returns the losses that the side-by-side mode of d trains.
func CompareLosses(d Demo) []string {
	if d == Classical {
		return []string{"nll", "ce"}
	}
	return []string{"nll", "ce", "dnll"}
}

// DefaultLambdas are the lambda sweep's values.
var DefaultLambdas = []float64{0.001, 0.01, 0.1, 1, 10}

// Defaults returns the presets of demo d: the paper's settings for Deep
// LDA; full-batch gradient descent (lr 0.1, 300 epochs) side by side for
// NLL and CE in classical LDA; a spherical head for the sweep.
func Defaults(d Demo) Settings {
	s := Settings{Demo: d, Synth: experiment.DefaultSynth(), Image: DefaultImage(), Backend: experiment.BackendAuto, Density: true,
		Lambdas: append([]float64(nil), DefaultLambdas...)}
	switch d {
	case Classical:
		c := &s.Synth
		c.Encoder, c.Loss, c.Batch, c.Epochs, c.LR = model.EncoderNone.String(), "nll", c.Train, 300, 0.1
		s.Compare = true
	case Sweep:
		s.Synth.Cov = "spherical"
		s.Synth.Epochs = 50
	}
	return s
}

// DefaultImage returns the image demo's presets: the paper's settings
// (experiment.DefaultImages: spherical LDA head, DNLL with lambda 0.01,
// Adam 1e-3, automatic BatchNorm recalibration) made small enough for a
// browser: 2,000 training and 1,000 test images, 2 epochs of batch 64, no
// held-out split (temperature scaling is fitted for the softmax head only,
// see Settings.Jobs) and evaluation in batches of 64.
func DefaultImage() experiment.ImageConfig {
	c := experiment.DefaultImages()
	c.Loss = "dnll"
	c.LimitTrain, c.LimitTest, c.Epochs, c.Batch, c.Val, c.EvalBatch = 2000, 1000, 2, 64, 0, 64
	return c
}
