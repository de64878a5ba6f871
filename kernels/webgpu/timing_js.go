//go:build js

package webgpu

import (
	"encoding/binary"
	"fmt"
	"syscall/js"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// maxPasses bounds the timed compute passes of one submission (two
// timestamps each); the pending work is submitted before they run out.
const maxPasses = 1024

// timer times the recorded work by op family. The browser writes a
// timestamp at the beginning and the end of each compute pass
// (timestampWrites), so each family's dispatches get their own pass. v0.23's
// binding has neither query sets nor the pass's timestampWrites: they are
// reached through syscall/js. Browsers may round the times (Chromium to
// 100 µs unless its WebGPU developer features are on).
type timer struct {
	on       bool
	set      js.Value     // the GPUQuerySet
	resolve  *wgpu.Buffer // the resolved timestamps
	staging  *wgpu.Buffer // their read-back
	families []string     // the family of each timed pass
	current  string       // the family of the open pass
	ms       map[string]float64
}

// startTiming creates the query set and its buffers on first use and
// turns timing on.
func (b *Backend) startTiming() error {
	t := &b.timer
	if t.set.IsUndefined() {
		set, err := jsCall(jsValue(unsafe.Pointer(b.device)), "createQuerySet", map[string]any{"type": "timestamp", "count": 2 * maxPasses})
		if err != nil {
			return fmt.Errorf("webgpu: creating timestamp queries: %w", err)
		}
		t.set = set
		if err := b.createTimestampBuffers(16 * maxPasses); err != nil {
			return err
		}
	}
	t.on, t.ms, t.families = true, map[string]float64{}, t.families[:0]
	return nil
}

// timeKernel begins a timed compute pass when the next dispatch is of
// another op family than the open pass (or none is open).
func (b *Backend) timeKernel(f string) {
	t := &b.timer
	if !t.on || (b.pass != nil && t.current == f) {
		return
	}
	b.endPass()
	if len(t.families) == maxPasses {
		b.submit()
	}
	enc := b.encoderFor()
	if enc == nil {
		return
	}
	i := 2 * len(t.families)
	pass, err := jsCall(jsValue(unsafe.Pointer(enc)), "beginComputePass", map[string]any{"timestampWrites": map[string]any{
		"querySet": t.set, "beginningOfPassWriteIndex": i, "endOfPassWriteIndex": i + 1}})
	if err != nil {
		b.fail(fmt.Errorf("webgpu: beginning a timed compute pass: %w", err))
		return
	}
	p := new(wgpu.ComputePassEncoder)
	*(*js.Value)(unsafe.Pointer(p)) = pass
	b.pass = p
	b.count.Passes++
	t.families = append(t.families, f)
	t.current = f
}

// close copies the timestamps of the encoder's passes out; submit calls it
// (after ending the open pass) before finishing the encoder.
func (t *timer) close(b *Backend) {
	if !t.on || len(t.families) == 0 {
		return
	}
	n := 2 * len(t.families)
	if _, err := jsCall(jsValue(unsafe.Pointer(b.encoder)), "resolveQuerySet", t.set, 0, n, jsValue(unsafe.Pointer(t.resolve)), 0); err != nil {
		b.fail(fmt.Errorf("webgpu: resolving the timestamps: %w", err))
		return
	}
	b.fail(b.encoder.CopyBufferToBuffer(t.resolve, 0, t.staging, 0, 8*uint64(n)))
}

// collect waits for the timestamps of the submission that close ended and
// adds each pass's time to its family's.
func (t *timer) collect(b *Backend) {
	if !t.on || len(t.families) == 0 {
		return
	}
	defer func() { t.families = t.families[:0] }()
	raw, err := mapRead(b, t.staging, 16*uint64(len(t.families)))
	if err != nil {
		b.fail(fmt.Errorf("webgpu: reading the timestamps: %w", err))
		return
	}
	for i, f := range t.families {
		start, end := binary.LittleEndian.Uint64(raw[16*i:]), binary.LittleEndian.Uint64(raw[16*i+8:])
		if end >= start {
			t.ms[f] += float64(end-start) / 1e6
		}
	}
}

// release frees the query set and its buffers.
func (t *timer) release() {
	for _, buf := range []*wgpu.Buffer{t.resolve, t.staging} {
		if buf != nil {
			buf.Destroy()
			buf.Release()
		}
	}
	if !t.set.IsUndefined() {
		t.set.Call("destroy")
	}
	*t = timer{}
}

// jsCall calls a method of a JavaScript object, returning a thrown
// exception as an error.
func jsCall(v js.Value, method string, args ...any) (r js.Value, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%s: %v", method, x)
		}
	}()
	return v.Call(method, args...), nil
}
