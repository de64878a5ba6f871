package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// TestEvalHostileCheckpoints runs eval on checkpoints made to hurt: a file
// without end (/dev/zero), one whose head claims d = 20000 (its LDA head
// would need 9.6 GB), one with a NaN weight, ones whose spec has a loss of
// 7 or -1 or a lambda of -5, one with a BatchNorm running variance of -1
// and one with weights of 3e38. Each is refused quickly with one line
// naming the file, the field or tensor and the reason, before any data set
// is read.
func TestEvalHostileCheckpoints(t *testing.T) {
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, change func(*safetensors.File)) string {
		f, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		change(f)
		path := filepath.Join(dir, name)
		if err := safetensors.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const d = 20000
	wide := write("wide.safetensors", func(f *safetensors.File) {
		f.Set("enc.proj.weight", safetensors.NewF32(make([]float32, d*256), d, 256))
		f.Set("enc.proj.bias", safetensors.NewF32(make([]float32, d), d))
		f.Set("head.mu", safetensors.NewF32(make([]float32, 10*d), 10, d))
	})
	nan := write("nan.safetensors", func(f *safetensors.File) {
		mu := f.Tensors["head.mu"]
		mu.F32[5] = float32(math.NaN())
	})
	spec := func(name string, change func(*model.Spec)) string {
		return write(name, func(f *safetensors.File) {
			s := m.Spec
			change(&s)
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			f.Metadata[model.SpecKey] = string(raw)
		})
	}
	loss7 := spec("loss7.safetensors", func(s *model.Spec) { s.Loss = 7 })
	lossNeg := spec("loss-1.safetensors", func(s *model.Spec) { s.Loss = -1 })
	lambda := spec("lambda.safetensors", func(s *model.Spec) { s.Lambda = -5 })
	variance := write("variance.safetensors", func(f *safetensors.File) {
		f.Tensors["enc.bn1.running_var"].F32[3] = -1
	})
	huge := write("huge.safetensors", func(f *safetensors.File) {
		for _, name := range []string{"enc.conv1.weight", "enc.proj.weight", "head.mu"} {
			for i := range f.Tensors[name].F32 {
				f.Tensors[name].F32[i] = 3e38
			}
		}
	})
	cases := []struct{ path, want string }{
		{wide, wide + ": embedding dimension 20000 is over the limit of 1024"},
		{nan, nan + `: tensor "head.mu" holds NaN at index 5`},
		{loss7, loss7 + ": spec: loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{lossNeg, lossNeg + ": spec: loss is -1, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{lambda, lambda + ": spec: lambda must be a finite number >= 0, got -5"},
		{variance, variance + `: tensor "enc.bn1.running_var" holds -1 at index 3: a variance must be > 0`},
		{huge, huge + `: tensor "enc.conv1.weight" holds 3e+38 at index 0: a weight must be within ±1e+06`},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ path, want string }{"/dev/zero", "/dev/zero: safetensors: invalid JSON header"})
	}
	empty := t.TempDir()
	for _, tc := range cases {
		start := time.Now()
		code, said := runMain(t, "eval", "-backend", "cpu", "-checkpoint", tc.path, "-datadir", empty, "-out", filepath.Join(dir, "out"))
		if code != 1 || !strings.Contains(said, tc.want) || strings.Count(said, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want exit 1 and one line with %q", filepath.Base(tc.path), code, said, tc.want)
		}
		if took := time.Since(start); took > 30*time.Second {
			t.Errorf("%s: refused after %v", filepath.Base(tc.path), took)
		}
	}
}
