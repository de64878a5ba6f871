// Package enginetest holds what the tests of the engine and of its views
// share: Recorder, a host that records the engine's events.
package enginetest

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
)

// Recorder is an engine host (engine.Host) without WebGPU whose site is a
// folder (none when empty). It records the events, each after a trip
// through JSON, as a view would get them.
type Recorder struct {
	site   string
	mu     sync.Mutex
	events []protocol.Event
	wake   chan struct{}
}

// New returns a Recorder whose site is the folder site ("": none).
func New(site string) *Recorder { return &Recorder{site: site, wake: make(chan struct{}, 1)} }

// OpenWebGPU says there is no WebGPU.
func (r *Recorder) OpenWebGPU() (kernels.Backend, string) { return nil, "no WebGPU in tests" }

// Yield does nothing: the engine runs in goroutines of its own.
func (r *Recorder) Yield() {}

// LoseDevice does nothing: there is no device to lose.
func (r *Recorder) LoseDevice() {}

// Memory says there is no WebAssembly memory.
func (r *Recorder) Memory() string { return "" }

// Engine says the engine runs natively.
func (r *Recorder) Engine() string { return "native" }

// Fetch reads a file of the site.
func (r *Recorder) Fetch(path string) ([]byte, error) {
	if r.site == "" {
		return nil, errors.New("no site")
	}
	return os.ReadFile(filepath.Join(r.site, filepath.FromSlash(path)))
}

// Emit records ev as it comes back from JSON; an event that does not
// survive the trip panics.
func (r *Recorder) Emit(ev protocol.Event) {
	b, err := protocol.Encode(ev)
	if err != nil {
		panic(err)
	}
	back, err := protocol.DecodeEvent(b)
	if err != nil {
		panic(err)
	}
	r.mu.Lock()
	r.events = append(r.events, back)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Len returns the number of events so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// Wait returns the events from the from-th up to the first of a kind in
// kinds, and that one; it fails the test after two minutes.
func (r *Recorder) Wait(t testing.TB, from int, kinds ...string) ([]protocol.Event, protocol.Event) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		r.mu.Lock()
		evs := append([]protocol.Event(nil), r.events...)
		r.mu.Unlock()
		for i := from; i < len(evs); i++ {
			for _, k := range kinds {
				if evs[i].Kind == k {
					return evs[from : i+1], evs[i]
				}
			}
		}
		select {
		case <-r.wake:
		case <-deadline:
			t.Fatalf("no %v event within two minutes; got %d events", kinds, len(evs))
		}
	}
}
