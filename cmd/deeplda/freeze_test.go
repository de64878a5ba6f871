package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// TestTrainFreezeHead checks that train -h lists -freeze-head and that a
// run with it writes a checkpoint whose head is the initial head of its
// seed, its encoder trained, and report.json's config says so.
func TestTrainFreezeHead(t *testing.T) {
	_, _, help := runCmd(t, "train", "-h")
	if !strings.Contains(help, "-freeze-head") {
		t.Errorf("train -h lacks -freeze-head:\n%s", help)
	}
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	out := t.TempDir()
	code, _, stderr := runCmd(t, "train", "-backend", "cpu", "-datadir", data, "-limit-train", "64", "-limit-test", "32", "-val", "0",
		"-epochs", "1", "-batch", "32", "-seed", "5", "-freeze-head", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if v := lookup(readReport(t, out), "config.freeze_head"); v != true {
		t.Errorf("report.json config.freeze_head = %v", v)
	}
	c := experiment.DefaultImages()
	c.Seed, c.FreezeHead = 5, true
	spec, err := experiment.ImageSpec(c, [3]int{1, 28, 28}, 10)
	if err != nil {
		t.Fatal(err)
	}
	initial, err := model.New(cpu.New(), spec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.ReadFile(filepath.Join(out, experiment.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range initial.Params {
		want, err := initial.Backend.Read(p.Value)
		if err != nil {
			t.Fatal(err)
		}
		same := slices.Equal(f.Tensors[p.Name].F32, want)
		if head := strings.HasPrefix(p.Name, "head."); head != same {
			t.Errorf("%s: the same as initially %v, want %v", p.Name, same, head)
		}
	}
}
