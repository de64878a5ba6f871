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
