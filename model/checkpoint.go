package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/safetensors"
)

// Names of the optional tensors that TrainingState adds to State: Adam's
// moments of each parameter (OptimM or OptimV followed by the parameter's
// name), its step count, and the loss statistics accumulated since the
// last ResetStats. PyTorch ignores them with load_state_dict(strict=False).
const (
	OptimM     = "optim.m."    // F32, the parameter's shape: Adam's first moment
	OptimV     = "optim.v."    // F32, the parameter's shape: Adam's second moment
	OptimStep  = "optim.step"  // I32 scalar: the Adam steps taken
	TrainStats = "train.stats" // F32 [kernels.StatsLen]: loss statistics
)

// SpecKey is the metadata key under which State stores the model's Spec
// as JSON.
const SpecKey = "spec"

// MaxWeight bounds the magnitude of every parameter and BatchNorm running
// estimate that LoadState accepts. Training does not come near it: Adam
// moves a parameter by at most about 3.2 lr a step ((1-beta1)/sqrt(1-beta2)
// with beta1 0.9 and beta2 0.999), some 75 in 100 epochs of the paper's
// 235 steps at lr 1e-3, and a running estimate is an average of batch
// statistics of such weights. Yet it is far below float32's overflow
// (3.4e38): a 256-wide dot product of values of 1e6 stays under 3e14.
const MaxWeight = 1e6

// State reads every parameter and buffer back from the backend into a
// safetensors file with PyTorch's names (num_batches_tracked as I32 scalars).
// The model's spec is stored in the metadata under SpecKey.
func (m *Model) State() (*safetensors.File, error) { return m.state(false) }

// TrainingState is State plus what training needs to go on exactly where
// it stands: Adam's moments and step count and the loss statistics (see
// OptimM). LoadState of it into a model of the same spec, on any backend,
// continues the same run.
func (m *Model) TrainingState() (*safetensors.File, error) { return m.state(true) }

// state reads the model back; training adds the optimizer and statistics.
// Each arena is read in one piece (one round trip on a GPU).
func (m *Model) state(training bool) (*safetensors.File, error) {
	f := safetensors.New()
	type part struct {
		what, prefix string
		t            kernels.Tensor
	}
	arenas := []part{{"the parameters", "", m.arena.value}}
	if training {
		arenas = append(arenas, part{"Adam's first moments", OptimM, m.arena.m}, part{"Adam's second moments", OptimV, m.arena.v})
	}
	for _, a := range arenas {
		v, err := m.Backend.Read(a.t)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", a.what, err)
		}
		for _, p := range m.Params {
			end := p.offset + kernels.Numel(p.Shape)
			f.Set(a.prefix+p.Name, safetensors.NewF32(v[p.offset:end:end], p.Shape...))
		}
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
	if training {
		s, err := m.Backend.Read(m.stats)
		if err != nil {
			return nil, fmt.Errorf("reading the loss statistics: %w", err)
		}
		f.Set(TrainStats, safetensors.NewF32(s, kernels.StatsLen))
		f.Set(OptimStep, safetensors.NewI32([]int32{int32(m.step)}))
	}
	spec, err := json.Marshal(m.Spec)
	if err != nil {
		return nil, err
	}
	f.Metadata[SpecKey] = string(spec)
	return f, nil
}

// SavedSpec returns the spec that State stored in f's metadata, checked
// with Validate; ok is false when f has none (a checkpoint that PyTorch
// wrote). The error names the field at fault ("spec: loss is 7, want 0
// (nll), 1 (ce) or 2 (dnll)").
func SavedSpec(f *safetensors.File) (s Spec, ok bool, err error) {
	raw, ok := f.Metadata[SpecKey]
	if !ok {
		return s, false, nil
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return s, true, fmt.Errorf("spec: %w", err)
	}
	if err := s.Validate(); err != nil {
		return s, true, fmt.Errorf("spec: %w", err)
	}
	return s, true, nil
}

