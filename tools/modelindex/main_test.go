package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/safetensors"
)

func TestRun(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	ckpt, err := safetensors.Encode(safetensors.New())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		experiment.CheckpointFile:   string(ckpt),
		experiment.ModelReportFile:  `{"config": {"data": "mnist", "head": "lda", "cov": "spherical", "lambda": 0.01}, "test": {"accuracy": 0.99}, "history": [{"epoch": 1}]}`,
		experiment.ModelCommandFile: "deeplda train -data mnist\n",
		"resume.safetensors":        "left behind",
	}
	if err := os.MkdirAll(filepath.Join(src, "mnist-lda"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(src, "mnist-lda", f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(src, dst); err != nil {
		t.Fatal(err)
	}
	for f, s := range files {
		b, err := os.ReadFile(filepath.Join(dst, "mnist-lda", f))
		if f == "resume.safetensors" {
			if err == nil {
				t.Errorf("%s was copied", f)
			}
			continue
		}
		if err != nil || string(b) != s {
			t.Errorf("%s: %q, %v; want a copy", f, b, err)
		}
	}
	var idx []experiment.ModelInfo
	b, _ := os.ReadFile(filepath.Join(dst, experiment.ModelsIndex))
	if err := json.Unmarshal(b, &idx); err != nil || len(idx) != 1 || idx[0].Name != "mnist-lda" || idx[0].Loss != "dnll" {
		t.Errorf("index %s: %v", b, err)
	}

	empty := t.TempDir()
	if err := run(filepath.Join(src, "none"), empty); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(empty, experiment.ModelsIndex)); strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("the index of no models is %q, want []", b)
	}
}
