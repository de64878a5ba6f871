//go:build js && wasm && !purego

package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestWinogradSIMD checks the SIMD module's transforms of the F(2x2, 3x3)
// convolutions (wgframe, wgin, wgout and wggrad)
// against their Go code bit for bit, for the ConvNet's planes and odd
// ones, in groups of 1 to all the images, special values included, on as
// many threads as serve. A NaN matches any NaN: negation in Go and in
// the module need not keep a NaN's sign alike.
func TestWinogradSIMD(t *testing.T) {
	needSIMD(t, hasWgFrameFn && hasWgInFn && hasWgOutFn && hasWgGradFn, "Winograd transforms")
	r := rand.New(rand.NewPCG(13, 14))
	for _, g := range []ref.Conv{
		{N: 3, Ci: 16, H: 28, W: 28, Co: 32},
		{N: 5, Ci: 32, H: 14, W: 14, Co: 16},
		{N: 7, Ci: 16, H: 7, W: 7, Co: 24},
		{N: 4, Ci: 20, H: 8, W: 9, Co: 16},
		{N: 3, Ci: 16, H: 1, W: 1, Co: 16},
	} {
		g.K, g.Stride, g.Pad, g.Ho, g.Wo = 3, 1, 1, g.H, g.W
		x := specials(r, g.N*g.Ci*g.H*g.W)
		for _, parts := range []int{1, 2, g.N} {
			wg, ok := newWinograd(g, parts)
			if !ok {
				t.Fatalf("%+v has no F(2x2, 3x3) layout", g)
			}
			for grp := 0; grp < wg.groups(); grp++ {
				n0, imgs := wg.images(grp)
				nt, hw := wg.tiles(imgs), g.H*g.W
				name := fmt.Sprintf("%+v, groups of %d, group %d", g, wg.group, grp)
				check := func(what string, got, want []float32) {
					t.Helper()
					for i := range got {
						if got[i] != got[i] && want[i] != want[i] {
							got[i] = want[i]
						}
					}
					if err := sameBits(got, want); err != nil {
						t.Fatalf("%s: %s: %v", name, what, err)
					}
				}
				got, want := specials(r, imgs*wg.hp*wg.wp*g.Ci), make([]float32, imgs*wg.hp*wg.wp*g.Ci)
				wg.frameChannelsLast(got, x, n0, imgs, g.Ci) // over values left in the planes
				for i := range imgs {
					for y := range g.H {
						for xx := range g.W {
							for c := range g.Ci {
								want[((i*wg.hp+y+1)*wg.wp+xx+1)*g.Ci+c] = x[(((n0+i)*g.Ci+c)*g.H+y)*g.W+xx]
							}
						}
					}
				}
				check("the framed planes", got, want)
				planes := got
				got, want = make([]float32, 16*pointLen(nt, g.Ci)), make([]float32, 16*pointLen(nt, g.Ci))
				if !inputSIMD(&wg, got, planes, imgs, g.Ci) {
					t.Fatal("inputSIMD did not run")
				}
				wg.inputTransformGo(want, planes, imgs, g.Ci)
				check("the transformed input", got, want)
				m := specials(r, 16*pointLen(nt, g.Co))
				got, want = make([]float32, imgs*hw*g.Co), make([]float32, imgs*hw*g.Co)
				if !outputSIMD(&wg, got, m, imgs, g.Co) {
					t.Fatal("outputSIMD did not run")
				}
				wg.outputTransformGo(want, m, imgs, g.Co)
				check("the output", got, want)
				dyt := specials(r, imgs*hw*g.Co)
				got, want = make([]float32, 16*pointLen(nt, g.Co)), make([]float32, 16*pointLen(nt, g.Co))
				if !gradSIMD(&wg, got, dyt, imgs, g.Co) {
					t.Fatal("gradSIMD did not run")
				}
				wg.gradTransformGo(want, dyt, imgs, g.Co)
				check("the transformed gradients", got, want)
			}
		}
	}
}

// TestWinogradCalls checks that the F(2x2, 3x3) convolutions made as
// lists of the SIMD module's calls (winogradConvCalls), forward and
// backward, and their filter gradients (winogradFilterCalls) give the
// bits of the same computations made call by call, for
// the ConvNet's planes and odd ones, with and without a bias, on as many
// threads as serve. Each group's products are above gemm's direct limit
// (2^18 multiply-adds), where Sgemm packs as the lists do; below it,
// Sgemm sums in another order (the conformance tests cover such shapes).
func TestWinogradCalls(t *testing.T) {
	needSIMD(t, hasWgFrameFn && hasWgInFn && hasWgOutFn && gemm.CallsReady(), "Winograd transforms and lists of calls")
	r := rand.New(rand.NewPCG(15, 16))
	b := New()
	for _, g := range []ref.Conv{
		{N: 6, Ci: 64, H: 28, W: 28, Co: 64},
		{N: 12, Ci: 64, H: 14, W: 14, Co: 48},
		{N: 32, Ci: 128, H: 7, W: 7, Co: 64},
		{N: 16, Ci: 128, H: 8, W: 9, Co: 128},
		{N: 64, Ci: 256, H: 1, W: 1, Co: 256},
	} {
		g.K, g.Stride, g.Pad, g.Ho, g.Wo = 3, 1, 1, g.H, g.W
		w := make([]float32, g.Co*g.Ci*9)
		for i := range w {
			w[i] = r.Float32() - 0.5
		}
		wg, ok := newWinograd(g, 1)
		if !ok {
			t.Fatalf("%+v has no F(2x2, 3x3) layout", g)
		}
		for _, back := range []bool{false, true} {
			c, d := g.Ci, g.Co
			if back {
				c, d = g.Co, g.Ci
			}
			x := make([]float32, g.N*c*g.H*g.W)
			for i := range x {
				x[i] = r.Float32()*2 - 1
			}
			var bias []float32
			if !back {
				bias = make([]float32, d)
				for i := range bias {
					bias[i] = r.Float32()
				}
			}
			got, want := specials(r, g.N*d*g.H*g.W), specials(r, g.N*d*g.H*g.W)
			b.winogradConv(got, x, w, bias, wg, g.Co, g.Ci, back)
			winogradLists = false
			b.winogradConv(want, x, w, bias, wg, g.Co, g.Ci, back)
			winogradLists = true
			if err := sameBits(got, want); err != nil {
				t.Fatalf("%+v, backward %v, on %d threads: %v", g, back, gemm.Threads(), err)
			}
		}
		wf, ok := newWinograd(g, filterParts)
		if !ok {
			t.Fatalf("%+v has no F(2x2, 3x3) layout", g)
		}
		x, dy := make([]float32, g.N*g.Ci*g.H*g.W), make([]float32, g.N*g.Co*g.H*g.W)
		for _, s := range [][]float32{x, dy} {
			for i := range s {
				s[i] = r.Float32()*2 - 1
			}
		}
		got, want := specials(r, g.Co*g.Ci*9), specials(r, g.Co*g.Ci*9)
		b.winogradFilter(got, dy, x, wf, g.Ci, g.Co)
		winogradLists = false
		b.winogradFilter(want, dy, x, wf, g.Ci, g.Co)
		winogradLists = true
		if err := sameBits(got, want); err != nil {
			t.Fatalf("%+v, the filter gradient, on %d threads: %v", g, gemm.Threads(), err)
		}
	}
}
