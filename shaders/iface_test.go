package shaders

import (
	"slices"
	"strings"
	"testing"
)

// TestParseInterface reads a small shader: bindings and their access, the
// uniform struct's fields, and the bindings each entry point uses through
// the functions it calls, not counting comments, members (p.x) or locals
// that share a binding's name.
func TestParseInterface(t *testing.T) {
	src := `
struct Params {
  n: u32, // a comment: x[0]
  scale: f32,
}
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> y: array<f32>;
/* a block comment: y[0] */
fn load(i: u32) -> f32 {
  if (i < p.n) { return x[i]; }
  return 0.0;
}
fn twice(v: f32) -> f32 { return 2.0 * v; }
@compute @workgroup_size(64)
fn first(@builtin(global_invocation_id) id: vec3<u32>) {
  out[id.x] = twice(load(id.x)) * p.scale;
}
@compute @workgroup_size(64)
fn second(@builtin(global_invocation_id) id: vec3<u32>) {
  let x = 3.0;
  var s = x;
  out[id.x] = s + y[id.x];
}`
	in, err := parseInterface(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Field{{"n", "u32"}, {"scale", "f32"}}; !slices.Equal(in.Params, want) {
		t.Errorf("params %v, want %v", in.Params, want)
	}
	for n, want := range map[uint32]Binding{0: {"p", "uniform"}, 1: {"out", "read_write"}, 2: {"x", "read"}, 3: {"y", "read"}} {
		if in.Bindings[n] != want {
			t.Errorf("binding %d: %v, want %v", n, in.Bindings[n], want)
		}
	}
	for e, want := range map[string][]uint32{"first": {0, 1, 2}, "second": {1, 3}} {
		if !slices.Equal(in.Entries[e], want) {
			t.Errorf("entry %s uses %v, want %v", e, in.Entries[e], want)
		}
	}
	if len(in.Entries) != 2 {
		t.Errorf("entries %v, want first and second only", in.Entries)
	}
}

// TestParseInterfaceRefuses checks the declarations it does not read.
func TestParseInterfaceRefuses(t *testing.T) {
	for src, want := range map[string]string{
		"struct P { v: vec4<f32> }\n@group(0) @binding(0) var<uniform> p: P;":                                  "not a scalar",
		"@group(0) @binding(0) var<uniform> p: Q;":                                                             "no struct of that name",
		"@group(0) @binding(1) var<storage> a: array<f32>;\n@group(0) @binding(1) var<storage> b: array<f32>;": "declared twice",
		"fn f() { let a = 1;": "unclosed brace",
	} {
		if _, err := parseInterface(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", src, err, want)
		}
	}
}

// TestEveryShaderParses reads the interface of every shader.
func TestEveryShaderParses(t *testing.T) {
	for _, name := range Names() {
		in, err := ParseInterface(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(in.Entries) == 0 || len(in.Params) == 0 {
			t.Errorf("%s: %d entry points, %d uniform fields", name, len(in.Entries), len(in.Params))
		}
	}
}
