//go:build js && wasm && !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"os"
	"syscall/js"
	"testing"
	"time"
	"unsafe"

	"github.com/deeplda/deeplda/kernels/cpu/gemm/internal/wasmsimd"
)

// TestSIMDLoads checks that the SIMD kernels load under Node.js (which has
// WebAssembly SIMD), so that the other tests exercise them rather than
// falling back to the portable kernel unnoticed, and that Sgemm uses the
// preferred one.
func TestSIMDLoads(t *testing.T) {
	if os.Getenv("DEEPLDA_WASM_SIMD") == "off" {
		t.Skip("DEEPLDA_WASM_SIMD=off")
	}
	var names []string
	for _, k := range simdKernels {
		names = append(names, k.name)
	}
	t.Logf("SIMD kernels: %v", names)
	if len(simdKernels) == 0 || simdKernels[len(simdKernels)-1].name != "wasmsimd4x8" {
		t.Fatalf("SIMD kernels %v, want at least wasmsimd4x8", names)
	}
	if activeKernel != simdKernels[0] {
		t.Fatalf("Sgemm uses %s, want %s", activeKernel.name, simdKernels[0].name)
	}
}

// TestSIMDFallback checks that a module the host does not validate (as
// SIMD where the host has none) gives no kernel, without a panic, and that
// a valid one (for the Go program's memory, shared or not) gives a kernel.
func TestSIMDFallback(t *testing.T) {
	mem, ok := goMemory()
	if !ok {
		t.Fatal("no Go memory")
	}
	bin := wasmsimd.Module(false)
	if isShared(mem) {
		bin = wasmsimd.SharedModule(false)
	}
	if k := newSIMDKernel("x", mem, bin[:len(bin)-1]); k != nil {
		t.Error("a kernel from a module that does not validate")
	}
	if k := newSIMDKernel("x", mem, bin); k == nil {
		t.Error("no kernel from the plain module")
	}
}

// TestSIMDPlainBits checks that the plain SIMD kernel gives the portable
// Go kernel's results bit for bit, over shapes with edge tiles, several k
// blocks, both transpositions, the transposed C of narrow products, and
// beta 0 (over NaNs), 1 and another value.
func TestSIMDPlainBits(t *testing.T) {
	var plain *microKernel
	for _, k := range simdKernels {
		if k.name == "wasmsimd4x8" {
			plain = k
		}
	}
	if plain == nil {
		t.Skip("no plain SIMD kernel (see TestSIMDLoads)")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][3]int{{64, 64, 65}, {67, 130, 300}, {1025, 2, 300}, {9, 700, 600}, {200, 400, 4}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, beta := range []float32{0, 1, -0.5} {
				a, b := randSlice(rng, m*k), randSlice(rng, k*n)
				c0 := randSlice(rng, m*n)
				if beta == 0 {
					for i := range c0 {
						c0[i] = float32(math.NaN())
					}
				}
				lda, ldb := k, n
				if tr[0] {
					lda = m
				}
				if tr[1] {
					ldb = k
				}
				var got [2][]float32
				for i, kern := range []*microKernel{goKernel, plain} {
					old := activeKernel
					activeKernel = kern
					got[i] = append([]float32(nil), c0...)
					Sgemm(tr[0], tr[1], m, n, k, 0.75, a, lda, b, ldb, beta, got[i], n)
					activeKernel = old
				}
				for i := range got[0] {
					if math.Float32bits(got[0][i]) != math.Float32bits(got[1][i]) {
						t.Fatalf("%dx%dx%d trans %v beta %v: C[%d] = %v, Go kernel %v", m, n, k, tr, beta, i, got[1][i], got[0][i])
					}
				}
			}
		}
	}
}

