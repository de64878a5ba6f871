package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
)

// TestLostDeviceKeepsLastGoodCheckpoint loses the WebGPU device after step
// 6 of a toy run (4 steps an epoch) through webgpu.LoseDeviceEnv: the
// command must stop with one line naming the step where it noticed and the
// last good checkpoint (epoch 1), write the report of that epoch with the
// loss as its status, and -resume on the CPU backend must finish the run.
func TestLostDeviceKeepsLastGoodCheckpoint(t *testing.T) {
	webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"synth", "-train", "1000", "-test", "200", "-epochs", "3", "-quiet", "-out", out}
	t.Setenv(webgpu.LoseDeviceEnv, "6")
	code, text := runMain(t, append(args, "-backend", "webgpu")...)
	if code != 1 {
		t.Fatalf("exit status %d; want 1\n%s", code, text)
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "deeplda synth:") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "device was lost") || !strings.Contains(lines[0], "at step 8 (epoch 2)") ||
		!strings.Contains(lines[0], "last good checkpoint (epoch 1) is "+filepath.Join(out, "checkpoint.safetensors")) || strings.Contains(text, "goroutine ") {
		t.Fatalf("output %q; want one line naming the loss, the step and the last good checkpoint", text)
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		History []json.RawMessage `json:"history"`
		Status  string            `json:"status"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.History) != 1 || !strings.Contains(r.Status, "device was lost") {
		t.Errorf("report.json: %d epochs of history, status %q; want epoch 1 and the loss", len(r.History), r.Status)
	}
	t.Setenv(webgpu.LoseDeviceEnv, "")
	if code, text := runMain(t, append(args, "-backend", "cpu", "-resume")...); code != 0 {
		t.Fatalf("-resume on the CPU: exit status %d\n%s", code, text)
	}
}

// failingBackend is the CPU backend whose reads fail, once fail is set, as
// those of a failed GPU device do.
type failingBackend struct {
	kernels.Backend
	fail bool
}

func (b *failingBackend) Read(t kernels.Tensor) ([]float32, error) {
	if b.fail {
		return nil, fmt.Errorf("webgpu: reading back a tensor: %w", kernels.ErrDeviceFailed)
	}
	return b.Backend.Read(t)
}

// TestFailedDeviceTakesLostPath: a device that fails after one good epoch
// ends the run with the last good checkpoint, as a lost one does.
func TestFailedDeviceTakesLostPath(t *testing.T) {
	out := t.TempDir()
	be := &failingBackend{Backend: cpu.New()}
	c := experiment.DefaultSynth()
	c.Train, c.Test, c.Epochs = 1000, 200, 3
	run, err := experiment.NewSynth(be, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Epoch(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := run.SaveEpoch(filepath.Join(out, "checkpoint.safetensors"), filepath.Join(out, experiment.ResumeFile)); err != nil {
		t.Fatal(err)
	}
	be.fail = true
	var stdout, stderr bytes.Buffer
	err = trainAndWrite(context.Background(), run, output{dir: out, quiet: true}, &stdout, &stderr, func(io.Writer) {})
	if err == nil || !strings.Contains(err.Error(), "the GPU device failed") || !strings.Contains(err.Error(), "before epoch 2") ||
		!strings.Contains(err.Error(), "last good checkpoint (epoch 1)") {
		t.Fatalf("error %v; want the failure, where it was noticed and the last good checkpoint", err)
	}
}
