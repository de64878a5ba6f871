// Package shaders holds the WGSL compute shaders of the WebGPU backend, one
// file per op family, embedded in the binary. Each file's header comment
// states its entry points and bindings: the output buffers first, then the
// read-only inputs, then one uniform block of shapes and scalars (never baked
// into the shader text). Code that several shaders share lives in files of
// its own that Source puts before theirs (WGSL has no include).
package shaders

import (
	"embed"
	"fmt"
	"slices"
)

//go:embed *.wgsl
var files embed.FS

// prelude lists, for each shader that has them, the shared files that
// Source puts before its text, in order.
var prelude = map[string][]string{
	"conv.wgsl":   {"tile.wgsl"},
	"matmul.wgsl": {"tile.wgsl"},
}

// Source returns the text of the shader file name (for example
// "matmul.wgsl"), preceded by that of the shared files it builds on. It
// panics if there is no such file: shader names are fixed at build time.
func Source(name string) string {
	var text []byte
	for _, f := range append(slices.Clone(prelude[name]), name) {
		b, err := files.ReadFile(f)
		if err != nil {
			panic(fmt.Sprintf("shaders: no shader %q", f))
		}
		text = append(text, b...)
	}
	return string(text)
}

// Names returns the embedded shader files, each a complete shader through
// Source; the shared files that Source puts before them are left out.
func Names() []string {
	entries, _ := files.ReadDir(".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !shared(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names
}

// shared reports whether file is one that Source puts before shaders.
func shared(file string) bool {
	for _, fs := range prelude {
		if slices.Contains(fs, file) {
			return true
		}
	}
	return false
}
