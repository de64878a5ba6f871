package model_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

func newMLP(t *testing.T, seed uint64) *model.Model {
	t.Helper()
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.safetensors")
	a, b := newMLP(t, 1), newMLP(t, 2)
	if err := a.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	if err := b.LoadCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params {
		va, _ := a.Backend.Read(p.Value)
		vb, _ := b.Backend.Read(b.Params[i].Value)
		for j := range va {
			if va[j] != vb[j] {
				t.Fatalf("%s[%d]: %v after loading, want %v", p.Name, j, vb[j], va[j])
			}
		}
	}
}

func TestCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	m := newMLP(t, 1)
	state, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, f *safetensors.File) string {
		p := filepath.Join(dir, name)
		if err := safetensors.WriteFile(p, f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := safetensors.New()
	for _, n := range state.Names() {
		if n != "head.mu" {
			missing.Set(n, state.Tensors[n])
		}
	}
	misshaped := safetensors.New()
	for _, n := range state.Names() {
		misshaped.Set(n, state.Tensors[n])
	}
	misshaped.Set("enc.fc1.weight", safetensors.NewF32(make([]float32, 64), 2, 32))
	good := write("good.safetensors", state)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.safetensors")
	if err := os.WriteFile(truncated, raw[:len(raw)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{write("missing.safetensors", missing), `missing tensor "head.mu"`},
		{write("misshaped.safetensors", misshaped), `tensor "enc.fc1.weight" has shape [2,32], want [32,2]`},
		{truncated, "truncated"},
		{filepath.Join(dir, "absent.safetensors"), "no such file"},
	} {
		before, _ := m.Backend.Read(m.Params[0].Value)
		err := m.LoadCheckpoint(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", filepath.Base(tc.path), err, tc.want)
		}
		after, _ := m.Backend.Read(m.Params[0].Value)
		for i := range before {
			if before[i] != after[i] {
				t.Fatalf("%s: a failed load changed the model", filepath.Base(tc.path))
			}
		}
	}
}
