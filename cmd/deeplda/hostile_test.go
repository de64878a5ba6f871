package main

import (
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
// would need 9.6 GB), one with a NaN weight. Each is refused quickly with
// one line naming the file, before any data set is read.
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
	cases := []struct{ path, want string }{
		{wide, wide + ": embedding dimension 20000 is over the limit of 1024"},
		{nan, nan + `: tensor "head.mu" holds NaN at index 5`},
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
