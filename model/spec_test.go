package model_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// convSpec is a small ConvNet with an LDA head.
var convSpec = model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 4, 4}, Classes: 3, Dim: 2,
	Head: model.HeadLDA, Cov: kernels.Diagonal, Loss: kernels.NLL, Lambda: 0.5, LR: 2e-3, Seed: 1}

// TestSpecFieldRanges refuses each field of a spec out of its range, the
// kinds by value and name, lambda and the learning rate with the settings'
// words, and accepts every kind.
func TestSpecFieldRanges(t *testing.T) {
	for _, tc := range []struct {
		change func(*model.Spec)
		want   string
	}{
		{func(s *model.Spec) { s.Loss = 7 }, "loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{func(s *model.Spec) { s.Loss = -1 }, "loss is -1, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{func(s *model.Spec) { s.Cov = 3 }, "covariance is 3, want 0 (spherical), 1 (diag) or 2 (full)"},
		{func(s *model.Spec) { s.Head = 0 }, "head is 0, want 1 (lda) or 2 (softmax)"},
		{func(s *model.Spec) { s.Encoder = 4 }, "encoder is 4, want 1 (none), 2 (mlp) or 3 (convnet)"},
		{func(s *model.Spec) { s.Lambda = -5 }, "lambda must be a finite number >= 0, got -5"},
		{func(s *model.Spec) { s.Lambda = math.NaN() }, "lambda must be a finite number >= 0, got NaN"},
		{func(s *model.Spec) { s.LR = 0 }, "learning rate must be a finite number > 0, got 0"},
		{func(s *model.Spec) { s.LR = math.Inf(1) }, "learning rate must be a finite number > 0, got +Inf"},
		{func(s *model.Spec) { s.Classes = 1 }, "need at least 2 classes, got 1"},
		{func(s *model.Spec) { s.Dim = 0 }, "embedding dimension must be positive, got 0"},
	} {
		s := convSpec
		tc.change(&s)
		if err := s.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", s, err, tc.want)
		}
	}
	for _, enc := range []model.EncoderKind{model.EncoderNone, model.EncoderMLP, model.EncoderConvNet} {
		for _, cov := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
			for _, loss := range []kernels.LossKind{kernels.NLL, kernels.CE, kernels.DNLL} {
				s := convSpec
				s.Encoder, s.Cov, s.Loss = enc, cov, loss
				if err := s.Validate(); err != nil {
					t.Errorf("%v %v %v: %v", enc, cov, loss, err)
				}
			}
		}
	}
}

// withSpec returns a copy of f whose metadata holds raw as its spec.
func withSpec(f *safetensors.File, raw string) *safetensors.File {
	g := safetensors.New()
	for k, v := range f.Tensors {
		g.Tensors[k] = v
	}
	g.Metadata[model.SpecKey] = raw
	return g
}

