package webgpu

import (
	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
)

// DeviceCounters returns what the backend asked of the device since it was
// opened (kernels.Counting). Uniform blocks count as one upload per
// submission: they are written together just before it.
func (b *Backend) DeviceCounters() kernels.DeviceCounters { return b.count }

// createBuffer creates a GPU buffer, counting it, inside the error scopes
// that the next Sync or Read checks (watch).
func (b *Backend) createBuffer(d *wgpu.BufferDescriptor) (*wgpu.Buffer, error) {
	b.watch()
	buf, err := b.device.CreateBuffer(d)
	if err == nil {
		b.count.BuffersCreated++
	}
	return buf, err
}

// upload writes data into buf at offset through the queue, counting it.
func (b *Backend) upload(buf *wgpu.Buffer, offset uint64, data []byte) error {
	b.count.Uploads++
	b.count.UploadBytes += float64(len(data))
	return writeBuffer(b.queue, buf, offset, data)
}
