package cpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/train/traintest"
)

// TestConformanceWinograd runs the conformance suite with the 3x3
// convolutions computed by F(2x2, 3x3) (winograd.go), the default only
// where the SIMD module runs. The transforms' sums of up to 4 terms, each
// up to 4 times a product's size, round within the suite's tolerance.
func TestConformanceWinograd(t *testing.T) {
	b := New()
	b.winograd = true
	kerneltest.Test(t, b, kerneltest.Tolerance{RTol: 1e-4, ATol: 1e-5})
}

// TestTrajectoryWinograd replays PyTorch's 30-step training run
// (traintest.Trajectory) with the convolutions of F(2x2, 3x3), as the
// page's CPU backend computes them (within trajectoryTolerance).
func TestTrajectoryWinograd(t *testing.T) {
	b := New()
	b.winograd = true
	traintest.Trajectory(t, b, trajectoryTolerance())
}
