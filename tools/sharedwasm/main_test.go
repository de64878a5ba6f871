package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sec encodes a section with a minimal size.
func sec(id byte, payload ...byte) []byte { return encode(id, payload) }

// paddedSec encodes a section with its size padded to 5 bytes, as Go's
// linker writes it.
func paddedSec(id byte, payload ...byte) []byte {
	n := uint32(len(payload))
	b := []byte{id, byte(n) | 0x80, byte(n>>7) | 0x80, byte(n>>14) | 0x80, byte(n>>21) | 0x80, byte(n >> 28)}
	return append(b, payload...)
}

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// name encodes a name.
func name(s string) []byte { return appendName(nil, s) }

// The sections of the tiny module: a type () -> (), one imported
// function, one defined function, a memory of 300 pages (a two-byte
// LEB128), the exports "mem" (memory 0) and "run" (function 1), the
// function's body, a data segment in memory 0, and a custom section of 200
// bytes (a two-byte size).
var (
	typeSec   = sec(idType, 1, 0x60, 0, 0)
	importSec = sec(idImport, cat([]byte{1}, name("gojs"), name("f"), []byte{kindFunc, 0})...)
	funcSec   = paddedSec(3, 1, 0)
	memorySec = paddedSec(idMemory, 1, 0x00, 0xac, 0x02)
	exportSec = sec(7, cat([]byte{2}, name("mem"), []byte{kindMemory, 0}, name("run"), []byte{kindFunc, 1})...)
	codeSec   = sec(10, 1, 2, 0, 0x0b)
	dataSec   = sec(11, cat([]byte{1, 0, 0x41, 0, 0x0b}, name("abcd"))...)
	nameSec   = sec(idCustom, cat(name("note"), bytes.Repeat([]byte{7}, 195))...)
)

// module returns a binary of the sections.
func module(sections ...[]byte) []byte { return cat(append([][]byte{header}, sections...)...) }

// TestRewrite rewrites the tiny module and parses the result: the memory
// section is gone, the import section gained the shared memory env.mem
// (300 pages to 65536, shared), every other section is byte-identical and
// in place, and the custom section deeplda-memory holds the 300 pages.
func TestRewrite(t *testing.T) {
	in := module(typeSec, importSec, funcSec, memorySec, exportSec, codeSec, dataSec, nameSec)
	out, err := rewrite(in)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := parse(out)
	if err != nil {
		t.Fatalf("parsing the rewritten binary: %v", err)
	}
	wantImports := cat([]byte{2}, name("gojs"), name("f"), []byte{kindFunc, 0},
		name("env"), name("mem"), []byte{kindMemory, 0x03, 0xac, 0x02, 0x80, 0x80, 0x04})
	wantCustom := cat(name("deeplda-memory"), []byte{44, 1, 0, 0})
	want := [][]byte{typeSec, sec(idImport, wantImports...), funcSec, exportSec, codeSec, dataSec, nameSec, sec(idCustom, wantCustom...)}
	if len(secs) != len(want) {
		t.Fatalf("%d sections, want %d", len(secs), len(want))
	}
	for i, s := range secs {
		if !bytes.Equal(s.raw, want[i]) {
			t.Errorf("section %d (id %d):\n got % x\nwant % x", i, s.id, s.raw, want[i])
		}
	}
	if !bytes.Equal(out, cat(header, cat(want...))) {
		t.Error("the rewritten binary is not its sections")
	}
}

// TestRewriteNoImports rewrites a module that imports nothing: the new
// import section goes after the type section, before the function section.
func TestRewriteNoImports(t *testing.T) {
	out, err := rewrite(module(nameSec, typeSec, funcSec, memorySec, exportSec, codeSec))
	if err != nil {
		t.Fatal(err)
	}
	imports := cat([]byte{1}, name("env"), name("mem"), []byte{kindMemory, 0x03, 0xac, 0x02, 0x80, 0x80, 0x04})
	custom := sec(idCustom, cat(name("deeplda-memory"), []byte{44, 1, 0, 0})...)
	if want := module(nameSec, typeSec, sec(idImport, imports...), funcSec, exportSec, codeSec, custom); !bytes.Equal(out, want) {
		t.Errorf("got  % x\nwant % x", out, want)
	}
}

