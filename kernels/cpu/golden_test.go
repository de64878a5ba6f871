package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model/modeltest"
)

func TestGoldenHead(t *testing.T) {
	modeltest.HeadCases(t, cpu.New(), modeltest.CPUTolerance)
}

func TestGoldenModels(t *testing.T) {
	modeltest.Golden(t, cpu.New(), modeltest.CPUTolerance)
}
