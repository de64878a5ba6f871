package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/train/traintest"
)

// cpuTol is the tolerance against PyTorch: rtol 1e-4, with an absolute floor
// of 1e-4 of the tensor's largest value for sums whose float32 rounding
// depends on the order of summation.
var cpuTol = traintest.Tolerance{RTol: 1e-4, ATol: 1e-4}

func TestGoldenHead(t *testing.T)   { traintest.HeadCases(t, cpu.New(), cpuTol) }
func TestGoldenModels(t *testing.T) { traintest.Golden(t, cpu.New(), cpuTol) }
