package wasmsimd

import (
	"bytes"
	"testing"
)

// TestModuleShape checks the module's header and that only the relaxed
// variant holds relaxed_madd (0xfd 0x85 0x02). That the module validates
// and computes the right products is tested where it runs: the gemm
// package's tests under GOOS=js GOARCH=wasm with Node.js.
func TestModuleShape(t *testing.T) {
	madd := []byte{0xfd, 0x85, 0x02}
	for _, relaxed := range []bool{false, true} {
		m := Module(4, 8, relaxed)
		if !bytes.HasPrefix(m, []byte{0, 'a', 's', 'm', 1, 0, 0, 0}) {
			t.Fatalf("relaxed %v: header % x", relaxed, m[:8])
		}
		if got := bytes.Contains(m, madd); got != relaxed {
			t.Errorf("relaxed %v: holds relaxed_madd: %v", relaxed, got)
		}
	}
}
