package webgpu

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// errNoTimestamps is StartTiming's answer on an adapter without timestamp
// queries.
var errNoTimestamps = errors.New("adapter lacks timestamp-query")

// StartTiming starts timing the work recorded from now on by kernel (the
// WGSL file and entry point of each dispatch: conv/conv_forward, ...) with
// timestamp queries (kernels.Timing), after submitting the work recorded
// before. It says why it cannot where the adapter lacks the
// timestamp-query feature or the platform cannot use it. While timing,
// dispatches of different kernels go into separate compute passes, and
// every submission waits for its timestamps: time the same work apart
// from the wall-clock figures and the device counters.
func (b *Backend) StartTiming() error {
	if !hasTimestamps(b) {
		return errNoTimestamps
	}
	b.submit()
	return b.startTiming()
}

// StopTiming waits for the work recorded since StartTiming and returns
// the device time of each kernel in milliseconds, keyed as timingKey.
func (b *Backend) StopTiming() (map[string]float64, error) {
	err := b.Sync()
	ms := b.timer.ms
	b.timer.on, b.timer.ms = false, nil
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// timingKey names the kernel in StopTiming's times: its op family (the
// shader file's name) and its entry point, as "conv/conv_forward".
func (k kernel) timingKey() string { return strings.TrimSuffix(k.File, ".wgsl") + "/" + k.Entry }

// createTimestampBuffers creates the timer's buffers of size bytes: the
// one the timestamps are resolved into and its read-back. On failure it
// releases the timer.
func (b *Backend) createTimestampBuffers(size uint64) error {
	t := &b.timer
	for _, p := range []struct {
		buf   **wgpu.Buffer
		usage wgpu.BufferUsage
	}{{&t.resolve, wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc}, {&t.staging, wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst}} {
		var err error
		if *p.buf, err = b.createBuffer(&wgpu.BufferDescriptor{Size: size, Usage: p.usage}); err != nil {
			t.release()
			return fmt.Errorf("webgpu: creating the timestamp buffers: %w", err)
		}
	}
	return nil
}
