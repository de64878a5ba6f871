package main

import (
	"slices"

	"github.com/deeplda/deeplda/experiment"
)

// The commands of deeplda.
const (
	cmdSynth = "synth"
	cmdTrain = "train"
	cmdSweep = "sweep"
	cmdEval  = "eval"
	cmdBench = "bench"
	cmdUI    = "ui"
)

// commandSettings are the settings of the command line alone, beside
// experiment.Settings: fetching the data, the output folder, the progress
// bar, resuming, the evaluation's dump, profiling and the benchmark's
// suite.
var commandSettings = []experiment.Setting{
	{Name: "fetch", Kind: experiment.KindBool,
		Doc: "download the data set's missing files into -datadir first (official locations, hashes checked)"},
	{Name: "out", Kind: experiment.KindText,
		Doc: "output folder for report.json, the SVG figures, " + experiment.CheckpointFile + " and " + experiment.ResumeFile},
	{Name: "quiet", Kind: experiment.KindBool,
		Doc: "no progress bar"},
	{Name: "resume", Kind: experiment.KindBool,
		Doc: "continue the run in -out after its last completed epoch (" + experiment.ResumeFile + ", written after every epoch), with the same flags; -epochs may be raised, or lowered to the epochs trained to end the run there"},
	{Name: "dump", Kind: experiment.KindText,
		Doc: "also write the embeddings z, the scores (delta for LDA, logits for softmax) and the labels y to this safetensors file (in a folder: dump.safetensors there)"},
	{Name: "cpuprofile", Kind: experiment.KindText,
		Doc: "write a CPU profile of the timed steps to this file (go tool pprof)"},
	{Name: "suite", Kind: experiment.KindBool,
		Doc: "time the GPU table instead (the matmuls of -sizes, the ConvNet step at each of -batches, the toy step at batch 256) and print it in Markdown"},
}

// settings returns the command line's settings: experiment.Settings and
// commandSettings.
func settings() []experiment.Setting { return slices.Concat(experiment.Settings, commandSettings) }

// flagDoc is how the command line shows one of its settings: the
// commands that have it as a flag, and their own help where it says more
// than the setting's Doc.
type flagDoc struct {
	Commands []string
	// CmdHelp replaces the setting's Doc for the flag of some commands.
	CmdHelp map[string]string
}

// help returns the help of the setting s's flag in the command cmd.
func (d flagDoc) help(cmd string, s experiment.Setting) string {
	if h, ok := d.CmdHelp[cmd]; ok {
		return h
	}
	return s.Doc
}

// The command lists of the flags.
var (
	imageCmds = []string{cmdTrain, cmdSweep}
	dataCmds  = []string{cmdTrain, cmdSweep, cmdEval}
	trainCmds = []string{cmdSynth, cmdTrain, cmdSweep}
	runCmds   = []string{cmdSynth, cmdTrain, cmdSweep, cmdEval}
	allCmds   = []string{cmdSynth, cmdTrain, cmdSweep, cmdEval, cmdBench}
)

// flagDocs say which commands have each setting as a flag, by name; a
// setting without one is a flag of every command that binds it (see
// flags).
var flagDocs = map[string]flagDoc{
	"data": {Commands: dataCmds},
	"head": {Commands: []string{cmdTrain}},
	"loss": {Commands: []string{cmdSynth, cmdTrain},
		CmdHelp: map[string]string{cmdTrain: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y (default dnll for lda, ce for softmax)"}},
	"compare": {Commands: []string{cmdTrain},
		CmdHelp: map[string]string{cmdTrain: "train the LDA head (with -loss, default dnll) and the softmax head (ce) on the same data and seed, into -out/lda and -out/softmax, and compare them in -out/compare.json and compare_*.svg"}},
	"lambda":  {Commands: []string{cmdSynth, cmdTrain}},
	"lambdas": {Commands: []string{cmdSweep}},
	"cov":     {Commands: trainCmds},
	"epochs":  {Commands: trainCmds},
	"batch": {Commands: allCmds,
		CmdHelp: map[string]string{cmdBench: "batch size (convnet, mlp)", cmdEval: "batch size of the BatchNorm recalibration"}},
	"limit-train": {Commands: dataCmds,
		CmdHelp: map[string]string{cmdEval: "draw the recalibration batches from the first N training images (0: all; deeplda train uses its training images)"}},
	"limit-test": {Commands: dataCmds},
	"seed": {Commands: runCmds,
		CmdHelp: map[string]string{cmdEval: "seed of the recalibration batches (deeplda train uses its -seed)", cmdSweep: "seed of each lambda's first run (the others count up, -seeds)"}},
	"backend":     {Commands: allCmds},
	"lr":          {Commands: trainCmds},
	"freeze-head": {Commands: imageCmds},
	"encoder":     {Commands: []string{cmdSynth}},
	"train":       {Commands: []string{cmdSynth}},
	"test":        {Commands: []string{cmdSynth}},
	"data-seed":   {Commands: []string{cmdSynth}},
	"datadir":     {Commands: dataCmds},
	"fetch":       {Commands: dataCmds},
	"val":         {Commands: imageCmds},
	"augment":     {Commands: imageCmds},
	"bn-recalibrate": {Commands: dataCmds,
		CmdHelp: map[string]string{cmdEval: "recompute the BatchNorm statistics over N training batches and report both evaluations (0: keep the checkpoint's)"}},
	"bn-history":  {Commands: imageCmds},
	"eval-batch":  {Commands: dataCmds},
	"seeds":       {Commands: []string{cmdSweep}},
	"checkpoint":  {Commands: []string{cmdEval}},
	"dump":        {Commands: []string{cmdEval}},
	"ood":         {Commands: []string{cmdTrain, cmdEval}},
	"ood-datadir": {Commands: []string{cmdTrain, cmdEval}},
	"out": {Commands: runCmds,
		CmdHelp: map[string]string{cmdEval: "output folder for report.json and the SVG figures", cmdSweep: "output folder for sweep.json, the SVG figures and runs/*/report.json"}},
	"quiet":      {Commands: trainCmds},
	"resume":     {Commands: []string{cmdSynth, cmdTrain}},
	"model":      {Commands: []string{cmdBench}},
	"size":       {Commands: []string{cmdBench}},
	"steps":      {Commands: []string{cmdBench}},
	"cpuprofile": {Commands: []string{cmdBench}},
	"suite":      {Commands: []string{cmdBench}},
	"sizes":      {Commands: []string{cmdBench}},
	"batches":    {Commands: []string{cmdBench}},
}
