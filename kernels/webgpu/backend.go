// Package webgpu is the WebGPU implementation of kernels.Backend: every op
// is a WGSL compute shader from package shaders, dispatched through
// github.com/cogentcore/webgpu (wgpu-native through cgo natively, the
// browser's navigator.gpu under GOOS=js).
//
// Tensors live in GPU storage buffers. Operations are recorded into one
// command encoder (one compute pass while only dispatches follow each other)
// and submitted when something must be read back, when the uniform ring is
// full, or on Sync. Pipelines and bind groups are created once and cached;
// per-dispatch shapes and scalars go through a ring of uniform slots bound
// with dynamic offsets, so a training step that repeats the same dispatches
// allocates nothing.
package webgpu

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/shaders"
)

// ErrNoAdapter is returned by New when no WebGPU adapter is available.
var ErrNoAdapter = errors.New("webgpu: no WebGPU adapter available")

// Backend is the WebGPU kernels.Backend. It is not safe for concurrent use.
type Backend struct {
	instance *wgpu.Instance
	adapter  *wgpu.Adapter
	device   *wgpu.Device
	queue    *wgpu.Queue
	info     kernels.Info

	encoder *wgpu.CommandEncoder
	pass    *wgpu.ComputePassEncoder

	pipelines    map[string]*pipeline
	ifaces       map[string]shaders.Interface // by shader file, read on first use
	bindGroups   map[string]*wgpu.BindGroup
	ring         uniformRing
	staging      map[uint64]*wgpu.Buffer
	scratch      kernels.Tensor // the LDA head's working memory (see headScratch)
	splitScratch kernels.Tensor // the partial sums of split filter gradients (Conv2DBackwardFilter)
	bnScratch    kernels.Tensor // the per-segment results of BatchNorm's reductions (bnReduce)
	nextID       int

	count kernels.DeviceCounters
	loss  deviceLoss
	timer timer

	limits map[string]uint64 // granted to the device (Limits)
	scoped bool              // error scopes are open (watch)
	fault  string            // the fault to provoke (Fault)
	tile   gemmTile          // the GEMM tile TileEnv fixes (zero: tileFor chooses)

	mu   sync.Mutex
	lost error // set by the device's callbacks: its loss, an error outside the error scopes
	err  error // first error of a recorded operation
}

// New opens the default WebGPU adapter and a device, with the adapter's
// own limits in the browser and WebGPU's defaults natively (see
// requestDevice). It returns ErrNoAdapter (wrapped) when there is none.
func New() (*Backend, error) {
	b := &Backend{pipelines: map[string]*pipeline{}, ifaces: map[string]shaders.Interface{}, bindGroups: map[string]*wgpu.BindGroup{}, staging: map[uint64]*wgpu.Buffer{}}
	if err := b.loss.fromEnv(); err != nil {
		return nil, err
	}
	var err error
	if b.tile, err = tileFromEnv(); err != nil {
		return nil, err
	}
	wgpu.SetLogLevel(wgpu.LogLevelError)
	var adapter *wgpu.Adapter
	probeEnv(func() {
		b.instance = wgpu.CreateInstance(nil)
		adapter, err = b.instance.RequestAdapter(&wgpu.RequestAdapterOptions{PowerPreference: wgpu.PowerPreferenceHighPerformance})
	})
	if err != nil || adapter == nil {
		b.instance.Release()
		if err == nil {
			err = errors.New("no adapter")
		}
		return nil, fmt.Errorf("%w: %v", ErrNoAdapter, err)
	}
	b.adapter = adapter
	b.info = kernels.Info{Name: "webgpu", Adapter: adapterName(adapter)}
	device, err := requestDevice(b)
	if err != nil {
		adapter.Release()
		b.instance.Release()
		return nil, fmt.Errorf("webgpu: requesting a device on %s: %w", b.info.Adapter, err)
	}
	b.device = device
	b.queue = device.GetQueue()
	b.limits = deviceLimits(b)
	if err := b.ring.init(b); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Software reports whether the adapter is a CPU implementation of WebGPU
// (such as Mesa's lavapipe): it computes correctly but slower than the CPU
// backend, so automatic backend choices skip it.
func (b *Backend) Software() bool { return software(b.adapter) }

// Info names the backend and its adapter.
func (b *Backend) Info() kernels.Info { return b.info }

// fail records the first error of a recorded operation; Sync and Read
// report it.
func (b *Backend) fail(err error) {
	if err != nil && b.err == nil {
		b.err = deviceError(err)
	}
}

// status returns the first recorded error or the device loss.
func (b *Backend) status() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lost != nil {
		return b.lost
	}
	return b.err
}

