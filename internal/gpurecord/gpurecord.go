// Package gpurecord is the schema of bench/gpu.sh's record,
// gpu-<adapter>.json: what tools/gpureport writes and cmd/results reads
// for BENCHMARKS.md's GPU tables; and of bench/page_gpu.sh's,
// gpu-<adapter>-page.json, with what the page's test hands it.
package gpurecord

import (
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
)

// Record is gpu-<adapter>.json.
type Record struct {
	Adapter string `json:"adapter"`
	// Driver is nvidia-smi's driver version where it ran, else the
	// adapter's driver description.
	Driver         string                 `json:"driver"`
	Commit         string                 `json:"commit"`
	Short          bool                   `json:"short"`
	AdapterDetails kernels.AdapterDetails `json:"adapter_details"`
	// GPU is nvidia-smi's description of the card, where it ran.
	GPU map[string]string `json:"gpu,omitempty"`
	// MatmulGFLOPS is deeplda's SxSxS matmul rate by S.
	MatmulGFLOPS map[string]float64 `json:"matmul_gflops"`
	// PyTorchMatmulGFLOPS is torch.mm's rate by precision and S.
	PyTorchMatmulGFLOPS map[string]map[string]float64 `json:"pytorch_matmul_gflops"`
	// ConvNetImagesPerSecond is the ConvNet training step's rate by engine
	// (deeplda, pytorch_fp32, pytorch_default) and batch.
	ConvNetImagesPerSecond map[string]map[string]float64 `json:"convnet_images_per_second"`
	// ToyImagesPerSecond is the toy step's rate by engine.
	ToyImagesPerSecond map[string]float64 `json:"toy_images_per_second"`
	// DeepLDA holds deeplda's suite results whole (per-step counters and
	// gpu_ms by op family included).
	DeepLDA []experiment.BenchResult `json:"deeplda"`
	// PyTorch describes the PyTorch that ran (version, device, CUDA, cuDNN).
	PyTorch     map[string]any `json:"pytorch"`
	Conformance Conformance    `json:"conformance"`
	// Trajectory is how far the runs of the golden PyTorch trajectory
	// drift from it: deeplda's on the adapter (from the test's log) and
	// PyTorch's own on the machine's devices.
	Trajectory []TrajectoryRun `json:"trajectory,omitempty"`
	// Tiles are the WebGPU backend's GEMMs timed on each of its tiles
	// (kernels/webgpu's BenchmarkTiles), where the run timed them.
	Tiles []TileRate `json:"tiles,omitempty"`
	// TileSuites are deeplda's suite run again with every GEMM on one
	// tile (DEEPLDA_WEBGPU_TILE), by tile, where the run did so; the
	// fields above hold the suite with the backend's own choice.
	TileSuites map[string]TileSuite `json:"tile_suites,omitempty"`
}

// TileRate is one GEMM's rate on one tile: GEMM names the matmul
// ("matmul4096") or the ConvNet's layer and pass
// ("conv3_64to128_14x14/forward"), Tile the tile as MxK ("128x8").
type TileRate struct {
	GEMM   string  `json:"gemm"`
	Tile   string  `json:"tile"`
	GFLOPS float64 `json:"gflops"`
}

// TileSuite is the matmul and ConvNet rates of a suite run on one tile, by
// size and batch.
type TileSuite struct {
	MatmulGFLOPS           map[string]float64 `json:"matmul_gflops"`
	ConvNetImagesPerSecond map[string]float64 `json:"convnet_images_per_second"`
}

// TrajectoryRun is one run of the golden trajectory, as
// traintest.Trajectory and bench/pytorch_trajectory.py measure it.
type TrajectoryRun struct {
	Engine string `json:"engine"` // deeplda or pytorch
	Device string `json:"device"` // the adapter, or PyTorch's device (cuda, cuda-tf32, cpu)
	Head   string `json:"head"`
	// FirstLosses and Losses are the largest relative loss differences in
	// the first 5 steps and in all.
	FirstLosses float64 `json:"first_losses"`
	Losses      float64 `json:"losses"`
	// Logits is the relative L2 error of the test scores; Correct and
	// GoldenCorrect count the test images classified correctly (of 512).
	Logits        float64 `json:"logits"`
	Correct       int     `json:"correct"`
	GoldenCorrect int     `json:"golden_correct"`
}

