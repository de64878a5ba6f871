package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels/ref"
)

// specialMatrix is newMatrix with some elements replaced by +0, -0 and
// NaN, so that the products hold signed zeros and NaNs for the epilogues
// to pass through or mask.
func specialMatrix(rng *rand.Rand, rows, cols, pad int) matrix {
	x := newMatrix(rng, rows, cols, pad)
	for i := range x.data {
		if i%x.ld >= cols {
			continue
		}
		switch rng.IntN(16) {
		case 0:
			x.data[i] = 0
		case 1, 2:
			x.data[i] = float32(math.Copysign(0, -1))
		case 3:
			if rng.IntN(8) == 0 {
				x.data[i] = float32(math.NaN())
			}
		}
	}
	return x
}

// fusedShapes are the shapes of the fused tests: edge sizes for every
// order of the direct products, the toy MLP's products and some that are
// packed.
func fusedShapes() [][3]int {
	var s [][3]int
	sizes := []int{0, 1, 2, 3, 4, 5, 8, 9, 17, 33}
	for _, m := range sizes {
		for _, n := range sizes {
			for _, k := range sizes {
				s = append(s, [3]int{m, n, k})
			}
		}
	}
	return append(s, [3]int{256, 32, 2}, [3]int{256, 2, 32}, [3]int{256, 32, 4}, [3]int{70, 65, 66}, [3]int{9, 100, 300})
}

// fusedProduct computes op(A)*op(B) with an epilogue into C: gemm's fused
// form (fused) and the reference, the plain product followed by the ref
// pass (unfused).
type fusedProduct struct {
	name           string
	fused, unfused func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, bias, y []float32, ldy int, c []float32, ldc int)
}

var fusedProducts = []fusedProduct{
	{
		name: "BiasReLU",
		fused: func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, bias, _ []float32, _ int, c []float32, ldc int) {
			SgemmBiasReLU(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, bias, c, ldc)
		},
		unfused: func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, bias, _ []float32, _ int, c []float32, ldc int) {
			SgemmBias(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, bias, c, ldc)
			for i := 0; i < m; i++ {
				ref.ReLU(c[i*ldc:i*ldc+n], c[i*ldc:i*ldc+n])
			}
		},
	},
	{
		name: "Masked",
		fused: func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, _, y []float32, ldy int, c []float32, ldc int) {
			SgemmMasked(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, y, ldy, c, ldc)
		},
		unfused: func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, _, y []float32, ldy int, c []float32, ldc int) {
			Sgemm(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, 0, c, ldc)
			for i := 0; i < m; i++ {
				ref.ReLUBackward(c[i*ldc:i*ldc+n], c[i*ldc:i*ldc+n], y[i*ldy:i*ldy+n])
			}
		},
	},
}

// TestFusedEpilogues checks SgemmBiasReLU and SgemmMasked bit for bit
// against the plain products followed by ref.ReLU and ref.ReLUBackward,
// with every kernel, on operands holding signed zeros and NaNs, and that
// they write nothing outside C.
func TestFusedEpilogues(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		for _, fp := range fusedProducts {
			checkFused(t, fp.name, fp.fused, fp.unfused)
		}
	})
}

// checkFused compares fused with unfused on every fused shape.
func checkFused(t *testing.T, name string, fused, unfused func(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, bias, y []float32, ldy int, c []float32, ldc int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	negZeros, nans := 0, 0
	for i, s := range fusedShapes() {
		m, n, k := s[0], s[1], s[2]
		tr := transposes[i%len(transposes)]
		alpha := []float32{1, -1.25, 0.5, 0}[i%4]
		if i%16 == 3 {
			alpha = 0
		}
		ar, ac := m, k
		if tr.a {
			ar, ac = k, m
		}
		br, bc := k, n
		if tr.b {
			br, bc = n, k
		}
		pad := i % 3
		a := specialMatrix(rng, ar, ac, pad)
		b := specialMatrix(rng, br, bc, pad+1)
		y := specialMatrix(rng, m, n, 2-pad)
		var bias []float32
		if i%3 != 1 {
			bias = specialMatrix(rng, 1, n, 0).data
		}
		c := newMatrix(rng, m, n, pad+1)
		for j := range c.data {
			if j%c.ld < n {
				c.data[j] = float32(math.NaN())
			}
		}
		want := append([]float32(nil), c.data...)
		fused(tr.a, tr.b, m, n, k, alpha, a, b, bias, y.data, y.ld, c.data, c.ld)
		unfused(tr.a, tr.b, m, n, k, alpha, a, b, bias, y.data, y.ld, want, c.ld)
		for j, w := range want {
			if math.Float32bits(c.data[j]) != math.Float32bits(w) {
				t.Fatalf("%s tA=%v tB=%v m=%d n=%d k=%d alpha=%v bias=%v: C(%d,%d) = %v (%#x), want %v (%#x)",
					name, tr.a, tr.b, m, n, k, alpha, bias != nil, j/c.ld, j%c.ld, c.data[j], math.Float32bits(c.data[j]), w, math.Float32bits(w))
			}
			if math.Signbit(float64(w)) && w == 0 {
				negZeros++
			}
			if w != w {
				nans++
			}
		}
	}
	if negZeros == 0 || nans == 0 {
		t.Errorf("%s: the results hold %d negative zeros and %d NaNs; the test needs both", name, negZeros, nans)
	}
}

// TestFusedPanics checks the argument checks of the fused products.
func TestFusedPanics(t *testing.T) {
	s := make([]float32, 100)
	cases := []struct {
		name string
		f    func()
	}{
		{"relu short bias", func() { SgemmBiasReLU(false, false, 2, 4, 3, 1, s, 3, s, 4, s[:3], s, 4) }},
		{"relu short c", func() { SgemmBiasReLU(false, false, 11, 10, 1, 1, s, 1, s, 10, nil, s, 10) }},
		{"masked ldy", func() { SgemmMasked(false, false, 2, 4, 3, 1, s, 3, s, 4, s, 3, s, 4) }},
		{"masked short y", func() { SgemmMasked(false, false, 2, 4, 3, 1, s, 3, s, 4, s[:7], 4, s, 4) }},
		{"masked short c", func() { SgemmMasked(false, false, 11, 10, 1, 1, s, 1, s, 10, s, 10, s[:50], 10) }},
		{"masked m<0", func() { SgemmMasked(false, false, -1, 2, 2, 1, s, 2, s, 2, s, 2, s, 2) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); len(msg) < 6 || msg[:6] != "gemm: " {
					t.Errorf("panic value %#v, want a string starting with %q", r, "gemm: ")
				}
			}()
			tc.f()
		})
	}
}
