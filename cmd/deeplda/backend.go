package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

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
		b, err := webgpu.New()
		if err != nil {
			return nil, fmt.Errorf("-backend webgpu: %w", err)
		}
		return b, nil
	case experiment.BackendAuto:
		b, err := webgpu.New()
		if err == nil && !b.Software() {
			return b, nil
		}
		if err == nil {
			fmt.Fprintf(stderr, "note: the WebGPU adapter is a CPU implementation (%s); using the faster CPU backend (-backend webgpu forces it)\n", b.Info().Adapter)
			b.Close()
			return cpu.New(), nil
		}
		if !errors.Is(err, webgpu.ErrNoAdapter) {
			fmt.Fprintf(stderr, "note: WebGPU failed (%v); using the CPU backend\n", err)
		} else {
			fmt.Fprintln(stderr, "note: no WebGPU adapter; using the CPU backend")
		}
		return cpu.New(), nil
	}
	_, err := experiment.ParseBackend(string(kind))
	return nil, usageError{err}
}
