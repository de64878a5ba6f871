package cpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/train/traintest"
)

// TestTrajectory replays PyTorch's 30-step Fashion-MNIST training run for
// the LDA and softmax heads (traintest.Trajectory), within
// trajectoryTolerance.
func TestTrajectory(t *testing.T) { traintest.Trajectory(t, New(), trajectoryTolerance()) }

// trajectoryTolerance is traintest.SIMDTrajectoryTolerance where the
// products run in the WebAssembly SIMD module, else the default.
func trajectoryTolerance() traintest.TrajectoryTolerance {
	if gemm.SIMD() {
		return traintest.SIMDTrajectoryTolerance
	}
	return traintest.DefaultTrajectoryTolerance
}
