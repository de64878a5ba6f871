//go:build js && wasm && !purego

package cpu

import (
	"os"
	"testing"
)

// TestSIMDPoolLoaded checks that max pooling runs in the SIMD module
// wherever the products do, so that TestElementwiseSpecials tests it.
func TestSIMDPoolLoaded(t *testing.T) {
	if os.Getenv("DEEPLDA_WASM_SIMD") == "off" {
		t.Skip("SKIPPED: DEEPLDA_WASM_SIMD=off keeps the SIMD module off")
	}
	if !hasPoolFn || !hasPoolBackFn {
		t.Fatal("the SIMD module's max-pool routines did not load: max pooling runs as plain Go")
	}
}
