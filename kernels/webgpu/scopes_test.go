package webgpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// TestScopeErrors: what error scopes catch reads as what the device said,
// on one line, and nothing caught is no error.
func TestScopeErrors(t *testing.T) {
	if err := scopeErrors(nil); err != nil {
		t.Errorf("no errors caught: %v", err)
	}
	err := scopeErrors([]gpuError{
		{"GPUValidationError", "Buffer size (4294967300) exceeds the max buffer size limit (4294967296).\n - While calling [Device].CreateBuffer([BufferDescriptor])."},
		{"GPUOutOfMemoryError", "Not enough memory left."},
		{"GPUInternalError", "Device lost during a call."},
	})
	for _, want := range []string{
		"the GPU rejected an operation: Buffer size (4294967300) exceeds the max buffer size limit (4294967296). - While calling [Device].CreateBuffer([BufferDescriptor]).",
		"the GPU is out of memory: Not enough memory left.",
		"the GPU reported an error (GPUInternalError): Device lost during a call.",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if failed := deviceError(err); !errors.Is(failed, kernels.ErrDeviceFailed) || errors.Is(failed, ErrDeviceLost) {
		t.Errorf("the device's errors as the backend's: %v; want ErrDeviceFailed", failed)
	}
}

// TestCompileError: the errors among a shader's compilation messages,
// with their places, and none for warnings alone.
func TestCompileError(t *testing.T) {
	if err := compileError("pool.wgsl", []compileMessage{{Type: "warning", Line: 3, Pos: 1, Text: "unused"}, {Type: "info", Text: "fine"}}); err != nil {
		t.Errorf("warnings only: %v", err)
	}
	err := compileError("pool.wgsl", []compileMessage{
		{Type: "warning", Line: 3, Pos: 1, Text: "unused variable"},
		{Type: "error", Line: 120, Pos: 30, Text: "unresolved value\n'no_such_value'"},
		{Type: "error", Text: "no entry point"},
	})
	want := "compiling pool.wgsl: line 120:30: unresolved value 'no_such_value'; no entry point"
	if err == nil || err.Error() != want {
		t.Errorf("compileError = %v, want %q", err, want)
	}
}

// TestFaultsComeBack provokes each fault on the device (an invalid shader,
// a buffer over the granted maxBufferSize): each must come back from Sync
// and Read as ErrDeviceFailed naming what failed, as it does in the
// browser, where the device reports it through error scopes.
func TestFaultsComeBack(t *testing.T) {
	for _, c := range []struct{ kind, want string }{
		{kernels.FaultShader, "elementwise.wgsl"},
		{kernels.FaultBuffer, "allocating [4]"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			b := openBackend(t)
			b.Fault(c.kind)
			x := b.Alloc(kernels.Float32, 4)
			b.Fill(x, 1)
			err := b.Sync()
			t.Logf("Sync: %v", err)
			if !errors.Is(err, kernels.ErrDeviceFailed) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Sync after %s: %v; want ErrDeviceFailed naming %q", c.kind, err, c.want)
			}
			if _, err := b.Read(x); !errors.Is(err, kernels.ErrDeviceFailed) {
				t.Errorf("Read after %s: %v; want ErrDeviceFailed", c.kind, err)
			}
		})
	}
}

// TestGrantedLimits: the device reports every limit the kernels depend on,
// at least WebGPU's defaults.
func TestGrantedLimits(t *testing.T) {
	b := openBackend(t)
	l := b.Limits()
	t.Logf("granted limits: %v", l)
	for _, n := range limitNames {
		if _, ok := l[n]; !ok {
			t.Errorf("no %s in %v", n, l)
		}
	}
	if l["maxBufferSize"] < 256<<20 || l["maxStorageBufferBindingSize"] < 128<<20 || l["maxComputeInvocationsPerWorkgroup"] < 256 {
		t.Errorf("limits below WebGPU's defaults: %v", l)
	}
}
