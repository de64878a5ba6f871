package model_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
		// Case-insensitive: Node.js (the js/wasm tests) says "No such file".
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
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

// trained returns newMLP(seed) after a few Adam steps on random data.
func trained(t *testing.T, seed uint64, steps int) *model.Model {
	t.Helper()
	m := newMLP(t, seed)
	x := m.Backend.Alloc(kernels.Float32, 8, 2)
	y := m.Backend.Alloc(kernels.Int32, 8)
	m.Backend.Write(x, []float32{1, 2, -1, 0.5, 3, -2, 0, 1, 2, 2, -1, -1, 0.5, 0, 1, -3})
	m.Backend.WriteInt(y, []int32{0, 1, 2, 0, 1, 2, 0, 1})
	for range steps {
		m.TrainStep(x, y)
	}
	return m
}

// TestTrainingStateRoundTrip loads a trained model's TrainingState into a
// fresh model: everything, Adam's moments and step and the loss statistics
// included, comes back bit for bit; State keeps PyTorch's names only.
func TestTrainingStateRoundTrip(t *testing.T) {
	a := trained(t, 1, 5)
	full, err := a.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plain.Names() {
		if strings.HasPrefix(n, "optim.") || strings.HasPrefix(n, "train.") {
			t.Errorf("State has %s", n)
		}
		if _, ok := full.Tensors[n]; !ok {
			t.Errorf("TrainingState lacks %s", n)
		}
	}
	if got, want := len(full.Names()), len(plain.Names())+2*len(a.Params)+2; got != want {
		t.Errorf("TrainingState has %d tensors, want %d", got, want)
	}
	if s := full.Tensors[model.OptimStep].I32[0]; s != 5 {
		t.Errorf("optim.step %d, want 5", s)
	}
	raw, err := safetensors.Encode(full)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := safetensors.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	b := newMLP(t, 2)
	if err := b.LoadState(decoded, ""); err != nil {
		t.Fatal(err)
	}
	if b.Step() != 5 {
		t.Errorf("step %d after loading, want 5", b.Step())
	}
	back, err := b.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range full.Names() {
		fa, fb := full.Tensors[n], back.Tensors[n]
		if !slices.Equal(fa.F32, fb.F32) || !slices.Equal(fa.I32, fb.I32) {
			t.Errorf("%s differs after the round trip", n)
		}
	}
	stats, err := b.ReadStats()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Count != 40 {
		t.Errorf("loss statistics count %d after loading, want 40", stats.Count)
	}
}

// TestLoadStateWithoutOptimizer loads a checkpoint without optimizer state
// into a trained model: the parameters come from the file and Adam starts
// afresh.
func TestLoadStateWithoutOptimizer(t *testing.T) {
	src, err := newMLP(t, 3).State()
	if err != nil {
		t.Fatal(err)
	}
	m := trained(t, 1, 4)
	if err := m.LoadState(src, ""); err != nil {
		t.Fatal(err)
	}
	got, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	if m.Step() != 0 {
		t.Errorf("step %d, want 0", m.Step())
	}
	for _, p := range m.Params {
		if !slices.Equal(got.Tensors[p.Name].F32, src.Tensors[p.Name].F32) {
			t.Errorf("%s not loaded", p.Name)
		}
		for _, n := range []string{model.OptimM + p.Name, model.OptimV + p.Name} {
			for _, v := range got.Tensors[n].F32 {
				if v != 0 {
					t.Fatalf("%s not reset", n)
				}
			}
		}
	}
}

// TestLoadStateIncompleteOptimizer rejects a training state that lacks one
// moment, and leaves the model unchanged.
func TestLoadStateIncompleteOptimizer(t *testing.T) {
	full, err := trained(t, 1, 3).TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	delete(full.Tensors, model.OptimV+"head.mu")
	m := trained(t, 2, 2)
	before, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	err = m.LoadState(full, "")
	if err == nil || !strings.Contains(err.Error(), `missing tensor "optim.v.head.mu"`) {
		t.Errorf("error %v, want it to name optim.v.head.mu", err)
	}
	after, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range before.Names() {
		if !slices.Equal(before.Tensors[n].F32, after.Tensors[n].F32) || !slices.Equal(before.Tensors[n].I32, after.Tensors[n].I32) {
			t.Errorf("a failed load changed %s", n)
		}
	}
}

// TestStateOf checks that the State part of a TrainingState is State.
func TestStateOf(t *testing.T) {
	m := newMLP(t, 3)
	full, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	got := model.StateOf(full)
	if !slices.Equal(got.Names(), want.Names()) || got.Metadata["spec"] != want.Metadata["spec"] {
		t.Fatalf("StateOf: tensors %v, want %v", got.Names(), want.Names())
	}
	for _, n := range want.Names() {
		if !slices.Equal(got.Tensors[n].F32, want.Tensors[n].F32) || !slices.Equal(got.Tensors[n].I32, want.Tensors[n].I32) {
			t.Errorf("StateOf: %s differs", n)
		}
	}
	if len(full.Names()) == len(want.Names()) {
		t.Error("the TrainingState has no more tensors than the State: the test compares nothing")
	}
}

