//go:build js && wasm && !purego

package cpu

import "testing"

// TestSIMDPoolLoaded checks that max pooling runs in the SIMD module
// wherever the products do, so that TestElementwiseSpecials tests it.
func TestSIMDPoolLoaded(t *testing.T) {
	needSIMD(t, hasPoolFn && hasPoolBackFn, "max-pool routines")
}
