package webgpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/shaders"
)

// kernel names one entry point of a shader file and its storage bindings.
// Binding 0 is always the uniform params block (bound with a dynamic
// offset); Slots lists the storage bindings in the order dispatch receives
// their tensors, each with its binding number and whether it is written.
type kernel struct {
	File, Entry string
	Slots       []slot
}

// slot is one storage binding of a kernel.
type slot struct {
	Binding uint32
	Write   bool
}

// out and in build slots.
func out(binding uint32) slot { return slot{binding, true} }
func in(binding uint32) slot  { return slot{binding, false} }

func (k kernel) key() string { return k.File + ":" + k.Entry }

// pipeline is a compiled kernel with its layouts.
type pipeline struct {
	k       kernel
	layout  *wgpu.BindGroupLayout
	playout *wgpu.PipelineLayout
	module  *wgpu.ShaderModule
	cp      *wgpu.ComputePipeline
}

func (p *pipeline) release() {
	p.cp.Release()
	p.playout.Release()
	p.layout.Release()
	p.module.Release()
}

// modules caches shader modules by file within one pipeline build.
func (b *Backend) pipelineFor(k kernel) (*pipeline, error) {
	if p, ok := b.pipelines[k.key()]; ok {
		return p, nil
	}
	module, err := b.device.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          k.File,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: shaders.Source(k.File)},
	})
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", k.File, err)
	}
	entries := []wgpu.BindGroupLayoutEntry{{
		Binding:    0,
		Visibility: wgpu.ShaderStageCompute,
		Buffer:     wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeUniform, HasDynamicOffset: true},
	}}
	for _, s := range k.Slots {
		t := wgpu.BufferBindingTypeReadOnlyStorage
		if s.Write {
			t = wgpu.BufferBindingTypeStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: s.Binding, Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: t}})
	}
	layout, err := b.device.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: k.key(), Entries: entries})
	if err != nil {
		module.Release()
		return nil, fmt.Errorf("bind group layout of %s: %w", k.key(), err)
	}
	playout, err := b.device.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: k.key(), BindGroupLayouts: []*wgpu.BindGroupLayout{layout}})
	if err != nil {
		layout.Release()
		module.Release()
		return nil, fmt.Errorf("pipeline layout of %s: %w", k.key(), err)
	}
	cp, err := b.device.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Layout:  playout,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: k.Entry},
	})
	if err != nil {
		playout.Release()
		layout.Release()
		module.Release()
		return nil, fmt.Errorf("compute pipeline %s: %w", k.key(), err)
	}
	p := &pipeline{k: k, layout: layout, playout: playout, module: module, cp: cp}
	b.count.PipelinesCreated++
	b.pipelines[k.key()] = p
	return p, nil
}

// params packs the uniform block of a dispatch: u32, i32 and f32 values in
// declaration order (each 4 bytes; the shader's struct must match).
type params []uint32

// u appends unsigned integers.
func (p params) u(v ...int) params {
	for _, x := range v {
		p = append(p, uint32(x))
	}
	return p
}

// f appends floats.
func (p params) f(v ...float32) params {
	for _, x := range v {
		p = append(p, math.Float32bits(x))
	}
	return p
}

// groups is a dispatch size in workgroups.
type groups struct{ X, Y, Z int }

// grid spreads n workgroups over x and y within the 65535 limit per
// dimension; row is the x extent the shader needs to rebuild the index.
func grid(n int) (g groups, row int) {
	const maxDim = 65535
	if n <= maxDim {
		return groups{max(n, 1), 1, 1}, max(n, 1)
	}
	rows := (n + maxDim - 1) / maxDim
	return groups{maxDim, rows, 1}, maxDim
}

// dispatch records one compute dispatch of k over the given tensors (one per
// slot, in order) with the uniform block p. Errors (a failed pipeline, a
// lost device) are recorded and reported by the next Sync or Read, naming
// the op and the shapes.
func (b *Backend) dispatch(op string, k kernel, g groups, p params, ts ...kernels.Tensor) {
	if b.err != nil {
		return
	}
	if len(ts) != len(k.Slots) {
		panic(fmt.Sprintf("kernels: webgpu: %s: %d tensors for %d bindings of %s", op, len(ts), len(k.Slots), k.key()))
	}
	checkAliasing(op, k, ts)
	wrap := func(err error) error {
		shapes := make([]string, len(ts))
		for i, t := range ts {
			shapes[i] = kernels.ShapeString(t.Shape())
		}
		return fmt.Errorf("webgpu: %s (shapes %s): %w", op, strings.Join(shapes, ", "), err)
	}
	pl, err := b.pipelineFor(k)
	if err != nil {
		b.fail(wrap(err))
		return
	}
	bg, err := b.bindGroup(pl, ts)
	if err != nil {
		b.fail(wrap(err))
		return
	}
	offset, err := b.ring.push(b, p)
	if err != nil {
		b.fail(wrap(err))
		return
	}
	b.timeKernel(k.timingKey())
	pass := b.computePass()
	if pass == nil {
		return
	}
	pass.SetPipeline(pl.cp)
	pass.SetBindGroup(0, bg, []uint32{offset})
	pass.DispatchWorkgroups(uint32(g.X), uint32(max(g.Y, 1)), uint32(max(g.Z, 1)))
	b.count.Dispatches++
}

