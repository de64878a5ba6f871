//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

// backends opens the compute backends once and remembers why WebGPU is not
// used when it is not. Opening WebGPU blocks on the browser's promises, so
// get must run in a goroutine, never directly in an event handler.
type backends struct {
	cpu   kernels.Backend
	gpu   kernels.Backend // nil until probed, or when unusable
	probe sync.Once       // a second caller waits for the first probe
	why   string          // why WebGPU is not used (empty while it is)
}

// get returns the backend for a choice (cpu, webgpu or auto) and, when
// WebGPU was wanted but cannot be used, a notice saying why the CPU runs
// instead.
func (b *backends) get(choice experiment.BackendKind) (kernels.Backend, string) {
	if b.cpu == nil {
		b.cpu = cpu.New()
	}
	if choice == experiment.BackendCPU {
		return b.cpu, ""
	}
	b.probe.Do(func() { b.gpu, b.why = openWebGPU() })
	if b.gpu == nil {
		return b.cpu, b.why
	}
	return b.gpu, ""
}

// broken records that WebGPU failed (when says when: "while preparing",
// "during training"); later runs use the CPU. It returns the notice.
func (b *backends) broken(when string, err error) string {
	if b.gpu != nil {
		b.gpu.Close()
	}
	b.gpu = nil
	b.why = fmt.Sprintf("WebGPU failed %s (%v), so training runs on the CPU backend (Go compiled to WebAssembly).", when, err)
	return b.why
}

// openWebGPU opens the WebGPU backend, or returns the reason it cannot.
func openWebGPU() (be kernels.Backend, why string) {
	const cpuNote = "so training runs on the CPU backend (Go compiled to WebAssembly)."
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

// backendBadge names a backend for the page's badge.
func backendBadge(be kernels.Backend) string {
	info := be.Info()
	if experiment.BackendOf(be) == experiment.BackendWebGPU {
		return "WebGPU · " + info.Adapter
	}
	return "CPU · " + info.Adapter
}
