package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/kerneltest"
)

// TestConformance runs the backend conformance suite. The CPU backend
// computes in float32 what the suite's reference computes in float64 from
// the same inputs, so rtol 1e-4 covers the rounding of intermediate values,
// and atol 1e-5 of each tensor's largest value covers its float32 sums,
// whose error stays around 1e-6 of that scale for the suite's sizes.
func TestConformance(t *testing.T) {
	kerneltest.Test(t, cpu.New(), kerneltest.Tolerance{RTol: 1e-4, ATol: 1e-5})
}
