package experiment

import (
	"math"
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
		if s.Min < 0 && s.Kind != KindInt || s.Max != 0 && s.Max < s.Min {
			t.Errorf("%s: bounds %d to %d", s.Name, s.Min, s.Max)
		}
	}
	// Every variable a configuration binds is a row's.
	for _, c := range []settingBinder{&SynthConfig{}, &ImageConfig{}, &SweepConfig{}, &EvalConfig{}, &OODConfig{}, &BenchConfig{}} {
		for name := range c.settingVars() {
			if !seen[name] {
				t.Errorf("%T binds %s, which no row declares", c, name)
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
