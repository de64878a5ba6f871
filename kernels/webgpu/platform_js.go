//go:build js

package webgpu

import (
	"fmt"
	"strings"
	"syscall/js"
	"unsafe"

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

// writeBuffer uploads data into buf at offset. It copies the bytes into a
// JavaScript array first instead of calling Queue.WriteBuffer: v0.23 passes
// a view of the WebAssembly memory, which becomes empty when the Go heap
// grows while the call's arguments are being converted, and the browser
// then rejects the write ("Number of bytes to write is too large").
func writeBuffer(q *wgpu.Queue, buf *wgpu.Buffer, offset uint64, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("writeBuffer: %v", r)
		}
	}()
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	jsValue(unsafe.Pointer(q)).Call("writeBuffer", jsValue(unsafe.Pointer(buf)), offset, arr)
	return nil
}

// jsValue returns the JavaScript object behind a wgpu Queue or Buffer: in
// GOOS=js both types are a struct holding a single js.Value (and v0.23 is
// the last release, so the layout is fixed).
func jsValue(p unsafe.Pointer) js.Value { return *(*js.Value)(p) }

// software reports whether the adapter runs on the CPU; the browser does
// not say (the page decides for itself), so it reports false.
func software(*wgpu.Adapter) bool { return false }
