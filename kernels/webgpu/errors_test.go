package webgpu

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// TestFailedPipelineNamesOpAndShapes dispatches an entry point that does not
// exist: the error must come back from Sync and Read, naming the op and the
// shapes, and stick to the backend.
func TestFailedPipelineNamesOpAndShapes(t *testing.T) {
	b := openBackend(t)
	x := b.Alloc(kernels.Float32, 3, 5)
	broken := kernel{File: "elementwise.wgsl", Entry: "no_such_entry", Slots: []slot{out(1)}}
	b.dispatch("Frobnicate", broken, groups{1, 1, 1}, params{}.u(15, 1).f(0), x)
	err := b.Sync()
	if err == nil || !strings.Contains(err.Error(), "Frobnicate") || !strings.Contains(err.Error(), "[3 5]") {
		t.Fatalf("Sync error %v; want one naming the op and the shape", err)
	}
	if _, err := b.Read(x); err == nil {
		t.Error("Read after a failed op returned no error")
	}
}
