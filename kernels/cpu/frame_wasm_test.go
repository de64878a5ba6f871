//go:build js && wasm && !purego

package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestUnfoldSIMD checks the SIMD module's unfold against unfoldChannel bit
// for bit (the unfolded matrix and the framed planes) for the framed
// geometries of the ConvNet and of TestFramedConv, in groups of 1 to all
// the images, special values included.
func TestUnfoldSIMD(t *testing.T) {
	needSIMD(t, hasUnfoldFn, "unfolding")
	r := rand.New(rand.NewPCG(11, 12))
	for _, g := range []ref.Conv{
		{N: 3, Ci: 1, H: 28, W: 28, Co: 32, K: 3, Pad: 1},
		{N: 3, Ci: 4, H: 14, W: 14, Co: 8, K: 3, Pad: 1},
		{N: 5, Ci: 3, H: 7, W: 7, Co: 4, K: 3, Pad: 1},
		{N: 5, Ci: 2, H: 6, W: 9, Co: 3, K: 3, Pad: 0},
		{N: 5, Ci: 2, H: 9, W: 6, Co: 3, K: 3, Pad: 2},
		{N: 5, Ci: 3, H: 5, W: 8, Co: 2, K: 5, Pad: 2},
		{N: 5, Ci: 4, H: 4, W: 5, Co: 3, K: 1, Pad: 0},
	} {
		g.Stride = 1
		p := kernels.ConvParams{Stride: 1, Pad: g.Pad}
		g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
		x := specials(r, g.N*g.Ci*g.H*g.W)
		for _, parts := range []int{1, 2, g.N} {
			f, ok := newFrame(g, parts)
			if !ok {
				t.Fatalf("%+v has no framed layout", g)
			}
			for grp := 0; grp < f.groups(); grp++ {
				n0, imgs := f.images(grp)
				got, want := make([]float32, f.colLen()), make([]float32, f.colLen())
				gotPlanes, wantPlanes := make([]float32, f.group*f.plane), make([]float32, f.group*f.plane)
				f.unfold(got, gotPlanes, x, n0, imgs)
				clear(wantPlanes)
				for c := 0; c < g.Ci; c++ {
					f.unfoldChannel(want, wantPlanes, x, n0, imgs, c)
				}
				n := g.Ci * g.K * g.K * imgs * f.hw
				name := fmt.Sprintf("%+v, groups of %d, group %d", g, f.group, grp)
				if err := sameBits(got[:n], want[:n]); err != nil {
					t.Fatalf("%s: the unfolded matrix: %v", name, err)
				}
				// Shared out between threads, the channels leave their
				// framed planes in each thread's own scratch.
				if min(gemm.Threads(), g.Ci) < 2 {
					if err := sameBits(gotPlanes, wantPlanes); err != nil {
						t.Fatalf("%s: the framed planes: %v", name, err)
					}
				}
			}
		}
	}
}

// TestTransposeSIMD checks the SIMD module's transpose against
// transposeBiasGo bit for bit (special values, -0 among them, with and
// without a bias) for sizes with and without whole 4×4 blocks.
func TestTransposeSIMD(t *testing.T) {
	needSIMD(t, hasTransposeFn, "transposes")
	r := rand.New(rand.NewPCG(13, 14))
	for _, size := range [][2]int{{1, 1}, {3, 5}, {4, 4}, {7, 9}, {49, 128}, {196, 64}, {784, 32}} {
		rows, cols := size[0], size[1]
		s := specials(r, rows*cols)
		for _, bias := range [][]float32{nil, specials(r, cols)} {
			got, want := specials(r, rows*cols), specials(r, rows*cols)
			transposeBias(got, s, rows, cols, bias)
			transposeBiasGo(want, s, rows, cols, bias)
			if err := sameBits(got, want); err != nil {
				t.Fatalf("%d×%d, bias %v: %v", rows, cols, bias != nil, err)
			}
		}
	}
}
