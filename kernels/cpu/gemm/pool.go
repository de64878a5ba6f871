package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// helpers is the pool of helper goroutines shared by all Sgemm calls.
//
// Starting a goroutine on an idle processor means waking an OS thread,
// which takes from a few microseconds on bare metal to around 100 µs on
// some virtual machines: a large part of a typical ConvNet GEMM. So helpers
// are kept: after finishing a job a helper keeps polling for the next one
// for spinTime (yielding the processor to any other runnable goroutine
// while it does), and only then parks until a job is offered. Back-to-back
// parallel calls, the common case in a training loop, therefore start
// immediately.
//
// Helpers are an optimisation only: the caller of a job always works on it
// too, and the dynamic distribution of work items means a job completes
// correctly whatever number of helpers join it, and whenever they do.
var helpers helperPool

// spinTime is how long an idle helper polls for a new job before parking.
const spinTime = 300 * time.Microsecond

// maxHelperGoroutines caps the number of helper goroutines.
const maxHelperGoroutines = 255

// helperPool is the type of helpers.
type helperPool struct {
	current atomic.Pointer[job] // the job on offer, if any
	lastID  atomic.Uint64       // id of the latest job offered

	mu      sync.Mutex
	started int           // helper goroutines started
	parked  int           // helpers waiting on wake
	wake    chan struct{} // one token per parked helper to wake
}

// offer makes j available to helpers and makes sure that up to n of them
// are running.
func (h *helperPool) offer(j *job, n int) {
	j.id = h.lastID.Add(1)
	h.current.Store(j)
	n = min(n, maxHelperGoroutines)
	h.mu.Lock()
	if h.wake == nil {
		h.wake = make(chan struct{}, maxHelperGoroutines)
	}
	for h.started < n {
		h.started++
		go h.loop()
	}
	wake := min(h.parked, n)
	h.parked -= wake
	h.mu.Unlock()
	for range wake {
		h.wake <- struct{}{}
	}
}

// withdraw takes j off offer (so that the pool does not keep it, and the
// caller's matrices, alive).
func (h *helperPool) withdraw(j *job) {
	h.current.CompareAndSwap(j, nil)
}

// loop is the body of a helper goroutine.
func (h *helperPool) loop() {
	var seen uint64 // id of the last job seen
	idleSince := time.Now()
	for {
		if j := h.current.Load(); j != nil && j.id != seen {
			seen = j.id
			j.help()
			idleSince = time.Now()
			continue
		}
		if time.Since(idleSince) < spinTime {
			runtime.Gosched()
			continue
		}
		h.mu.Lock()
		h.parked++
		h.mu.Unlock()
		<-h.wake
		idleSince = time.Now()
	}
}
