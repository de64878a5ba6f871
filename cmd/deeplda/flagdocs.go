package main

import (
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
)

// flagDoc is how the command line shows a setting of experiment.Settings:
// the commands that have it as a flag and its help.
type flagDoc struct {
	Commands []string
	Help     string
	// CmdHelp replaces Help for the flag of some commands.
	CmdHelp map[string]string
}

// help returns the help of the setting's flag in the command cmd.
func (d flagDoc) help(cmd string) string {
	if h, ok := d.CmdHelp[cmd]; ok {
		return h
	}
	return d.Help
}

// The command lists of the flags.
var (
	imageCmds = []string{experiment.CmdTrain, experiment.CmdSweep}
	dataCmds  = []string{experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval}
	trainCmds = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep}
	runCmds   = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval}
	allCmds   = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval, experiment.CmdBench}
)

// dataHelp is the help of the data flag.
var dataHelp = "data set: " + orList(images.Names())

// orList joins values as "a, b or c".
func orList(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// flagDocs are the settings the command line has as flags, by name.
var flagDocs = map[string]flagDoc{
	"data": {Commands: dataCmds, Help: "the image data set: hosted by this site, or from files you choose below",
		CmdHelp: map[string]string{experiment.CmdEval: dataHelp, experiment.CmdSweep: dataHelp, experiment.CmdTrain: dataHelp}},
	"head": {Commands: []string{experiment.CmdTrain}, Help: "lda: the Gaussian (LDA) head; softmax: a linear softmax head (trains with ce)"},
	"loss": {Commands: []string{experiment.CmdSynth, experiment.CmdTrain}, Help: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y",
		CmdHelp: map[string]string{experiment.CmdSynth: "loss: dnll, ce or nll", experiment.CmdTrain: "loss: dnll, ce or nll (default dnll for lda, ce for softmax)"}},
	"compare": {Commands: []string{experiment.CmdTrain}, Help: "train every loss of this demo (images: the LDA head with DNLL and the softmax head with CE) with the same settings and show them side by side",
		CmdHelp: map[string]string{experiment.CmdTrain: "train the LDA head (with -loss, default dnll) and the softmax head (ce) on the same data and seed, into -out/lda and -out/softmax, and compare them in -out/compare.json and compare_*.svg"}},
	"lambda": {Commands: []string{experiment.CmdSynth, experiment.CmdTrain}, Help: "weight of the DNLL density penalty, a number >= 0",
		CmdHelp: map[string]string{experiment.CmdSynth: "DNLL penalty weight lambda (>= 0)", experiment.CmdTrain: "DNLL penalty weight lambda (>= 0)"}},
	"lambdas": {Commands: []string{experiment.CmdSweep}, Help: "comma-separated list of λ values (numbers > 0)",
		CmdHelp: map[string]string{experiment.CmdSweep: "comma-separated values of the DNLL weight lambda (> 0)"}},
	"cov": {Commands: trainCmds, Help: "parameterisation of the shared covariance Σ",
		CmdHelp: map[string]string{experiment.CmdSweep: "covariance of the LDA head: full, diag or spherical", experiment.CmdSynth: "covariance of the LDA head: full, diag or spherical", experiment.CmdTrain: "covariance of the LDA head: full, diag or spherical"}},
	"epochs": {Commands: trainCmds, Help: "passes over the training set (at least 1)",
		CmdHelp: map[string]string{experiment.CmdSweep: "training epochs", experiment.CmdSynth: "training epochs", experiment.CmdTrain: "training epochs"}},
	"batch": {Commands: allCmds, Help: "examples per Adam step (at least 1; the training-set size means full batch)",
		CmdHelp: map[string]string{experiment.CmdBench: "batch size (convnet, mlp)", experiment.CmdEval: "batch size of the BatchNorm recalibration", experiment.CmdSweep: "batch size", experiment.CmdSynth: "batch size", experiment.CmdTrain: "batch size"}},
	"limit-train": {Commands: dataCmds, Help: "train on the first N training images (0: all; on the CPU the page trains some 20-30 images a second with WebAssembly SIMD, a few without)",
		CmdHelp: map[string]string{experiment.CmdEval: "draw the recalibration batches from the first N training images (0: all; deeplda train uses its training images)", experiment.CmdSweep: "train on the first N training images in file order (0: all but the -val held-out ones)", experiment.CmdTrain: "train on the first N training images in file order (0: all but the -val held-out ones)"}},
	"limit-test": {Commands: dataCmds, Help: "evaluate on the first N test images (0: all)"},
	"seed": {Commands: runCmds, Help: "seed of the initialisation and the shuffling (a whole number >= 0)",
		CmdHelp: map[string]string{experiment.CmdEval: "seed of the recalibration batches (deeplda train uses its -seed)", experiment.CmdSweep: "first seed", experiment.CmdSynth: "seed of the initialisation and the shuffling", experiment.CmdTrain: "seed of the initialisation, the shuffling and the augmentation"}},
	"backend":     {Commands: allCmds, Help: "compute backend: auto (WebGPU when an adapter exists, else the CPU), webgpu or cpu"},
	"lr":          {Commands: trainCmds, Help: "Adam's learning rate (> 0)"},
	"freeze-head": {Commands: imageCmds, Help: "keep the head's parameters (the LDA head's means, priors and variance) at their initial values and train the encoder alone, as the optimiser of the authors' Fashion-MNIST notebook does"},
	"encoder":     {Commands: []string{experiment.CmdSynth}, Help: "mlp: Deep LDA; none: classical LDA on the inputs"},
	"train":       {Commands: []string{experiment.CmdSynth}, Help: "size of the training set (at least 2)"},
	"test":        {Commands: []string{experiment.CmdSynth}, Help: "size of the test set (at least 1)"},
	"data-seed":   {Commands: []string{experiment.CmdSynth}, Help: "seed of the data (the test set uses data-seed+1)"},
	"datadir":     {Commands: dataCmds, Help: "folder with the data set's published files (default datasets/<data>)"},
	"fetch":       {Commands: dataCmds, Help: "download the data set's missing files into -datadir first (official locations, hashes checked)"},
	"val":         {Commands: imageCmds, Help: "training images held out from the end of the training file to fit temperature scaling (0: none)"},
	"augment":     {Commands: imageCmds, Help: "augmentation: auto (crop+flip for CIFAR, none for the MNISTs, as the paper says), none, crop, flip or crop+flip"},
	"bn-recalibrate": {Commands: dataCmds, Help: fmt.Sprintf("recompute the BatchNorm statistics over N training batches before the final evaluation (0: off; -1: auto, %d batches when the run has fewer than %d steps)", experiment.BNAutoBatches, experiment.BNAutoMaxSteps),
		CmdHelp: map[string]string{experiment.CmdEval: "recompute the BatchNorm statistics over N training batches and report both evaluations (0: keep the checkpoint's)"}},
	"bn-history":  {Commands: imageCmds, Help: "also record, after every epoch, the test accuracy and ECE with BatchNorm statistics recomputed over -bn-recalibrate batches (20 when that is 0 or automatic and off), then go on with the trained ones (history's test_accuracy_recalibrated, test_ece_recalibrated)"},
	"eval-batch":  {Commands: dataCmds, Help: "evaluation batch size (0: -batch; a larger one needs more memory)"},
	"seeds":       {Commands: []string{experiment.CmdSweep}, Help: "seeds per lambda (-seed, -seed+1, ...)"},
	"checkpoint":  {Commands: []string{experiment.CmdEval}, Help: "checkpoint (safetensors) written by deeplda train or by PyTorch with the reference names"},
	"dump":        {Commands: []string{experiment.CmdEval}, Help: "also write the embeddings z, the scores (delta for LDA, logits for softmax) and the labels y to this safetensors file (in a folder: dump.safetensors there)"},
	"ood":         {Commands: []string{experiment.CmdTrain, experiment.CmdEval}, Help: "also score how well the model tells its test images from this data set's (one of the same image shape: mnist for a model of fashion-mnist and the reverse, cifar100 for cifar10 and the reverse; -limit-test images of each): report.json's ood, ood_scores.svg and ood_roc.svg"},
	"ood-datadir": {Commands: []string{experiment.CmdTrain, experiment.CmdEval}, Help: "folder with the -ood data set's published files (default datasets/<ood>)"},
	"out": {Commands: runCmds, Help: "output folder for report.json, the SVG figures, " + experiment.CheckpointFile + " and " + experiment.ResumeFile,
		CmdHelp: map[string]string{experiment.CmdEval: "output folder for report.json and the SVG figures", experiment.CmdSweep: "output folder for sweep.json, the SVG figures and runs/*/report.json"}},
	"quiet":      {Commands: trainCmds, Help: "no progress bar"},
	"resume":     {Commands: []string{experiment.CmdSynth, experiment.CmdTrain}, Help: "continue the run in -out after its last completed epoch (" + experiment.ResumeFile + ", written after every epoch), with the same flags; -epochs may be raised, or lowered to the epochs trained to end the run there"},
	"model":      {Commands: []string{experiment.CmdBench}, Help: "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)"},
	"size":       {Commands: []string{experiment.CmdBench}, Help: "matrix size S (matmul)"},
	"steps":      {Commands: []string{experiment.CmdBench}, Help: "timed steps (after one untimed warm-up step)"},
	"cpuprofile": {Commands: []string{experiment.CmdBench}, Help: "write a CPU profile of the timed steps to this file (go tool pprof)"},
	"suite":      {Commands: []string{experiment.CmdBench}, Help: "time the GPU table instead (the matmuls of -sizes, the ConvNet step at each of -batches, the toy step at batch 256) and print it in Markdown"},
	"sizes":      {Commands: []string{experiment.CmdBench}, Help: "matmul sizes of -suite, comma-separated"},
	"batches":    {Commands: []string{experiment.CmdBench}, Help: "ConvNet batch sizes of -suite, comma-separated"},
}
