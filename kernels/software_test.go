package kernels

import "testing"

// TestSoftwareAdapter checks which browser adapters count as CPU
// implementations of WebGPU.
func TestSoftwareAdapter(t *testing.T) {
	for _, c := range []struct {
		fallback bool
		desc     string
		want     bool
	}{
		{false, "google swiftshader subzero", true},
		{false, "Google SwiftShader Device (Subzero)", true},
		{false, "mesa llvmpipe (LLVM 15.0.7, 256 bits)", true},
		{false, "Mesa lavapipe", true},
		{true, "unknown", true},
		{false, "nvidia ampere NVIDIA GeForce RTX 3080", false},
		{false, "apple metal-3 Apple M2", false},
		{false, "unknown", false},
		{false, "", false},
	} {
		if got := SoftwareAdapter(c.fallback, c.desc); got != c.want {
			t.Errorf("SoftwareAdapter(%v, %q) = %v, want %v", c.fallback, c.desc, got, c.want)
		}
	}
}