// checkAliasing panics when a dispatch would bind one buffer both as
// writable storage and in another binding that is read-only or overlaps it:
// WebGPU rejects that (a writable storage use of a buffer is exclusive within
// a dispatch, except for disjoint ranges that are all writable).
func checkAliasing(op string, k kernel, ts []kernels.Tensor) {
	for i, a := range ts {
		if !k.Slots[i].Write {
			continue
		}
		x := gt(a)
		for j, c := range ts {
			y := gt(c)
			if j == i || y.buf != x.buf {
				continue
			}
			overlap := x.offset < y.offset+y.bytes() && y.offset < x.offset+x.bytes()
			if !k.Slots[j].Write || overlap {
				panic(fmt.Sprintf("kernels: webgpu: %s: binding %d (written) and binding %d share a buffer; pass distinct buffers", op, k.Slots[i].Binding, k.Slots[j].Binding))
			}
		}
	}
}

// bindGroup returns the cached bind group of a pipeline over tensors.
func (b *Backend) bindGroup(pl *pipeline, ts []kernels.Tensor) (*wgpu.BindGroup, error) {
	var key strings.Builder
	key.WriteString(pl.k.key())
	for _, t := range ts {
		gt := t.(*tensor)
		key.WriteString("|" + strconv.Itoa(gt.buf.id) + "@" + strconv.FormatUint(gt.offset, 10) + "+" + strconv.FormatUint(gt.bytes(), 10))
	}
	if bg, ok := b.bindGroups[key.String()]; ok {
		return bg, nil
	}
	entries := []wgpu.BindGroupEntry{{Binding: 0, Buffer: b.ring.buf, Offset: 0, Size: uniformSlot}}
	for i, t := range ts {
		gt := t.(*tensor)
		entries = append(entries, wgpu.BindGroupEntry{Binding: pl.k.Slots[i].Binding, Buffer: gt.buf.gpu, Offset: gt.offset, Size: gt.bytes()})
	}
	bg, err := b.device.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: pl.k.key(), Layout: pl.layout, Entries: entries})
	if err != nil {
		return nil, err
	}
	b.count.BindGroupsCreated++
	b.bindGroups[key.String()] = bg
	return bg, nil
}

// forget drops the cached bind groups that use buffer id (when it is freed).
func (b *Backend) forget(id int) {
	mark := "|" + strconv.Itoa(id) + "@"
	for k, bg := range b.bindGroups {
		if strings.Contains(k, mark) {
			bg.Release()
			delete(b.bindGroups, k)
		}
	}
}

// uniformSlot is the size of one uniform block in the ring (the minimum
// uniform-buffer offset alignment).
const uniformSlot = 256

// ringSlots is the number of uniform blocks; the pending commands are
// submitted before the ring wraps.
const ringSlots = 1024

// uniformRing hands out uniform blocks. They are written into a host copy
// of the ring and uploaded together, in one Queue.WriteBuffer, just before
// the commands that read them are submitted (see flush). A slot is reused
// only after the ring wraps, which submits first, so that the write (which
// the queue orders before later submissions) cannot overtake their reads.
type uniformRing struct {
	buf         *wgpu.Buffer
	data        []byte // host copy of the whole ring
	start, next int    // slots [start, next) are written but not uploaded
}

func (r *uniformRing) init(b *Backend) error {
	buf, err := b.createBuffer(&wgpu.BufferDescriptor{Label: "uniforms", Size: uniformSlot * ringSlots, Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst})
	if err != nil {
		return fmt.Errorf("webgpu: creating the uniform ring: %w", err)
	}
	r.buf = buf
	r.data = make([]byte, uniformSlot*ringSlots)
	return nil
}

// push writes p to a free slot and returns its offset.
func (r *uniformRing) push(b *Backend, p params) (uint32, error) {
	if len(p)*4 > uniformSlot {
		return 0, fmt.Errorf("uniform block of %d bytes exceeds %d", len(p)*4, uniformSlot)
	}
	if r.next == ringSlots {
		b.submit() // uploads the slots in use
		r.start, r.next = 0, 0
	}
	off := r.next * uniformSlot
	block := r.data[off : off+uniformSlot]
	clear(block)
	for i, v := range p {
		binary.LittleEndian.PutUint32(block[4*i:], v)
	}
	r.next++
	return uint32(off), nil
}

// flush uploads the slots written since the last flush, in one write; the
// backend calls it before every submission.
func (r *uniformRing) flush(b *Backend) {
	if r.next > r.start {
		b.fail(b.upload(r.buf, uint64(r.start*uniformSlot), r.data[r.start*uniformSlot:r.next*uniformSlot]))
		r.start = r.next
	}
}

func (r *uniformRing) release() {
	if r.buf != nil {
		r.buf.Destroy()
		r.buf.Release()
	}
}
