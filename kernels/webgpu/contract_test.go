package webgpu

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/shaders"
)

// sourceKernels returns every kernel literal of the package's Go files
// (kernel{File: "file.wgsl", Entry: "entry", Slots: []slot{out(1),
// in(2)}}), whether or not a test dispatches it, with where it is written.
func sourceKernels(t *testing.T) map[string]kernel {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	ks := map[string]kernel{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "kernel" {
				return true
			}
			at := fset.Position(lit.Pos()).String()
			fields := map[string]ast.Expr{}
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if key, ok := kv.Key.(*ast.Ident); ok {
						fields[key.Name] = kv.Value
					}
				}
			}
			if len(lit.Elts) != 3 || len(fields) != 3 || fields["File"] == nil || fields["Entry"] == nil || fields["Slots"] == nil {
				t.Errorf("%s: a kernel literal without its File, Entry and Slots, or with more", at)
				return false
			}
			var k kernel
			for key, dst := range map[string]*string{"File": &k.File, "Entry": &k.Entry} {
				s, ok := fields[key].(*ast.BasicLit)
				if !ok || s.Kind != token.STRING {
					t.Errorf("%s: the kernel's file and entry point must be string literals", at)
					return false
				}
				*dst, _ = strconv.Unquote(s.Value)
			}
			slots, ok := fields["Slots"].(*ast.CompositeLit)
			if !ok {
				t.Errorf("%s: the kernel's slots must be a []slot literal", at)
				return false
			}
			for _, e := range slots.Elts {
				call, ok := e.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					t.Errorf("%s: a slot that is not out(N) or in(N)", at)
					return false
				}
				fn, okFn := call.Fun.(*ast.Ident)
				arg, okArg := call.Args[0].(*ast.BasicLit)
				if !okFn || !okArg {
					t.Errorf("%s: a slot that is not out(N) or in(N)", at)
					return false
				}
				n, err := strconv.ParseUint(arg.Value, 10, 32)
				if err != nil || (fn.Name != "out" && fn.Name != "in") {
					t.Errorf("%s: a slot that is not out(N) or in(N)", at)
					return false
				}
				k.Slots = append(k.Slots, slot{uint32(n), fn.Name == "out"})
			}
			ks[at] = k
			return false
		})
	}
	return ks
}

// TestKernelsMatchShaders checks every kernel of the Go code against the
// interface of its WGSL file: the entry point exists, each slot is a
// binding declared with the same access, and the slots are exactly the
// bindings the entry point uses. (Each dispatch also checks its parameter
// block against the fields of the shader's uniform struct: see
// TestParamsChecked.)
func TestKernelsMatchShaders(t *testing.T) {
	ks := sourceKernels(t)
	if len(ks) < 30 {
		t.Fatalf("found %d kernel literals; the package has over 30", len(ks))
	}
	entries := 0
	for _, name := range shaders.Names() {
		in, err := shaders.ParseInterface(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		entries += len(in.Entries)
	}
	covered := map[string]bool{}
	for at, k := range ks {
		in, err := shaders.ParseInterface(k.File)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		if err := k.check(in); err != nil {
			t.Errorf("%s: %v", at, err)
		}
		covered[k.key()] = true
	}
	if len(covered) != entries {
		t.Errorf("%d entry points in the shaders, %d of them with a kernel in the Go code", entries, len(covered))
	}
}

// TestKernelCheckCatches checks that kernel.check and checkParams catch
// each way Go and WGSL can fall out of step.
func TestKernelCheckCatches(t *testing.T) {
	iface, err := shaders.ParseInterface("conv.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	good := convKernels.backwardFilter
	if err := good.check(iface); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    kernel
		want string
	}{
		{kernel{File: "conv.wgsl", Entry: "conv_backward", Slots: good.Slots}, "no @compute entry point"},
		{kernel{File: "conv.wgsl", Entry: "conv_backward_filter", Slots: []slot{out(1), in(2), in(7)}}, "slot 7 is not a binding"},
		{kernel{File: "conv.wgsl", Entry: "conv_backward_filter", Slots: []slot{out(1), out(2), in(3)}}, "slot 2 is bound read_write"},
		{kernel{File: "conv.wgsl", Entry: "conv_backward_filter", Slots: []slot{out(1), in(2)}}, "uses binding 3 (x), which has no slot"},
		{kernel{File: "conv.wgsl", Entry: "conv_backward_filter", Slots: []slot{out(1), in(2), in(3), in(4)}}, "slot 4 (wt) is not used"},
	} {
		if err := c.k.check(iface); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want one saying %q", c.k.Slots, err, c.want)
		}
	}
	fields := []shaders.Field{{Name: "n", Type: "u32"}, {Name: "row", Type: "u32"}, {Name: "value", Type: "f32"}}
	k := kernel{File: "elementwise.wgsl", Entry: "fill", Slots: []slot{out(1)}}
	if err := checkParams(k, fields, params{}.u(1, 2).f(3)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    params
		want string
	}{
		{params{}.u(1, 2), "2 values for the 3 fields"},
		{params{}.u(1, 2, 3), "parameter 2 (value: f32) packed as an integer"},
		{params{}.u(1).f(2, 3), "parameter 1 (row: u32) packed as a float"},
	} {
		if err := checkParams(k, fields, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want one saying %q", c.p, err, c.want)
		}
	}
}

// TestParamsChecked dispatches a kernel with a parameter block one value
// short of its shader's struct: the error names the kernel and the counts.
func TestParamsChecked(t *testing.T) {
	b := openBackend(t)
	x := b.Alloc(kernels.Float32, 4)
	b.dispatch("Fill", elementwise.fill, groups{1, 1, 1}, params{}.u(4, 1), x)
	if err := b.Sync(); err == nil || !strings.Contains(err.Error(), "2 values for the 3 fields") {
		t.Fatalf("Sync error %v; want one about the parameter block", err)
	}
}
