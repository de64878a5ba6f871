package webgpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestHeadAdam checks three Adam steps against ref.Adam, with param and
// grad views at offsets and m and v adjacent views of one buffer.
func TestHeadAdam(t *testing.T) {
	b := openBackend(t)
	const n = 4133 // not a multiple of 64
	rng := rand.New(rand.NewPCG(7, 7))
	param := headNormal(rng, n, 0, 1)
	al := kernels.AlignUp
	// param a view at an offset; m and v adjacent views of one buffer (two
	// writable views in one dispatch); grad a view of another.
	pbuf := b.Alloc(kernels.Float32, kernels.ViewAlign+n)
	pt := b.View(pbuf, kernels.ViewAlign, n)
	b.Write(pt, param)
	mv := b.Alloc(kernels.Float32, al(n)+n)
	mt, vt := b.View(mv, 0, n), b.View(mv, al(n), n)
	gbuf := b.Alloc(kernels.Float32, kernels.ViewAlign+n)
	gt := b.View(gbuf, kernels.ViewAlign, n)
	p64, m64, v64 := kerneltest.F64(param), make([]float64, n), make([]float64, n)
	for step := 1; step <= 3; step++ {
		g := headNormal(rng, n, 0, 0.1)
		b.Write(gt, g)
		ap := kernels.AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: step}
		b.Adam(pt, gt, mt, vt, ap)
		ref.Adam(p64, kerneltest.F64(g), m64, v64, ap)
		kerneltest.Compare(t, fmt.Sprintf("step %d param", step), nil, kerneltest.Download(t, b, pt), p64, gpuTol)
		kerneltest.Compare(t, fmt.Sprintf("step %d m", step), nil, kerneltest.Download(t, b, mt), m64, gpuTol)
		kerneltest.Compare(t, fmt.Sprintf("step %d v", step), nil, kerneltest.Download(t, b, vt), v64, gpuTol)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}
