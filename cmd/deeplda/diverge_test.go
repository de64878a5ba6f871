package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/safetensors"
)

// TestDivergenceKeepsLastGoodCheckpoint poisons the data after one good
// epoch: training must stop naming the step, and the checkpoint on disk must
// stay the finite one of epoch 1.
func TestDivergenceKeepsLastGoodCheckpoint(t *testing.T) {
	out := t.TempDir()
	c := experiment.DefaultSynth()
	c.Train, c.Test, c.Epochs = 1000, 200, 3
	run, err := experiment.NewSynth(cpu.New(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Epoch(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(out, "checkpoint.safetensors")
	if err := run.Model.SaveCheckpoint(ckpt); err != nil {
		t.Fatal(err)
	}
	run.Trainer.Data.X[10] = float32(math.NaN())
	var stdout, stderr bytes.Buffer
	err = trainAndWrite(context.Background(), run, output{dir: out, quiet: true}, &stdout, &stderr, func(io.Writer) {})
	if err == nil || !strings.Contains(err.Error(), "at step") || !strings.Contains(err.Error(), "last good checkpoint (epoch 1)") {
		t.Fatalf("error %v; want a divergence message with the step and the checkpoint", err)
	}
	// Steps of epoch 2 are 5..8 (4 batches of 256 over 1000 points).
	if !strings.Contains(err.Error(), "epoch 2") {
		t.Errorf("error %v does not name epoch 2", err)
	}
	f, err := safetensors.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range f.Names() {
		for _, v := range f.Tensors[name].F32 {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("checkpoint tensor %s holds %v", name, v)
			}
		}
	}
}
