// Package shaders holds the WGSL compute shaders of the WebGPU backend, one
// file per op family, embedded in the binary. Each file's header comment
// states its entry points and bindings: the output buffers first, then the
// read-only inputs, then one uniform block of shapes and scalars (never baked
// into the shader text).
package shaders

import (
	"embed"
	"fmt"
)

//go:embed *.wgsl
var files embed.FS

// Source returns the text of the shader file name (for example "matmul.wgsl").
// It panics if there is no such file: shader names are fixed at build time.
func Source(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("shaders: no shader %q", name))
	}
	return string(b)
}

// Names returns the embedded shader files.
func Names() []string {
	entries, _ := files.ReadDir(".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
