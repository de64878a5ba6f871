//go:build js

package webgpu

import (
	"errors"
	"fmt"
	"strings"
	"syscall/js"
	"unsafe"

	"github.com/cogentcore/webgpu/jsx"
	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
)

// adapterName reads the adapter's description from navigator.gpu (the
// wgpu package leaves AdapterInfo empty in the browser).
func adapterName(*wgpu.Adapter) string {
	gpu := js.Global().Get("navigator").Get("gpu")
	if !gpu.Truthy() {
		return "unknown"
	}
	a, ok := jsx.Await(gpu.Call("requestAdapter"))
	if !ok || !a.Truthy() {
		return "unknown"
	}
	return describe(a.Get("info"))
}

// describe joins the vendor, architecture, device and description of an
// adapter info ("unknown" when it gives none).
func describe(info js.Value) string {
	if !info.Truthy() {
		return "unknown"
	}
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

// probeEnv runs probe: the browser needs nothing around the adapter's
// creation (see platform_native.go).
func probeEnv(probe func()) { probe() }

// requestDevice asks for a device with the adapter's own values of the
// limits that bound the kernels (limitNames: v0.23's binding passes no
// required limits, so its devices have WebGPU's defaults) and with the
// timestamp-query feature where the adapter has it (the binding panics on
// required features), through syscall/js; where the browser refuses them,
// for a device with the defaults. It records the device's loss, and its
// errors outside error scopes (scopes.go), when the browser reports them:
// the next Read or Sync returns them.
func requestDevice(b *Backend) (*wgpu.Device, error) {
	a := jsValue(unsafe.Pointer(b.adapter))
	required := map[string]any{}
	for n, v := range readLimits(jsNumber(a.Get("limits"))) {
		required[n] = v
	}
	desc := map[string]any{"requiredLimits": required}
	if a.Get("features").Call("has", "timestamp-query").Bool() {
		desc["requiredFeatures"] = []any{"timestamp-query"}
	}
	dev, ok := await(a.Call("requestDevice", desc))
	if !ok || !dev.Truthy() {
		if dev, ok = await(a.Call("requestDevice")); !ok || !dev.Truthy() {
			return nil, errors.New("no WebGPU device available")
		}
	}
	d := new(wgpu.Device)
	*(*js.Value)(unsafe.Pointer(d)) = dev
	var onLost js.Func
	onLost = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer onLost.Release()
		why := "no reason given"
		if len(args) > 0 && args[0].Truthy() {
			why = fmt.Sprintf("%s: %s", args[0].Get("reason").String(), args[0].Get("message").String())
		}
		b.mu.Lock()
		b.lost = fmt.Errorf("%w (%s)", ErrDeviceLost, why)
		b.mu.Unlock()
		return nil
	})
	dev.Get("lost").Call("then", onLost)
	// The listener lives as long as the device.
	dev.Call("addEventListener", "uncapturederror", js.FuncOf(func(_ js.Value, args []js.Value) any {
		err := deviceError(gpuErrorOf(args[0].Get("error")))
		b.mu.Lock()
		if b.lost == nil {
			b.lost = err
		}
		b.mu.Unlock()
		return nil
	}))
	return d, nil
}

// deviceLimits reads the limits that the device was granted.
func deviceLimits(b *Backend) map[string]uint64 {
	return readLimits(jsNumber(jsValue(unsafe.Pointer(b.device)).Get("limits")))
}

// jsNumber returns readLimits' getter of the numbers of a JavaScript
// object (a GPUSupportedLimits).
func jsNumber(o js.Value) func(string) (float64, bool) {
	return func(name string) (float64, bool) {
		v := o.Get(name)
		if v.Type() != js.TypeNumber {
			return 0, false
		}
		return v.Float(), true
	}
}

// gpuErrorOf reads a GPUError, or the exception with which a promise was
// rejected: its class and message.
func gpuErrorOf(v js.Value) gpuError {
	if v.Type() != js.TypeObject {
		return gpuError{"no error object", v.String()}
	}
	return gpuError{v.Get("constructor").Get("name").String(), v.Get("message").String()}
}

// pushScopes opens an out-of-memory and a validation error scope on the
// device.
func pushScopes(b *Backend) {
	d := jsValue(unsafe.Pointer(b.device))
	d.Call("pushErrorScope", "out-of-memory")
	d.Call("pushErrorScope", "validation")
}

