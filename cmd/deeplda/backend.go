package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// errNoWebGPU is openWebGPU's error in a build without cgo, which cannot
// link wgpu-native.
var errNoWebGPU = errors.New("this deeplda was built without cgo (CGO_ENABLED=0), so it has no WebGPU backend; build it with cgo and a C compiler to use WebGPU")

// openBackend returns the backend a -backend flag names: cpu, webgpu, or
// auto (WebGPU on a hardware adapter, else the CPU with a notice on
// standard error).
func openBackend(kind experiment.BackendKind) (kernels.Backend, error) {
	return openBackendNote(kind, os.Stderr)
}

// openBackendNote is openBackend writing its notice to stderr.
func openBackendNote(kind experiment.BackendKind, stderr io.Writer) (kernels.Backend, error) {
	switch kind {
	case experiment.BackendCPU:
		return cpu.New(), nil
	case experiment.BackendWebGPU:
		b, _, err := openWebGPU()
		if err != nil {
			return nil, fmt.Errorf("-backend webgpu: %w", err)
		}
		return b, nil
	case experiment.BackendAuto:
		b, software, err := openWebGPU()
		switch {
		case err == nil && !software:
			return b, nil
		case err == nil:
			fmt.Fprintf(stderr, "note: the WebGPU adapter is a CPU implementation (%s); using the faster CPU backend (-backend webgpu forces it)\n", b.Info().Adapter)
			b.Close()
		case errors.Is(err, errNoWebGPU):
			fmt.Fprintln(stderr, "note: this deeplda has no WebGPU (built without cgo); using the CPU backend")
		case errors.Is(err, errNoAdapter):
			fmt.Fprintln(stderr, "note: no WebGPU adapter; using the CPU backend")
		default:
			fmt.Fprintf(stderr, "note: WebGPU failed (%v); using the CPU backend\n", err)
		}
		return cpu.New(), nil
	}
	_, err := experiment.ParseBackend(string(kind))
	return nil, usageError{err}
}
