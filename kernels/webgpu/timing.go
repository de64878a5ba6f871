package webgpu

import "errors"

// errTimingUnsupported is StartTiming's answer on an adapter that has
// timestamp queries: this backend does not write them yet (v0.23 offers
// them natively only between compute passes, through the command encoder,
// and not at all in the browser).
var errTimingUnsupported = errors.New("the backend does not write timestamp queries yet (the adapter has timestamp-query)")

// StartTiming would time the recorded work by op family with timestamp
// queries (kernels.Timing); it says why it cannot: the adapter lacks the
// timestamp-query feature, or this backend does not use it yet.
func (b *Backend) StartTiming() error {
	if !hasTimestamps(b) {
		return errors.New("adapter lacks timestamp-query")
	}
	return errTimingUnsupported
}

// StopTiming returns the device times of a started timing; none starts.
func (b *Backend) StopTiming() (map[string]float64, error) {
	return nil, errors.New("webgpu: timing was not started")
}
