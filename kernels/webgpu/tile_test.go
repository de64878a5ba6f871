package webgpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/shaders"
)

// TestTileConstants checks that tile.wgsl's own tile is tileNarrow, and
// that every tile is one that its staging covers (tile.wgsl's header).
func TestTileConstants(t *testing.T) {
	src := shaders.Source("tile.wgsl")
	for name, want := range map[string]int{"TM": tileNarrow.M, "TN": gemmTileN, "TK": tileNarrow.K} {
		if decl := fmt.Sprintf("const %s = %du;", name, want); !strings.Contains(src, decl) {
			t.Errorf("tile.wgsl does not declare %q", decl)
		}
	}
	for _, tl := range []gemmTile{tileNarrow, tileWide} {
		if (tl.M != 64 && tl.M != 128) || tl.M*tl.K%1024 != 0 || tl.K%8 != 0 || gemmMaxDepth%tl.K != 0 {
			t.Errorf("tile %v: not one that tile.wgsl stages (M 64 or 128, M*K a multiple of 1024, K a multiple of 8 dividing %d)", tl, gemmMaxDepth)
		}
	}
}

// TestTileFor checks the choice of tile by the rows of C and TileEnv.
func TestTileFor(t *testing.T) {
	b := &Backend{}
	for rows, want := range map[int]gemmTile{1: tileNarrow, 64: tileNarrow, 127: tileNarrow, 128: tileWide, 4096: tileWide} {
		if got := b.tileFor(rows); got != want {
			t.Errorf("tileFor(%d) = %v, want %v", rows, got, want)
		}
	}
	for v, want := range map[string]gemmTile{"": {}, "64x16": tileNarrow, "128X8": tileWide} {
		t.Setenv(TileEnv, v)
		if got, err := tileFromEnv(); err != nil || got != want {
			t.Errorf("%s=%q: %v, %v; want %v", TileEnv, v, got, err, want)
		}
	}
	for _, v := range []string{"128", "64x8", "x", "128x8 "} {
		t.Setenv(TileEnv, v)
		if _, err := tileFromEnv(); err == nil || !strings.Contains(err.Error(), TileEnv) {
			t.Errorf("%s=%q: error %v, want one naming the variable", TileEnv, v, err)
		}
	}
	b.tile = tileNarrow
	if got := b.tileFor(4096); got != tileNarrow {
		t.Errorf("with the tile fixed at %v, tileFor(4096) = %v", tileNarrow, got)
	}
}

// TestTiles runs the conformance tests of the tiled GEMM kernels with each
// tile fixed for every dispatch (the choice by rows runs the wide tile only
// on matrices of 128 rows or more), so that both are checked on every
// shape, edges and transposes included.
func TestTiles(t *testing.T) {
	b := openBackend(t)
	defer func(tl gemmTile) { b.tile = tl }(b.tile)
	for _, tl := range []gemmTile{tileNarrow, tileWide} {
		t.Run(tl.String(), func(t *testing.T) {
			b.tile = tl
			kerneltest.TestOps(t, b, gpuTol, "MatMul", "Conv2D", "Conv2DBackwardData", "Conv2DBackwardFilter")
		})
	}
}

// BenchmarkTiles times each GEMM of the ConvNet's training step (the
// three convolutions of each of its six layers at batch 256, batch 4 with
// -short) and the square matmuls of the GPU table (1024 to 4096, 256 with
// -short) on each tile, in GFLOP/s: the figures that the choice in tileFor
// rests on. bench/gpu.sh runs it on the GPU.
func BenchmarkTiles(bb *testing.B) {
	b := openBackend(bb)
	defer func(tl gemmTile) { b.tile = tl }(b.tile)
	rng := rand.New(rand.NewPCG(21, 22))
	random := func(shape ...int) kernels.Tensor { return kerneltest.RandomTensor(b, rng, shape...) }
	tiles := func(bb *testing.B, flops float64, out kernels.Tensor, run func()) {
		for _, tl := range []gemmTile{tileNarrow, tileWide} {
			bb.Run(tl.String(), func(bb *testing.B) {
				b.tile = tl
				kerneltest.BenchOp(bb, b, flops, out, run)
			})
		}
	}
	batch, sizes := 256, []int{1024, 2048, 4096}
	if testing.Short() {
		batch, sizes = 4, []int{256}
	}
	p := kernels.ConvParams{Stride: 1, Pad: 1}
	for i, l := range []struct{ ci, co, hw int }{{1, 64, 28}, {64, 64, 28}, {64, 128, 14}, {128, 128, 14}, {128, 256, 7}, {256, 256, 7}} {
		x, y := random(batch, l.ci, l.hw, l.hw), random(batch, l.co, l.hw, l.hw)
		w, dw, dx := random(l.co, l.ci, 3, 3), b.Alloc(kernels.Float32, l.co, l.ci, 3, 3), b.Alloc(kernels.Float32, batch, l.ci, l.hw, l.hw)
		flops := 2 * float64(batch*l.co*l.hw*l.hw) * float64(l.ci*9)
		name := fmt.Sprintf("conv%d_%dto%d_%dx%d", i+1, l.ci, l.co, l.hw, l.hw)
		bb.Run(name+"/forward", func(bb *testing.B) { tiles(bb, flops, y, func() { b.Conv2D(y, x, w, nil, p) }) })
		if l.ci > 1 {
			bb.Run(name+"/backward-data", func(bb *testing.B) { tiles(bb, flops, dx, func() { b.Conv2DBackwardData(dx, y, w, p) }) })
		}
		bb.Run(name+"/backward-filter", func(bb *testing.B) { tiles(bb, flops, dw, func() { b.Conv2DBackwardFilter(dw, y, x, p) }) })
		for _, t := range []kernels.Tensor{x, y, w, dw, dx} {
			b.Free(t)
		}
	}
	for _, n := range sizes {
		x, y, z := random(n, n), random(n, n), b.Alloc(kernels.Float32, n, n)
		bb.Run(fmt.Sprintf("matmul%d", n), func(bb *testing.B) {
			tiles(bb, matmulFlops(n, n, n), z, func() { b.MatMul(z, x, y, nil, false, false) })
		})
		for _, t := range []kernels.Tensor{x, y, z} {
			b.Free(t)
		}
	}
}
