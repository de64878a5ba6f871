//go:build js && wasm && !purego

package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestReLUSIMD checks the SIMD module's ReLU pair against package ref's bit
// for bit, special values included (-0 and NaN pass ReLU; the gradient is
// +0 where y is not above 0), on lengths around a vector and on one that
// the threads share.
func TestReLUSIMD(t *testing.T) {
	needSIMD(t, hasReluFn && hasReluBackFn, "ReLU")
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 3, 4, 5, 8, 13, 4*minShareElem + 7} {
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

// TestAdamSIMD checks the SIMD module's Adam update against package ref's
// bit for bit over a few steps, with gradients of every size (zeros,
// denormals, huge values) and on a length that the threads share.
func TestAdamSIMD(t *testing.T) {
	needSIMD(t, hasAdamFn, "Adam")
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 3, 4, 7, 4*minShareElem + 5} {
		param := make([]float32, n)
		for i := range param {
			param[i] = float32(r.NormFloat64())
		}
		m, v := make([]float32, n), make([]float32, n)
		wantP, wantM, wantV := slices.Clone(param), slices.Clone(m), slices.Clone(v)
		for step := 1; step <= 3; step++ {
			grad := make([]float32, n)
			for i := range grad {
				grad[i] = float32(r.NormFloat64()) * []float32{0, 1e-40, 1e-3, 1, 1e30}[i%5]
			}
			p := kernels.AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: step}
			if !adamSIMD(param, grad, m, v, p) {
				t.Fatal("adamSIMD did not run")
			}
			ref.Adam(wantP, grad, wantM, wantV, p)
			for _, c := range []struct {
				name      string
				got, want []float32
			}{{"param", param, wantP}, {"m", m, wantM}, {"v", v, wantV}} {
				if err := sameBits(c.got, c.want); err != nil {
					t.Fatalf("%d parameters, step %d, %s: %v", n, step, c.name, err)
				}
			}
		}
	}
}