// encoderFor returns the open command encoder, creating one if needed.
func (b *Backend) encoderFor() *wgpu.CommandEncoder {
	if b.encoder == nil {
		enc, err := b.device.CreateCommandEncoder(nil)
		if err != nil {
			b.fail(fmt.Errorf("webgpu: creating a command encoder: %w", err))
			return nil
		}
		b.encoder = enc
	}
	return b.encoder
}

// computePass returns the open compute pass, beginning one if needed.
func (b *Backend) computePass() *wgpu.ComputePassEncoder {
	if b.pass == nil {
		enc := b.encoderFor()
		if enc == nil {
			return nil
		}
		b.pass = enc.BeginComputePass(nil)
		b.count.Passes++
	}
	return b.pass
}

// endPass ends the open compute pass (before copies and submission).
func (b *Backend) endPass() {
	if b.pass != nil {
		b.fail(endPass(b.pass))
		b.pass.Release()
		b.pass = nil
	}
}

// submit ends recording and submits the pending commands.
func (b *Backend) submit() {
	b.endPass()
	if b.encoder == nil {
		return
	}
	b.timer.close(b)
	cmd, err := b.encoder.Finish(nil)
	b.encoder.Release()
	b.encoder = nil
	if err != nil {
		b.fail(fmt.Errorf("webgpu: finishing commands: %w", err))
		return
	}
	b.ring.flush(b)
	b.queue.Submit(cmd)
	cmd.Release()
	b.count.Submits++
	b.timer.collect(b)
}

// Sync submits the pending work, waits for the queue to drain and reports
// the first error since the backend was opened.
func (b *Backend) Sync() error {
	b.submit()
	done := false
	b.queue.OnSubmittedWorkDone(func(wgpu.QueueWorkDoneStatus) { done = true })
	if err := b.wait(&done, "waiting for the queue"); err != nil {
		return err
	}
	b.checkScopes()
	return b.status()
}

// wait polls the device until *done is set. It does not use Poll(true),
// which in wgpu-native v0.23 gives up after 5 s and reports success.
func (b *Backend) wait(done *bool, what string) error {
	start := time.Now()
	sleep := time.Duration(0)
	for !*done {
		b.device.Poll(false, nil)
		if *done {
			break
		}
		if err := b.status(); err != nil {
			return err
		}
		if time.Since(start) > 10*time.Minute {
			return deviceError(fmt.Errorf("webgpu: %s: no answer from the device after %v", what, time.Since(start).Round(time.Second)))
		}
		if sleep > 0 {
			time.Sleep(sleep)
		}
		sleep = min(max(2*sleep, 20*time.Microsecond), 2*time.Millisecond)
	}
	return nil
}

// Close releases every GPU object.
func (b *Backend) Close() {
	if b.device == nil {
		return
	}
	b.endPass()
	if b.encoder != nil {
		b.encoder.Release()
		b.encoder = nil
	}
	for _, g := range b.bindGroups {
		g.Release()
	}
	for _, p := range b.pipelines {
		p.release()
	}
	for _, s := range b.staging {
		s.Destroy()
		s.Release()
	}
	b.ring.release()
	b.timer.release()
	b.queue.Release()
	b.device.Release()
	b.adapter.Release()
	b.instance.Release()
	b.device = nil
}
