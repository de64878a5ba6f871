//go:build js

package webgpu

import (
	"strings"
	"syscall/js"

	"github.com/cogentcore/webgpu/jsx"
	"github.com/cogentcore/webgpu/wgpu"
)

// adapterName reads the adapter's description from navigator.gpu (the
// wgpu package leaves AdapterInfo empty in the browser).
func adapterName(*wgpu.Adapter) string {
	gpu := js.Global().Get("navigator").Get("gpu")
	if !gpu.Truthy() {
		return "unknown"
	}
	a, ok := jsx.Await(gpu.Call("requestAdapter"))
	if !ok || !a.Truthy() || !a.Get("info").Truthy() {
		return "unknown"
	}
	info := a.Get("info")
	var parts []string
	for _, k := range []string{"vendor", "architecture", "device", "description"} {
		if v := info.Get(k); v.Type() == js.TypeString && v.String() != "" {
			parts = append(parts, v.String())
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, " ")
}

// requestDevice asks for a device with the default limits (the js binding
// ignores required limits and panics on required features).
func requestDevice(b *Backend) (*wgpu.Device, error) {
	return b.adapter.RequestDevice(nil)
}

// endPass ends a compute pass (in the browser errors surface later).
func endPass(p *wgpu.ComputePassEncoder) error {
	p.End()
	return nil
}
