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
	"maps"
	"slices"
	"strings"
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

// Specialize returns src with the module-scope u32 constants named in
// consts set to their values: each must be declared once, on a line of its
// own that starts "const NAME = " (as tile.wgsl's TM and TK are), and the
// constants derived from them follow as WGSL evaluates them. It is how the
// backend picks a shader's tile without a copy of its text.
func Specialize(src string, consts map[string]uint32) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	for _, name := range slices.Sorted(maps.Keys(consts)) {
		prefix := "const " + name + " = "
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				if at >= 0 {
					return "", fmt.Errorf("shaders: const %s is declared twice", name)
				}
				at = i
			}
		}
		if at < 0 {
			return "", fmt.Errorf("shaders: no const %s to specialize", name)
		}
		end := strings.IndexByte(lines[at], ';')
		if end < 0 {
			return "", fmt.Errorf("shaders: const %s does not end on its line", name)
		}
		lines[at] = fmt.Sprintf("%s%du%s", prefix, consts[name], lines[at][end:])
	}
	return strings.Join(lines, ""), nil
}
