package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model/modeltest"
)

// TestTrajectory replays PyTorch's 30-step Fashion-MNIST training run for
// the LDA and softmax heads (modeltest.Trajectory).
func TestTrajectory(t *testing.T) { modeltest.Trajectory(t, cpu.New()) }
