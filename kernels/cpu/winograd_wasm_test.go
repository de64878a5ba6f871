//go:build js && wasm && !purego

package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
