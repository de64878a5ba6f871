package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// Kind is the type of a setting's value.
type Kind int

// Setting kinds.
const (
	KindChoice Kind = iota // one of Setting.Choices (a string, or a BackendKind)
	KindInt                // a whole number
	KindUint               // a whole number >= 0
	KindFloat              // a real number
	KindBool               // on or off
	KindText               // free text (a file or folder)
	KindFloats             // comma-separated real numbers
)

// The demos of the browser page (the values of its demo URL parameter).
const (
	DemoClassical = "classical"
	DemoDeep      = "deep"
	DemoImages    = "images"
	DemoSweep     = "sweep"
)

// The commands of deeplda.
const (
	CmdSynth = "synth"
	CmdTrain = "train"
	CmdSweep = "sweep"
	CmdEval  = "eval"
	CmdBench = "bench"
)

// Setting is one setting of the experiments, declared once: the native
// command's flags and the page's form fields, URL parameters and parsing
// are made from it. Its default is the value it is bound to (see Values)
// when a flag or the page's defaults are made.
type Setting struct {
	Name    string   // the flag's name without its dash, the URL parameter and the form field
	Kind    Kind     // the value's type
	Choices []string // KindChoice: the values allowed, in the page's order
	Help    string   // the flag's help and the form control's hint
	// CmdHelp replaces Help for the flag of some commands.
	CmdHelp map[string]string
	// Commands are the deeplda commands that have the flag.
	Commands []string
	// Demos are the page's demos that show the field; nil: not on the
	// page. A field hidden in a demo keeps its value and is still read
	// from the URL.
	Demos []string
	// Label names the page's field; Advanced fields sit in the collapsed
	// "more settings" group.
	Label    string
	Advanced bool
	// Min and Max bound a KindInt's value on every front end (Max 0: no
	// bound); Max also bounds the number of values of a KindFloats, or of
	// a KindText that lists numbers (the suite's sizes and batches). The
	// memory a run needs bounds the sizes further (CheckMemory).
	Min, Max int
	// PageMax is the largest value the page accepts, below Max (a tab has
	// far less memory than a native process): for a KindInt, the value;
	// for KindFloats, the number of values. 0: Max.
	PageMax int
}

// The demo lists of the settings.
var (
	allDemos  = []string{DemoClassical, DemoDeep, DemoImages, DemoSweep}
	toyDemos  = []string{DemoClassical, DemoDeep, DemoSweep}
	imageOnly = []string{DemoImages}
	lossDemos = []string{DemoClassical, DemoDeep, DemoImages}
)

// The command lists of the settings.
var (
	imageCmds = []string{CmdTrain, CmdSweep}
	dataCmds  = []string{CmdTrain, CmdSweep, CmdEval}
	trainCmds = []string{CmdSynth, CmdTrain, CmdSweep}
	runCmds   = []string{CmdSynth, CmdTrain, CmdSweep, CmdEval}
	allCmds   = []string{CmdSynth, CmdTrain, CmdSweep, CmdEval, CmdBench}
)

// dataHelp is the help of the data flag.
var dataHelp = "data set: " + orList(images.Names())