// specJSON returns convSpec changed by change, as State stores it.
func specJSON(t *testing.T, change func(*model.Spec)) string {
	t.Helper()
	s := convSpec
	change(&s)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConvNetSpecChecksSavedSpec opens a ConvNet checkpoint whose saved
// spec is out of range, unreadable or of another model: ConvNetSpec
// refuses each, naming the field; a good one gives the loss, lambda and
// learning rate, and a file without one (PyTorch's) the defaults.
func TestConvNetSpecChecksSavedSpec(t *testing.T) {
	m, err := model.New(cpu.New(), convSpec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	hw := [2]int{4, 4}
	s, err := model.ConvNetSpec(f, hw)
	if err != nil || s.Loss != convSpec.Loss || s.Lambda != convSpec.Lambda || s.LR != convSpec.LR {
		t.Errorf("the saved spec: %+v, %v; want its loss, lambda and learning rate", s, err)
	}
	plain := withSpec(f, "")
	delete(plain.Metadata, model.SpecKey)
	if s, err := model.ConvNetSpec(plain, hw); err != nil || s.Loss != kernels.DNLL || s.Lambda != 0.01 || s.LR != 1e-3 {
		t.Errorf("no saved spec: %+v, %v; want DNLL, lambda 0.01, lr 1e-3", s, err)
	}
	for _, tc := range []struct{ raw, want string }{
		{specJSON(t, func(s *model.Spec) { s.Loss = 7 }), "spec: loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{specJSON(t, func(s *model.Spec) { s.Loss = -1 }), "spec: loss is -1, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{specJSON(t, func(s *model.Spec) { s.Lambda = -5 }), "spec: lambda must be a finite number >= 0, got -5"},
		{specJSON(t, func(s *model.Spec) { s.LR = -1 }), "spec: learning rate must be a finite number > 0, got -1"},
		{specJSON(t, func(s *model.Spec) { s.Cov = 9 }), "spec: covariance is 9, want 0 (spherical), 1 (diag) or 2 (full)"},
		{specJSON(t, func(s *model.Spec) { s.Classes = model.MaxClasses + 1 }), "spec: 10001 classes is over the limit of 10000"},
		{`{"Loss": "dnll"}`, "spec: json: cannot unmarshal string"},
		{`{"Head": "gaussian"}`, `spec: unknown head "gaussian" (want lda or softmax)`},
		{`{"Loss": 2}`, "spec: encoder is 0, want 1 (none), 2 (mlp) or 3 (convnet)"},
		{`not json`, "spec: invalid character"},
		{specJSON(t, func(s *model.Spec) { s.Head, s.Loss = model.HeadSoftmax, kernels.CE }), "spec: head is softmax but the tensors hold lda"},
		{specJSON(t, func(s *model.Spec) { s.Cov = kernels.Full }), "spec: covariance is full but the tensors hold diag"},
		{specJSON(t, func(s *model.Spec) { s.Dim = 5 }), "spec: dim is 5 but the tensors hold 2"},
		{specJSON(t, func(s *model.Spec) { s.Classes = 10 }), "spec: classes is 10 but the tensors hold 3"},
		{specJSON(t, func(s *model.Spec) { s.Encoder, s.Input = model.EncoderMLP, []int{16} }), "spec: input is [16] but enc.conv1.weight takes 1-channel images"},
		{specJSON(t, func(s *model.Spec) { s.Encoder = model.EncoderMLP }), "spec: encoder is mlp but the tensors hold convnet"},
	} {
		_, err := model.ConvNetSpec(withSpec(f, tc.raw), hw)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("spec %s: error %v, want %q", tc.raw, err, tc.want)
		}
	}
}

// TestSavedSpec reads back the spec that State stores, and says when a
// file has none.
func TestSavedSpec(t *testing.T) {
	m, err := model.New(cpu.New(), convSpec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := model.SavedSpec(f)
	if !ok || err != nil || s.Loss != convSpec.Loss || s.Cov != convSpec.Cov || s.Seed != convSpec.Seed {
		t.Errorf("SavedSpec of a State: %+v, %v, %v", s, ok, err)
	}
	if _, ok, err := model.SavedSpec(safetensors.New()); ok || err != nil {
		t.Errorf("SavedSpec of a file without one: %v, %v; want false, nil", ok, err)
	}
}

// TestLoadCheckpointChecksSpec loads a toy model's checkpoint whose saved
// spec has a loss of 7: LoadCheckpoint refuses it, naming the file and the
// field, and leaves the model as it was.
func TestLoadCheckpointChecksSpec(t *testing.T) {
	m := newMLP(t, 1)
	f, err := newMLP(t, 2).State()
	if err != nil {
		t.Fatal(err)
	}
	s := m.Spec
	s.Loss = 7
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "loss7.safetensors")
	if err := safetensors.WriteFile(path, withSpec(f, string(raw))); err != nil {
		t.Fatal(err)
	}
	before, _ := m.Backend.Read(m.Params[0].Value)
	want := path + ": spec: loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"
	if err := m.LoadCheckpoint(path); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if after, _ := m.Backend.Read(m.Params[0].Value); !slices.Equal(before, after) {
		t.Error("a refused checkpoint changed the model")
	}
}
