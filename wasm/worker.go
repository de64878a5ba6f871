//go:build js && wasm

package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
)

// This file is the program's other role: the engine (package engine) in
// the Web Worker that site/engine.js starts, talking to the page's view in
// the run protocol's JSON.

// workerHost is the engine's Host in the Web Worker.
type workerHost struct {
	init  js.Value // self.deepldaInit: the page's address, the memory, listen
	yield yielder
}

// engineHeapLimit is the memory at which the engine's collector runs
// whatever the garbage (runtime/debug.SetMemoryLimit). In WebAssembly the
// runtime never collects on a timer (it has no sysmon), so without it the
// heap grows to twice its live part (GOGC=100) before each collection,
// and a WebAssembly memory never shrinks: the ConvNet's run at batch 256,
// whose live heap is about 640 MiB with the data set, would end up past
// the 1 GiB that phones and many laptops refuse. A run whose live heap is
// larger collects more often (at most half the time, the runtime's
// limiter) and grows past it; the heap is mostly float32 buffers, which
// the collector does not scan.
const engineHeapLimit = 800 << 20

// runEngine serves the page's commands forever.
func runEngine() {
	debug.SetMemoryLimit(engineHeapLimit)
	h := &workerHost{init: js.Global().Get("deepldaInit")}
	e := engine.New(h)
	onMessage := js.FuncOf(func(_ js.Value, args []js.Value) any {
		m := args[0]
		c, err := protocol.DecodeCommand([]byte(m.Get("json").String()))
		if err != nil {
			h.Emit(protocol.Event{Kind: protocol.EvRefused, Error: err.Error()})
			return nil
		}
		var files []engine.File
		list := m.Get("files")
		for i := range list.Length() {
			f := list.Index(i)
			files = append(files, engine.File{Name: f.Get("name").String(), Read: func() ([]byte, error) {
				buf, err := await(f.Call("arrayBuffer"))
				if err != nil {
					return nil, err
				}
				return jsBytes(buf), nil
			}})
		}
		e.Handle(c, files)
		return nil
	})
	h.init.Call("listen", onMessage)
	select {}
}

// OpenWebGPU opens WebGPU in the worker (navigator.gpu).
func (h *workerHost) OpenWebGPU() (kernels.Backend, string) { return openWebGPU() }

// Fetch downloads a file of the site by its path from the page's address.
func (h *workerHost) Fetch(path string) ([]byte, error) {
	url := js.Global().Get("URL").New(path, h.init.Get("base")).Call("toString").String()
	b, err := fetchURL(url)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %v", path, err)
	}
	return b, nil
}

// Yield returns to the worker's event loop, which delivers the page's
// commands (stop).
func (h *workerHost) Yield() { h.yield.maybe() }

// Emit posts an event to the page. The figures and the checkpoint go
// beside the JSON (see host.go): the figures as JavaScript strings, which
// the page's thread then need not parse as JSON, the checkpoint as a
// transferred ArrayBuffer.
func (h *workerHost) Emit(ev protocol.Event) {
	switch ev.Kind {
	case protocol.EvProgress, protocol.EvDone, protocol.EvStopped:
		ev.MemoryBytes = int64(js.Global().Get("wasm").Get("instance").Get("exports").Get("mem").Get("buffer").Get("byteLength").Int())
	}
	env := protocol.Split(ev)
	figs := map[string]any{}
	for k, svg := range env.Figures {
		figs[k] = svg
	}
	msg := map[string]any{protocol.EnvelopeJSON: env.JSON, protocol.EnvelopeFigures: figs}
	if env.Checkpoint == nil {
		js.Global().Call("postMessage", msg)
		return
	}
	arr := js.Global().Get("Uint8Array").New(len(env.Checkpoint))
	js.CopyBytesToJS(arr, env.Checkpoint)
	msg[protocol.EnvelopeCheckpoint] = arr.Get("buffer")
	js.Global().Call("postMessage", msg, []any{arr.Get("buffer")})
}

// LoseDevice destroys the WebGPU devices that site/engine.js kept
// (debug=lose-device).
func (h *workerHost) LoseDevice() { loseDevices() }

// Engine says the engine runs in the page.
func (h *workerHost) Engine() string { return "page" }

// Memory says which memory the engine runs on.
func (h *workerHost) Memory() string { return h.init.Get("memory").String() }
