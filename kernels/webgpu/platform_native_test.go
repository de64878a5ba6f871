//go:build !js

package webgpu

import (
	"slices"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestLimitsOfNamesEveryLimit: the native backend reads every limit of
// limitNames, and the benchmark records keep the names they had.
func TestLimitsOfNamesEveryLimit(t *testing.T) {
	var names, records []string
	for n := range limitsOf(wgpu.Limits{}) {
		names = append(names, n)
		records = append(records, snakeCase(n))
	}
	if want := slices.Sorted(slices.Values(limitNames)); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("limitsOf gives %v, want %v", slices.Sorted(slices.Values(names)), want)
	}
	want := []string{
		"max_buffer_size", "max_compute_invocations_per_workgroup", "max_compute_workgroup_size_x",
		"max_compute_workgroup_size_y", "max_compute_workgroup_storage_size", "max_compute_workgroups_per_dimension",
		"max_storage_buffer_binding_size", "max_storage_buffers_per_shader_stage", "min_storage_buffer_offset_alignment",
	}
	if got := slices.Sorted(slices.Values(records)); !slices.Equal(got, want) {
		t.Errorf("record names %v, want %v", got, want)
	}
}
