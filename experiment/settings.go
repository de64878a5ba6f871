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

// The commands of deeplda.
const (
	CmdSynth = "synth"
	CmdTrain = "train"
	CmdSweep = "sweep"
	CmdEval  = "eval"
	CmdBench = "bench"
)

// Setting is one setting of the experiments, declared once with what the
// core knows of it: its name, the type of its value and its bounds. The
// front ends hold their own words for it (the command's flags and help in
// cmd/deeplda, the page's labels, hints, demos and bounds in wasm/config)
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
}

// Settings lists every setting, in the order of the page's form and of
// the command's -h.
var Settings = []Setting{
	{Name: "data", Kind: KindChoice, Choices: images.Names()},
	{Name: "head", Kind: KindChoice, Choices: names(model.HeadLDA, model.HeadSoftmax)},
	{Name: "loss", Kind: KindChoice, Choices: names(kernels.DNLL, kernels.CE, kernels.NLL)},
	{Name: "compare", Kind: KindBool},
	{Name: "lambda", Kind: KindFloat},
	{Name: "lambdas", Max: 100, Kind: KindFloats},
	{Name: "cov", Kind: KindChoice, Choices: names(kernels.Full, kernels.Diagonal, kernels.Spherical)},
	{Name: "epochs", Min: 1, Max: 100_000, Kind: KindInt},
	{Name: "batch", Min: 1, Max: 1_000_000, Kind: KindInt},
	{Name: "limit-train", Max: 10_000_000, Kind: KindInt},
	{Name: "limit-test", Max: 10_000_000, Kind: KindInt},
	{Name: "seed", Kind: KindUint},
	{Name: "backend", Kind: KindChoice, Choices: names(BackendAuto, BackendWebGPU, BackendCPU)},
	{Name: "density", Kind: KindBool},
	{Name: "lr", Kind: KindFloat},
	{Name: "freeze-head", Kind: KindBool},
	{Name: "encoder", Kind: KindChoice, Choices: names(model.EncoderMLP, model.EncoderNone)},
	{Name: "train", Min: 2, Max: 100_000_000, Kind: KindInt},
	{Name: "test", Min: 1, Max: 100_000_000, Kind: KindInt},
	{Name: "data-seed", Kind: KindUint},

	// The native command's only.
	{Name: "datadir", Kind: KindText},
	{Name: "fetch", Kind: KindBool},
	{Name: "val", Max: 1_000_000, Kind: KindInt},
	{Name: "augment", Kind: KindChoice, Choices: []string{AugmentAuto, AugmentNone, AugmentCrop, AugmentFlip, AugmentCropFlip}},
	{Name: "bn-recalibrate", Min: BNAuto, Max: 100_000, Kind: KindInt},
	{Name: "bn-history", Kind: KindBool},
	{Name: "eval-batch", Max: 1_000_000, Kind: KindInt},
	{Name: "seeds", Min: 1, Max: 1_000, Kind: KindInt},
	{Name: "checkpoint", Kind: KindText},
	{Name: "dump", Kind: KindText},
	{Name: "ood", Kind: KindChoice, Choices: images.Names()},
	{Name: "ood-datadir", Kind: KindText},
	{Name: "out", Kind: KindText},
	{Name: "quiet", Kind: KindBool},
	{Name: "resume", Kind: KindBool},
	{Name: "model", Kind: KindChoice, Choices: []string{"convnet", "mlp", "matmul"}},
	{Name: "size", Min: 1, Max: 32_768, Kind: KindInt},
	{Name: "steps", Min: 1, Max: 1_000_000, Kind: KindInt},
	{Name: "cpuprofile", Kind: KindText},
	{Name: "suite", Kind: KindBool},
	{Name: "sizes", Max: 16, Kind: KindText},
	{Name: "batches", Max: 16, Kind: KindText},
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
