//go:build !js

package webgpu

import (
	"encoding/binary"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// maxStamps bounds the timestamps of one submission; the pending work is
// submitted before they run out.
const maxStamps = 2048

// timer times the recorded work by op family. wgpu-native v0.23 writes
// timestamps only between passes, through the command encoder, so each
// family's dispatches get their own compute pass, with a timestamp before
// it; the time from one timestamp to the next is the family's. v0.23 does
// not expose the queue's timestamp period: the ticks are taken as
// nanoseconds, as they are on lavapipe and NVIDIA's Vulkan drivers.
type timer struct {
	on       bool
	set      *wgpu.QuerySet
	resolve  *wgpu.Buffer // the resolved timestamps
	staging  *wgpu.Buffer // their read-back
	families []string     // the family each timestamp starts ("" for none)
	current  string       // the family of the open pass
	ms       map[string]float64
}

// startTiming creates the query set and its buffers on first use and
// turns timing on.
func (b *Backend) startTiming() error {
	t := &b.timer
	if t.set == nil {
		set, err := b.device.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: maxStamps})
		if err != nil {
			return fmt.Errorf("webgpu: creating timestamp queries: %w", err)
		}
		t.set = set
		if err := b.createTimestampBuffers(8 * maxStamps); err != nil {
			return err
		}
	}
	t.on, t.ms, t.families = true, map[string]float64{}, t.families[:0]
	return nil
}

// timeKernel starts a compute pass with a timestamp when the next dispatch
// is of another op family than the open pass (or none is open).
func (b *Backend) timeKernel(f string) {
	t := &b.timer
	if !t.on || (b.pass != nil && t.current == f) {
		return
	}
	b.endPass()
	if len(t.families) >= maxStamps-1 {
		b.submit()
	}
	if enc := b.encoderFor(); enc != nil {
		t.stamp(b, enc, f)
		t.current = f
	}
}

// stamp writes the next timestamp, which starts the interval of family f.
func (t *timer) stamp(b *Backend, enc *wgpu.CommandEncoder, f string) {
	b.fail(enc.WriteTimestamp(t.set, uint32(len(t.families))))
	t.families = append(t.families, f)
}

// close ends the last interval of the encoder's work and copies the
// timestamps out; submit calls it before finishing the encoder.
func (t *timer) close(b *Backend) {
	if !t.on || len(t.families) == 0 {
		return
	}
	t.stamp(b, b.encoder, "")
	n := uint32(len(t.families))
	b.fail(b.encoder.ResolveQuerySet(t.set, 0, n, t.resolve, 0))
	b.fail(b.encoder.CopyBufferToBuffer(t.resolve, 0, t.staging, 0, 8*uint64(n)))
}

// collect waits for the timestamps of the submission that close ended and
// adds each interval to its family's time.
func (t *timer) collect(b *Backend) {
	if !t.on || len(t.families) == 0 {
		return
	}
	n := len(t.families)
	defer func() { t.families = t.families[:0] }()
	raw, err := mapRead(b, t.staging, 8*uint64(n))
	if err != nil {
		b.fail(fmt.Errorf("webgpu: reading the timestamps: %w", err))
		return
	}
	for i := 0; i+1 < n; i++ {
		start, end := binary.LittleEndian.Uint64(raw[8*i:]), binary.LittleEndian.Uint64(raw[8*i+8:])
		if f := t.families[i]; f != "" && end >= start {
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
	if t.set != nil {
		t.set.Release()
	}
	*t = timer{}
}
