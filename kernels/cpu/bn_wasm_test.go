//go:build js && wasm && !purego

package cpu

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
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
// tests do (Node.js, Chromium). Where DEEPLDA_TEST_THREADS names a number
// of threads (build.sh's run on a shared memory), it waits until as many
// serve, and fails the test if they do not within 30 seconds.
func needSIMD(t *testing.T, loaded bool, what string) {
	t.Helper()
	if os.Getenv("DEEPLDA_WASM_SIMD") == "off" {
		t.Skip("SKIPPED: DEEPLDA_WASM_SIMD=off keeps the SIMD module off")
	}
	if !loaded {
		t.Fatalf("the SIMD module's %s did not load: they run as plain Go", what)
	}
	if env := os.Getenv("DEEPLDA_TEST_THREADS"); env != "" {
		want, err := strconv.Atoi(env)
		if err != nil {
			t.Fatalf("DEEPLDA_TEST_THREADS=%q: %v", env, err)
		}
		for deadline := time.Now().Add(30 * time.Second); gemm.Threads() < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of the %d threads that DEEPLDA_TEST_THREADS asks for serve the SIMD module", gemm.Threads(), want)
			}
		}
	}
}

// BenchmarkBNPasses times the BatchNorm passes over one channel of 64
// planes of 28×28 (50,176 floats) in the SIMD module and in plain Go
// loops like package ref's, for BENCHMARKS.md's comparison ("Why the module").
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
