package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
)

func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings {
		if seen[s.Name] {
			t.Errorf("%s declared twice", s.Name)
		}
		seen[s.Name] = true
		if (s.Kind == KindChoice) != (len(s.Choices) > 0) {
			t.Errorf("%s: kind %v with choices %v", s.Name, s.Kind, s.Choices)
		}
		if s.Help == "" || (s.Demos != nil && s.Label == "") || (s.Demos == nil && len(s.Commands) == 0) {
			t.Errorf("%s: help %q, label %q, demos %v, commands %v", s.Name, s.Help, s.Label, s.Demos, s.Commands)
		}
		for _, c := range s.Commands {
			if !slices.Contains(allCmds, c) {
				t.Errorf("%s: unknown command %s", s.Name, c)
			}
		}
		for _, d := range s.Demos {
			if !slices.Contains(allDemos, d) {
				t.Errorf("%s: unknown demo %s", s.Name, d)
			}
		}
	}
}

func TestSynthConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit       func(*SynthConfig)
		name, want string
	}{
		{func(c *SynthConfig) { c.Encoder = "cnn" }, "encoder", `encoder must be mlp or none, got "cnn"`},
		{func(c *SynthConfig) { c.Train = 1 }, "train", "train must be at least 2, got 1"},
		{func(c *SynthConfig) { c.Test = 0 }, "test", "test must be at least 1, got 0"},
		{func(c *SynthConfig) { c.Epochs = 0 }, "epochs", "epochs must be at least 1, got 0"},
		{func(c *SynthConfig) { c.Batch = -1 }, "batch", "batch must be at least 1, got -1"},
		{func(c *SynthConfig) { c.Loss = "mse" }, "loss", `loss must be dnll, ce or nll, got "mse"`},
		{func(c *SynthConfig) { c.Cov = "round" }, "cov", `cov must be full, diag or spherical, got "round"`},
		{func(c *SynthConfig) { c.Lambda = math.Inf(1) }, "lambda", "lambda must be a finite number >= 0, got +Inf"},
		{func(c *SynthConfig) { c.LR = -1 }, "lr", "learning rate must be a finite number > 0, got -1"},
	} {
		c := DefaultSynth()
		tc.edit(&c)
		checkSettingError(t, c.Validate(), tc.name, tc.want)
	}
	checkSettingError(t, EvalConfig{Data: "mnist", EvalBatch: 1, Batch: 1}.Validate(), "checkpoint", "checkpoint is required")
	checkSettingError(t, EvalConfig{Checkpoint: "x", Data: "mnist", EvalBatch: 1, Batch: 1, LimitTest: -1}.Validate(), "limit-test", "limit-test must be >= 0")
	checkSettingError(t, BenchConfig{Model: "resnet", Batch: 1, Size: 1, Steps: 1}.Validate(), "model", "model must be convnet, mlp or matmul")
}

// TestParseFormat reads every kind of setting from text and writes it
// back.
func TestParseFormat(t *testing.T) {
	c := DefaultSynth()
	sw := SweepConfig{Base: DefaultImages()}
	var b BackendKind
	var on bool
	for _, tc := range []struct {
		name string
		v    any
		text string
		back string
	}{
		{"loss", &c.Loss, " CE ", "ce"},
		{"epochs", &c.Epochs, "7", "7"},
		{"seed", &c.Seed, "12", "12"},
		{"lambda", &c.Lambda, "1e-3", "0.001"},
		{"compare", &on, "yes", "1"},
		{"backend", &b, "WebGPU", "webgpu"},
		{"lambdas", (*Floats)(&sw.Lambdas), "0.1, 1;10", "0.1,1,10"},
	} {
		if err := setting(tc.name).Parse(tc.text, tc.v); err != nil {
			t.Errorf("%s %q: %v", tc.name, tc.text, err)
		} else if got := Format(tc.v); got != tc.back {
			t.Errorf("%s %q reads back as %q, want %q", tc.name, tc.text, got, tc.back)
		}
	}
	for _, tc := range []struct {
		name string
		v    any
		text string
		want string
	}{
		{"epochs", &c.Epochs, "2.5", `epochs must be a whole number, got "2.5"`},
		{"train", &c.Train, "5000000", "train must be at most 1000000 in the browser, got 5000000"},
		{"seed", &c.Seed, "-1", `seed must be a whole number >= 0, got "-1"`},
		{"lambda", &c.Lambda, "abc", `lambda must be a number, got "abc"`},
		{"compare", &on, "maybe", `compare must be 1 or 0, got "maybe"`},
		{"backend", &b, "tpu", `backend must be auto, webgpu or cpu, got "tpu"`},
		{"lambdas", (*Floats)(&sw.Lambdas), "0.1,abc", `lambdas must be numbers: "abc" is not a number`},
		{"lambdas", (*Floats)(&sw.Lambdas), " ", "lambdas must list 1 to 12 numbers, got 0"},
	} {
		checkSettingError(t, setting(tc.name).Parse(tc.text, tc.v), tc.name, tc.want)
	}
}

func TestBackendKind(t *testing.T) {
	for _, k := range []BackendKind{BackendCPU, BackendWebGPU, BackendAuto} {
		if got, err := ParseBackend(k.String()); err != nil || got != k {
			t.Errorf("%s: %v, %v", k, got, err)
		}
	}
	if _, err := ParseBackend("gpu"); err == nil {
		t.Error("gpu parsed")
	}
	be := cpu.New()
	defer be.Close()
	if got := BackendOf(be); got != BackendCPU {
		t.Errorf("the CPU backend is %q", got)
	}
}
