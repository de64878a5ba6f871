package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestLossBitForBit checks the CPU backend's loss against ref.Loss bit for
// bit (the sum, the count and the gradient, with and without it) for the
// three losses, with ties in the scores; it tests the WebAssembly
// assembly of the DNLL loss under GOOS=js GOARCH=wasm.
func TestLossBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []kernels.LossKind{kernels.NLL, kernels.CE, kernels.DNLL} {
		for _, c := range []int{1, 2, 3, 10} {
			for _, n := range []int{1, 7, 256} {
				scores := make([]float32, n*c)
				for i := range scores {
					scores[i] = float32(math.Round(rng.NormFloat64()*8) / 4) // ties
				}
				y := make([]int32, n)
				for i := range y {
					y[i] = int32(rng.IntN(c))
				}
				for _, withGrad := range []bool{false, true} {
					var got, want []float32
					if withGrad {
						got, want = make([]float32, n*c), make([]float32, n*c)
					}
					gs, gc := loss(got, scores, y, n, c, kind, 0.01)
					ws, wc := ref.Loss(want, scores, y, n, c, kind, 0.01)
					if math.Float32bits(gs) != math.Float32bits(ws) || gc != wc {
						t.Fatalf("loss %v, c %d, n %d: sum %v, correct %d; ref %v, %d", kind, c, n, gs, gc, ws, wc)
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("loss %v, c %d, n %d: gradient[%d] %v, ref %v", kind, c, n, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
