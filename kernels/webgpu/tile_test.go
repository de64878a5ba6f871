package webgpu

import (
	"fmt"
	"strings"
	"testing"

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
