package kernels

import "strings"

// softwareNames are the names, in lower case, of the CPU implementations
// of WebGPU that a browser's adapter info may give: Chromium's SwiftShader
// and Mesa's llvmpipe and lavapipe.
var softwareNames = []string{"swiftshader", "llvmpipe", "lavapipe"}

// SoftwareAdapter reports whether a browser's adapter is a CPU
// implementation of WebGPU: the browser calls it a fallback adapter
// (isFallbackAdapter), or its description (the adapter info's vendor,
// architecture, device and description) names one.
func SoftwareAdapter(fallback bool, description string) bool {
	if fallback {
		return true
	}
	d := strings.ToLower(description)
	for _, n := range softwareNames {
		if strings.Contains(d, n) {
			return true
		}
	}
	return false
}
