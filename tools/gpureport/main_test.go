package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/gpurecord"
	"github.com/deeplda/deeplda/internal/gpurecord/gpurecordtest"
)

// write writes the named files into a new folder.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readRecord reads the record at path.
func readRecord(t *testing.T, path string) gpurecord.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r gpurecord.Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRun gathers a small set of outputs into the record.
func TestRun(t *testing.T) {
	dir := write(t, map[string]string{
		"suite.jsonl": `note: something
{"adapter":{"name":"Card X (discrete-gpu, vulkan)","driver":"Card X","vendor_id":1,"device_id":2,"type":"discrete-gpu","graphics":"vulkan","limits":{"max_buffer_size":1}}}
{"backend":{"name":"webgpu","adapter":"Card X"},"model":"matmul","size":64,"steps":1,"seconds_per_step":0.1,"gflops":5}
{"backend":{"name":"webgpu","adapter":"Card X"},"model":"convnet","batch":2,"steps":1,"seconds_per_step":0.1,"images_per_second":20,"gflops":1,"gpu_ms":{"conv":3},"gpu_ms_kernels":{"conv/conv_forward":3}}
{"backend":{"name":"webgpu","adapter":"Card X"},"model":"mlp","batch":256,"steps":1,"seconds_per_step":0.1,"images_per_second":2560,"gflops":1}
`,
		"pytorch.jsonl": `{"bench": "pytorch_info", "torch": "2.0", "device": "cpu", "cuda": null, "cudnn": null}
{"bench": "matmul", "size": 64, "precision": "fp32", "gflops": 7}
{"bench": "convnet", "batch": 2, "precision": "fp32", "images_per_second": 40}
{"bench": "convnet", "batch": 2, "precision": "default", "images_per_second": 50}
{"bench": "mlp", "batch": 256, "precision": "default", "images_per_second": 9}
`,
		"pytorch_trajectory.jsonl": `{"bench": "trajectory", "device": "cpu", "head": "lda", "first_losses": 0.1, "losses": 0.2, "logits": 0.3, "correct": 250, "golden_correct": 253}
`,
		"conformance.jsonl": `{"Action":"run","Test":"TestA"}
{"Action":"pass","Test":"TestA"}
{"Action":"output","Test":"TestTrajectory/lda","Output":"    trajectory.go:1: 30 steps: largest relative loss difference 1.05e-03 in the first 5, 8.53e-03 overall\n"}
{"Action":"output","Test":"TestTrajectory/lda","Output":"    trajectory.go:2: test512_logits: relative L2 error 0.0407\n"}
{"Action":"output","Test":"TestTrajectory/lda","Output":"    trajectory.go:3: test accuracy on 512 images: 246 correct, PyTorch 253 (more than 4 apart)\n"}
{"Action":"fail","Test":"TestTrajectory/lda"}
{"Action":"skip","Test":"TestB"}
{"Action":"fail"}
`,
		"gpu.csv": "name, driver_version, power.limit [W]\nCard X, 123.4, 700.00\n",
		"tiles.txt": `goos: linux
BenchmarkTiles/conv3_64to128_14x14/forward/64x16-16         	       5	   1000 ns/op	      1234.5 GFLOP/s
BenchmarkTiles/conv3_64to128_14x14/forward/128x8-16         	       5	   1000 ns/op	      2345 GFLOP/s
BenchmarkTiles/matmul4096/128x8         	       5	   1000 ns/op	      40000 GFLOP/s
PASS
`,
		"suite-64x16.jsonl": `== suite-64x16 (10:00:00)
{"adapter":{"name":"Card X (discrete-gpu, vulkan)","driver":"Card X"}}
{"backend":{"name":"webgpu","adapter":"Card X"},"model":"matmul","size":64,"steps":1,"seconds_per_step":0.1,"gflops":4}
{"backend":{"name":"webgpu","adapter":"Card X"},"model":"convnet","batch":2,"steps":1,"seconds_per_step":0.1,"images_per_second":18,"gflops":1}
`,
		"suite-128x8.jsonl": "== suite-128x8 (10:00:00)\n",
	})
	path, err := run(dir, "abc", false)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "gpu-card-x-discrete-gpu-vulkan.json" {
		t.Errorf("record written to %s", path)
	}
	r := readRecord(t, path)
	c := r.Conformance
	switch {
	case r.Adapter != "Card X (discrete-gpu, vulkan)" || r.Driver != "123.4" || r.Commit != "abc":
		t.Errorf("adapter %q, driver %q, commit %q", r.Adapter, r.Driver, r.Commit)
	case r.MatmulGFLOPS["64"] != 5 || r.PyTorchMatmulGFLOPS["fp32"]["64"] != 7:
		t.Errorf("matmul %v, PyTorch's %v", r.MatmulGFLOPS, r.PyTorchMatmulGFLOPS)
	case r.ConvNetImagesPerSecond["deeplda"]["2"] != 20 || r.ConvNetImagesPerSecond["pytorch_fp32"]["2"] != 40 || r.ConvNetImagesPerSecond["pytorch_default"]["2"] != 50:
		t.Errorf("convnet %v", r.ConvNetImagesPerSecond)
	case r.ToyImagesPerSecond["deeplda"] != 2560 || r.ToyImagesPerSecond["pytorch_default"] != 9:
		t.Errorf("toy %v", r.ToyImagesPerSecond)
	case c.Passed != 1 || c.Failed != 1 || c.Skipped != 1 || len(c.Failures) != 1 || c.Failures[0] != "TestTrajectory/lda":
		t.Errorf("conformance %+v", c)
	case len(r.Trajectory) != 2 || r.Trajectory[0] != (gpurecord.TrajectoryRun{Engine: "deeplda", Device: r.Adapter, Head: "lda", FirstLosses: 1.05e-3, Losses: 8.53e-3, Logits: 0.0407, Correct: 246, GoldenCorrect: 253}) ||
		r.Trajectory[1].Engine != "pytorch" || r.Trajectory[1].Correct != 250:
		t.Errorf("trajectory %+v", r.Trajectory)
	case r.PyTorch["torch"] != "2.0" || r.PyTorch["bench"] != nil || r.GPU["power.limit [W]"] != "700.00":
		t.Errorf("pytorch %v, gpu %v", r.PyTorch, r.GPU)
	case len(r.Tiles) != 3 || r.Tiles[0] != (gpurecord.TileRate{GEMM: "conv3_64to128_14x14/forward", Tile: "64x16", GFLOPS: 1234.5}) ||
		r.Tiles[2] != (gpurecord.TileRate{GEMM: "matmul4096", Tile: "128x8", GFLOPS: 40000}):
		t.Errorf("tiles %+v", r.Tiles)
	case len(r.TileSuites) != 1 || r.TileSuites["64x16"].MatmulGFLOPS["64"] != 4 || r.TileSuites["64x16"].ConvNetImagesPerSecond["2"] != 18:
		t.Errorf("tile suites %+v (the one without results left out)", r.TileSuites)
	}
}

