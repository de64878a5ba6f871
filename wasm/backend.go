//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

// cpuNote ends every notice that says why the CPU backend runs.
const cpuNote = "so training runs on the CPU backend (Go compiled to WebAssembly)."

// openWebGPU opens the WebGPU backend, or returns the reason it cannot.
// Opening blocks on the browser's promises, so it must run in a goroutine,
// never directly in an event handler.
func openWebGPU() (be kernels.Backend, why string) {
	if gpu := js.Global().Get("navigator").Get("gpu"); !gpu.Truthy() {
		return nil, "This browser offers no WebGPU (navigator.gpu is missing), " + cpuNote
	}
	defer func() {
		if r := recover(); r != nil {
			be, why = nil, fmt.Sprintf("WebGPU could not start (%v), %s", r, cpuNote)
		}
	}()
	b, err := webgpu.New()
	switch {
	case errors.Is(err, webgpu.ErrNoAdapter):
		return nil, "The browser offers WebGPU but no adapter (it may be switched off, or the device unsupported), " + cpuNote
	case err != nil:
		return nil, fmt.Sprintf("WebGPU could not start (%v), %s", err, cpuNote)
	}
	return b, ""
}

// loseDevices destroys the WebGPU devices that site/engine.js (or
// site/app.js) kept (debug=lose-device): the backend's next operations
// fail as on a lost device.
func loseDevices() {
	devs := js.Global().Get("__deepldaDevices")
	if !devs.Truthy() {
		return
	}
	console("warn", "deeplda: debug=lose-device: destroying the WebGPU device")
	for i := range devs.Length() {
		devs.Index(i).Call("destroy")
	}
}
