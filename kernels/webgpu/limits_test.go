package webgpu

import (
	"math"
	"testing"
)

// TestReadLimits reads limits as a browser gives them: every limit of
// limitNames that is a whole number in range, none that is missing, not a
// number or out of range.
func TestReadLimits(t *testing.T) {
	js := map[string]float64{
		"maxBufferSize":                     4294967296,
		"maxStorageBufferBindingSize":       134217728,
		"maxComputeWorkgroupStorageSize":    32768,
		"maxComputeInvocationsPerWorkgroup": 1024,
		"maxComputeWorkgroupSizeX":          1.5,
		"maxComputeWorkgroupSizeY":          -1,
		"maxComputeWorkgroupsPerDimension":  math.Inf(1),
		"maxTextureDimension2D":             8192,
	}
	got := readLimits(func(n string) (float64, bool) { v, ok := js[n]; return v, ok })
	want := map[string]uint64{
		"maxBufferSize":                     4294967296,
		"maxStorageBufferBindingSize":       134217728,
		"maxComputeWorkgroupStorageSize":    32768,
		"maxComputeInvocationsPerWorkgroup": 1024,
	}
	if len(got) != len(want) {
		t.Errorf("readLimits = %v, want %v", got, want)
	}
	for n, v := range want {
		if got[n] != v {
			t.Errorf("%s = %d, want %d", n, got[n], v)
		}
	}
}