// TestLoadStateRefusesNonFinite poisons one value of a parameter, of an
// Adam moment and of a BatchNorm running estimate in turn: LoadState
// refuses each, naming the tensor, and leaves the model unchanged.
func TestLoadStateRefusesNonFinite(t *testing.T) {
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 4, 4}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	before, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    float64
	}{
		{"head.mu", math.NaN()},
		{"enc.proj.weight", math.Inf(1)},
		{model.OptimV + "enc.conv1.bias", math.Inf(-1)},
		{"enc.bn2.running_var", math.NaN()},
	} {
		f, err := m.TrainingState()
		if err != nil {
			t.Fatal(err)
		}
		bad := slices.Clone(f.Tensors[tc.name].F32)
		bad[1] = float32(tc.v)
		f.Set(tc.name, safetensors.NewF32(bad, f.Tensors[tc.name].Shape...))
		err = m.LoadState(f, "")
		want := fmt.Sprintf("tensor %q holds %v at index 1", tc.name, float32(tc.v))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s = %v: error %v, want it to say %q", tc.name, tc.v, err, want)
		}
	}
	after, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range before.Names() {
		if !slices.Equal(before.Tensors[n].F32, after.Tensors[n].F32) {
			t.Errorf("a refused load changed %s", n)
		}
	}
}

// TestLoadStateRefusesMeaningless sets values that are finite but that no
// trained model holds: a BatchNorm running variance <= 0, a weight or
// running mean beyond model.MaxWeight, a negative second moment of Adam or
// count. LoadState refuses each, naming the tensor, the index and the
// reason, and leaves the model unchanged; values at the bounds load.
func TestLoadStateRefusesMeaningless(t *testing.T) {
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 4, 4}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	before, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	set := func(name string, i int, v float32) *safetensors.File {
		f, err := m.TrainingState()
		if err != nil {
			t.Fatal(err)
		}
		if tt := f.Tensors[name]; tt.DType == safetensors.I32 {
			f.Set(name, safetensors.NewI32([]int32{int32(v)}))
		} else {
			vals := slices.Clone(tt.F32)
			vals[i] = v
			f.Set(name, safetensors.NewF32(vals, tt.Shape...))
		}
		return f
	}
	for _, tc := range []struct {
		name string
		i    int
		v    float32
		want string
	}{
		{"enc.bn1.running_var", 3, -1, `tensor "enc.bn1.running_var" holds -1 at index 3: a variance must be > 0`},
		{"enc.bn6.running_var", 0, 0, `tensor "enc.bn6.running_var" holds 0 at index 0: a variance must be > 0`},
		{"enc.bn2.running_var", 1, 2e6, `tensor "enc.bn2.running_var" holds 2e+06 at index 1: a weight must be within ±1e+06`},
		{"enc.conv1.weight", 5, 3e38, `tensor "enc.conv1.weight" holds 3e+38 at index 5: a weight must be within ±1e+06`},
		{"head.mu", 0, -1.5e6, `tensor "head.mu" holds -1.5e+06 at index 0: a weight must be within ±1e+06`},
		{"enc.bn3.running_mean", 2, 1e7, `tensor "enc.bn3.running_mean" holds 1e+07 at index 2: a weight must be within ±1e+06`},
		{model.OptimV + "enc.proj.weight", 1, -1, `tensor "optim.v.enc.proj.weight" holds -1 at index 1: Adam's second moment, a mean of squares, must be >= 0`},
		{"enc.bn1.num_batches_tracked", 0, -1, `tensor "enc.bn1.num_batches_tracked" is -1, want a count >= 0`},
	} {
		if err := m.LoadState(set(tc.name, tc.i, tc.v), ""); err == nil || err.Error() != tc.want {
			t.Errorf("%s[%d] = %v: error %v, want %q", tc.name, tc.i, tc.v, err, tc.want)
		}
	}
	after, err := m.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range before.Names() {
		if !slices.Equal(before.Tensors[n].F32, after.Tensors[n].F32) || !slices.Equal(before.Tensors[n].I32, after.Tensors[n].I32) {
			t.Errorf("a refused load changed %s", n)
		}
	}
	for _, tc := range []struct {
		name string
		v    float32
	}{
		{"enc.conv1.weight", model.MaxWeight},
		{"head.mu", -model.MaxWeight},
		{"enc.bn1.running_var", 1e-30},
		{model.OptimV + "head.mu", 0},
	} {
		if err := m.LoadState(set(tc.name, 0, tc.v), ""); err != nil {
			t.Errorf("%s[0] = %v: %v", tc.name, tc.v, err)
		}
	}
}

// TestSpecLimits refuses models over the size limits, before allocating
// them: the spec of a 26 MB checkpoint whose head claims d = 20000 (whose
// LDA head would need 9.6 GB of scratch) fails at once.
func TestSpecLimits(t *testing.T) {
	base := model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3}
	for _, tc := range []struct {
		change func(*model.Spec)
		want   string
	}{
		{func(s *model.Spec) { s.Dim = 20000 }, "embedding dimension 20000 is over the limit of 1024"},
		{func(s *model.Spec) { s.Classes = model.MaxClasses + 1 }, "10001 classes is over the limit of 10000"},
		{func(s *model.Spec) { s.Input = []int{3, 1024, 1024} }, "input shape [3 1024 1024] is over the limit of 262144 values"},
		{func(s *model.Spec) { s.Input = []int{1, 1 << 62, 1 << 62} }, "over the limit of 262144 values"},
		{func(s *model.Spec) { s.Input = []int{1, 0, 28} }, "input shape [1 0 28] has a dimension < 1"},
	} {
		s := base
		tc.change(&s)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := model.New(cpu.New(), s)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", s, err, tc.want)
		}
		if m != nil {
			m.Release()
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%+v: refusing it allocated %d bytes", s, grew)
		}
	}
	for _, s := range []model.Spec{base, {Encoder: model.EncoderNone, Input: []int{model.MaxDim}, Classes: model.MaxClasses, Dim: model.MaxDim,
		Head: model.HeadLDA, Cov: kernels.Diagonal, Loss: kernels.CE, LR: 1e-3}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v at the limits: %v", s, err)
		}
	}
}
