//go:build js && wasm && !purego

package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels/ref"
)

// TestReLUSIMD checks the SIMD module's ReLU pair against package ref's bit
// for bit, special values included (-0 and NaN pass ReLU; the gradient is
// +0 where y is not above 0), on lengths around a vector and on one that
// the threads share.
func TestReLUSIMD(t *testing.T) {
	needSIMD(t, hasReluFn && hasReluBackFn, "ReLU")
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 3, 4, 5, 8, 13, 4*minShareRelu + 7} {
		x, dy := specials(r, n), specials(r, n)
		got, want := make([]float32, n), make([]float32, n)
		if !reluSIMD(got, x) {
			t.Fatal("reluSIMD did not run")
		}
		ref.ReLU(want, x)
		if err := sameBits(got, want); err != nil {
			t.Fatalf("relu, %d floats: %v", n, err)
		}
		if !reluBackwardSIMD(got, dy, x) {
			t.Fatal("reluBackwardSIMD did not run")
		}
		ref.ReLUBackward(want, dy, x)
		if err := sameBits(got, want); err != nil {
			t.Fatalf("reluback, %d floats: %v", n, err)
		}
	}
}
