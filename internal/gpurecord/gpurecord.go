// Package gpurecord is the schema of bench/gpu.sh's record,
// gpu-<adapter>.json: what internal/gpureport writes and cmd/results reads
// for BENCHMARKS.md's GPU tables.
package gpurecord

import (
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
}

// TrajectoryRun is one run of the golden trajectory, as
// modeltest.Trajectory and bench/pytorch_trajectory.py measure it.
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
