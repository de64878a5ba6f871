//go:build !(js && wasm)

package wasmsimd

//go:generate env DEEPLDA_UPDATE_MODULES=1 go test -run TestModulesUpToDate .

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestModuleShape checks the module's header and that only the relaxed
// variant holds relaxed_madd (0xfd 0x85 0x02). That the module validates
// and computes the right products is tested where it runs: the gemm
// package's tests under GOOS=js GOARCH=wasm with Node.js.
func TestModuleShape(t *testing.T) {
	madd := []byte{0xfd, 0x85, 0x02}
	for _, relaxed := range []bool{false, true} {
		m := build(MR, NR, relaxed, false)
		if !bytes.HasPrefix(m, []byte{0, 'a', 's', 'm', 1, 0, 0, 0}) {
			t.Fatalf("relaxed %v: header % x", relaxed, m[:8])
		}
		if got := bytes.Contains(m, madd); got != relaxed {
			t.Errorf("relaxed %v: holds relaxed_madd: %v", relaxed, got)
		}
	}
}

// TestModulesUpToDate checks that the modules the programs embed
// (modules/) are what the encoder encodes; with DEEPLDA_UPDATE_MODULES=1
// (go generate) it writes them.
func TestModulesUpToDate(t *testing.T) {
	update := os.Getenv("DEEPLDA_UPDATE_MODULES") == "1"
	for _, m := range []struct {
		file            string
		relaxed, shared bool
		embedded        []byte
	}{
		{"plain.wasm", false, false, Module(false)},
		{"relaxed.wasm", true, false, Module(true)},
		{"shared-plain.wasm", false, true, SharedModule(false)},
		{"shared-relaxed.wasm", true, true, SharedModule(true)},
	} {
		want := build(MR, NR, m.relaxed, m.shared)
		if update {
			if err := os.WriteFile(filepath.Join("modules", m.file), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(m.embedded, want) {
			t.Errorf("modules/%s is not what the encoder encodes: run go generate ./kernels/cpu/gemm/internal/wasmsimd", m.file)
		}
	}
}

// TestPointers checks Pointers against the routines' parameters: one entry
// a routine, each place an i32 parameter, the first ShiftArgs only.
func TestPointers(t *testing.T) {
	params := map[string][]byte{"macro": macroType, "pack": packType, "seq": seqType, "claim": claimType}
	for _, v := range vecFuncs() {
		params[v.name] = v.params
	}
	if len(Pointers) != len(Routines) {
		t.Fatalf("%d entries in Pointers for %d routines", len(Pointers), len(Routines))
	}
	for k, name := range Routines {
		ps, ok := params[name]
		if !ok {
			t.Fatalf("no routine %s", name)
		}
		for _, a := range Pointers[k] {
			if a >= len(ps) || a >= ShiftArgs || ps[a] != i32 {
				t.Errorf("%s: argument %d is not an i32 parameter that seq can shift", name, a)
			}
		}
	}
}
