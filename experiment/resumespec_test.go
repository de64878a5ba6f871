package experiment

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// TestResumeChecksTheModel resumes toy runs (the MLP and classical LDA)
// from resume files whose model is out of range: a spec's loss of 7 or
// lambda of -5, a weight of 3e38, a negative second moment of Adam. Resume
// refuses each as eval refuses such a checkpoint, naming the file, the
// field or tensor and the reason, and the run stays at its start.
func TestResumeChecksTheModel(t *testing.T) {
	for _, encoder := range []model.EncoderKind{model.EncoderMLP, model.EncoderNone} {
		t.Run(encoder.String(), func(t *testing.T) {
			c := DefaultSynth()
			c.Encoder, c.Epochs, c.Train, c.Test = encoder.String(), 2, 200, 50
			r, err := NewSynth(cpu.New(), c)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Epoch(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			saved := filepath.Join(dir, ResumeFile)
			if _, err := r.SaveEpoch(filepath.Join(dir, CheckpointFile), saved); err != nil {
				t.Fatal(err)
			}
			spec := func(change func(*model.Spec)) func(*safetensors.File) {
				return func(f *safetensors.File) {
					s := r.Model.Spec
					change(&s)
					raw, err := json.Marshal(s)
					if err != nil {
						t.Fatal(err)
					}
					f.Metadata[model.SpecKey] = string(raw)
				}
			}
			value := func(name string, v float32) func(*safetensors.File) {
				return func(f *safetensors.File) {
					vals := slices.Clone(f.Tensors[name].F32)
					vals[1] = v
					f.Set(name, safetensors.NewF32(vals, f.Tensors[name].Shape...))
				}
			}
			for i, tc := range []struct {
				change func(*safetensors.File)
				want   string
			}{
				{spec(func(s *model.Spec) { s.Loss = 7 }), "spec: loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"},
				{spec(func(s *model.Spec) { s.Lambda = -5 }), "spec: lambda must be a finite number >= 0, got -5"},
				{value("head.mu", 3e38), `tensor "head.mu" holds 3e+38 at index 1: a weight must be within ±1e+06`},
				{value(model.OptimV+"head.mu", -1), `tensor "optim.v.head.mu" holds -1 at index 1: Adam's second moment, a mean of squares, must be >= 0`},
			} {
				f, err := safetensors.ReadFile(saved)
				if err != nil {
					t.Fatal(err)
				}
				tc.change(f)
				path := filepath.Join(dir, "bad.safetensors")
				if err := safetensors.WriteFile(path, f); err != nil {
					t.Fatal(err)
				}
				fresh, err := NewSynth(cpu.New(), c)
				if err != nil {
					t.Fatal(err)
				}
				if err := fresh.Resume(path); err == nil || err.Error() != path+": "+tc.want {
					t.Errorf("case %d: error %v, want %q", i, err, path+": "+tc.want)
				}
				if fresh.Trainer.Epoch() != 0 || fresh.Model.Step() != 0 || len(fresh.Report.History) != 0 {
					t.Errorf("case %d: a refused resume moved the run to epoch %d", i, fresh.Trainer.Epoch())
				}
			}
		})
	}
}
