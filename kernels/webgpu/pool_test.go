package webgpu

import (
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestGlobalAvgPoolGridRows runs GlobalAvgPool and its backward pass on
// more planes of 256 values, which get a workgroup each, than a row of the
// dispatch grid holds (65535), so that grid spreads them over y (67 MB of
// input; not with -short).
func TestGlobalAvgPoolGridRows(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: 67 MB of input (-short)")
	}
	b := openBackend(t)
	shape := []int{257, 256, 16, 16}
	nc, hw := shape[0]*shape[1], shape[2]*shape[3]
	rng := rand.New(rand.NewPCG(1, 2))
	xd := randData(rng, nc*hw)
	for i := range xd {
		xd[i] += 0.5 // so that the means do not cancel to nothing
	}
	dyd := randData(rng, nc)
	x, dy := kerneltest.Upload(b, shape, xd), kerneltest.Upload(b, shape[:2], dyd)
	y, dx := b.Alloc(kernels.Float32, shape[:2]...), b.Alloc(kernels.Float32, shape...)
	b.GlobalAvgPool(y, x)
	b.GlobalAvgPoolBackward(dx, dy)
	want := make([]float64, nc)
	ref.GlobalAvgPool(want, kerneltest.F64(xd), nc, hw)
	kerneltest.Compare(t, "GlobalAvgPool: y", shape[:2], kerneltest.Download(t, b, y), want, gpuTol)
	want = make([]float64, nc*hw)
	ref.GlobalAvgPoolBackward(want, kerneltest.F64(dyd), nc, hw)
	kerneltest.Compare(t, "GlobalAvgPoolBackward: dx", shape, kerneltest.Download(t, b, dx), want, gpuTol)
}
