package webgpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/model/modeltest"
)

var _ kernels.Backend = (*Backend)(nil)

// gpuTol is the float32 GPU tolerance against the float64 reference: rtol
// 1e-3, with an absolute floor of 1e-4 of the tensor's largest value for
// long float32 sums whose order differs from the reference's.
var gpuTol = kerneltest.Tolerance{RTol: 1e-3, ATol: 1e-4}

func TestConformance(t *testing.T) { kerneltest.Test(t, openBackend(t), gpuTol) }

func TestGoldenHead(t *testing.T) {
	modeltest.HeadCases(t, openBackend(t), modeltest.Tolerance{RTol: 1e-3, ATol: 1e-4})
}

func TestGoldenModels(t *testing.T) {
	modeltest.Golden(t, openBackend(t), modeltest.Tolerance{RTol: 1e-3, ATol: 1e-4})
}
