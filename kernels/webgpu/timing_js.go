//go:build js

package webgpu

import "errors"

// timer is empty in the browser: v0.23's binding cannot request the
// timestamp-query feature (RequiredFeatures panics) and has no query sets.
type timer struct {
	on bool
	ms map[string]float64
}

func (b *Backend) startTiming() error {
	return errors.New("the browser's adapter has timestamp-query, but the WebGPU binding (cogentcore/webgpu v0.23) cannot request it")
}

func (b *Backend) timeFamily(string) {}
func (t *timer) close(*Backend)      {}
func (t *timer) collect(*Backend)    {}
func (t *timer) release()            {}
