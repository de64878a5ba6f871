// Package webgputest opens the WebGPU backend for tests, with one rule for
// machines that have no WebGPU adapter.
package webgputest

import (
	"errors"
	"os"
	"testing"
)

// Open returns the backend that open makes (webgpu.New), closed when tb
// ends. When open fails with noAdapter (webgpu.ErrNoAdapter: this machine
// has no WebGPU adapter), the test fails under CI (CI set, where .ci/run
// installs Mesa's lavapipe) and is skipped loudly elsewhere; any other
// failure fails the test. (Open takes New and the error as arguments so
// that package webgpu's own tests can use it too.)
func Open[B interface{ Close() }](tb testing.TB, open func() (B, error), noAdapter error) B {
	tb.Helper()
	b, err := open()
	if err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, noAdapter) {
			tb.Fatalf("no WebGPU backend: %v", err)
		}
		tb.Skipf("SKIPPED: no WebGPU adapter on this machine (%v); install Mesa's lavapipe (mesa-vulkan-drivers) to run the WebGPU tests", err)
	}
	tb.Cleanup(b.Close)
	return b
}
