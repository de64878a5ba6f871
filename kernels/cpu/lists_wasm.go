//go:build js && wasm && !purego

package cpu

import "github.com/deeplda/deeplda/kernels/cpu/gemm"

// slab is scratch for the threads that claim lists of calls
// (gemm.RunCalls): the same pieces for each thread, stride floats on from
// the previous thread's.
type slab struct {
	all         []float32
	threads     int
	stride      int
	offs, sizes []int
}

// slab returns a slab of pieces of the given sizes (floats) for the
// threads that serve the SIMD module (gemm.Threads), each piece starting
// on a cache line.
func (p *pooled) slab(sizes ...int) slab {
	sc := slab{threads: max(1, gemm.Threads()), sizes: sizes, offs: make([]int, len(sizes))}
	for i, n := range sizes {
		sc.offs[i] = sc.stride
		sc.stride += ceilDiv(n, 16) * 16
	}
	sc.all = p.get(sc.threads * sc.stride)
	return sc
}

// piece returns piece i of thread t's scratch.
func (sc slab) piece(t, i int) []float32 {
	o := t*sc.stride + sc.offs[i]
	return sc.all[o : o+sc.sizes[i] : o+sc.sizes[i]]
}

// run runs the lists (gemm.RunCalls) on at most the threads that sc has
// scratch for.
func (sc slab) run(lists []gemm.Calls) { gemm.RunCalls(lists, sc.threads, 4*sc.stride) }

// first returns the first thread's scratch (gemm.Calls.Local).
func (sc slab) first() []float32 { return sc.all[:sc.stride] }

// callLists returns n empty lists of calls, their memory kept from the
// lists that it returned before (which have run by then: the lists of one
// layer run before the next layer's are made).
func callLists(n int) []gemm.Calls {
	if cap(listMemory) < n {
		listMemory = append(listMemory[:cap(listMemory)], make([]gemm.Calls, n-cap(listMemory))...)
	}
	l := listMemory[:n]
	for i := range l {
		l[i].Reset()
	}
	return l
}

// listMemory is the lists that callLists returns.
var listMemory []gemm.Calls

// pooled hands out scratch from a backend's pool and puts it all back.
type pooled struct {
	b    *Backend
	held []*[]float32
}

// get returns n floats of scratch (their values left over).
func (p *pooled) get(n int) []float32 {
	s := p.b.scratch(n)
	p.held = append(p.held, s)
	return *s
}

// put puts back all that get handed out.
func (p *pooled) put() {
	for _, s := range p.held {
		p.b.release(s)
	}
}