// LoadState sets every parameter and buffer from the tensors of f named
// prefix+name. Every parameter and running estimate must be present with the
// right shape; num_batches_tracked is optional. With prefix+OptimStep in f
// (a TrainingState), Adam's moments of every parameter must be there too
// and are loaded with the step count; without it Adam starts afresh (zero
// moments, step 0). The loss statistics are loaded when f has them and
// reset otherwise. Other tensors are ignored. A value that no trained
// model holds is refused, naming the tensor, the index and the reason:
// NaN or an infinity anywhere, a parameter or running estimate beyond
// ±MaxWeight, a running variance <= 0, a negative second moment of Adam or
// a negative count. On error the model is left unchanged.
func (m *Model) LoadState(f *safetensors.File, prefix string) error {
	n := kernels.Numel(m.arena.value.Shape())
	value, mom, vel := make([]float32, n), make([]float32, n), make([]float32, n)
	into := func(dst []float32, name string, shape []int) error {
		t, err := f.Get(prefix + name)
		if err == nil {
			err = t.Check(prefix+name, safetensors.F32, shape...)
		}
		if err != nil {
			return err
		}
		copy(dst, t.F32)
		return nil
	}
	checked := func(dst []float32, name string, shape []int, bad func(float64) string) error {
		if err := into(dst, name, shape); err != nil {
			return err
		}
		for i, v := range dst {
			if why := bad(float64(v)); why != "" {
				return fmt.Errorf("tensor %q holds %v at index %d: %s", prefix+name, v, i, why)
			}
		}
		return nil
	}
	_, optim := f.Tensors[prefix+OptimStep]
	step := 0
	if optim {
		t := f.Tensors[prefix+OptimStep]
		if err := t.Check(prefix+OptimStep, safetensors.I32); err != nil {
			return err
		}
		if step = int(t.I32[0]); step < 0 {
			return fmt.Errorf("tensor %q is %d, want a step count >= 0", prefix+OptimStep, step)
		}
	}
	for _, p := range m.Params {
		end := p.offset + kernels.Numel(p.Shape)
		if err := checked(value[p.offset:end], p.Name, p.Shape, badWeight); err != nil {
			return err
		}
		if !optim {
			continue
		}
		if err := checked(mom[p.offset:end], OptimM+p.Name, p.Shape, nonFinite); err != nil {
			return err
		}
		if err := checked(vel[p.offset:end], OptimV+p.Name, p.Shape, badSecondMoment); err != nil {
			return err
		}
	}
	variances := map[*Buffer]bool{}
	for _, bn := range m.BatchNorms() {
		variances[bn.RunVar] = true
	}
	buffers := make([][]float32, len(m.Buffers))
	for i, b := range m.Buffers {
		bad := badWeight
		if variances[b] {
			bad = badVariance
		}
		buffers[i] = make([]float32, kernels.Numel(b.Shape))
		if err := checked(buffers[i], b.Name, b.Shape, bad); err != nil {
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
		if counts[name] = int(t.I32[0]); counts[name] < 0 {
			return fmt.Errorf("tensor %q is %d, want a count >= 0", prefix+name, counts[name])
		}
	}
	var stats []float32
	if _, ok := f.Tensors[prefix+TrainStats]; ok {
		stats = make([]float32, kernels.StatsLen)
		if err := into(stats, TrainStats, []int{kernels.StatsLen}); err != nil {
			return err
		}
	}
	m.Backend.Write(m.arena.value, value)
	m.Backend.Write(m.arena.m, mom)
	m.Backend.Write(m.arena.v, vel)
	m.step = step
	for i, b := range m.Buffers {
		m.Backend.Write(b.T, buffers[i])
	}
	for name, n := range counts {
		*m.counts[name] = n
	}
	if stats != nil {
		m.Backend.Write(m.stats, stats)
	} else {
		m.ResetStats()
	}
	return nil
}

// The rules of LoadState's values: each returns why v cannot be a value
// of its tensor, or "" when it can.

// nonFinite refuses NaN and the infinities (Adam's first moments).
func nonFinite(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "a model with non-finite values cannot be used"
	}
	return ""
}

// badWeight refuses a parameter or running mean that is not finite or
// beyond ±MaxWeight.
func badWeight(v float64) string {
	if why := nonFinite(v); why != "" {
		return why
	}
	if math.Abs(v) > MaxWeight {
		return fmt.Sprintf("a weight must be within ±%g", float64(MaxWeight))
	}
	return ""
}

// badVariance refuses a BatchNorm running variance that is not a weight
// (badWeight) or not > 0.
func badVariance(v float64) string {
	if why := badWeight(v); why != "" {
		return why
	}
	if v <= 0 {
		return "a variance must be > 0"
	}
	return ""
}

// badSecondMoment refuses an Adam second moment that is not finite or
// negative (it is a mean of squares).
func badSecondMoment(v float64) string {
	if why := nonFinite(v); why != "" {
		return why
	}
	if v < 0 {
		return "Adam's second moment, a mean of squares, must be >= 0"
	}
	return ""
}

// StateOf returns the State part of a TrainingState f: the same file
// without Adam's moments and step and the loss statistics (sharing the
// tensors' data), so that one read-back serves both.
func StateOf(f *safetensors.File) *safetensors.File {
	out := safetensors.New()
	maps.Copy(out.Metadata, f.Metadata)
	for name, t := range f.Tensors {
		if !strings.HasPrefix(name, OptimM) && !strings.HasPrefix(name, OptimV) && name != OptimStep && name != TrainStats {
			out.Tensors[name] = t
		}
	}
	return out
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

// LoadCheckpoint loads the model's state from a safetensors file, whose
// spec, when it has one, is checked first (SavedSpec).
func (m *Model) LoadCheckpoint(path string) error {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return err
	}
	if _, _, err = SavedSpec(f); err == nil {
		err = m.LoadState(f, "")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
