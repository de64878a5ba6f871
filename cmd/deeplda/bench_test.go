package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
)

// TestBenchWebGPUPerStep: on WebGPU the JSON line has per_step with the
// issue's names, and either gpu_ms or the reason it is absent.
func TestBenchWebGPUPerStep(t *testing.T) {
	webgputest.Open(t, webgpu.New, webgpu.ErrNoAdapter)
	code, stdout, stderr := runCmd(t, "bench", "-backend", "webgpu", "-model", "mlp", "-batch", "8", "-steps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		PerStep          map[string]float64 `json:"per_step"`
		GPUMs            map[string]float64 `json:"gpu_ms"`
		GPUMsUnavailable string             `json:"gpu_ms_unavailable"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	want := []string{"bind_groups_created", "buffers_created", "dispatches", "passes", "pipelines_created", "readback_bytes", "readbacks", "submits", "upload_bytes", "uploads"}
	if got := slices.Sorted(maps.Keys(r.PerStep)); !slices.Equal(got, want) {
		t.Errorf("per_step has %v; want %v", got, want)
	}
	if r.PerStep["submits"] != 1 || r.PerStep["dispatches"] < 1 {
		t.Errorf("per_step %v; want one submission and some dispatches", r.PerStep)
	}
	if (r.GPUMs == nil) == (r.GPUMsUnavailable == "") {
		t.Errorf("gpu_ms %v, gpu_ms_unavailable %q; want exactly one", r.GPUMs, r.GPUMsUnavailable)
	}
}

// TestBenchSuite prints the Markdown table of a small suite on stdout and
// each result's JSON line on stderr.
func TestBenchSuite(t *testing.T) {
	code, stdout, stderr := runCmd(t, "bench", "-backend", "cpu", "-suite", "-sizes", "16,32", "-batches", "2", "-steps", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Backend cpu on ", "| benchmark | s/step | GFLOP/s |", "| matmul 16 |", "| matmul 32 |", "| ConvNet step, batch 2 |", "| toy step, batch 256 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if n := strings.Count(stderr, `"gflops":`); n != 4 {
		t.Errorf("%d JSON lines on stderr; want 4:\n%s", n, stderr)
	}
	for _, tc := range []struct{ args, want string }{
		{"-sizes 0", `-sizes must list positive whole numbers, got "0"`},
		{"-sizes 1.5", `-sizes must list positive whole numbers, got "1.5"`},
		{"-batches 64,x", `-batches must list positive whole numbers, got "x"`},
		{"-steps 0", "-steps must be at least 1, got 0"},
	} {
		code, _, stderr := runCmd(t, append([]string{"bench", "-backend", "cpu", "-suite"}, strings.Fields(tc.args)...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
