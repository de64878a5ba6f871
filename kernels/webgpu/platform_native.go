//go:build !js

package webgpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/deeplda/deeplda/kernels"
)

// adapterName describes a native adapter: its driver's description (v0.23
// fills Name with the device id, so the name is used only when it is text),
// its type and its graphics backend.
func adapterName(a *wgpu.Adapter) string {
	info := a.GetInfo()
	var parts []string
	if n := strings.TrimSpace(info.Name); n != "" && !strings.HasPrefix(n, "0x") {
		parts = append(parts, n)
	}
	if d := strings.TrimSpace(info.DriverDescription); d != "" {
		parts = append(parts, d)
	}
	if len(parts) == 0 {
		parts = append(parts, "unknown adapter")
	}
	return fmt.Sprintf("%s (%v, %v)", strings.Join(parts, ", "), info.AdapterType, info.BackendType)
}

// requestDevice asks for a device with WebGPU's default limits (the
// adapter's own limits are not passed on: v0.23 reports garbage in some of
// them) and the timestamp-query feature where the adapter has it. No
// device-lost callback is registered: v0.23 passes it to C in a way cgo's
// pointer checks reject; a lost device shows up as errors of the
// operations instead.
func requestDevice(b *Backend) (*wgpu.Device, error) {
	if b.adapter.HasFeature(wgpu.FeatureNameTimestampQuery) {
		if d, err := b.adapter.RequestDevice(&wgpu.DeviceDescriptor{RequiredFeatures: []wgpu.FeatureName{wgpu.FeatureNameTimestampQuery}}); err == nil {
			return d, nil
		}
	}
	return b.adapter.RequestDevice(nil)
}

// deviceLimits reads the limits that the device was granted.
func deviceLimits(b *Backend) map[string]uint64 { return limitsOf(b.device.GetLimits().Limits) }

// limitsOf gives the limits of limitNames from wgpu's.
func limitsOf(l wgpu.Limits) map[string]uint64 {
	return map[string]uint64{
		"maxBufferSize":                     l.MaxBufferSize,
		"maxStorageBufferBindingSize":       l.MaxStorageBufferBindingSize,
		"maxStorageBuffersPerShaderStage":   uint64(l.MaxStorageBuffersPerShaderStage),
		"maxComputeWorkgroupStorageSize":    uint64(l.MaxComputeWorkgroupStorageSize),
		"maxComputeInvocationsPerWorkgroup": uint64(l.MaxComputeInvocationsPerWorkgroup),
		"maxComputeWorkgroupSizeX":          uint64(l.MaxComputeWorkgroupSizeX),
		"maxComputeWorkgroupSizeY":          uint64(l.MaxComputeWorkgroupSizeY),
		"maxComputeWorkgroupsPerDimension":  uint64(l.MaxComputeWorkgroupsPerDimension),
		"minStorageBufferOffsetAlignment":   uint64(l.MinStorageBufferOffsetAlignment),
	}
}

// pushScopes does nothing: natively each call returns its error (wgpu
// wraps it in error scopes of its own).
func pushScopes(*Backend) {}

// popScopes has no error to report (see pushScopes).
func popScopes(*Backend) error { return nil }

// compileMessages has no messages: natively CreateShaderModule returns
// the compilation's errors.
func compileMessages(*wgpu.ShaderModule) []compileMessage { return nil }

// endPass ends a compute pass (natively End reports an error).
func endPass(p *wgpu.ComputePassEncoder) error { return p.End() }

// writeBuffer uploads data into buf at offset.
func writeBuffer(q *wgpu.Queue, buf *wgpu.Buffer, offset uint64, data []byte) error {
	return q.WriteBuffer(buf, offset, data)
}

// mapRead maps the read-back buffer staging (n bytes) and returns a copy
// of its contents.
func mapRead(b *Backend, staging *wgpu.Buffer, n uint64) ([]byte, error) {
	done := false
	var status wgpu.BufferMapAsyncStatus
	if err := staging.MapAsync(wgpu.MapModeRead, 0, n, func(s wgpu.BufferMapAsyncStatus) { status, done = s, true }); err != nil {
		return nil, fmt.Errorf("mapping the read-back buffer: %w", err)
	}
	if err := b.wait(&done, "reading back a tensor"); err != nil {
		return nil, err
	}
	if status == wgpu.BufferMapAsyncStatusDeviceLost {
		return nil, fmt.Errorf("mapping the read-back buffer: %w", ErrDeviceLost)
	}
	if status != wgpu.BufferMapAsyncStatusSuccess {
		return nil, fmt.Errorf("mapping the read-back buffer failed (%v)", status)
	}
	out := append([]byte{}, staging.GetMappedRange(0, uint(n))...)
	staging.Unmap()
	return out, nil
}

// software reports whether the adapter runs on the CPU (Mesa's lavapipe,
// SwiftShader): correct, but slower than the CPU backend.
func software(a *wgpu.Adapter) bool { return a.GetInfo().AdapterType == wgpu.AdapterTypeCPU }

// envMu serialises probeEnv's changes to the environment.
var envMu sync.Mutex

// probeEnv runs probe, the creation of the instance and the adapter, with
// XDG_RUNTIME_DIR set to a new private folder when it is not set to an
// absolute path, and restores the environment after. While the OpenGL
// (EGL) and Vulkan loaders look for displays, the Wayland client library
// prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment."
// to standard error without one (on servers, in containers, under sudo),
// although computing needs no display; in an empty folder it finds no
// display and says nothing.
func probeEnv(probe func()) {
	envMu.Lock()
	defer envMu.Unlock()
	old, set := os.LookupEnv("XDG_RUNTIME_DIR")
	if filepath.IsAbs(old) {
		probe()
		return
	}
	dir, err := os.MkdirTemp("", "deeplda-runtime-")
	if err != nil {
		probe()
		return
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_RUNTIME_DIR", dir)
	defer func() {
		if set {
			os.Setenv("XDG_RUNTIME_DIR", old)
		} else {
			os.Unsetenv("XDG_RUNTIME_DIR")
		}
	}()
	probe()
}

// hasTimestamps reports whether the device has timestamp queries.
func hasTimestamps(b *Backend) bool { return b.device.HasFeature(wgpu.FeatureNameTimestampQuery) }

// AdapterDetails describes the adapter: its identity as the driver reports
// it and the adapter's compute limits, those of limitNames with the names
// of the benchmark records (snakeCase). The device itself is opened with
// WebGPU's defaults.
func (b *Backend) AdapterDetails() kernels.AdapterDetails {
	info := b.adapter.GetInfo()
	limits := map[string]uint64{}
	for n, v := range limitsOf(b.adapter.GetLimits().Limits) {
		limits[snakeCase(n)] = v
	}
	return kernels.AdapterDetails{
		Name: b.info.Adapter, Vendor: info.VendorName, VendorID: info.VendorId, DeviceID: info.DeviceId,
		Architecture: info.Architecture, Driver: info.DriverDescription,
		Type: info.AdapterType.String(), Graphics: info.BackendType.String(),
		Limits: limits,
	}
}

// snakeCase writes a WebGPU limit's name as the benchmark records name it:
// maxComputeWorkgroupSizeX is max_compute_workgroup_size_x.
func snakeCase(name string) string {
	var s strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			s.WriteByte('_')
			r = unicode.ToLower(r)
		}
		s.WriteRune(r)
	}
	return s.String()
}
