package cpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/model/modeltest"
)

// TestTrajectory replays PyTorch's 30-step Fashion-MNIST training run for
// the LDA and softmax heads (modeltest.Trajectory), within
// trajectoryTolerance.
func TestTrajectory(t *testing.T) { modeltest.Trajectory(t, New(), trajectoryTolerance()) }

// trajectoryTolerance is modeltest.SIMDTrajectoryTolerance where the
// products run in the WebAssembly SIMD module, else the default.
func trajectoryTolerance() modeltest.TrajectoryTolerance {
	if gemm.SIMD() {
		return modeltest.SIMDTrajectoryTolerance
	}
	return modeltest.DefaultTrajectoryTolerance
}
