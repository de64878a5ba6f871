package webgpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
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
// Tile, for the GEMM kernels, is the tile their text is specialized to
// (zero: the file's own).
type kernel struct {
	File, Entry string
	Slots       []slot
	Tile        gemmTile
}

// slot is one storage binding of a kernel.
type slot struct {
	Binding uint32
	Write   bool
}

// out and in build slots.
func out(binding uint32) slot { return slot{binding, true} }
func in(binding uint32) slot  { return slot{binding, false} }

func (k kernel) key() string {
	if k.Tile == (gemmTile{}) {
		return k.File + ":" + k.Entry
	}
	return k.File + ":" + k.Entry + "@" + k.Tile.String()
}

// on returns k specialized to tile t.
func (k kernel) on(t gemmTile) kernel {
	k.Tile = t
	return k
}

// pipeline is a compiled kernel with its layouts and the fields of its
// uniform block.
type pipeline struct {
	k       kernel
	fields  []shaders.Field
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

// pipelineFor returns the pipeline of k, creating it on first use inside
// error scopes of its own (see scopes.go): a shader that does not compile
// or a pipeline that the device rejects is an error here, in the browser
// too, not an invalid pipeline that computes nothing.
func (b *Backend) pipelineFor(k kernel) (*pipeline, error) {
	if p, ok := b.pipelines[k.key()]; ok {
		return p, nil
	}
	in, ok := b.ifaces[k.File]
	if !ok {
		var err error
		if in, err = shaders.ParseInterface(k.File); err != nil {
			return nil, fmt.Errorf("reading the interface of %s: %w", k.File, err)
		}
		b.ifaces[k.File] = in
	}
	if err := k.check(in); err != nil {
		return nil, err
	}
	src := shaders.Source(k.File)
	if k.Tile != (gemmTile{}) {
		var err error
		if src, err = shaders.Specialize(src, k.Tile.consts()); err != nil {
			return nil, fmt.Errorf("pipeline %s: %w", k.key(), err)
		}
	}
	if b.faulted(kernels.FaultShader) {
		src += faultWGSL
	}
	pushScopes(b)
	p, err := b.newPipeline(k, in.Params, src)
	if serr := popScopes(b); err == nil && serr != nil {
		p.release()
		err = fmt.Errorf("pipeline %s: %w", k.key(), serr)
	}
	if err != nil {
		return nil, err
	}
	b.count.PipelinesCreated++
	b.pipelines[k.key()] = p
	return p, nil
}

// newPipeline compiles the shader source src of k and creates k's layouts
// and pipeline; fields are the shader's uniform fields.
func (b *Backend) newPipeline(k kernel, fields []shaders.Field, src string) (*pipeline, error) {
	module, err := b.device.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          k.File,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", k.File, err)
	}
	if err := compileError(k.File, compileMessages(module)); err != nil {
		module.Release()
		return nil, err
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
	return &pipeline{k: k, fields: fields, layout: layout, playout: playout, module: module, cp: cp}, nil
}

// params packs the uniform block of a dispatch: u32, i32 and f32 values in
// declaration order, each 4 bytes, remembering which are floats, so that
// dispatch checks them against the fields of the shader's struct.
type params struct {
	words  []uint32
	floats uint64 // bit i set: words[i] is an f32
}

// u appends integers (u32 or i32 fields).
func (p params) u(v ...int) params {
	for _, x := range v {
		p.words = append(p.words, uint32(x))
	}
	return p
}

// f appends floats.
func (p params) f(v ...float32) params {
	for _, x := range v {
		if len(p.words) < 64 {
			p.floats |= 1 << len(p.words)
		}
		p.words = append(p.words, math.Float32bits(x))
	}
	return p
}

// checkParams reports a parameter block that does not match the fields
// of the kernel's uniform struct: another count, or a float where the
// shader has an integer (or the reverse).
func checkParams(k kernel, fields []shaders.Field, p params) error {
	if len(p.words) != len(fields) || len(fields) > 64 {
		return fmt.Errorf("%s: a parameter block of %d values for the %d fields of its uniform struct", k.key(), len(p.words), len(fields))
	}
	for i, f := range fields {
		if float := p.floats&(1<<i) != 0; float != (f.Type == "f32") {
			return fmt.Errorf("%s: parameter %d (%s: %s) packed as %s", k.key(), i, f.Name, f.Type, map[bool]string{true: "a float", false: "an integer"}[float])
		}
	}
	return nil
}

// check reports where k's entry point and bind group layout do not match
// the shader's interface: an entry point that is not there, a slot whose
// binding is not declared or is declared with the other access, a binding
// the entry point uses that has no slot, or a slot it does not use.
func (k kernel) check(in shaders.Interface) error {
	used, ok := in.Entries[k.Entry]
	if !ok {
		return fmt.Errorf("%s: no @compute entry point %s", k.key(), k.Entry)
	}
	if b, ok := in.Bindings[0]; !ok || b.Access != "uniform" {
		return fmt.Errorf("%s: binding 0 is not the uniform block", k.key())
	}
	var errs []string
	slots := map[uint32]bool{}
	for _, s := range k.Slots {
		slots[s.Binding] = true
		b, ok := in.Bindings[s.Binding]
		want := map[bool]string{true: "read_write", false: "read"}[s.Write]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("slot %d is not a binding of the shader", s.Binding))
		case b.Access != want:
			errs = append(errs, fmt.Sprintf("slot %d is bound %s, the shader declares %s %s", s.Binding, want, b.Name, b.Access))
		case !slices.Contains(used, s.Binding):
			errs = append(errs, fmt.Sprintf("slot %d (%s) is not used by %s", s.Binding, b.Name, k.Entry))
		}
	}
	for _, n := range used {
		if n != 0 && !slots[n] {
			errs = append(errs, fmt.Sprintf("%s uses binding %d (%s), which has no slot", k.Entry, n, in.Bindings[n].Name))
		}
	}
	if errs != nil {
		return fmt.Errorf("%s does not match its shader: %s", k.key(), strings.Join(errs, "; "))
	}
	return nil
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
	if err := checkParams(k, pl.fields, p); err != nil {
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
	b.watch()
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
	if len(p.words)*4 > uniformSlot {
		return 0, fmt.Errorf("uniform block of %d bytes exceeds %d", len(p.words)*4, uniformSlot)
	}
	if r.next == ringSlots {
		b.submit() // uploads the slots in use
		r.start, r.next = 0, 0
	}
	off := r.next * uniformSlot
	block := r.data[off : off+uniformSlot]
	clear(block)
	for i, v := range p.words {
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
