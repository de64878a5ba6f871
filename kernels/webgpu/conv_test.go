package webgpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

// convCase is the geometry of one convolution test.
type convCase struct {
	n, ci, h, w, co, k, stride, pad int
}

func (c convCase) geom() ref.Conv {
	p := kernels.ConvParams{Stride: c.stride, Pad: c.pad}
	return ref.Conv{N: c.n, Ci: c.ci, H: c.h, W: c.w, Co: c.co, K: c.k, Stride: c.stride, Pad: c.pad,
		Ho: p.OutSize(c.h, c.k), Wo: p.OutSize(c.w, c.k)}
}

func (c convCase) String() string {
	return fmt.Sprintf("n%d_ci%d_%dx%d_co%d_k%d_s%d_p%d", c.n, c.ci, c.h, c.w, c.co, c.k, c.stride, c.pad)
}

var convCases = []convCase{
	{1, 1, 1, 1, 1, 1, 1, 0},
	{2, 3, 9, 9, 5, 3, 1, 1},
	{3, 17, 8, 7, 33, 3, 2, 0},
	{2, 5, 11, 10, 3, 5, 2, 2},
	{1, 4, 6, 6, 65, 1, 1, 0},
	{2, 64, 8, 8, 64, 3, 1, 1},
	{2, 3, 17, 15, 129, 3, 1, 1},
	{1, 33, 12, 12, 17, 4, 3, 1},
	{4, 16, 14, 14, 16, 3, 1, 1},
	{2, 7, 5, 5, 6, 7, 1, 3},
	{1, 2, 10, 10, 3, 2, 2, 0},
	{3, 127, 5, 6, 63, 1, 2, 0},
	{1, 65, 9, 13, 127, 3, 1, 0},
}

func TestConv2D(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for i, c := range convCases {
		for _, withBias := range []bool{false, true} {
			view := (i%2 == 1) != withBias
			t.Run(fmt.Sprintf("%v/bias=%v/view=%v", c, withBias, view), func(t *testing.T) { testConv2D(t, b, rng, c, withBias, view) })
		}
	}
}

func testConv2D(t *testing.T, b *Backend, rng *rand.Rand, c convCase, withBias, view bool) {
	g := c.geom()
	xd := randData(rng, g.N*g.Ci*g.H*g.W)
	wd := randData(rng, g.Co*g.Ci*g.K*g.K)
	var bd []float32
	if withBias {
		bd = randData(rng, g.Co)
	}
	xo := newOperand(b, view, xd, g.N, g.Ci, g.H, g.W)
	wo := newOperand(b, view, wd, g.Co, g.Ci, g.K, g.K)
	yo := newOperand(b, view, nil, g.N, g.Co, g.Ho, g.Wo)
	defer xo.free(b)
	defer wo.free(b)
	defer yo.free(b)
	var bias kernels.Tensor
	if withBias {
		bo := newOperand(b, view, bd, g.Co)
		defer bo.free(b)
		bias = bo.t
	}
	b.Conv2D(yo.t, xo.t, wo.t, bias, kernels.ConvParams{Stride: c.stride, Pad: c.pad})
	got := readOutput(t, b, yo)
	want := make([]float64, g.N*g.Co*g.Ho*g.Wo)
	ref.Conv2D(want, kerneltest.F64(xd), kerneltest.F64(wd), kerneltest.F64(bd), g)
	if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
		t.Error(msg)
	}
}

func TestConv2DBackwardData(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for i, c := range convCases {
		view := i%2 == 0
		t.Run(fmt.Sprintf("%v/view=%v", c, view), func(t *testing.T) { testConv2DBackwardData(t, b, rng, c, view) })
	}
}

