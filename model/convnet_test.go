package model_test

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// checkpointFile returns the tensor names and shapes of a ConvNet
// checkpoint with the given head tensors.
func checkpointFile(cin, d int, head map[string][]int) *safetensors.File {
	f := safetensors.New()
	add := func(name string, shape ...int) {
		f.Set(name, safetensors.NewF32(make([]float32, kernels.Numel(shape)), shape...))
	}
	add("enc.conv1.weight", 64, cin, 3, 3)
	add("enc.proj.weight", d, 256)
	for n, s := range head {
		add(n, s...)
	}
	return f
}

func TestConvNetSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		cin  int
		head map[string][]int
		want model.Spec
	}{
		{"spherical", 1, map[string][]int{"head.mu": {10, 9}, "head.log_var": {}}, model.Spec{Head: model.HeadLDA, Cov: kernels.Spherical, Classes: 10, Dim: 9, Input: []int{1, 28, 28}}},
		{"diag", 3, map[string][]int{"head.mu": {10, 9}, "head.log_var": {9}}, model.Spec{Head: model.HeadLDA, Cov: kernels.Diagonal, Classes: 10, Dim: 9, Input: []int{3, 28, 28}}},
		{"full", 1, map[string][]int{"head.mu": {100, 99}, "head.raw_tril": {99, 99}}, model.Spec{Head: model.HeadLDA, Cov: kernels.Full, Classes: 100, Dim: 99, Input: []int{1, 28, 28}}},
		{"softmax", 1, map[string][]int{"head.linear.weight": {10, 9}, "head.linear.bias": {10}}, model.Spec{Head: model.HeadSoftmax, Classes: 10, Dim: 9, Input: []int{1, 28, 28}, Loss: kernels.CE}},
	} {
		s, err := model.ConvNetSpec(checkpointFile(tc.cin, tc.want.Dim, tc.head), [2]int{28, 28})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Head != tc.want.Head || s.Cov != tc.want.Cov || s.Classes != tc.want.Classes || s.Dim != tc.want.Dim ||
			s.Input[0] != tc.want.Input[0] || s.Encoder != model.EncoderConvNet || (s.Head == model.HeadSoftmax) != (s.Loss == kernels.CE) {
			t.Errorf("%s: inferred %+v", tc.name, s)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: inferred spec invalid: %v", tc.name, err)
		}
	}
	bad := []struct {
		f    *safetensors.File
		want string
	}{
		{safetensors.New(), "no tensor enc.conv1.weight"},
		{checkpointFile(1, 9, nil), "no head.mu"},
		{checkpointFile(1, 9, map[string][]int{"head.mu": {10, 9}}), "neither head.log_var nor head.raw_tril"},
		{checkpointFile(1, 9, map[string][]int{"head.mu": {10, 8}, "head.log_var": {}}), "want [C 9]"},
		{checkpointFile(1, 9, map[string][]int{"head.mu": {10, 9}, "head.log_var": {3, 3}}), "head.log_var has shape"},
		{checkpointFile(1, 9, map[string][]int{"head.linear.weight": {10}}), "want 2 dimensions"},
	}
	for _, tc := range bad {
		if _, err := model.ConvNetSpec(tc.f, [2]int{28, 28}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	f := checkpointFile(1, 9, nil)
	f.Set("enc.conv1.weight", safetensors.NewF32(make([]float32, 64*9), 64, 1, 9))
	if _, err := model.ConvNetSpec(f, [2]int{28, 28}); err == nil || !strings.Contains(err.Error(), "want 4 dimensions") {
		t.Errorf("3-D conv1: %v", err)
	}
}

// TestConvNetRoundTrip saves a model and loads it back through the
// inferred spec, with the loss and lambda from the metadata.
func TestConvNetRoundTrip(t *testing.T) {
	be := cpu.New()
	spec := model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 8, 8}, Classes: 4, Dim: 3, Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.NLL, Lambda: 0.5, LR: 1e-3, Seed: 3}
	m, err := model.New(be, spec)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/ck.safetensors"
	if err := m.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	got, err := model.LoadConvNet(be, path, [2]int{8, 8})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Cov != kernels.Full || got.Spec.Loss != kernels.NLL || got.Spec.Lambda != 0.5 || got.Spec.Classes != 4 {
		t.Errorf("loaded spec %+v", got.Spec)
	}
	for i, p := range m.Params {
		a, _ := be.Read(p.Value)
		b, _ := be.Read(got.Params[i].Value)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s differs after the round trip", p.Name)
			}
		}
	}
	if _, err := model.LoadConvNet(be, t.TempDir()+"/none.safetensors", [2]int{8, 8}); err == nil {
		t.Error("missing file: no error")
	}
}
