//go:build js && wasm && !purego

package cpu

import (
	"os"
	"testing"
)

// TestSIMDBatchNormLoaded checks that the BatchNorm passes run in the SIMD
// module wherever the products do, so that TestBatchNormChannels tests
// them (Node.js and Chromium run WebAssembly SIMD).
func TestSIMDBatchNormLoaded(t *testing.T) {
	needSIMD(t, wasmBN != nil, "BatchNorm's passes")
}

// needSIMD skips a test of the SIMD module's routines where
// DEEPLDA_WASM_SIMD=off keeps the module off, and fails it where the
// routines (what) did not load although the module runs everywhere the
// tests do (Node.js, Chromium).
func needSIMD(t *testing.T, loaded bool, what string) {
	t.Helper()
	if os.Getenv("DEEPLDA_WASM_SIMD") == "off" {
		t.Skip("SKIPPED: DEEPLDA_WASM_SIMD=off keeps the SIMD module off")
	}
	if !loaded {
		t.Fatalf("the SIMD module's %s did not load: they run as plain Go", what)
	}
}

// BenchmarkBNPasses times the BatchNorm passes over one channel of 64
// planes of 28×28 (50,176 floats) in the SIMD module and in plain Go
// loops like package ref's, for ARCHITECTURE.md's comparison.
func BenchmarkBNPasses(b *testing.B) {
	const n, hw = 64, 784
	x, y := make([]float32, n*hw), make([]float32, n*hw)
	for i := range x {
		x[i] = float32(i%97) * 0.1
	}
	b.Run("simd/sum", func(b *testing.B) {
		for range b.N {
			wasmBN.sum(x, n, hw, hw)
		}
	})
	b.Run("go/sum", func(b *testing.B) {
		for range b.N {
			var s float64
			for _, v := range x {
				s += float64(v)
			}
			bnOut[0][0] = s
		}
	})
	b.Run("simd/scale", func(b *testing.B) {
		for range b.N {
			wasmBN.scaleShift(y, x, n, hw, hw, 2, 3)
		}
	})
	b.Run("go/scale", func(b *testing.B) {
		for range b.N {
			for i, v := range x {
				y[i] = v*2 + 3
			}
		}
	})
}
