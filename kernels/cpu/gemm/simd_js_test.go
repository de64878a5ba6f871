//go:build js && wasm && !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu/gemm/internal/wasmsimd"
)

// TestSIMDLoads checks that the SIMD kernels load under Node.js (which has
// WebAssembly SIMD), so that the other tests exercise them rather than
// falling back to the portable kernel unnoticed, and that Sgemm uses the
// preferred one.
func TestSIMDLoads(t *testing.T) {
	if os.Getenv("DEEPLDA_WASM_SIMD") == "off" {
		t.Skip("DEEPLDA_WASM_SIMD=off")
	}
	var names []string
	for _, k := range simdKernels {
		names = append(names, k.name)
	}
	t.Logf("SIMD kernels: %v", names)
	if len(simdKernels) == 0 || simdKernels[len(simdKernels)-1].name != "wasmsimd4x8" {
		t.Fatalf("SIMD kernels %v, want at least wasmsimd4x8", names)
	}
	if activeKernel != simdKernels[0] {
		t.Fatalf("Sgemm uses %s, want %s", activeKernel.name, simdKernels[0].name)
	}
}

// TestSIMDFallback checks that a module the host does not validate (as
// SIMD where the host has none) gives no kernel, without a panic, and that
// a valid one gives a kernel.
func TestSIMDFallback(t *testing.T) {
	mem, ok := goMemory()
	if !ok {
		t.Fatal("no Go memory")
	}
	bin := wasmsimd.Module(simdMR, simdNR, false)
	if k := newSIMDKernel("x", mem, bin[:len(bin)-1]); k != nil {
		t.Error("a kernel from a module that does not validate")
	}
	if k := newSIMDKernel("x", mem, bin); k == nil {
		t.Error("no kernel from the plain module")
	}
}

// TestSIMDPlainBits checks that the plain SIMD kernel gives the portable
// Go kernel's results bit for bit, over shapes with edge tiles, several k
// blocks, both transpositions, the transposed C of narrow products, and
// beta 0 (over NaNs), 1 and another value.
func TestSIMDPlainBits(t *testing.T) {
	var plain *microKernel
	for _, k := range simdKernels {
		if k.name == "wasmsimd4x8" {
			plain = k
		}
	}
	if plain == nil {
		t.Skip("no plain SIMD kernel (see TestSIMDLoads)")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][3]int{{64, 64, 65}, {67, 130, 300}, {1025, 2, 300}, {9, 700, 600}, {200, 400, 4}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, beta := range []float32{0, 1, -0.5} {
				a, b := randSlice(rng, m*k), randSlice(rng, k*n)
				c0 := randSlice(rng, m*n)
				if beta == 0 {
					for i := range c0 {
						c0[i] = float32(math.NaN())
					}
				}
				lda, ldb := k, n
				if tr[0] {
					lda = m
				}
				if tr[1] {
					ldb = k
				}
				var got [2][]float32
				for i, kern := range []*microKernel{goKernel, plain} {
					old := activeKernel
					activeKernel = kern
					got[i] = append([]float32(nil), c0...)
					Sgemm(tr[0], tr[1], m, n, k, 0.75, a, lda, b, ldb, beta, got[i], n)
					activeKernel = old
				}
				for i := range got[0] {
					if math.Float32bits(got[0][i]) != math.Float32bits(got[1][i]) {
						t.Fatalf("%dx%dx%d trans %v beta %v: C[%d] = %v, Go kernel %v", m, n, k, tr, beta, i, got[1][i], got[0][i])
					}
				}
			}
		}
	}
}
