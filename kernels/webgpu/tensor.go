package webgpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
)

// gbuf is one GPU storage buffer.
type gbuf struct {
	gpu  *wgpu.Buffer
	id   int
	size uint64 // bytes
}

// tensor is a kernels.Tensor in a GPU buffer, from byte offset on.
type tensor struct {
	buf    *gbuf
	offset uint64
	shape  []int
	dt     kernels.DType
	view   bool
}

func (t *tensor) Shape() []int         { return t.shape }
func (t *tensor) DType() kernels.DType { return t.dt }

// bytes returns the size the tensor binds (at least 4 bytes).
func (t *tensor) bytes() uint64 { return uint64(max(kernels.Numel(t.shape), 1)) * 4 }

// gt returns the tensor of this backend behind t.
func gt(t kernels.Tensor) *tensor {
	x, ok := t.(*tensor)
	if !ok {
		panic(fmt.Sprintf("kernels: webgpu: want a webgpu tensor, got %T", t))
	}
	return x
}

// Alloc returns a zeroed tensor (WebGPU zero-initialises buffers).
func (b *Backend) Alloc(dt kernels.DType, shape ...int) kernels.Tensor {
	size := uint64(max(kernels.Numel(shape), 1)) * 4
	request := size
	if b.faulted(kernels.FaultBuffer) {
		request = b.limits["maxBufferSize"] + 4
	}
	buf, err := b.createBuffer(&wgpu.BufferDescriptor{
		Size:  request,
		Usage: wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst,
	})
	b.nextID++
	g := &gbuf{gpu: buf, id: b.nextID, size: size}
	if err != nil {
		b.fail(fmt.Errorf("webgpu: allocating %v (%d bytes): %w", shape, request, err))
	}
	return &tensor{buf: g, shape: append([]int{}, shape...), dt: dt}
}

// View returns a tensor sharing t's buffer from element offset on.
func (b *Backend) View(t kernels.Tensor, offset int, shape ...int) kernels.Tensor {
	x := gt(t)
	n := kernels.Numel(shape)
	if offset < 0 || offset%kernels.ViewAlign != 0 || offset+n > kernels.Len(x) {
		kernels.Mismatch("View", fmt.Sprintf("offset %d is unaligned or out of range", offset), x.shape, shape)
	}
	return &tensor{buf: x.buf, offset: x.offset + uint64(offset)*4, shape: append([]int{}, shape...), dt: x.dt, view: true}
}

// Free destroys t's buffer (views do nothing) and drops the bind groups
// that use it.
func (b *Backend) Free(t kernels.Tensor) {
	x := gt(t)
	if x.view || x.buf.gpu == nil {
		return
	}
	b.submit() // recorded work may still use the buffer
	b.forget(x.buf.id)
	x.buf.gpu.Destroy()
	x.buf.gpu.Release()
	x.buf.gpu = nil
}

// write uploads bytes at t's offset. Pending commands are submitted first:
// Queue.WriteBuffer takes effect before any later submission, so without it
// a recorded op that reads t would see the new data. After a failed
// operation (natively, a failed Alloc leaves no buffer) it does nothing,
// as dispatch, Copy and Read do.
func (b *Backend) write(t *tensor, data []byte, n int) {
	if n != kernels.Numel(t.shape) {
		kernels.Mismatch("Write", fmt.Sprintf("%d values for %d elements", n, kernels.Numel(t.shape)), t.shape)
	}
	if n == 0 || b.err != nil {
		return
	}
	b.submit()
	b.fail(b.upload(t.buf.gpu, t.offset, data))
}

// Write copies host data into a Float32 tensor.
func (b *Backend) Write(t kernels.Tensor, data []float32) {
	b.write(gt(t), wgpu.ToBytes(data), len(data))
}

// WriteInt copies host data into an Int32 tensor.
func (b *Backend) WriteInt(t kernels.Tensor, data []int32) {
	b.write(gt(t), wgpu.ToBytes(data), len(data))
}

// readBytes copies t back to the host through a staging buffer.
func (b *Backend) readBytes(t *tensor) ([]byte, error) {
	n := uint64(kernels.Numel(t.shape)) * 4
	if n == 0 || b.err != nil {
		return nil, b.status()
	}
	staging, ok := b.staging[n]
	if !ok {
		s, err := b.createBuffer(&wgpu.BufferDescriptor{Size: n, Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst})
		if err != nil {
			return nil, fmt.Errorf("webgpu: staging buffer of %d bytes: %w", n, err)
		}
		b.staging[n], staging = s, s
	}
	b.endPass()
	if enc := b.encoderFor(); enc != nil {
		b.fail(enc.CopyBufferToBuffer(t.buf.gpu, t.offset, staging, 0, n))
	}
	b.submit()
	b.checkScopes()
	if err := b.status(); err != nil {
		return nil, err
	}
	b.count.Readbacks++
	b.count.ReadbackBytes += float64(n)
	out, err := mapRead(b, staging, n)
	if err != nil {
		return nil, deviceError(fmt.Errorf("webgpu: reading back a %s tensor: %w", kernels.ShapeString(t.shape), err))
	}
	return out, b.status()
}

// Read copies a Float32 tensor to the host.
func (b *Backend) Read(t kernels.Tensor) ([]float32, error) {
	raw, err := b.readBytes(gt(t))
	if err != nil {
		return nil, err
	}
	return append([]float32{}, wgpu.FromBytes[float32](raw)...), nil
}

// ReadInt copies an Int32 tensor to the host.
func (b *Backend) ReadInt(t kernels.Tensor) ([]int32, error) {
	raw, err := b.readBytes(gt(t))
	if err != nil {
		return nil, err
	}
	return append([]int32{}, wgpu.FromBytes[int32](raw)...), nil
}

// Copy records a buffer-to-buffer copy.
func (b *Backend) Copy(dst, src kernels.Tensor) {
	d, s := gt(dst), gt(src)
	if kernels.Len(d) != kernels.Len(s) || d.dt != s.dt {
		kernels.Mismatch("Copy", "different sizes or types", d.shape, s.shape)
	}
	if kernels.Len(d) == 0 || b.err != nil {
		return
	}
	b.endPass()
	if enc := b.encoderFor(); enc != nil {
		b.fail(enc.CopyBufferToBuffer(s.buf.gpu, s.offset, d.buf.gpu, d.offset, uint64(kernels.Len(d))*4))
	}
}