// Settings lists every setting, in the order of the page's form.
var Settings = []Setting{
	{Name: "data", Kind: KindChoice, Choices: images.Names(), Label: "Data set", Commands: dataCmds, Demos: imageOnly,
		Help:    "the image data set: hosted by this site, or from files you choose below",
		CmdHelp: map[string]string{CmdTrain: dataHelp, CmdSweep: dataHelp, CmdEval: dataHelp}},
	{Name: "head", Kind: KindChoice, Choices: names(model.HeadLDA, model.HeadSoftmax), Label: "Head", Commands: []string{CmdTrain}, Demos: imageOnly,
		Help: "lda: the Gaussian (LDA) head; softmax: a linear softmax head (trains with ce)"},
	{Name: "loss", Kind: KindChoice, Choices: names(kernels.DNLL, kernels.CE, kernels.NLL), Label: "Loss", Commands: []string{CmdSynth, CmdTrain}, Demos: lossDemos,
		Help:    "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y",
		CmdHelp: map[string]string{CmdSynth: "loss: dnll, ce or nll", CmdTrain: "loss: dnll, ce or nll (default dnll for lda, ce for softmax)"}},
	{Name: "compare", Kind: KindBool, Label: "Side by side", Commands: []string{CmdTrain}, Demos: lossDemos,
		Help:    "train every loss of this demo (images: the LDA head with DNLL and the softmax head with CE) with the same settings and show them side by side",
		CmdHelp: map[string]string{CmdTrain: "train the LDA head (with -loss, default dnll) and the softmax head (ce) on the same data and seed, into -out/lda and -out/softmax, and compare them in -out/compare.json and compare_*.svg"}},
	{Name: "lambda", Kind: KindFloat, Label: "λ (DNLL)", Commands: []string{CmdSynth, CmdTrain}, Demos: lossDemos,
		Help: "weight of the DNLL density penalty, a number >= 0", CmdHelp: map[string]string{CmdSynth: "DNLL penalty weight lambda (>= 0)", CmdTrain: "DNLL penalty weight lambda (>= 0)"}},
	{Name: "lambdas", Max: 100, Kind: KindFloats, Label: "λ values", Commands: []string{CmdSweep}, Demos: []string{DemoSweep}, PageMax: 12,
		Help: "comma-separated list of λ values (numbers > 0)", CmdHelp: map[string]string{CmdSweep: "comma-separated values of the DNLL weight lambda (> 0)"}},
	{Name: "cov", Kind: KindChoice, Choices: names(kernels.Full, kernels.Diagonal, kernels.Spherical), Label: "Covariance", Commands: trainCmds, Demos: allDemos,
		Help: "parameterisation of the shared covariance Σ", CmdHelp: map[string]string{CmdSynth: "covariance of the LDA head: full, diag or spherical",
			CmdTrain: "covariance of the LDA head: full, diag or spherical", CmdSweep: "covariance of the LDA head: full, diag or spherical"}},
	{Name: "epochs", Min: 1, Max: 100_000, Kind: KindInt, Label: "Epochs", Commands: trainCmds, Demos: allDemos,
		Help: "passes over the training set (at least 1)", CmdHelp: map[string]string{CmdSynth: "training epochs", CmdTrain: "training epochs", CmdSweep: "training epochs"}},
	{Name: "batch", Min: 1, Max: 1_000_000, Kind: KindInt, Label: "Batch", Commands: allCmds, Demos: allDemos,
		Help: "examples per Adam step (at least 1; the training-set size means full batch)",
		CmdHelp: map[string]string{CmdSynth: "batch size", CmdTrain: "batch size", CmdSweep: "batch size",
			CmdEval: "batch size of the BatchNorm recalibration", CmdBench: "batch size (convnet, mlp)"}},
	{Name: "limit-train", Max: 10_000_000, Kind: KindInt, Label: "Training images", Commands: dataCmds, Demos: imageOnly, PageMax: 1_000_000,
		Help: "train on the first N training images (0: all; on the CPU the page trains some 20-30 images a second with WebAssembly SIMD, a few without)",
		CmdHelp: map[string]string{CmdTrain: "train on the first N training images in file order (0: all but the -val held-out ones)",
			CmdSweep: "train on the first N training images in file order (0: all but the -val held-out ones)",
			CmdEval:  "draw the recalibration batches from the first N training images (0: all; deeplda train uses its training images)"}},
	{Name: "limit-test", Max: 10_000_000, Kind: KindInt, Label: "Test images", Commands: dataCmds, Demos: imageOnly, PageMax: 1_000_000,
		Help: "evaluate on the first N test images (0: all)"},
	{Name: "seed", Kind: KindUint, Label: "Seed", Commands: runCmds, Demos: allDemos,
		Help: "seed of the initialisation and the shuffling (a whole number >= 0)",
		CmdHelp: map[string]string{CmdSynth: "seed of the initialisation and the shuffling", CmdTrain: "seed of the initialisation, the shuffling and the augmentation",
			CmdSweep: "first seed", CmdEval: "seed of the recalibration batches (deeplda train uses its -seed)"}},
	{Name: "backend", Kind: KindChoice, Choices: names(BackendAuto, BackendWebGPU, BackendCPU), Label: "Backend", Commands: allCmds, Demos: allDemos,
		Help: "compute backend: auto (WebGPU when an adapter exists, else the CPU), webgpu or cpu"},
	{Name: "density", Kind: KindBool, Label: "Log density shading", Demos: []string{DemoClassical, DemoDeep},
		Help: "shade the embedding plane by the head's log density log p(z) = logsumexp_c δ_c(z), the term DNLL penalises"},
	{Name: "lr", Kind: KindFloat, Label: "Learning rate", Advanced: true, Commands: trainCmds, Demos: allDemos,
		Help: "Adam's learning rate (> 0)"},
	{Name: "encoder", Kind: KindChoice, Choices: names(model.EncoderMLP, model.EncoderNone), Label: "Encoder", Advanced: true, Commands: []string{CmdSynth}, Demos: toyDemos,
		Help: "mlp: Deep LDA; none: classical LDA on the inputs"},
	{Name: "train", Min: 2, Max: 100_000_000, Kind: KindInt, Label: "Training points", Advanced: true, Commands: []string{CmdSynth}, Demos: toyDemos, PageMax: 1_000_000,
		Help: "size of the training set (at least 2)"},
	{Name: "test", Min: 1, Max: 100_000_000, Kind: KindInt, Label: "Test points", Advanced: true, Commands: []string{CmdSynth}, Demos: toyDemos, PageMax: 1_000_000,
		Help: "size of the test set (at least 1)"},
	{Name: "data-seed", Kind: KindUint, Label: "Data seed", Advanced: true, Commands: []string{CmdSynth}, Demos: toyDemos,
		Help: "seed of the data (the test set uses data-seed+1)"},

	// The native command's only.
	{Name: "datadir", Kind: KindText, Commands: dataCmds, Help: "folder with the data set's published files (default datasets/<data>)"},
	{Name: "fetch", Kind: KindBool, Commands: dataCmds, Help: "download the data set's missing files into -datadir first (official locations, hashes checked)"},
	{Name: "val", Max: 1_000_000, Kind: KindInt, Commands: imageCmds, Help: "training images held out from the end of the training file to fit temperature scaling (0: none)"},
	{Name: "augment", Kind: KindChoice, Choices: []string{AugmentAuto, AugmentNone, AugmentCrop, AugmentFlip, AugmentCropFlip}, Commands: imageCmds,
		Help: "augmentation: auto (crop+flip for CIFAR, none for the MNISTs, as the paper says), none, crop, flip or crop+flip"},
	{Name: "bn-recalibrate", Min: BNAuto, Max: 100_000, Kind: KindInt, Commands: dataCmds,
		Help:    fmt.Sprintf("recompute the BatchNorm statistics over N training batches before the final evaluation (0: off; -1: auto, %d batches when the run has fewer than %d steps)", BNAutoBatches, BNAutoMaxSteps),
		CmdHelp: map[string]string{CmdEval: "recompute the BatchNorm statistics over N training batches and report both evaluations (0: keep the checkpoint's)"}},
	{Name: "bn-history", Kind: KindBool, Commands: imageCmds,
		Help: "also record, after every epoch, the test accuracy and ECE with BatchNorm statistics recomputed over -bn-recalibrate batches (20 when that is 0 or automatic and off), then go on with the trained ones (history's test_accuracy_recalibrated, test_ece_recalibrated)"},
	{Name: "eval-batch", Max: 1_000_000, Kind: KindInt, Commands: dataCmds, Help: "evaluation batch size (0: -batch; a larger one needs more memory)"},
	{Name: "seeds", Min: 1, Max: 1_000, Kind: KindInt, Commands: []string{CmdSweep}, Help: "seeds per lambda (-seed, -seed+1, ...)"},
	{Name: "checkpoint", Kind: KindText, Commands: []string{CmdEval}, Help: "checkpoint (safetensors) written by deeplda train or by PyTorch with the reference names"},
	{Name: "dump", Kind: KindText, Commands: []string{CmdEval}, Help: "also write the embeddings z, the scores (delta for LDA, logits for softmax) and the labels y to this safetensors file (in a folder: dump.safetensors there)"},
	{Name: "ood", Kind: KindChoice, Choices: images.Names(), Commands: []string{CmdTrain, CmdEval},
		Help: "also score how well the model tells its test images from this data set's (one of the same image shape: mnist for a model of fashion-mnist and the reverse, cifar100 for cifar10 and the reverse; -limit-test images of each): report.json's ood, ood_scores.svg and ood_roc.svg"},
	{Name: "ood-datadir", Kind: KindText, Commands: []string{CmdTrain, CmdEval}, Help: "folder with the -ood data set's published files (default datasets/<ood>)"},
	{Name: "out", Kind: KindText, Commands: runCmds, Help: "output folder for report.json, the SVG figures, " + CheckpointFile + " and " + ResumeFile,
		CmdHelp: map[string]string{CmdSweep: "output folder for sweep.json, the SVG figures and runs/*/report.json", CmdEval: "output folder for report.json and the SVG figures"}},
	{Name: "quiet", Kind: KindBool, Commands: []string{CmdSynth, CmdTrain, CmdSweep}, Help: "no progress bar"},
	{Name: "resume", Kind: KindBool, Commands: []string{CmdSynth, CmdTrain},
		Help: "continue the run in -out after its last completed epoch (" + ResumeFile + ", written after every epoch), with the same flags; -epochs may be raised, or lowered to the epochs trained to end the run there"},
	{Name: "model", Kind: KindChoice, Choices: []string{"convnet", "mlp", "matmul"}, Commands: []string{CmdBench},
		Help: "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)"},
	{Name: "size", Min: 1, Max: 32_768, Kind: KindInt, Commands: []string{CmdBench}, Help: "matrix size S (matmul)"},
	{Name: "steps", Min: 1, Max: 1_000_000, PageMax: 10_000, Kind: KindInt, Commands: []string{CmdBench}, Help: "timed steps (after one untimed warm-up step)"},
	{Name: "cpuprofile", Kind: KindText, Commands: []string{CmdBench}, Help: "write a CPU profile of the timed steps to this file (go tool pprof)"},
	{Name: "suite", Kind: KindBool, Commands: []string{CmdBench},
		Help: "time the GPU table instead (the matmuls of -sizes, the ConvNet step at each of -batches, the toy step at batch 256) and print it in Markdown"},
	{Name: "sizes", Max: 16, Kind: KindText, Commands: []string{CmdBench}, Help: "matmul sizes of -suite, comma-separated"},
	{Name: "batches", Max: 16, Kind: KindText, Commands: []string{CmdBench}, Help: "ConvNet batch sizes of -suite, comma-separated"},
}

