package experiment

import (
	"fmt"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// maxLambdas is the most values a sweep's lambdas may list.
const maxLambdas = 100

// Settings lists every setting, in the order of the page's form; each
// configuration binds its own to its fields (settingVars, below).
var Settings = []Setting{
	{Name: "data", Kind: KindChoice, Choices: images.Names(),
		Doc: "the image data set: " + orList(images.Names()),
	},
	{Name: "head", Kind: KindChoice, Choices: names(model.HeadLDA, model.HeadSoftmax),
		Doc: "lda: the Gaussian (LDA) head; softmax: a linear softmax head (trains with ce)",
	},
	{Name: "loss", Kind: KindChoice, Choices: names(kernels.DNLL, kernels.CE, kernels.NLL),
		Doc: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y",
	},
	{Name: "compare", Kind: KindBool,
		Doc: "train every loss (images: the LDA head with DNLL and the softmax head with CE) with the same settings and show them side by side"},
	{Name: "lambda", Kind: KindFloat,
		Doc:   "weight λ of the DNLL density penalty, a number >= 0",
		Check: func(v any) error { return model.CheckLambda(*v.(*float64)) },
	},
	{Name: "lambdas", Max: maxLambdas, Kind: KindFloats,
		Doc:   "comma-separated values of the DNLL weight λ (numbers > 0)",
		Check: func(v any) error { return CheckLambdas(*v.(*Floats)) },
	},
	{Name: "cov", Kind: KindChoice, Choices: names(kernels.Full, kernels.Diagonal, kernels.Spherical),
		Doc: "parameterisation of the LDA head's shared covariance Σ: full, diag or spherical",
	},
	{Name: "epochs", Min: 1, Max: 100_000, Kind: KindInt,
		Doc: "passes over the training set (at least 1)",
	},
	{Name: "batch", Min: 1, Max: 1_000_000, Kind: KindInt,
		Doc: "examples per Adam step (at least 1; the training-set size means full batch)",
	},
	{Name: "limit-train", Max: 10_000_000, Kind: KindInt,
		Doc: "train on the first N training images in file order (0: all but the held-out ones)",
	},
	{Name: "limit-test", Max: 10_000_000, Kind: KindInt,
		Doc: "evaluate on the first N test images (0: all)",
	},
	{Name: "seed", Kind: KindUint,
		Doc: "seed of the initialisation, the shuffling and the images' augmentation (a whole number >= 0)",
	},
	{Name: "backend", Kind: KindChoice, Choices: names(BackendAuto, BackendWebGPU, BackendCPU),
		Doc: "compute backend: auto (WebGPU when an adapter exists, else the CPU), webgpu or cpu"},
	{Name: "density", Kind: KindBool,
		Doc: "shade the embedding plane by the head's log density log p(z) = logsumexp_c δ_c(z), the term DNLL penalises"},
	{Name: "lr", Kind: KindFloat,
		Doc:   "Adam's learning rate (> 0)",
		Check: func(v any) error { return model.CheckLR(*v.(*float64)) },
	},
	{Name: "freeze-head", Kind: KindBool,
		Doc: "keep the head's parameters (the LDA head's means, priors and variance) at their initial values and train the encoder alone, as the optimiser of the authors' Fashion-MNIST notebook does",
	},
	{Name: "encoder", Kind: KindChoice, Choices: names(model.EncoderMLP, model.EncoderNone),
		Doc: "mlp: Deep LDA; none: classical LDA on the inputs",
	},
	{Name: "train", Min: 2, Max: 100_000_000, Kind: KindInt,
		Doc: "size of the training set (at least 2)",
	},
	{Name: "test", Min: 1, Max: 100_000_000, Kind: KindInt,
		Doc: "size of the test set (at least 1)",
	},
	{Name: "data-seed", Kind: KindUint,
		Doc: "seed of the data (the test set uses data-seed+1)",
	},
	{Name: "datadir", Kind: KindText,
		Doc: "folder with the data set's published files (default datasets/<data>)",
	},
	{Name: "val", Max: 1_000_000, Kind: KindInt,
		Doc: "training images held out from the end of the training file to fit temperature scaling (0: none)",
	},
	{Name: "augment", Kind: KindChoice, Choices: []string{AugmentAuto, AugmentNone, AugmentCrop, AugmentFlip, AugmentCropFlip},
		Doc: "augmentation: auto (crop+flip for CIFAR, none for the MNISTs, as the paper says), none, crop, flip or crop+flip",
	},
	{Name: "bn-recalibrate", Min: BNAuto, Max: 100_000, Kind: KindInt,
		Doc:   fmt.Sprintf("recompute the BatchNorm statistics over N training batches before the final evaluation (0: off; -1: auto, %d batches when the run has fewer than %d steps)", BNAutoBatches, BNAutoMaxSteps),
		Check: checkBNRecalibrate,
	},
	{Name: "bn-history", Kind: KindBool,
		Doc: "also record, after every epoch, the test accuracy and ECE with BatchNorm statistics recomputed over -bn-recalibrate batches (20 when that is 0 or automatic and off), then go on with the trained ones (history's test_accuracy_recalibrated, test_ece_recalibrated)",
	},
	{Name: "eval-batch", Max: 1_000_000, Kind: KindInt,
		Doc: "evaluation batch size (0: -batch; a larger one needs more memory)",
	},
	{Name: "seeds", Min: 1, Max: 1_000, Kind: KindInt,
		Doc: "seeds per lambda (-seed, -seed+1, ...)",
	},
	{Name: "checkpoint", Kind: KindText,
		Doc: "checkpoint (safetensors) written by deeplda train or by PyTorch with the reference names",
	},
	{Name: "ood", Kind: KindChoice, Choices: images.Names(),
		Doc: "also score how well the model tells its test images from this data set's (one of the same image shape: mnist for a model of fashion-mnist and the reverse, cifar100 for cifar10 and the reverse; -limit-test images of each): report.json's ood, ood_scores.svg and ood_roc.svg",
	},
	{Name: "ood-datadir", Kind: KindText,
		Doc: "folder with the -ood data set's published files (default datasets/<ood>)",
	},
	{Name: "model", Kind: KindChoice, Choices: []string{"convnet", "mlp", "matmul"},
		Doc: "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)",
	},
	{Name: "size", Min: 1, Max: 32_768, Kind: KindInt,
		Doc: "matrix size S (matmul)",
	},
	{Name: "steps", Min: 1, Max: 1_000_000, Kind: KindInt,
		Doc: "timed steps (after one untimed warm-up step)",
	},
	{Name: "sizes", Max: 16, Kind: KindText,
		Doc: "matmul sizes of -suite, comma-separated"},
	{Name: "batches", Max: 16, Kind: KindText,
		Doc: "ConvNet batch sizes of -suite, comma-separated"},
}

// settingVars binds the settings of a toy run.
func (c *SynthConfig) settingVars() map[string]any {
	return map[string]any{
		"loss":      &c.Loss,
		"lambda":    &c.Lambda,
		"cov":       &c.Cov,
		"epochs":    &c.Epochs,
		"batch":     &c.Batch,
		"seed":      &c.Seed,
		"lr":        &c.LR,
		"encoder":   &c.Encoder,
		"train":     &c.Train,
		"test":      &c.Test,
		"data-seed": &c.DataSeed,
	}
}

// settingVars binds the settings of an image run.
func (c *ImageConfig) settingVars() map[string]any {
	return map[string]any{
		"data":           &c.Data,
		"head":           &c.Head,
		"loss":           &c.Loss,
		"lambda":         &c.Lambda,
		"cov":            &c.Cov,
		"epochs":         &c.Epochs,
		"batch":          &c.Batch,
		"limit-train":    &c.LimitTrain,
		"limit-test":     &c.LimitTest,
		"seed":           &c.Seed,
		"lr":             &c.LR,
		"freeze-head":    &c.FreezeHead,
		"datadir":        &c.DataDir,
		"val":            &c.Val,
		"augment":        &c.Augment,
		"bn-recalibrate": &c.BNRecalibrate,
		"bn-history":     &c.BNHistory,
		"eval-batch":     &c.EvalBatch,
	}
}

// settingVars binds the settings of a sweep.
func (c *SweepConfig) settingVars() map[string]any {
	return map[string]any{
		"lambdas": (*Floats)(&c.Lambdas),
		"seeds":   &c.Seeds,
	}
}

// settingVars binds the settings of an evaluation.
func (c *EvalConfig) settingVars() map[string]any {
	return map[string]any{
		"data":           &c.Data,
		"batch":          &c.Batch,
		"limit-train":    &c.LimitTrain,
		"limit-test":     &c.LimitTest,
		"seed":           &c.Seed,
		"datadir":        &c.DataDir,
		"bn-recalibrate": &c.BNRecalibrate,
		"eval-batch":     &c.EvalBatch,
		"checkpoint":     &c.Checkpoint,
	}
}

// settingVars binds the settings of an out-of-distribution score.
func (c *OODConfig) settingVars() map[string]any {
	return map[string]any{
		"ood":         &c.Data,
		"ood-datadir": &c.DataDir,
	}
}

// settingVars binds the settings of a benchmark.
func (c *BenchConfig) settingVars() map[string]any {
	return map[string]any{
		"batch": &c.Batch,
		"model": &c.Model,
		"size":  &c.Size,
		"steps": &c.Steps,
	}
}