// TestRunRefuses checks that missing or empty outputs are errors.
func TestRunRefuses(t *testing.T) {
	suite := `{"adapter":{"name":"X","driver":"X"}}` + "\n" + `{"model":"matmul","size":1,"gflops":1}` + "\n"
	for want, files := range map[string]map[string]string{
		"no adapter line": {"suite.jsonl": `{"model":"matmul","size":1}`},
		"pytorch.jsonl":   {"suite.jsonl": suite},
		"no test ran":     {"suite.jsonl": suite, "pytorch.jsonl": `{"bench":"matmul","precision":"fp32"}`, "conformance.jsonl": `{"Action":"pass"}`},
		"did not finish":  {"suite.jsonl": suite, "pytorch.jsonl": `{"bench":"matmul","precision":"fp32"}`, "conformance.jsonl": `{"Action":"pass","Test":"TestA"}`},
		"unknown bench":   {"suite.jsonl": suite, "pytorch.jsonl": `{"bench":"convnets"}`},
	} {
		dir := write(t, files)
		_, err := run(dir, "abc", false)
		if want == "did not finish" {
			b, _ := os.ReadFile(filepath.Join(dir, "gpu-x.json"))
			if err != nil || !strings.Contains(string(b), want) {
				t.Errorf("%s: error %v, record %s", want, err, b)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
	}
}

// TestGPUScript runs bench/gpu.sh check: the GPU script built and run end
// to end in its short mode on this machine's WebGPU adapter (lavapipe in
// CI) with PyTorch on the CPU, and checks the record it writes.
func TestGPUScript(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short mode: bench/gpu.sh check builds and runs for minutes")
	}
	if err := exec.Command("bash", "-c", `for py in python3 /usr/bin/python3; do "$py" -c 'import torch' 2>/dev/null && exit 0; done; exit 1`).Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no Python with torch: .ci/run installs python3-torch")
		}
		t.Skip("SKIPPED: no Python with torch (apt-get install python3-torch); bench/gpu.sh check did not run")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "../../bench/gpu.sh", "check")
	cmd.Env = append(os.Environ(), "OUT="+out)
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("bench/gpu.sh check: %v\n%s", err, log)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "gpu-*.json"))
	if len(paths) != 1 {
		t.Fatalf("records %v, want one\n%s", paths, log)
	}
	r := readRecord(t, paths[0])
	c := r.Conformance
	if !r.Short || r.Adapter == "" || len(r.MatmulGFLOPS) != 2 || len(r.ConvNetImagesPerSecond) != 3 || len(r.ToyImagesPerSecond) != 3 {
		t.Errorf("record %+v", r)
	}
	if c.Failed != 0 || c.Passed < 300 {
		t.Errorf("conformance: %d passed, %d failed: %v", c.Passed, c.Failed, c.Failures)
		gpurecordtest.LogFailures(t, c, filepath.Join(out, "conformance.jsonl"))
	}
	pytorch := 0
	for _, tr := range r.Trajectory {
		if tr.Engine == "pytorch" && tr.Device == "cpu" {
			pytorch++
		}
	}
	if pytorch != 2 {
		t.Errorf("trajectory %+v: want PyTorch's two heads on the CPU", r.Trajectory)
	}
	t.Logf("%s: %d tests passed; matmul %v GFLOP/s", r.Adapter, c.Passed, r.MatmulGFLOPS)
}

