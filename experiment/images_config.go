package experiment

import (
	"strings"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// Augmentation choices of ImageConfig.Augment.
const (
	AugmentAuto     = "auto" // crop+flip for CIFAR, none for the MNISTs
	AugmentNone     = "none"
	AugmentCrop     = "crop"
	AugmentFlip     = "flip"
	AugmentCropFlip = "crop+flip"
)

// BNAuto asks for the automatic rule of ImageConfig.BNRecalibrate.
const BNAuto = -1

// BNAutoBatches and BNAutoMaxSteps are the automatic BatchNorm
// recalibration rule: runs of fewer than BNAutoMaxSteps optimiser steps
// recompute the running statistics over BNAutoBatches training batches
// before the final evaluation; longer runs keep the trained statistics.
//
// Why: BatchNorm's running estimates (momentum 0.1) average the batch
// statistics of about the last 10 steps, computed with the weights of those
// steps. Early in training, when Adam moves the weights fast, the estimates
// trail the weights, and the evaluation-mode accuracy lags the
// training-mode accuracy (by 15 points after 120 steps on Fashion-MNIST).
// After a few thousand steps the weights move slowly and the estimates are
// current: the paper's 100-epoch runs (23,400 steps on Fashion-MNIST) are
// evaluated with the trained statistics, as PyTorch does.
const (
	BNAutoBatches  = 20
	BNAutoMaxSteps = 2000
)

// ImageConfig is the image classification experiment of the paper
// (Fashion-MNIST, MNIST, CIFAR-10, CIFAR-100): the paper's ConvNet with
// embeddings of dimension d = C-1 and an LDA head (trained with DNLL, CE or
// NLL) or a linear softmax head (CE).
// Its JSON holds its settings under their keys (Setting.Key).
type ImageConfig struct {
	Data    string  // fashion-mnist, mnist, cifar10 or cifar100
	DataDir string  // folder with the published files
	Head    string  // lda or softmax
	Cov     string  // spherical, diag or full (LDA head)
	Loss    string  // dnll, ce or nll; "" means dnll for lda, ce for softmax
	Lambda  float64 // DNLL weight
	Epochs  int
	Batch   int
	LR      float64
	// LimitTrain and LimitTest take the first N images of each split in
	// file order (0: all; training stops before the held-out images).
	LimitTrain int
	LimitTest  int
	// Val is the number of training images held out, from the end of the
	// training file, to fit temperature scaling (never trained on); 0 fits
	// no temperature.
	Val  int
	Seed uint64 // initialisation, shuffling, augmentation
	// Augment is auto, none, crop, flip or crop+flip. auto follows the
	// paper's text: random crop (padding 4) and horizontal flip for CIFAR,
	// none for Fashion-MNIST and MNIST. (The authors' sweep script also
	// crops Fashion-MNIST; use -augment crop to match it.)
	Augment string
	// BNRecalibrate is the number of training batches over which the
	// BatchNorm running statistics are recomputed before the final
	// evaluation (0: keep the trained ones; BNAuto: see BNAutoMaxSteps).
	BNRecalibrate int
	// BNHistory records after every epoch the test figures with
	// recalibrated BatchNorm statistics too (report.Epoch's
	// TestAccuracyRecalibrated), training on with the trained ones.
	BNHistory bool
	// EvalBatch is the evaluation's batch size (0: Batch, so that
	// evaluation reuses the training's activation buffers rather than
	// allocating larger ones).
	EvalBatch int
	// FreezeHead keeps the head at its initial values and trains the
	// encoder alone (model.Spec.FreezeHead).
	FreezeHead bool
}

// DefaultImages returns the paper's settings on Fashion-MNIST: the
// spherical LDA head with DNLL (lambda 0.01), Adam (lr 1e-3), batch 256,
// 100 epochs, evaluation in batches of the training batch (a larger one
// would need larger activation buffers), 5,000 held-out training images
// for temperature scaling, automatic augmentation and BatchNorm
// recalibration.
func DefaultImages() ImageConfig {
	return ImageConfig{
		Data: "fashion-mnist", Head: model.HeadLDA.String(), Cov: kernels.Spherical.String(),
		Lambda: 0.01, Epochs: 100, Batch: 256, LR: 1e-3, Val: 5000, Seed: 1,
		Augment: AugmentAuto, BNRecalibrate: BNAuto,
	}
}

// isCIFAR reports whether the data set is a CIFAR one.
func isCIFAR(name string) bool { return strings.HasPrefix(name, "cifar") }

// Resolved returns c with the automatic choices made: the loss (dnll for
// the LDA head, ce for softmax; lambda is set to 0 for a loss other than
// dnll), the augmentation (see Augment) and the evaluation batch (Batch
// for 0). The
// BatchNorm rule depends on the data size and is resolved by NewImages.
func (c ImageConfig) Resolved() ImageConfig {
	if c.Loss == "" {
		c.Loss = kernels.DNLL.String()
		if c.Head == model.HeadSoftmax.String() {
			c.Loss = kernels.CE.String()
		}
	}
	if c.Loss != kernels.DNLL.String() {
		c.Lambda = 0 // only DNLL has a lambda
	}
	if c.EvalBatch == 0 {
		c.EvalBatch = c.Batch
	}
	if c.Augment == AugmentAuto || c.Augment == "" {
		c.Augment = AugmentNone
		if isCIFAR(c.Data) {
			c.Augment = AugmentCropFlip
		}
	}
	return c
}

// Validate reports the first invalid setting as a *SettingError.
func (c ImageConfig) Validate() error {
	c = c.Resolved()
	if err := checkSettings(&c); err != nil {
		return err
	}
	if c.Head == model.HeadSoftmax.String() && c.Loss != kernels.CE.String() {
		return settingError("loss", "the softmax head trains with ce, not %s", c.Loss)
	}
	return nil
}

// lossCov parses the loss and cov settings.
func lossCov(loss, cov string) (kernels.LossKind, kernels.CovKind, error) {
	if err := firstError(checkChoice("loss", loss), checkChoice("cov", cov)); err != nil {
		return 0, 0, err
	}
	l, _ := kernels.ParseLoss(loss)
	c, _ := kernels.ParseCov(cov)
	return l, c, nil
}

// ImageSpec returns the model of c for images of shape [C,H,W] in classes
// classes: the paper's ConvNet with d = classes-1 and the head of c. It
// fails when c's head, loss or covariance is unknown.
func ImageSpec(c ImageConfig, shape [3]int, classes int) (model.Spec, error) {
	c = c.Resolved()
	if err := checkChoice("head", c.Head); err != nil {
		return model.Spec{}, err
	}
	head, _ := model.ParseHead(c.Head)
	loss, cov, err := lossCov(c.Loss, c.Cov)
	if err != nil {
		return model.Spec{}, err
	}
	return model.Spec{
		Encoder: model.EncoderConvNet, Input: shape[:], Classes: classes, Dim: classes - 1,
		Head: head, Cov: cov, Loss: loss, Lambda: c.Lambda, LR: c.LR, Seed: c.Seed, FreezeHead: c.FreezeHead,
	}, nil
}

// WithHeldOut returns c with held-out training images (never trained on)
// to fit temperature scaling on when c trains a softmax head: as many as
// the test images, at least 100 and at most 1,000. An LDA head's c comes
// back as it is.
func WithHeldOut(c ImageConfig) ImageConfig {
	if c.Head == "softmax" {
		c.Val = min(1000, max(c.LimitTest, 100))
	}
	return c
}