// Conformance counts the WebGPU tests' results on the adapter, subtests
// included.
type Conformance struct {
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Skipped  int      `json:"skipped"`
	Failures []string `json:"failures,omitempty"`
	Skips    []string `json:"skips,omitempty"`
}

// PageAdapter is the WebGPU adapter that navigator.gpu gives the page in
// Chromium, as browsertest's TestPageBenchSuite reads it.
type PageAdapter struct {
	Vendor       string `json:"vendor"`
	Architecture string `json:"architecture"`
	Device       string `json:"device"`
	Description  string `json:"description"`
	// Fallback is isFallbackAdapter; Software says that the adapter is a
	// CPU implementation of WebGPU (kernels.SoftwareAdapter).
	Fallback bool     `json:"fallback"`
	Software bool     `json:"software"`
	Features []string `json:"features"`
	// Limits are the adapter's; DeviceLimits those granted to a device
	// requested with the defaults, as the page's backend requests it.
	Limits       map[string]uint64 `json:"limits"`
	DeviceLimits map[string]uint64 `json:"device_limits"`
}

// Name is the adapter's vendor, architecture, device and description,
// joined as the page's WebGPU backend names its adapter.
func (a PageAdapter) Name() string {
	var parts []string
	for _, s := range []string{a.Vendor, a.Architecture, a.Device, a.Description} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// PageRun is what TestPageBenchSuite writes for bench/page_gpu.sh: the
// browser and its version, the extra Chromium flags it ran with, the
// page's adapter and the GPU table timed in the trainer's page (bench=1).
type PageRun struct {
	Browser string                   `json:"browser"`
	Flags   []string                 `json:"flags"`
	Adapter PageAdapter              `json:"adapter"`
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table"`
}

// PageRecord is bench/page_gpu.sh's record, gpu-<adapter>-page.json
// beside bench/gpu.sh's gpu-<adapter>.json (the native adapter names
// both): the page's GPU table in Chromium and the native one, timed in
// the same run on the same machine, and the browser tests' results there.
type PageRecord struct {
	// Adapter is the page's adapter (PageAdapter.Name), NativeAdapter the
	// native backend's.
	Adapter       string `json:"adapter"`
	NativeAdapter string `json:"native_adapter"`
	Commit        string `json:"commit"`
	Short         bool   `json:"short"`
	// GPU is nvidia-smi's description of the card, where it ran.
	GPU                  map[string]string        `json:"gpu,omitempty"`
	Page                 PageRun                  `json:"page"`
	NativeAdapterDetails kernels.AdapterDetails   `json:"native_adapter_details"`
	Native               []experiment.BenchResult `json:"native"`
	// MatmulGFLOPS, ConvNetImagesPerSecond and ToyImagesPerSecond are the
	// rates by engine (page, native), then by size or batch.
	MatmulGFLOPS           map[string]map[string]float64 `json:"matmul_gflops"`
	ConvNetImagesPerSecond map[string]map[string]float64 `json:"convnet_images_per_second"`
	ToyImagesPerSecond     map[string]float64            `json:"toy_images_per_second"`
	ConvNetGoal            PageGoal                      `json:"convnet_goal"`
	// Conformance counts the browser tests' results in the page.
	Conformance Conformance `json:"conformance"`
}

// PageGoal compares the page's ConvNet step with the native one at the
// largest batch both timed: the page must reach Min of the native rate.
type PageGoal struct {
	Batch int     `json:"batch"`
	Ratio float64 `json:"ratio"`
	Min   float64 `json:"min"`
	Met   bool    `json:"met"`
}
