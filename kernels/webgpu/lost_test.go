package webgpu

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
)

// TestLostOrFailedErrorsAreTyped: an operation the device refuses makes
// Sync and Read fail with kernels.ErrDeviceFailed (not ErrDeviceLost), and
// wgpu's device-lost errors become ErrDeviceLost.
func TestLostOrFailedErrorsAreTyped(t *testing.T) {
	b, err := New()
	if err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, ErrNoAdapter) {
			t.Fatalf("no WebGPU backend: %v", err)
		}
		t.Skipf("SKIPPED: no WebGPU adapter (%v)", err)
	}
	defer b.Close()
	x := b.Alloc(kernels.Float32, 4)
	b.dispatch("Frobnicate", kernel{File: "elementwise.wgsl", Entry: "no_such_entry", Slots: []slot{out(1)}}, groups{1, 1, 1}, params{}.u(4, 1).f(0), x)
	if err := b.Sync(); !errors.Is(err, kernels.ErrDeviceFailed) || errors.Is(err, ErrDeviceLost) {
		t.Errorf("Sync after a refused pipeline: %v; want ErrDeviceFailed", err)
	}
	if _, err := b.Read(x); !errors.Is(err, kernels.ErrDeviceFailed) {
		t.Errorf("Read after a refused pipeline: %v; want ErrDeviceFailed", err)
	}
	if err := deviceError(fmt.Errorf("submitting: %w", &wgpu.Error{Type: wgpu.ErrorTypeDeviceLost, Message: "gone"})); !errors.Is(err, ErrDeviceLost) || errors.Is(err, kernels.ErrDeviceFailed) {
		t.Errorf("a device-lost error from wgpu: %v; want ErrDeviceLost", err)
	}
}