// pageRun is page.json as TestPageBenchSuite writes it, for TestRunPage.
const pageRun = `{"browser": "HeadlessChrome/156.0.8078.108", "flags": ["--headless=new"],
  "adapter": {"vendor": "nvidia", "architecture": "hopper", "device": "", "description": "NVIDIA H200", "fallback": false, "software": %v,
    "features": ["timestamp-query"], "limits": {"maxBufferSize": 4294967296}, "device_limits": {"maxBufferSize": 268435456}},
  "results": [
    {"backend": {"name": "webgpu", "adapter": "nvidia hopper NVIDIA H200"}, "model": "matmul", "size": 1024, "steps": 20, "gflops": 10000},
    {"backend": {"name": "webgpu", "adapter": "nvidia hopper NVIDIA H200"}, "model": "convnet", "batch": 64, "steps": 20, "images_per_second": 9000},
    {"backend": {"name": "webgpu", "adapter": "nvidia hopper NVIDIA H200"}, "model": "convnet", "batch": 256, "steps": 20, "images_per_second": %v},
    {"backend": {"name": "webgpu", "adapter": "nvidia hopper NVIDIA H200"}, "model": "mlp", "batch": 256, "steps": 20, "images_per_second": 500000}],
  "table": "| matmul 1024 |"}
`

