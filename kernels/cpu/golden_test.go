package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/train/traintest"
)

func TestGoldenHead(t *testing.T) {
	traintest.HeadCases(t, cpu.New(), traintest.CPUTolerance)
}

func TestGoldenModels(t *testing.T) {
	traintest.Golden(t, cpu.New(), traintest.CPUTolerance)
}