func testConv2DBackwardData(t *testing.T, b *Backend, rng *rand.Rand, c convCase, view bool) {
	g := c.geom()
	dyd := randData(rng, g.N*g.Co*g.Ho*g.Wo)
	wd := randData(rng, g.Co*g.Ci*g.K*g.K)
	dyo := newOperand(b, view, dyd, g.N, g.Co, g.Ho, g.Wo)
	wo := newOperand(b, !view, wd, g.Co, g.Ci, g.K, g.K)
	dxo := newOperand(b, view, nil, g.N, g.Ci, g.H, g.W)
	defer dyo.free(b)
	defer wo.free(b)
	defer dxo.free(b)
	b.Conv2DBackwardData(dxo.t, dyo.t, wo.t, kernels.ConvParams{Stride: c.stride, Pad: c.pad})
	got := readOutput(t, b, dxo)
	want := make([]float64, g.N*g.Ci*g.H*g.W)
	ref.Conv2DBackwardData(want, kerneltest.F64(dyd), kerneltest.F64(wd), g)
	if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
		t.Error(msg)
	}
}

func TestConv2DBackwardFilter(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(15, 16))
	for i, c := range convCases {
		view := i%2 == 1
		t.Run(fmt.Sprintf("%v/view=%v", c, view), func(t *testing.T) { testConv2DBackwardFilter(t, b, rng, c, view) })
	}
}

func testConv2DBackwardFilter(t *testing.T, b *Backend, rng *rand.Rand, c convCase, view bool) {
	g := c.geom()
	dyd := randData(rng, g.N*g.Co*g.Ho*g.Wo)
	xd := randData(rng, g.N*g.Ci*g.H*g.W)
	dyo := newOperand(b, view, dyd, g.N, g.Co, g.Ho, g.Wo)
	xo := newOperand(b, !view, xd, g.N, g.Ci, g.H, g.W)
	dwo := newOperand(b, view, nil, g.Co, g.Ci, g.K, g.K)
	defer dyo.free(b)
	defer xo.free(b)
	defer dwo.free(b)
	b.Conv2DBackwardFilter(dwo.t, dyo.t, xo.t, kernels.ConvParams{Stride: c.stride, Pad: c.pad})
	got := readOutput(t, b, dwo)
	want := make([]float64, g.Co*g.Ci*g.K*g.K)
	ref.Conv2DBackwardFilter(want, kerneltest.F64(dyd), kerneltest.F64(xd), g)
	if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
		t.Error(msg)
	}
}

// BenchmarkConv runs the three convolution ops at the shapes of the paper
// ConvNet's layers (see kerneltest.BenchConv).
func BenchmarkConv(bb *testing.B) { kerneltest.BenchConv(bb, openBackend(bb)) }

// TestConvSplits checks the split of filter-gradient reductions: whole
// slices, every term in exactly one chunk, no empty chunk, no more
// workgroups than splitGroups once split, and none for short reductions.
func TestConvSplits(t *testing.T) {
	for _, c := range []struct{ tiles, gk int }{
		{1, 200704}, {5, 200704}, {72, 12544}, {18, 12544}, {1, 1568}, {1, 2700}, {2, 1024}, {600, 50000}, {1, 16},
	} {
		splits, chunk := convSplits(c.tiles, c.gk)
		switch {
		case splits == 1 && chunk != c.gk:
			t.Errorf("%+v: 1 split of %d terms", c, chunk)
		case splits > 1 && chunk%gemmDepth != 0:
			t.Errorf("%+v: chunks of %d terms, not whole slices of %d", c, chunk, gemmDepth)
		case splits*chunk < c.gk || (splits-1)*chunk >= c.gk:
			t.Errorf("%+v: %d chunks of %d terms for %d", c, splits, chunk, c.gk)
		case splits > 1 && (c.tiles*splits > splitGroups || chunk < splitMinChunk/2):
			t.Errorf("%+v: %d chunks of %d terms: %d workgroups", c, splits, chunk, c.tiles*splits)
		case c.gk <= splitMinChunk && splits != 1:
			t.Errorf("%+v: a short reduction split in %d", c, splits)
		}
	}
}
