package kernels

import "errors"

// ErrDeviceLost is the error (wrapped) that Sync and Read return once a
// backend's device is gone (destroyed, a driver reset, a failure that
// leaves it unusable): the tensors on it are lost, and a run can only go
// on from a copy on the host, such as the last checkpoint.
var ErrDeviceLost = errors.New("the GPU device was lost")

// ErrDeviceFailed is the error (wrapped) that Sync and Read return after
// an operation failed on a backend's device (a pipeline or an allocation
// it refused, a read-back it could not map, no answer from it): the
// results on the device since then are undefined, and a run can only go
// on from a copy on the host, such as the last checkpoint.
var ErrDeviceFailed = errors.New("the GPU device failed")

// DeviceCounters count what a GPU backend asked of its device since it was
// opened: compute passes, dispatches, queue submissions, uploads and
// read-backs (count and bytes), and creations of buffers, pipelines and
// bind groups. They are whole numbers, held as float64 so that an average
// per step (Per) has the same type.
type DeviceCounters struct {
	Passes            float64 `json:"passes"`
	Dispatches        float64 `json:"dispatches"`
	Submits           float64 `json:"submits"`
	Uploads           float64 `json:"uploads"`
	UploadBytes       float64 `json:"upload_bytes"`
	Readbacks         float64 `json:"readbacks"`
	ReadbackBytes     float64 `json:"readback_bytes"`
	BuffersCreated    float64 `json:"buffers_created"`
	PipelinesCreated  float64 `json:"pipelines_created"`
	BindGroupsCreated float64 `json:"bind_groups_created"`
}

// Sub returns c - d, field by field: the work between two readings.
func (c DeviceCounters) Sub(d DeviceCounters) DeviceCounters {
	return c.combine(d, func(x, y float64) float64 { return x - y })
}

// Add returns c + d, field by field.
func (c DeviceCounters) Add(d DeviceCounters) DeviceCounters {
	return c.combine(d, func(x, y float64) float64 { return x + y })
}

// Per returns c divided by n: the average per step over n steps.
func (c DeviceCounters) Per(n int) DeviceCounters {
	return c.combine(c, func(x, _ float64) float64 { return x / float64(n) })
}

// combine applies f to each field of c and the same field of d.
func (c DeviceCounters) combine(d DeviceCounters, f func(x, y float64) float64) DeviceCounters {
	return DeviceCounters{
		Passes: f(c.Passes, d.Passes), Dispatches: f(c.Dispatches, d.Dispatches), Submits: f(c.Submits, d.Submits),
		Uploads: f(c.Uploads, d.Uploads), UploadBytes: f(c.UploadBytes, d.UploadBytes),
		Readbacks: f(c.Readbacks, d.Readbacks), ReadbackBytes: f(c.ReadbackBytes, d.ReadbackBytes),
		BuffersCreated: f(c.BuffersCreated, d.BuffersCreated), PipelinesCreated: f(c.PipelinesCreated, d.PipelinesCreated),
		BindGroupsCreated: f(c.BindGroupsCreated, d.BindGroupsCreated),
	}
}

// Counting is implemented by backends that keep DeviceCounters (the
// WebGPU backend).
type Counting interface {
	DeviceCounters() DeviceCounters
}

// Timing is implemented by backends that can time their work on the device
// by kernel (the WebGPU backend, where the adapter has timestamp queries).
type Timing interface {
	// StartTiming starts timing the recorded work, or says why the device
	// cannot (its adapter lacks timestamp queries).
	StartTiming() error
	// StopTiming waits for the work recorded since StartTiming and returns
	// the device time of each kernel in milliseconds, keyed "family/entry"
	// (the op family, then the kernel within it: "conv/conv_forward").
	StopTiming() (map[string]float64, error)
}

// AdapterDetails describe a GPU backend's adapter for benchmark records:
// what the driver says it is and the limits that bound compute work.
type AdapterDetails struct {
	Name         string            `json:"name"`
	Vendor       string            `json:"vendor,omitempty"`
	VendorID     uint32            `json:"vendor_id"`
	DeviceID     uint32            `json:"device_id"`
	Architecture string            `json:"architecture,omitempty"`
	Driver       string            `json:"driver"`
	Type         string            `json:"type"`
	Graphics     string            `json:"graphics"`
	Limits       map[string]uint64 `json:"limits"`
}

// Describing is a backend that describes its adapter (the native WebGPU
// backend).
type Describing interface {
	AdapterDetails() AdapterDetails
}

// Limited is implemented by backends whose device was granted limits (the
// WebGPU backend): Limits gives those that bound the kernels, by their
// WebGPU names (maxBufferSize, maxStorageBufferBindingSize, ...).
type Limited interface {
	Limits() map[string]uint64
}

// The faults that a GPU backend provokes on its device for the tests
// (Faulting), named as the page's debug= parameter names them.
const (
	// FaultShader has the next pipeline compile an invalid shader.
	FaultShader = "bad-shader"
	// FaultBuffer has the next allocation ask for a buffer larger than
	// the device's maxBufferSize.
	FaultBuffer = "big-buffer"
)

// Faulting is implemented by backends that can provoke a fault on their
// device (the WebGPU backend), so that tests see the device's error come
// back as the backend's (kernels.ErrDeviceFailed).
type Faulting interface {
	// Fault provokes FaultShader or FaultBuffer in the operations that
	// follow; other kinds do nothing.
	Fault(kind string)
}
