package shaders

import (
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	got := strings.Join(Names(), " ")
	want := "adam.wgsl batchnorm.wgsl conv.wgsl elementwise.wgsl head.wgsl loss.wgsl matmul.wgsl pool.wgsl"
	if got != want {
		t.Errorf("Names() = %s, want %s", got, want)
	}
}

// TestSource checks that every shader has entry points and that the GEMM
// shaders come after the shared tile code, which has none.
func TestSource(t *testing.T) {
	tile := Source("tile.wgsl")
	if strings.Contains(tile, "@compute") {
		t.Error("tile.wgsl has an entry point")
	}
	for _, name := range Names() {
		src := Source(name)
		if !strings.Contains(src, "@compute") {
			t.Errorf("%s: no entry point", name)
		}
		if !strings.HasSuffix(src, "\n") {
			t.Errorf("%s: no final newline", name)
		}
		usesTile := name == "conv.wgsl" || name == "matmul.wgsl"
		if got := strings.HasPrefix(src, tile) && len(src) > len(tile); got != usesTile {
			t.Errorf("%s: starts with tile.wgsl: %v, want %v", name, got, usesTile)
		}
	}
}

func TestSourcePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Source of a missing file did not panic")
		}
	}()
	Source("missing.wgsl")
}

func TestSpecialize(t *testing.T) {
	src := Source("matmul.wgsl")
	got, err := Specialize(src, map[string]uint32{"TM": 128, "TK": 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"const TM = 128u;  // tile rows\n", "const TK = 8u;  // slice depth\n", "const TN = 128u;"} {
		if !strings.Contains(got, want) {
			t.Errorf("the specialized text lacks %q", want)
		}
	}
	// 64u to 128u is a byte more, 16u to 8u one less: nothing else changed.
	if strings.Contains(got, "const TM = 64u") || len(got) != len(src) {
		t.Errorf("the specialized text keeps the old TM or changed elsewhere (length %d, was %d)", len(got), len(src))
	}
	for _, bad := range []map[string]uint32{{"TX": 1}, {"TM": 1, "NOPE": 2}} {
		if _, err := Specialize(src, bad); err == nil {
			t.Errorf("Specialize(%v) gave no error", bad)
		}
	}
	if _, err := Specialize("const A = 1u;\nconst A = 2u;\n", map[string]uint32{"A": 3}); err == nil {
		t.Error("a constant declared twice gave no error")
	}
}
