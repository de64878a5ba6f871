package fmapeak

import (
	"runtime"
	"testing"
)

// TestPerCore checks that the measured rate is that of a processor: more
// than 1 GFLOP/s (a loop that did not run would give more than any
// machine, one that ran scalar code far less) and less than 16 FLOP a
// cycle at 10 GHz.
func TestPerCore(t *testing.T) {
	r, ok := PerCore()
	if !ok {
		if runtime.GOARCH == "amd64" {
			t.Fatal("amd64 without FMA: this package measures nothing here")
		}
		t.Skipf("SKIPPED: no FMA loop for %s", runtime.GOARCH)
	}
	t.Logf("128-bit FMA peak of one core: %.1f GFLOP/s", r/1e9)
	if r < 1e9 || r > 160e9 {
		t.Errorf("%.3g FLOP/s is not a core's rate", r)
	}
}
