package webgpu

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/kerneltest"
)

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
		case splits > 1 && chunk%gemmMaxDepth != 0:
			t.Errorf("%+v: chunks of %d terms, not whole slices of %d", c, chunk, gemmMaxDepth)
		case splits*chunk < c.gk || (splits-1)*chunk >= c.gk:
			t.Errorf("%+v: %d chunks of %d terms for %d", c, splits, chunk, c.gk)
		case splits > 1 && (c.tiles*splits > splitGroups || chunk < splitMinChunk/2):
			t.Errorf("%+v: %d chunks of %d terms: %d workgroups", c, splits, chunk, c.tiles*splits)
		case c.gk <= splitMinChunk && splits != 1:
			t.Errorf("%+v: a short reduction split in %d", c, splits)
		}
	}
}
