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

// Setting is one setting of the experiments, declared once with what the
// core knows of it: its name, the type of its value, its bounds and what it
// does. The front ends hold what is theirs (the commands that take it as a
// flag and their own wording in cmd/deeplda, the page's labels, demos and
// bounds in wasm/config)
// and bind it to a configuration's variable (see Values); a
// configuration's Validate checks it.
type Setting struct {
	Name    string   // the flag's name without its dash, the URL parameter and the form field
	Kind    Kind     // the value's type
	Choices []string // KindChoice: the values allowed, in the page's order
	// Min and Max bound a KindInt's value on every front end (Max 0: no
	// bound); Max also bounds the number of values of a KindFloats, or of
	// a KindText that lists numbers (the suite's sizes and batches). The
	// memory a run needs bounds the sizes further (CheckMemory).
	Min, Max int
	// Doc says what the setting does, in words every front end shows (the
	// command's help, the page's hint) unless it words it its own way.
	Doc string
}

// Settings lists every setting, in the order of the page's form.
var Settings = []Setting{
	{Name: "data", Kind: KindChoice, Choices: images.Names(),
		Doc: "the image data set: " + orList(images.Names())},
	{Name: "head", Kind: KindChoice, Choices: names(model.HeadLDA, model.HeadSoftmax),
		Doc: "lda: the Gaussian (LDA) head; softmax: a linear softmax head (trains with ce)"},
	{Name: "loss", Kind: KindChoice, Choices: names(kernels.DNLL, kernels.CE, kernels.NLL),
		Doc: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y"},
	{Name: "compare", Kind: KindBool,
		Doc: "train every loss (images: the LDA head with DNLL and the softmax head with CE) with the same settings and show them side by side"},
	{Name: "lambda", Kind: KindFloat,
		Doc: "weight λ of the DNLL density penalty, a number >= 0"},
	{Name: "lambdas", Max: 100, Kind: KindFloats,
		Doc: "comma-separated values of the DNLL weight λ (numbers > 0)"},
	{Name: "cov", Kind: KindChoice, Choices: names(kernels.Full, kernels.Diagonal, kernels.Spherical),
		Doc: "parameterisation of the LDA head's shared covariance Σ: full, diag or spherical"},
	{Name: "epochs", Min: 1, Max: 100_000, Kind: KindInt,
		Doc: "passes over the training set (at least 1)"},
	{Name: "batch", Min: 1, Max: 1_000_000, Kind: KindInt,
		Doc: "examples per Adam step (at least 1; the training-set size means full batch)"},
	{Name: "limit-train", Max: 10_000_000, Kind: KindInt,
		Doc: "train on the first N training images in file order (0: all but the held-out ones)"},
	{Name: "limit-test", Max: 10_000_000, Kind: KindInt,
		Doc: "evaluate on the first N test images (0: all)"},
	{Name: "seed", Kind: KindUint,
		Doc: "seed of the initialisation, the shuffling and the images' augmentation (a whole number >= 0)"},
	{Name: "backend", Kind: KindChoice, Choices: names(BackendAuto, BackendWebGPU, BackendCPU),
		Doc: "compute backend: auto (WebGPU when an adapter exists, else the CPU), webgpu or cpu"},
	{Name: "density", Kind: KindBool,
		Doc: "shade the embedding plane by the head's log density log p(z) = logsumexp_c δ_c(z), the term DNLL penalises"},
	{Name: "lr", Kind: KindFloat,
		Doc: "Adam's learning rate (> 0)"},
	{Name: "freeze-head", Kind: KindBool,
		Doc: "keep the head's parameters (the LDA head's means, priors and variance) at their initial values and train the encoder alone, as the optimiser of the authors' Fashion-MNIST notebook does"},
	{Name: "encoder", Kind: KindChoice, Choices: names(model.EncoderMLP, model.EncoderNone),
		Doc: "mlp: Deep LDA; none: classical LDA on the inputs"},
	{Name: "train", Min: 2, Max: 100_000_000, Kind: KindInt,
		Doc: "size of the training set (at least 2)"},
	{Name: "test", Min: 1, Max: 100_000_000, Kind: KindInt,
		Doc: "size of the test set (at least 1)"},
	{Name: "data-seed", Kind: KindUint,
		Doc: "seed of the data (the test set uses data-seed+1)"},
	{Name: "datadir", Kind: KindText,
		Doc: "folder with the data set's published files (default datasets/<data>)"},
	{Name: "val", Max: 1_000_000, Kind: KindInt,
		Doc: "training images held out from the end of the training file to fit temperature scaling (0: none)"},
	{Name: "augment", Kind: KindChoice, Choices: []string{AugmentAuto, AugmentNone, AugmentCrop, AugmentFlip, AugmentCropFlip},
		Doc: "augmentation: auto (crop+flip for CIFAR, none for the MNISTs, as the paper says), none, crop, flip or crop+flip"},
	{Name: "bn-recalibrate", Min: BNAuto, Max: 100_000, Kind: KindInt,
		Doc: fmt.Sprintf("recompute the BatchNorm statistics over N training batches before the final evaluation (0: off; -1: auto, %d batches when the run has fewer than %d steps)", BNAutoBatches, BNAutoMaxSteps)},
	{Name: "bn-history", Kind: KindBool,
		Doc: "also record, after every epoch, the test accuracy and ECE with BatchNorm statistics recomputed over -bn-recalibrate batches (20 when that is 0 or automatic and off), then go on with the trained ones (history's test_accuracy_recalibrated, test_ece_recalibrated)"},
	{Name: "eval-batch", Max: 1_000_000, Kind: KindInt,
		Doc: "evaluation batch size (0: -batch; a larger one needs more memory)"},
	{Name: "seeds", Min: 1, Max: 1_000, Kind: KindInt,
		Doc: "seeds per lambda (-seed, -seed+1, ...)"},
	{Name: "checkpoint", Kind: KindText,
		Doc: "checkpoint (safetensors) written by deeplda train or by PyTorch with the reference names"},
	{Name: "ood", Kind: KindChoice, Choices: images.Names(),
		Doc: "also score how well the model tells its test images from this data set's (one of the same image shape: mnist for a model of fashion-mnist and the reverse, cifar100 for cifar10 and the reverse; -limit-test images of each): report.json's ood, ood_scores.svg and ood_roc.svg"},
	{Name: "ood-datadir", Kind: KindText,
		Doc: "folder with the -ood data set's published files (default datasets/<ood>)"},
	{Name: "model", Kind: KindChoice, Choices: []string{"convnet", "mlp", "matmul"},
		Doc: "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)"},
	{Name: "size", Min: 1, Max: 32_768, Kind: KindInt,
		Doc: "matrix size S (matmul)"},
	{Name: "steps", Min: 1, Max: 1_000_000, Kind: KindInt,
		Doc: "timed steps (after one untimed warm-up step)"},
	{Name: "sizes", Max: 16, Kind: KindText,
		Doc: "matmul sizes of -suite, comma-separated"},
	{Name: "batches", Max: 16, Kind: KindText,
		Doc: "ConvNet batch sizes of -suite, comma-separated"},
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
		"freeze-head": &c.FreezeHead,
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
