package main

import (
	"fmt"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// openBackend returns the backend a -backend flag names. Only the CPU
// backend exists so far: auto resolves to it, and webgpu is refused with a
// clear message rather than silently replaced.
func openBackend(name string) (kernels.Backend, error) {
	switch name {
	case "cpu", "auto":
		return cpu.New(), nil
	case "webgpu":
		return nil, fmt.Errorf("the webgpu backend is not part of this build yet; use -backend cpu")
	}
	return nil, usageError{fmt.Errorf("-backend must be cpu, webgpu or auto, got %q", name)}
}