// popScopes closes the two error scopes that pushScopes opened and
// returns the errors they caught, once the device has checked every call
// made in them.
func popScopes(b *Backend) error {
	d := jsValue(unsafe.Pointer(b.device))
	validation, memory := d.Call("popErrorScope"), d.Call("popErrorScope")
	var errs []gpuError
	for _, p := range []js.Value{validation, memory} {
		if v, ok := await(p); !ok || v.Truthy() {
			errs = append(errs, gpuErrorOf(v))
		}
	}
	return scopeErrors(errs)
}

// compileMessages returns the messages of the shader module's compilation
// (none when the browser does not give them: the error scopes around the
// pipeline still catch its errors).
func compileMessages(m *wgpu.ShaderModule) []compileMessage {
	info, ok := await(jsValue(unsafe.Pointer(m)).Call("getCompilationInfo"))
	if !ok || !info.Truthy() {
		return nil
	}
	list := info.Get("messages")
	var out []compileMessage
	for i := range list.Length() {
		m := list.Index(i)
		out = append(out, compileMessage{Type: m.Get("type").String(), Line: m.Get("lineNum").Int(), Pos: m.Get("linePos").Int(), Text: m.Get("message").String()})
	}
	return out
}

// mapRead maps the read-back buffer staging (n bytes) and returns a copy
// of its contents. v0.23's Buffer.MapAsync ignores the rejection of
// mapAsync's promise (as on a lost device), after which getMappedRange
// throws; this waits for the promise itself and returns the rejection as
// an error, ErrDeviceLost when the device is gone.
func mapRead(b *Backend, staging *wgpu.Buffer, n uint64) ([]byte, error) {
	buf := jsValue(unsafe.Pointer(staging))
	if why, ok := await(buf.Call("mapAsync", uint32(wgpu.MapModeRead), 0, n)); !ok {
		msg := why.String()
		if why.Type() == js.TypeObject && why.Get("message").Type() == js.TypeString {
			msg = why.Get("name").String() + ": " + why.Get("message").String()
		}
		if lost := b.status(); errors.Is(lost, ErrDeviceLost) {
			return nil, fmt.Errorf("mapping the read-back buffer (%s): %w", msg, lost)
		}
		return nil, fmt.Errorf("mapping the read-back buffer: %s", msg)
	}
	view := js.Global().Get("Uint8Array").New(buf.Call("getMappedRange", 0, n))
	out := make([]byte, n)
	js.CopyBytesToGo(out, view)
	buf.Call("unmap")
	return out, nil
}

// await waits for a JavaScript promise and returns its value, or its
// rejection's reason and false.
func await(promise js.Value) (js.Value, bool) {
	type result struct {
		v  js.Value
		ok bool
	}
	done := make(chan result, 1)
	settle := func(ok bool) js.Func {
		return js.FuncOf(func(_ js.Value, args []js.Value) any {
			v := js.Undefined()
			if len(args) > 0 {
				v = args[0]
			}
			done <- result{v, ok}
			return nil
		})
	}
	resolve, reject := settle(true), settle(false)
	defer resolve.Release()
	defer reject.Release()
	promise.Call("then", resolve, reject)
	r := <-done
	return r.v, r.ok
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

// jsValue returns the JavaScript object behind a wgpu Adapter, Device,
// Queue, Buffer, ShaderModule, CommandEncoder or ComputePassEncoder: in
// GOOS=js each of these types is a struct holding a single js.Value (and
// v0.23 is the last release, so the layout is fixed).
func jsValue(p unsafe.Pointer) js.Value { return *(*js.Value)(p) }

// software reports whether the adapter runs on the CPU (kernels.SoftwareAdapter):
// the browser says so by isFallbackAdapter (on the adapter in older
// browsers, on its info in newer ones) or names it in the adapter info.
func software(a *wgpu.Adapter) bool {
	v := jsValue(unsafe.Pointer(a))
	info := v.Get("info")
	fallback := v.Get("isFallbackAdapter").Truthy() || (info.Truthy() && info.Get("isFallbackAdapter").Truthy())
	return kernels.SoftwareAdapter(fallback, describe(info))
}

// hasTimestamps reports whether the device has timestamp queries.
func hasTimestamps(b *Backend) bool {
	return jsValue(unsafe.Pointer(b.device)).Get("features").Call("has", "timestamp-query").Bool()
}