// TestRunPage gathers bench/page_gpu.sh's outputs into the page's record
// and checks the page's adapter and the goal outside the short mode.
func TestRunPage(t *testing.T) {
	suite := `{"adapter":{"name":"NVIDIA H200 (discrete-gpu, vulkan)","driver":"NVIDIA H200","type":"discrete-gpu","graphics":"vulkan"}}
{"backend":{"name":"webgpu"},"model":"matmul","size":1024,"steps":20,"gflops":12000}
{"backend":{"name":"webgpu"},"model":"convnet","batch":64,"steps":20,"images_per_second":15000}
{"backend":{"name":"webgpu"},"model":"convnet","batch":256,"steps":20,"images_per_second":20000}
{"backend":{"name":"webgpu"},"model":"mlp","batch":256,"steps":20,"images_per_second":1000000}
`
	tests := `{"Action":"pass","Test":"TestA"}
{"Action":"pass"}
`
	for _, c := range []struct {
		software bool
		convnet  float64
		short    bool
		err      string
	}{
		{false, 17000, false, ""},
		{false, 15000, false, "0.75x the native one's rate"},
		{false, 15000, true, ""},
		{true, 17000, false, "a CPU implementation"},
		{true, 17000, true, ""},
	} {
		files := map[string]string{"suite.jsonl": suite, "page.json": fmt.Sprintf(pageRun, c.software, c.convnet), "page.jsonl": tests}
		if c.convnet == 17000 {
			files["conformance.jsonl"] = tests
		}
		dir := write(t, files)
		path, err := runPage(dir, "abc", c.short)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: error %v", c, err)
		}
		if filepath.Base(path) != "gpu-nvidia-h200-discrete-gpu-vulkan-page.json" {
			t.Fatalf("%+v: record written to %q", c, path)
		}
		var r gpurecord.PageRecord
		b, _ := os.ReadFile(path)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		g, conf := r.ConvNetGoal, r.Conformance
		switch {
		case r.Adapter != "nvidia hopper NVIDIA H200" || r.NativeAdapter != "NVIDIA H200 (discrete-gpu, vulkan)" || r.Short != c.short || r.Page.Browser == "":
			t.Errorf("%+v: adapter %q, native %q, short %v, browser %q", c, r.Adapter, r.NativeAdapter, r.Short, r.Page.Browser)
		case r.Page.Adapter.DeviceLimits["maxBufferSize"] != 268435456 || len(r.Native) != 4 || len(r.Page.Results) != 4:
			t.Errorf("%+v: page %+v, native %v", c, r.Page, r.Native)
		case r.MatmulGFLOPS["page"]["1024"] != 10000 || r.MatmulGFLOPS["native"]["1024"] != 12000 || r.ToyImagesPerSecond["page"] != 500000 ||
			r.ConvNetImagesPerSecond["native"]["64"] != 15000 || r.ConvNetImagesPerSecond["page"]["256"] != c.convnet:
			t.Errorf("%+v: matmul %v, convnet %v, toy %v", c, r.MatmulGFLOPS, r.ConvNetImagesPerSecond, r.ToyImagesPerSecond)
		case g.Batch != 256 || g.Min != 0.8 || g.Ratio != c.convnet/20000 || g.Met != (c.convnet == 17000):
			t.Errorf("%+v: goal %+v", c, g)
		case c.convnet == 17000 && (conf.Passed != 2 || conf.Failed != 0):
			t.Errorf("%+v: conformance %+v", c, conf)
		case c.convnet != 17000 && (conf.Passed != 1 || conf.Failed != 1 || !strings.Contains(conf.Failures[0], "conformance.jsonl is missing")):
			t.Errorf("%+v: conformance %+v", c, conf)
		}
	}
	if _, err := runPage(write(t, map[string]string{"suite.jsonl": suite}), "abc", false); err == nil || !strings.Contains(err.Error(), "page.json") {
		t.Errorf("without page.json: error %v", err)
	}
}
