package gemm

import (
	"fmt"
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

// product computes C = epi(alpha*op(A)*op(B) + bias) with beta zero.
type product func(transA, transB bool, m, n, k int, alpha float32, a, b matrix, bias []float32, epi epilogue, c []float32, ldc int)

// public is the product of the exported functions: SgemmBiasReLU or
// SgemmMasked, or SgemmBias without an epilogue.
func public(transA, transB bool, m, n, k int, alpha float32, a, b matrix, bias []float32, epi epilogue, c []float32, ldc int) {
	switch {
	case epi.relu:
		SgemmBiasReLU(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, bias, c, ldc)
	case epi.y != nil:
		SgemmMasked(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, epi.y, epi.ldy, c, ldc)
	default:
		SgemmBias(transA, transB, m, n, k, alpha, a.data, a.ld, b.data, b.ld, bias, c, ldc)
	}
}

// inOrder returns the product of the direct order o, which needs m, n and
// k positive.
func inOrder(o order) product {
	return func(transA, transB bool, m, n, k int, alpha float32, a, b matrix, bias []float32, epi epilogue, c []float32, ldc int) {
		p := problem{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, a: a.data, lda: a.ld, b: b.data, ldb: b.ld, c: c, ldc: ldc}
		p.direct(o, bias, epi)
	}
}

// TestFusedEpilogues checks SgemmBiasReLU and SgemmMasked, with every
// kernel, and the epilogues of every direct order bit for bit against the
// products without an epilogue followed by ref.ReLU and ref.ReLUBackward,
// on operands holding signed zeros and NaNs, and that they write nothing
// outside C.
func TestFusedEpilogues(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		checkFused(t, public, true)
	})
	for _, o := range []order{byRows, byCols, byDots} {
		t.Run(fmt.Sprint("order", o), func(t *testing.T) {
			checkFused(t, inOrder(o), false)
		})
	}
}

// checkFused compares prod with an epilogue with prod without one followed
// by the ref pass, on every fused shape (those with a zero dimension only
// if empty is set).
func checkFused(t *testing.T, prod product, empty bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	negZeros, nans := 0, 0
	for i, s := range fusedShapes() {
		m, n, k := s[0], s[1], s[2]
		if !empty && m*n*k == 0 {
			continue
		}
		tr := transposes[i%len(transposes)]
		alpha := []float32{1, -1.25, 1, 0.5}[i%4]
		if empty && i%16 == 3 {
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
		bias := specialMatrix(rng, 1, n, 0).data
		if i%3 == 1 {
			bias = nil
		}
		for _, epi := range []epilogue{{relu: true}, {y: y.data, ldy: y.ld}} {
			if epi.y != nil {
				bias = nil
			}
			c := newMatrix(rng, m, n, (pad+1)%3) // with pad 2, C and Y are contiguous
			for j := range c.data {
				if j%c.ld < n {
					c.data[j] = float32(math.NaN())
				}
			}
			want := append([]float32(nil), c.data...)
			prod(tr.a, tr.b, m, n, k, alpha, a, b, bias, epi, c.data, c.ld)
			prod(tr.a, tr.b, m, n, k, alpha, a, b, bias, epilogue{}, want, c.ld)
			for r := 0; r < m; r++ {
				z := want[r*c.ld : r*c.ld+n]
				if epi.relu {
					ref.ReLU(z, z)
				} else {
					ref.ReLUBackward(z, z, y.data[r*y.ld:r*y.ld+n])
				}
			}
			for j, w := range want {
				if math.Float32bits(c.data[j]) != math.Float32bits(w) {
					t.Fatalf("relu=%v tA=%v tB=%v m=%d n=%d k=%d alpha=%v bias=%v: C(%d,%d) = %v (%#x), want %v (%#x)",
						epi.relu, tr.a, tr.b, m, n, k, alpha, bias != nil, j/c.ld, j%c.ld, c.data[j], math.Float32bits(c.data[j]), w, math.Float32bits(w))
				}
				if math.Signbit(float64(w)) && w == 0 {
					negZeros++
				}
				if w != w {
					nans++
				}
			}
		}
	}
	if negZeros == 0 || nans == 0 {
		t.Errorf("the results hold %d negative zeros and %d NaNs; the test needs both", negZeros, nans)
	}
}

// at returns x, element (i, j) of C, after the epilogue e: its rule for
// one element, for the tests.
func (e epilogue) at(i, j int, x float32) float32 {
	if e.relu && x < 0 {
		return 0
	}
	if e.y != nil && !(e.y[i*e.ldy+j] > 0) {
		return 0
	}
	return x
}

// TestReLUSpecials checks ReLU and ReLUBackward, out of place and in
// place, bit for bit against ref.ReLU and ref.ReLUBackward on signed
// zeros, infinities, NaNs of both signs and normal numbers, at every
// length around their vector loops, and that they write nothing past
// len(x) or len(y).
func TestReLUSpecials(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	nan := math.Float32frombits(0x7fc00001)
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), nan, -nan}
	specials := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			if rng.IntN(3) == 0 {
				x[i] = float32(rng.NormFloat64())
			} else {
				x[i] = vals[rng.IntN(len(vals))]
			}
		}
		return x
	}
	check := func(what string, n int, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s, n %d: element %d is %v (%#x), want %v (%#x)", what, n, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
	for n := 0; n < 140; n++ {
		x, dy := specials(n), specials(n)
		want := make([]float32, n+1)
		want[n] = padValue
		ref.ReLU(want[:n], x)
		got := append(specials(n), padValue)
		ReLU(got, x)
		check("ReLU", n, got, want)
		got = append(append([]float32(nil), x...), padValue)
		ReLU(got, got[:n])
		check("ReLU in place", n, got, want)

		ref.ReLUBackward(want[:n], dy, x)
		got = append(specials(n), padValue)
		ReLUBackward(got, append(dy, padValue), x)
		check("ReLUBackward", n, got, want)
		got = append(append([]float32(nil), dy...), padValue)
		ReLUBackward(got, got, x)
		check("ReLUBackward in place", n, got, want)
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
