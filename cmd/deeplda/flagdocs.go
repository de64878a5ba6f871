package main

import "github.com/deeplda/deeplda/experiment"

// flagDoc is how the command line shows a setting of experiment.Settings:
// the commands that have it as a flag, and their own help where it says
// more than the setting's Doc.
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
	imageCmds = []string{experiment.CmdTrain, experiment.CmdSweep}
	dataCmds  = []string{experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval}
	trainCmds = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep}
	runCmds   = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval}
	allCmds   = []string{experiment.CmdSynth, experiment.CmdTrain, experiment.CmdSweep, experiment.CmdEval, experiment.CmdBench}
)

// flagDocs are the settings the command line has as flags, by name.
var flagDocs = map[string]flagDoc{
	"data": {Commands: dataCmds},
	"head": {Commands: []string{experiment.CmdTrain}},
	"loss": {Commands: []string{experiment.CmdSynth, experiment.CmdTrain},
		CmdHelp: map[string]string{experiment.CmdTrain: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y (default dnll for lda, ce for softmax)"}},
	"compare": {Commands: []string{experiment.CmdTrain},
		CmdHelp: map[string]string{experiment.CmdTrain: "train the LDA head (with -loss, default dnll) and the softmax head (ce) on the same data and seed, into -out/lda and -out/softmax, and compare them in -out/compare.json and compare_*.svg"}},
	"lambda":  {Commands: []string{experiment.CmdSynth, experiment.CmdTrain}},
	"lambdas": {Commands: []string{experiment.CmdSweep}},
	"cov":     {Commands: trainCmds},
	"epochs":  {Commands: trainCmds},
	"batch": {Commands: allCmds,
		CmdHelp: map[string]string{experiment.CmdBench: "batch size (convnet, mlp)", experiment.CmdEval: "batch size of the BatchNorm recalibration"}},
	"limit-train": {Commands: dataCmds,
		CmdHelp: map[string]string{experiment.CmdEval: "draw the recalibration batches from the first N training images (0: all; deeplda train uses its training images)"}},
	"limit-test": {Commands: dataCmds},
	"seed": {Commands: runCmds,
		CmdHelp: map[string]string{experiment.CmdEval: "seed of the recalibration batches (deeplda train uses its -seed)", experiment.CmdSweep: "seed of each lambda's first run (the others count up, -seeds)"}},
	"backend":     {Commands: allCmds},
	"lr":          {Commands: trainCmds},
	"freeze-head": {Commands: imageCmds},
	"encoder":     {Commands: []string{experiment.CmdSynth}},
	"train":       {Commands: []string{experiment.CmdSynth}},
	"test":        {Commands: []string{experiment.CmdSynth}},
	"data-seed":   {Commands: []string{experiment.CmdSynth}},
	"datadir":     {Commands: dataCmds},
	"fetch":       {Commands: dataCmds},
	"val":         {Commands: imageCmds},
	"augment":     {Commands: imageCmds},
	"bn-recalibrate": {Commands: dataCmds,
		CmdHelp: map[string]string{experiment.CmdEval: "recompute the BatchNorm statistics over N training batches and report both evaluations (0: keep the checkpoint's)"}},
	"bn-history":  {Commands: imageCmds},
	"eval-batch":  {Commands: dataCmds},
	"seeds":       {Commands: []string{experiment.CmdSweep}},
	"checkpoint":  {Commands: []string{experiment.CmdEval}},
	"dump":        {Commands: []string{experiment.CmdEval}},
	"ood":         {Commands: []string{experiment.CmdTrain, experiment.CmdEval}},
	"ood-datadir": {Commands: []string{experiment.CmdTrain, experiment.CmdEval}},
	"out": {Commands: runCmds,
		CmdHelp: map[string]string{experiment.CmdEval: "output folder for report.json and the SVG figures", experiment.CmdSweep: "output folder for sweep.json, the SVG figures and runs/*/report.json"}},
	"quiet":      {Commands: trainCmds},
	"resume":     {Commands: []string{experiment.CmdSynth, experiment.CmdTrain}},
	"model":      {Commands: []string{experiment.CmdBench}},
	"size":       {Commands: []string{experiment.CmdBench}},
	"steps":      {Commands: []string{experiment.CmdBench}},
	"cpuprofile": {Commands: []string{experiment.CmdBench}},
	"suite":      {Commands: []string{experiment.CmdBench}},
	"sizes":      {Commands: []string{experiment.CmdBench}},
	"batches":    {Commands: []string{experiment.CmdBench}},
}
