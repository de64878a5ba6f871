package webgpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/train/traintest"
)

var _ kernels.Backend = (*Backend)(nil)

// gpuTol is the float32 GPU tolerance against the float64 reference: rtol
// 1e-3, with an absolute floor of 1e-4 of the tensor's largest value for
// long float32 sums whose order differs from the reference's.
var gpuTol = kerneltest.Tolerance{RTol: 1e-3, ATol: 1e-4}

func TestConformance(t *testing.T) { kerneltest.Test(t, openBackend(t), gpuTol) }

func TestGoldenHead(t *testing.T) {
	traintest.HeadCases(t, openBackend(t), traintest.GPUTolerance)
}

func TestGoldenModels(t *testing.T) {
	traintest.Golden(t, openBackend(t), traintest.GPUTolerance)
}

// TestTrajectory replays PyTorch's Fashion-MNIST run with the tolerance
// that PyTorch's own run on a GPU needs (traintest.GPUTrajectoryTolerance:
// the shaders sum in a GPU's orders on any adapter). On a CPU
// implementation of WebGPU (lavapipe) a step takes about 13 s, so the
// first 5 steps run there; the whole run on a GPU (bench/gpu.sh).
func TestTrajectory(t *testing.T) {
	be := openBackend(t)
	if be.Software() {
		t.Logf("%s is a CPU implementation of WebGPU: the first 5 steps only", be.Info().Adapter)
		traintest.TrajectoryFirst(t, be, traintest.GPUTrajectoryTolerance)
		return
	}
	traintest.Trajectory(t, be, traintest.GPUTrajectoryTolerance)
}

// TestLockstep compares the trajectory's gradients with the CPU backend's,
// step by step from the same parameters: on a GPU where the trajectory
// drifts, it names the gradient where the drift starts.
func TestLockstep(t *testing.T) {
	traintest.Lockstep(t, openBackend(t), cpu.New(), 3, 1e-2)
}