// TestSharedModuleThreads runs the macro-kernel of wasmsimd.SharedModule
// split between this thread and a worker thread (Node.js's worker_threads,
// as the page's Web Workers), over a shared memory of its own, and checks
// that the result is the plain module's in one call, bit for bit: shares
// split by rows and by columns, with edge tiles, beta 0 and not; then
// another of its routines (pack, by its job number) split likewise.
func TestSharedModuleThreads(t *testing.T) {
	g := js.Global()
	if g.Get("require").Type() != js.TypeFunction {
		t.Skip("SKIPPED: not Node.js (no require): the page's threads are tested in browsertest")
	}
	wa := g.Get("WebAssembly")
	mem := wa.Get("Memory").New(map[string]any{"initial": 64, "maximum": wasmsimd.MaxPages, "shared": true})
	env := map[string]any{"env": map[string]any{"mem": mem}}
	bin := wasmsimd.SharedModule(false)
	u8 := g.Get("Uint8Array").New(len(bin))
	js.CopyBytesToJS(u8, bin)
	mod := wa.Get("Module").New(u8)
	run := wa.Get("Instance").New(mod, env).Get("exports").Get("run")

	// The shared memory: two control blocks at ctl, the tiles, A, B, C.
	const ctl, tiles, aAt, bAt, cAt = 1024, 2048, 4096, 1 << 20, 2 << 20
	words := g.Get("Int32Array").New(mem.Get("buffer"))
	worker := g.Call("require", "worker_threads").Get("Worker").New(`
		const { workerData } = require('worker_threads');
		const inst = new WebAssembly.Instance(workerData.module, { env: { mem: workerData.mem } });
		inst.exports.worker(workerData.ctl);`,
		map[string]any{"eval": true, "workerData": map[string]any{"module": mod, "mem": mem, "ctl": ctl + wasmsimd.CtlBytes}})
	defer worker.Call("terminate")
	for start := time.Now(); g.Get("Atomics").Call("load", words, (ctl+wasmsimd.CtlBytes+wasmsimd.CtlReady)/4).Int() == 0; {
		if time.Since(start) > 20*time.Second {
			t.Fatal("the worker did not start")
		}
		time.Sleep(time.Millisecond)
	}
	put := func(at int, xs []float32) {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), 4*len(xs))
		js.CopyBytesToJS(g.Get("Uint8Array").New(mem.Get("buffer"), at, len(b)), b)
	}
	get := func(at int, xs []float32) {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), 4*len(xs))
		js.CopyBytesToGo(b, g.Get("Uint8Array").New(mem.Get("buffer"), at, len(b)))
	}
	plain := simdMacros[simdKernels[len(simdKernels)-1]]
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][3]int{{37, 45, 33}, {128, 64, 256}, {5, 130, 7}} {
		mb, nb, kb := s[0], s[1], s[2]
		for _, beta := range []float32{0, 0.5} {
			for _, byRows := range []bool{true, false} {
				a := randSlice(rng, roundUp(mb, simdMR)*kb)
				b := randSlice(rng, roundUp(nb, simdNR)*kb)
				c := randSlice(rng, mb*nb)
				want := append([]float32(nil), c...)
				var tile [simdMR * simdNR]float32
				plain.block(mb, nb, kb, a, b, tile[:], 1.5, beta, want, nb, false)
				put(aAt, a)
				put(bAt, b)
				put(cAt, c)
				// Share 0 on this thread, share 1 on the worker.
				i0, j0 := roundUp(mb/2, simdMR), roundUp(nb/2, simdNR)
				shares := [2][3]int{{mb, j0, 0}, {mb, nb - j0, 0}}
				offs := [2][3]int{{aAt, bAt, cAt}, {aAt, bAt + 4*j0*kb, cAt + 4*j0}}
				if byRows {
					shares = [2][3]int{{i0, nb}, {mb - i0, nb}}
					offs = [2][3]int{{aAt, bAt, cAt}, {aAt + 4*i0*kb, bAt, cAt + 4*i0*nb}}
				}
				for w := 0; w < 2; w++ {
					args := []int32{int32(shares[w][0]), int32(shares[w][1]), int32(kb), int32(offs[w][0]), int32(offs[w][1]), int32(offs[w][2]),
						int32(4 * nb), 4, int32(tiles + 4*simdMR*simdNR*w), int32(math.Float32bits(1.5)), int32(math.Float32bits(beta)), 1}
					for i, v := range args {
						words.SetIndex((ctl+w*wasmsimd.CtlBytes+wasmsimd.CtlArgs)/4+i, v)
					}
				}
				run.Invoke(ctl, 2)
				got := make([]float32, mb*nb)
				get(cAt, got)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%dx%dx%d beta %v by rows %v: C[%d] = %v on two threads, %v in one call", mb, nb, kb, beta, byRows, i, got[i], want[i])
					}
				}
			}
		}
	}
	// Another routine by its job number: pack, the micro-panels shared
	// out as sharePanels does (5 of w = 8 columns and depth 7, from rows
	// of lds = 45 floats).
	const w, kb, panels, lds, first = 8, 7, 5, 45, 2
	src := randSlice(rng, kb*lds)
	put(aAt, src)
	for s, share := range [2][2]int{{0, first}, {first, panels}} {
		args := []int32{int32(cAt + 4*share[0]*w*kb), int32(aAt + 4*share[0]*w), 4 * lds, w, kb, int32(share[1] - share[0])}
		words.SetIndex((ctl+s*wasmsimd.CtlBytes+wasmsimd.CtlJob)/4, wasmsimd.Job("pack"))
		for i, v := range args {
			words.SetIndex((ctl+s*wasmsimd.CtlBytes+wasmsimd.CtlArgs)/4+i, v)
		}
	}
	run.Invoke(ctl, 2)
	got := make([]float32, panels*w*kb)
	get(cAt, got)
	for q := 0; q < panels; q++ {
		for p := 0; p < kb; p++ {
			for j := 0; j < w; j++ {
				if g, want := got[q*w*kb+p*w+j], src[p*lds+q*w+j]; math.Float32bits(g) != math.Float32bits(want) {
					t.Fatalf("pack on two threads: micro-panel %d, row %d, column %d: %v, want %v", q, p, j, g, want)
				}
			}
		}
	}
}

// TestPackColsSIMD checks the packing of operands stored by columns (A
// without transA, B with transB) with the SIMD module's packcols against
// the portable packing, bit for bit, for whole and partial micro-panels
// and depths around the module's 4×4 blocks, and that the module packed.
func TestPackColsSIMD(t *testing.T) {
	if !asmPacking || packColsFn.IsUndefined() {
		t.Skip("SKIPPED: no SIMD module in this host")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	calls := packCalls
	for _, mb := range []int{4, 7, 8, 64, 130} {
		for _, kb := range []int{1, 3, 4, 7, 64, 129, 256} {
			a := newMatrix(rng, mb, kb+3, 5)
			for _, w := range []int{simdMR, simdNR} {
				size := roundUp(mb, w) * kb
				got, want := make([]float32, size), make([]float32, size)
				if w == simdMR {
					packA(got, false, a.data, a.ld, 0, 2, mb, kb, w)
				} else {
					packB(got, true, a.data, a.ld, 2, 0, kb, mb, w)
				}
				asmPacking = false
				if w == simdMR {
					packA(want, false, a.data, a.ld, 0, 2, mb, kb, w)
				} else {
					packB(want, true, a.data, a.ld, 2, 0, kb, mb, w)
				}
				asmPacking = true
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("mb %d, kb %d, panels of %d: element %d: got %v, want %v", mb, kb, w, i, got[i], want[i])
					}
				}
			}
		}
	}
	if packCalls == calls {
		t.Error("the module packed no micro-panel")
	}
}
