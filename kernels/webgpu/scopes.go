package webgpu

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/kernels"
)

// This file hears what the device says. In the browser, creating a
// buffer, a bind group or a pipeline returns no error: the browser
// validates the call in its GPU process and reports what it rejects
// (a validation error, an allocation it has no memory for) to the
// console, leaving the object invalid, and the work that uses it computes
// nothing. So each pipeline is created inside error scopes of its own
// (pipelineFor), with its shader's compilation messages read, and the
// first creation since the last check opens error scopes (watch) that the
// next Sync or Read closes (checkScopes) before it returns: a run's first
// steps, which create its buffers and bind groups, and any later step
// that creates some, are checked before their results are used. An error
// outside the scopes comes through the device's uncapturederror event
// (platform_js.go) and fails the next Sync or Read. Natively the calls
// return their errors, and the scopes are no-ops (platform_native.go).

// watch opens error scopes before a creation, unless they are open.
func (b *Backend) watch() {
	if !b.scoped {
		pushScopes(b)
		b.scoped = true
	}
}

// checkScopes closes the error scopes that watch opened and records the
// error they caught.
func (b *Backend) checkScopes() {
	if b.scoped {
		b.scoped = false
		b.fail(popScopes(b))
	}
}

// gpuError is an error the device reported: the class of the browser's
// GPUError (GPUValidationError, GPUOutOfMemoryError, GPUInternalError)
// and its message.
type gpuError struct{ class, message string }

// Error says what the device reported, on one line.
func (e gpuError) Error() string {
	msg := oneLine(e.message)
	switch e.class {
	case "GPUValidationError":
		return "the GPU rejected an operation: " + msg
	case "GPUOutOfMemoryError":
		return "the GPU is out of memory: " + msg
	}
	return fmt.Sprintf("the GPU reported an error (%s): %s", e.class, msg)
}

// scopeErrors joins the errors that error scopes caught, on one line: nil
// for none.
func scopeErrors(errs []gpuError) error {
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	if msgs == nil {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// compileMessage is one of the messages of a shader's compilation
// (the browser's GPUCompilationMessage).
type compileMessage struct {
	Type      string // error, warning or info
	Line, Pos int    // from 1; 0 when the message has no place
	Text      string
}

// compileError reports the errors among the compilation messages of the
// shader file: nil when there is none.
func compileError(file string, msgs []compileMessage) error {
	var errs []string
	for _, m := range msgs {
		if m.Type != "error" {
			continue
		}
		text := oneLine(m.Text)
		if m.Line > 0 {
			text = fmt.Sprintf("line %d:%d: %s", m.Line, m.Pos, text)
		}
		errs = append(errs, text)
	}
	if errs == nil {
		return nil
	}
	return fmt.Errorf("compiling %s: %s", file, strings.Join(errs, "; "))
}

// oneLine puts a message of the browser's on one line.
func oneLine(msg string) string { return strings.Join(strings.Fields(msg), " ") }

// faultWGSL is what FaultShader appends to a shader: a function that uses
// a name the shader does not declare.
const faultWGSL = "\nfn deeplda_fault() -> f32 { return no_such_value; }\n"

// Fault provokes a fault on the device for the tests (kernels.Faulting):
// kernels.FaultShader compiles the next pipeline's shader with an error,
// kernels.FaultBuffer has the next Alloc ask for 4 bytes more than the
// device's maxBufferSize. Other kinds do nothing.
func (b *Backend) Fault(kind string) {
	if kind == kernels.FaultShader || kind == kernels.FaultBuffer {
		b.fault = kind
	}
}

// faulted reports whether the fault kind is pending, and clears it.
func (b *Backend) faulted(kind string) bool {
	if b.fault != kind {
		return false
	}
	b.fault = ""
	return true
}
