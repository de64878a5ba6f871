package webgpu

import "math"

// limitNames are the device limits that bound the kernels, by their WebGPU
// names: the size of a buffer and of a storage binding (the largest
// tensor), the storage buffers of an entry point, a workgroup's memory,
// invocations and extent, the workgroups of a dispatch and the alignment of
// a view's binding. In the browser the backend asks for the adapter's own
// values of these (WebGPU's defaults otherwise: 256 MiB a buffer, 128 MiB a
// binding) and reports those it was granted (Limits).
var limitNames = []string{
	"maxBufferSize",
	"maxStorageBufferBindingSize",
	"maxStorageBuffersPerShaderStage",
	"maxComputeWorkgroupStorageSize",
	"maxComputeInvocationsPerWorkgroup",
	"maxComputeWorkgroupSizeX",
	"maxComputeWorkgroupSizeY",
	"maxComputeWorkgroupsPerDimension",
	"minStorageBufferOffsetAlignment",
}

// readLimits reads limitNames through get, which gives a limit's value as
// JavaScript holds it (a number) and whether it holds one. It leaves out
// the limits that get does not give or gives as no whole number in
// range.
func readLimits(get func(name string) (float64, bool)) map[string]uint64 {
	out := map[string]uint64{}
	for _, n := range limitNames {
		v, ok := get(n)
		if ok && v >= 0 && v <= 1<<53 && v == math.Trunc(v) {
			out[n] = uint64(v)
		}
	}
	return out
}

// Limits returns the limits that the device was granted, of those that
// bound the kernels (limitNames), by their WebGPU names
// (kernels.Limited).
func (b *Backend) Limits() map[string]uint64 {
	out := make(map[string]uint64, len(b.limits))
	for n, v := range b.limits {
		out[n] = v
	}
	return out
}
