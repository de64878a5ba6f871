package model

import (
	"encoding/json"
	"fmt"

	"github.com/deeplda/deeplda/safetensors"
)

// State reads every parameter and buffer back from the backend into a
// safetensors file with PyTorch's names (num_batches_tracked as I32 scalars).
// The model's spec is stored in the metadata under "spec".
func (m *Model) State() (*safetensors.File, error) {
	f := safetensors.New()
	for _, p := range m.Params {
		v, err := m.Backend.Read(p.Value)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p.Name, err)
		}
		f.Set(p.Name, safetensors.NewF32(v, p.Shape...))
	}
	for _, b := range m.Buffers {
		v, err := m.Backend.Read(b.T)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", b.Name, err)
		}
		f.Set(b.Name, safetensors.NewF32(v, b.Shape...))
	}
	for name, n := range m.counts {
		f.Set(name, safetensors.NewI32([]int32{int32(*n)}))
	}
	spec, err := json.Marshal(m.Spec)
	if err != nil {
		return nil, err
	}
	f.Metadata["spec"] = string(spec)
	return f, nil
}

// LoadState sets every parameter and buffer from the tensors of f named
// prefix+name. Every parameter and running estimate must be present with the
// right shape; num_batches_tracked is optional. Extra tensors are ignored.
// On error the model is left unchanged.
func (m *Model) LoadState(f *safetensors.File, prefix string) error {
	values := make([][]float32, 0, len(m.Params)+len(m.Buffers))
	get := func(name string, shape []int) error {
		t, err := f.Get(prefix + name)
		if err == nil {
			err = t.Check(prefix+name, safetensors.F32, shape...)
		}
		values = append(values, t.F32)
		return err
	}
	for _, p := range m.Params {
		if err := get(p.Name, p.Shape); err != nil {
			return err
		}
	}
	for _, b := range m.Buffers {
		if err := get(b.Name, b.Shape); err != nil {
			return err
		}
	}
	counts := map[string]int{}
	for name := range m.counts {
		t, err := f.Get(prefix + name)
		if err != nil {
			continue
		}
		if err := t.Check(prefix+name, safetensors.I32); err != nil {
			return err
		}
		counts[name] = int(t.I32[0])
	}
	for i, p := range m.Params {
		m.Backend.Write(p.Value, values[i])
	}
	for i, b := range m.Buffers {
		m.Backend.Write(b.T, values[len(m.Params)+i])
	}
	for name, n := range counts {
		*m.counts[name] = n
	}
	return nil
}

// SaveCheckpoint writes the model's state to path (atomically: an existing
// file is replaced only by a complete new one).
func (m *Model) SaveCheckpoint(path string) error {
	f, err := m.State()
	if err != nil {
		return err
	}
	return safetensors.WriteFile(path, f)
}

// LoadCheckpoint loads the model's state from a safetensors file.
func (m *Model) LoadCheckpoint(path string) error {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return err
	}
	if err := m.LoadState(f, ""); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
