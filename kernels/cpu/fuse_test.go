package cpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// TestReLUFusion checks the fused products (MatMulReLU, MatMulMasked)
// bit for bit (any NaN for a NaN, see sameProducts) against MatMul
// followed by ReLU or ReLUBackward, for every
// transposition and for sizes that take each of gemm's loop orders,
// including the toy MLP's, with special values among the inputs and in the
// mask.
func TestReLUFusion(t *testing.T) {
	b := New()
	var _ kernels.ReLUFuser = b
	r := rand.New(rand.NewPCG(5, 6))
	upload := func(data []float32, shape ...int) kernels.Tensor {
		x := b.Alloc(kernels.Float32, shape...)
		b.Write(x, data)
		return x
	}
	sizes := [][3]int{{256, 32, 2}, {256, 2, 32}, {32, 2, 256}, {2, 32, 256}, {1, 1, 1}, {3, 5, 7}, {9, 17, 4}, {65, 33, 3}, {130, 70, 90}}
	for _, s := range sizes {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			name := fmt.Sprintf("%dx%dx%d trans %v", m, n, k, tr)
			ashape, bshape := []int{m, k}, []int{k, n}
			if tr[0] {
				ashape = []int{k, m}
			}
			if tr[1] {
				bshape = []int{n, k}
			}
			a := upload(mostlyNormal(r, m*k), ashape...)
			bm := upload(mostlyNormal(r, k*n), bshape...)
			bias := upload(mostlyNormal(r, n), n)
			y := upload(specials(r, m*n), m, n)

			want, got := b.Alloc(kernels.Float32, m, n), b.Alloc(kernels.Float32, m, n)
			b.MatMul(want, a, bm, bias, tr[0], tr[1])
			b.ReLU(want, want)
			b.MatMulReLU(got, a, bm, bias, tr[0], tr[1])
			if err := sameProducts(F32(got), F32(want)); err != nil {
				t.Errorf("MatMulReLU %s: %v", name, err)
			}
			b.MatMul(want, a, bm, nil, tr[0], tr[1])
			b.ReLUBackward(want, want, y)
			b.MatMulMasked(got, a, bm, y, tr[0], tr[1])
			if err := sameProducts(F32(got), F32(want)); err != nil {
				t.Errorf("MatMulMasked %s: %v", name, err)
			}
		}
	}
}

// mostlyNormal returns n normal values with a tenth of them replaced by
// special values (zeros of both signs, infinities, NaNs).
func mostlyNormal(r *rand.Rand, n int) []float32 {
	x, sp := make([]float32, n), specials(r, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
		if r.IntN(10) == 0 {
			x[i] = sp[i]
		}
	}
	return x
}

// sameProducts is sameBits, but any NaN matches any NaN: when two NaNs of
// different signs meet in an addition, which one comes out is left open
// (by WebAssembly, and in practice by the machine's operand order, which
// the browser's compiler may change when it inlines a function).
func sameProducts(got, want []float32) error {
	g, w := slices.Clone(got), slices.Clone(want)
	for i := range w {
		if w[i] != w[i] && g[i] != g[i] {
			g[i], w[i] = 0, 0
		}
	}
	return sameBits(g, w)
}