// names returns the spellings of values.
func names(v ...fmt.Stringer) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = x.String()
	}
	return out
}

// setting returns the setting called name; it panics for an unknown name
// (a mistake in the program, not in the input).
func setting(name string) Setting {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Name == name })
	if i < 0 {
		panic("experiment: unknown setting " + name)
	}
	return Settings[i]
}

// HelpFor returns the help text of s for a command's flag.
func (s Setting) HelpFor(cmd string) string {
	if h, ok := s.CmdHelp[cmd]; ok {
		return h
	}
	return s.Help
}

// SettingError is a bad value of one setting. Msg is a sentence without
// flag syntax ("epochs must be at least 1, got 0"); each front end shows it
// its own way (the command as "-epochs ...", the page under the field).
type SettingError struct {
	Name string // the setting at fault
	Msg  string
}

func (e *SettingError) Error() string { return e.Msg }

// settingError returns a SettingError for the setting name.
func settingError(name, format string, a ...any) error {
	return &SettingError{Name: name, Msg: fmt.Sprintf(format, a...)}
}

// orList joins values as "a, b or c".
func orList(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// checkChoice checks that v is one of the choices of the setting name.
func checkChoice(name, v string) error {
	s := setting(name)
	if !slices.Contains(s.Choices, v) {
		return settingError(name, "%s must be %s, got %q", name, orList(s.Choices), v)
	}
	return nil
}

// checkInt checks the whole-number setting name against its bounds in
// Settings (Min, and Max when set).
func checkInt(name string, v int) error {
	s := setting(name)
	if err := checkAtLeast(name, v, s.Min); err != nil || s.Max == 0 || v <= s.Max {
		return err
	}
	return settingError(name, "%s must be at most %d, got %d", name, s.Max, v)
}

// checkAtLeast checks that the whole-number setting name is at least lo.
func checkAtLeast(name string, v, lo int) error {
	switch {
	case v >= lo:
		return nil
	case lo == 0:
		return settingError(name, "%s must be >= 0, got %d", name, v)
	}
	return settingError(name, "%s must be at least %d, got %d", name, lo, v)
}

// checkLambda checks the DNLL weight with the model's rule
// (model.CheckLambda): a finite number >= 0.
func checkLambda(v float64) error { return asSetting("lambda", model.CheckLambda(v)) }

// checkLR checks Adam's learning rate with the model's rule
// (model.CheckLR): a finite number > 0.
func checkLR(v float64) error { return asSetting("lr", model.CheckLR(v)) }

// asSetting makes err, when not nil, a SettingError of the setting name.
func asSetting(name string, err error) error {
	if err == nil {
		return nil
	}
	return &SettingError{Name: name, Msg: err.Error()}
}

// CheckLambdas checks the lambda values of a sweep: at least one, each a
// finite number > 0 (the sweep's axis is logarithmic), none twice (it would
// train the same runs twice).
func CheckLambdas(l []float64) error {
	if len(l) == 0 {
		return settingError("lambdas", "lambdas is empty")
	}
	if max := setting("lambdas").Max; len(l) > max {
		return settingError("lambdas", "lambdas must list at most %d values, got %d", max, len(l))
	}
	for i, x := range l {
		if !(x > 0) || math.IsInf(x, 0) {
			return settingError("lambdas", "every lambda must be a finite number > 0 (the axis is logarithmic), got %v", x)
		}
		if slices.Contains(l[:i], x) {
			return settingError("lambdas", "lambdas lists %v twice; each lambda is trained once", x)
		}
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BackendKind is the choice of a compute backend.
type BackendKind string

// The backend choices.
const (
	BackendCPU    BackendKind = "cpu"
	BackendWebGPU BackendKind = "webgpu"
	BackendAuto   BackendKind = "auto" // WebGPU on a usable adapter, else the CPU
)

// ParseBackend reads a backend choice: cpu, webgpu or auto.
func ParseBackend(s string) (BackendKind, error) {
	if err := checkChoice("backend", s); err != nil {
		return "", err
	}
	return BackendKind(s), nil
}

// BackendOf returns the kind of an open backend (BackendCPU or
// BackendWebGPU), by its Info().Name.
func BackendOf(be kernels.Backend) BackendKind { return BackendKind(be.Info().Name) }

func (k BackendKind) String() string { return string(k) }

// Set parses a backend choice (flag.Value).
func (k *BackendKind) Set(s string) error {
	v, err := ParseBackend(s)
	if err == nil {
		*k = v
	}
	return err
}

// Floats is a list of numbers written comma-separated (flag.Value).
type Floats []float64

func (l *Floats) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// Set parses a list separated by commas, semicolons or spaces.
func (l *Floats) Set(v string) error {
	var out Floats
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		out = append(out, x)
	}
	*l = out
	return nil
}

// Values are the variables that hold settings, by setting name: a
// *string, *int, *uint64, *float64, *bool, *BackendKind or *Floats as the
// setting's Kind says.
type Values map[string]any

// Bind returns the variables of the toy experiment's settings in c.
func (c *SynthConfig) Bind() Values {
	return Values{
		"encoder": &c.Encoder, "loss": &c.Loss, "lambda": &c.Lambda, "cov": &c.Cov, "epochs": &c.Epochs,
		"batch": &c.Batch, "lr": &c.LR, "seed": &c.Seed, "data-seed": &c.DataSeed, "train": &c.Train, "test": &c.Test,
	}
}

// Bind returns the variables of the image experiment's settings in c.
func (c *ImageConfig) Bind() Values {
	return Values{
		"data": &c.Data, "datadir": &c.DataDir, "head": &c.Head, "cov": &c.Cov, "loss": &c.Loss, "lambda": &c.Lambda,
		"epochs": &c.Epochs, "batch": &c.Batch, "lr": &c.LR, "limit-train": &c.LimitTrain, "limit-test": &c.LimitTest,
		"val": &c.Val, "seed": &c.Seed, "augment": &c.Augment, "bn-recalibrate": &c.BNRecalibrate, "bn-history": &c.BNHistory, "eval-batch": &c.EvalBatch,
	}
}

// Bind returns the variables of the sweep's settings in c: its base run's
// and the lambdas and seeds.
func (c *SweepConfig) Bind() Values {
	v := c.Base.Bind()
	v["lambdas"], v["seeds"] = (*Floats)(&c.Lambdas), &c.Seeds
	return v
}

// Bind returns the variables of the evaluation's settings in c.
func (c *EvalConfig) Bind() Values {
	v := Values{
		"checkpoint": &c.Checkpoint, "data": &c.Data, "datadir": &c.DataDir, "limit-test": &c.LimitTest, "limit-train": &c.LimitTrain,
		"eval-batch": &c.EvalBatch, "bn-recalibrate": &c.BNRecalibrate, "batch": &c.Batch, "seed": &c.Seed,
	}
	maps.Copy(v, c.OODConfig.Bind())
	return v
}

// Bind returns the variables of the benchmark's settings in c.
func (c *BenchConfig) Bind() Values {
	return Values{"model": &c.Model, "batch": &c.Batch, "size": &c.Size, "steps": &c.Steps}
}

// Parse reads the text of setting s into the variable v (a pointer as
// Values says), as the page's form and URL give it: choices are
// case-insensitive, a Bool is 1/0, true/false, on/off or yes/no. The
// error names the setting; the value is not checked beyond its type
// (Validate does that) except against PageMax.
func (s Setting) Parse(text string, v any) error {
	text = strings.TrimSpace(text)
	switch p := v.(type) {
	case *string:
		if s.Kind == KindChoice {
			text = strings.ToLower(text)
		}
		*p = text
	case *BackendKind:
		return p.Set(strings.ToLower(text))
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return settingError(s.Name, "%s must be a whole number, got %q", s.Name, text)
		}
		if s.PageMax > 0 && n > s.PageMax {
			return settingError(s.Name, "%s must be at most %d in the browser, got %d", s.Name, s.PageMax, n)
		}
		*p = n
	case *uint64:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return settingError(s.Name, "%s must be a whole number >= 0, got %q", s.Name, text)
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return settingError(s.Name, "%s must be a number, got %q", s.Name, text)
		}
		*p = x
	case *bool:
		switch strings.ToLower(text) {
		case "1", "true", "on", "yes":
			*p = true
		case "0", "false", "off", "no", "":
			*p = false
		default:
			return settingError(s.Name, "%s must be 1 or 0, got %q", s.Name, text)
		}
	case *Floats:
		var l Floats
		if err := l.Set(text); err != nil {
			return settingError(s.Name, "%s must be numbers: %v", s.Name, err)
		}
		if len(l) == 0 || s.PageMax > 0 && len(l) > s.PageMax {
			return settingError(s.Name, "%s must list 1 to %d numbers, got %d", s.Name, s.PageMax, len(l))
		}
		*p = l
	default:
		panic(fmt.Sprintf("experiment: setting %s bound to a %T", s.Name, v))
	}
	return nil
}

// Format returns the text of the variable v (a pointer as Values says), as
// Parse reads it.
func Format(v any) string {
	switch p := v.(type) {
	case *string:
		return *p
	case *BackendKind:
		return string(*p)
	case *int:
		return strconv.Itoa(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *bool:
		if *p {
			return "1"
		}
		return "0"
	case *Floats:
		return p.String()
	}
	panic(fmt.Sprintf("experiment: Format of a %T", v))
}
