package webgpu

import (
	"errors"
	"strings"
)

// errNoTimestamps is StartTiming's answer on an adapter without timestamp
// queries.
var errNoTimestamps = errors.New("adapter lacks timestamp-query")

// StartTiming starts timing the work recorded from now on by op family
// (the WGSL file of each dispatch: matmul, conv, batchnorm, ...) with
// timestamp queries (kernels.Timing), after submitting the work recorded
// before. It says why it cannot where the adapter lacks the
// timestamp-query feature or the platform cannot use it. While timing,
// dispatches of different families go into separate compute passes, and
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
// the device time of each op family in milliseconds.
func (b *Backend) StopTiming() (map[string]float64, error) {
	err := b.Sync()
	ms := b.timer.ms
	b.timer.on, b.timer.ms = false, nil
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// family names the op family of a shader file.
func family(file string) string { return strings.TrimSuffix(file, ".wgsl") }