// TestRewriteErrors checks that malformed or unsuitable binaries fail with
// an error that says why.
func TestRewriteErrors(t *testing.T) {
	memImport := sec(idImport, cat([]byte{1}, name("env"), name("mem"), []byte{kindMemory, 0, 1})...)
	good := module(typeSec, importSec, funcSec, memorySec, exportSec, codeSec)
	for _, c := range []struct {
		what string
		in   []byte
		want string
	}{
		{"not wasm", []byte("\x7fELF\x02\x01\x01\x00"), "not a WebAssembly binary"},
		{"no memory", module(typeSec, importSec, funcSec, exportSec, codeSec), "defines no memory"},
		{"two memories", module(typeSec, funcSec, sec(idMemory, 2, 0, 1, 0, 1), codeSec), "defines 2 memories"},
		{"imports a memory", module(typeSec, memImport, funcSec, codeSec), "already imports a memory (env.mem)"},
		{"rewritten twice", func() []byte { b, _ := rewrite(good); return b }(), "already imports a memory (env.mem)"},
		{"shared memory", module(typeSec, funcSec, sec(idMemory, 1, 0x03, 1, 2), codeSec), "limits flags 0x3"},
		{"two memory sections", module(typeSec, memorySec, memorySec), "section id 5 appears twice"},
		{"unknown section", module(typeSec, sec(13, 0)), "unknown section id 13"},
		{"truncated", good[:len(good)-2], "unexpected end"},
		{"bad import kind", module(sec(idImport, cat([]byte{1}, name("a"), name("b"), []byte{9})...), memorySec), "unknown kind 0x9"},
		{"long LEB128", module(sec(idImport, 0x80, 0x80, 0x80, 0x80, 0x80, 0)), "longer than 5 bytes"},
	} {
		_, err := rewrite(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.what, err, c.want)
		}
	}
}

// growProgram prints a line, allocates 32 MB (more than the initial memory
// of a small program, so the memory grows) and prints what it wrote there.
const growProgram = `package main

import "fmt"

func main() {
	fmt.Println("hello from a shared memory")
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	sum := 0
	for _, b := range buf {
		sum += int(b)
	}
	fmt.Printf("allocated %d MB, sum %d\n", len(buf)>>20, sum)
}
`

// runJS loads wasm_exec.js (argv[2]), compiles the rewritten binary
// (argv[3]), creates its shared memory of the size that the custom section
// gives, runs it and says what became of the memory.
const runJS = `'use strict';
require(process.argv[2]);
const mod = new WebAssembly.Module(require('fs').readFileSync(process.argv[3]));
const secs = WebAssembly.Module.customSections(mod, 'deeplda-memory');
const initial = new DataView(secs[0]).getUint32(0, true);
const mem = new WebAssembly.Memory({initial, maximum: 65536, shared: true});
const go = new Go();
let code = -1;
go.exit = (c) => { code = c; };
go.importObject.env = {mem};
const instance = new WebAssembly.Instance(mod, go.importObject);
go.run(instance).then(() => {
  console.log('exit ' + code + '; exported memory is the shared one: ' + (instance.exports.mem === mem) +
    '; ' + (mem.buffer instanceof SharedArrayBuffer ? 'shared' : 'not shared') +
    '; grew: ' + (mem.buffer.byteLength > initial * 65536));
}, (e) => { console.error(e); process.exit(1); });
`

// TestNode builds a small Go program for GOOS=js GOARCH=wasm, rewrites it
// with the command and runs it under Node.js on a shared memory, as the
// page does: it must print its lines, grow the memory and exit 0.
func TestNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no node on PATH, and CI is set, so this test must run")
		}
		t.Skip("SKIPPED: no node on PATH (Node.js runs the rewritten binary)")
	}
	dir := t.TempDir()
	files := map[string]string{"main.go": growProgram, "go.mod": "module grow\n\ngo 1.26\n", "run.js": runJS}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	build := exec.Command("go", "build", "-o", "grow.wasm", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the program: %v\n%s", err, out)
	}
	in, shared := filepath.Join(dir, "grow.wasm"), filepath.Join(dir, "grow-shared.wasm")
	if err := run([]string{in, shared}); err != nil {
		t.Fatal(err)
	}
	execJS := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	out, err := exec.Command(node, filepath.Join(dir, "run.js"), execJS, shared).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("node:\n%s", out)
	const want = "hello from a shared memory\nallocated 32 MB, sum 4278190080\nexit 0; exported memory is the shared one: true; shared; grew: true\n"
	if string(out) != want {
		t.Errorf("node printed\n%s\nwant\n%s", out, want)
	}
	// The rewritten binary's minimum is the original memory's.
	raw, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.id == idMemory {
			minPages, err := memoryMinimum(s.payload)
			if err != nil {
				t.Fatal(err)
			}
			if got := binary.LittleEndian.Uint32(raw[len(raw)-4:]); got != minPages {
				t.Errorf("deeplda-memory holds %d pages, the original memory's minimum is %d", got, minPages)
			}
		}
	}
}
