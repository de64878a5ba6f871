package webgpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// gemmTile is the tile of one dispatch of the tiled GEMM kernels of
// matmul.wgsl and conv.wgsl (shaders/tile.wgsl): a workgroup computes M
// rows by gemmTileN columns of C, walking the reduction in slices of K
// terms. M is 64 or 128 and M*K a multiple of 1024 (what tile.wgsl's
// staging assumes); the zero gemmTile stands for none chosen.
type gemmTile struct{ M, K int }

// The tiles the backend uses: tileNarrow is tile.wgsl's own (4x8 outputs
// an invocation), tileWide has 8x8 (twice the multiply-adds for each value
// read from workgroup memory) in half the workgroups, which only matrices
// of at least 128 rows fill.
var (
	tileNarrow = gemmTile{M: 64, K: 16}
	tileWide   = gemmTile{M: 128, K: 8}
)

// gemmTileN is the columns of C of a GEMM tile; gemmMaxDepth is the
// deepest slice of any tile, so that a split reduction's chunks (a
// multiple of it) are whole slices of every tile.
const (
	gemmTileN    = 128
	gemmMaxDepth = 16
)

// TileEnv names the environment variable that fixes the tile of every
// GEMM dispatch, as MxK ("64x16" or "128x8"), in place of the choice by
// the matrix's rows: how a benchmark compares the tiles on one device.
const TileEnv = "DEEPLDA_WEBGPU_TILE"

// tileFromEnv reads TileEnv: the zero gemmTile when it is unset.
func tileFromEnv() (gemmTile, error) {
	v := os.Getenv(TileEnv)
	if v == "" {
		return gemmTile{}, nil
	}
	for _, t := range []gemmTile{tileNarrow, tileWide} {
		if strings.EqualFold(v, t.String()) {
			return t, nil
		}
	}
	return gemmTile{}, fmt.Errorf("webgpu: %s=%q: want %s or %s", TileEnv, v, tileNarrow, tileWide)
}

// String writes the tile as MxK.
func (t gemmTile) String() string { return strconv.Itoa(t.M) + "x" + strconv.Itoa(t.K) }

// tiles returns the number of tiles of an m x n C.
func (t gemmTile) tiles(m, n int) int {
	return (m + t.M - 1) / t.M * ((n + gemmTileN - 1) / gemmTileN)
}

// consts are the constants of tile.wgsl that the tile sets
// (shaders.Specialize).
func (t gemmTile) consts() map[string]uint32 {
	return map[string]uint32{"TM": uint32(t.M), "TK": uint32(t.K)}
}

// tileFor returns the tile of a GEMM with rows rows of C: TileEnv's where it
// is set, the wide tile where the rows fill it, else the narrow one.
func (b *Backend) tileFor(rows int) gemmTile {
	switch {
	case b.tile != gemmTile{}:
		return b.tile
	case rows >= tileWide.M:
		return tileWide
	default:
		return tileNarrow
	}
}
