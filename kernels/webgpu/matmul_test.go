package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
	"github.com/deeplda/deeplda/shaders"
)

// openBackend opens the WebGPU backend for a test or benchmark
// (webgputest.Open).
func openBackend(tb testing.TB) *Backend { return webgputest.Open(tb, New, ErrNoAdapter) }

// randData returns n values uniform in [-1, 1) from a seeded generator.
func randData(rng *rand.Rand, n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(2*rng.Float64() - 1)
	}
	return d
}

// operand is an input or output of a test: a tensor that is either its own
// allocation or a view at element offset 64 of a bigger one (whose other
// elements are NaN so that reading outside the view shows).
type operand struct {
	t      kernels.Tensor
	parent kernels.Tensor
}

// newOperand allocates a tensor of shape, as a view when view is set, and
// writes data into it (NaN everywhere when data is nil, outputs included:
// the ops write their outputs and must not read them).
func newOperand(b *Backend, view bool, data []float32, shape ...int) operand {
	n := kernels.Numel(shape)
	if data == nil {
		data = make([]float32, n)
		for i := range data {
			data[i] = float32(math.NaN())
		}
	}
	if !view {
		t := b.Alloc(kernels.Float32, shape...)
		b.Write(t, data)
		return operand{t: t}
	}
	const off = kernels.ViewAlign
	parent := b.Alloc(kernels.Float32, off+n+kernels.ViewAlign)
	fill := make([]float32, off+n+kernels.ViewAlign)
	for i := range fill {
		fill[i] = float32(math.NaN())
	}
	copy(fill[off:], data)
	b.Write(parent, fill)
	return operand{t: b.View(parent, off, shape...), parent: parent}
}

// free releases the operand's memory.
func (o operand) free(b *Backend) {
	if o.parent != nil {
		b.Free(o.parent)
	}
	b.Free(o.t)
}

// readOutput reads an operand back (checking, for views, that the parent's
// elements around the view were left alone).
func readOutput(t *testing.T, b *Backend, o operand) []float32 {
	t.Helper()
	if o.parent == nil {
		got, err := b.Read(o.t)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	all, err := b.Read(o.parent)
	if err != nil {
		t.Fatal(err)
	}
	n := kernels.Len(o.t)
	for i, v := range all {
		if (i < kernels.ViewAlign || i >= kernels.ViewAlign+n) && !math.IsNaN(float64(v)) {
			t.Fatalf("element %d outside the output view was written (%g)", i, v)
		}
	}
	return all[kernels.ViewAlign : kernels.ViewAlign+n]
}

func TestMatMul(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(1, 2))
	type shape struct{ m, n, k int }
	shapes := []shape{
		{1, 1, 1}, {1, 5, 3}, {7, 1, 9}, {3, 4, 1},
		{63, 64, 65}, {64, 64, 64}, {65, 63, 16}, {65, 129, 127},
		{127, 33, 17}, {129, 65, 63}, {33, 257, 31}, {128, 127, 129}, {1, 129, 64},
	}
	for _, s := range shapes {
		for _, transA := range []bool{false, true} {
			for _, transB := range []bool{false, true} {
				for _, withBias := range []bool{false, true} {
					name := fmt.Sprintf("%dx%dx%d/tA=%v,tB=%v,bias=%v", s.m, s.n, s.k, transA, transB, withBias)
					// Alternate plain tensors and views among the cases.
					view := (s.m+s.n+s.k)%2 == 1 == (transA != transB)
					t.Run(name, func(t *testing.T) { testMatMul(t, b, rng, s.m, s.n, s.k, transA, transB, withBias, view) })
				}
			}
		}
	}
}

func testMatMul(t *testing.T, b *Backend, rng *rand.Rand, m, n, k int, transA, transB, withBias, view bool) {
	aShape, bShape := []int{m, k}, []int{k, n}
	if transA {
		aShape = []int{k, m}
	}
	if transB {
		bShape = []int{n, k}
	}
	ad, bd := randData(rng, m*k), randData(rng, k*n)
	var biasData []float32
	if withBias {
		biasData = randData(rng, n)
	}
	ao := newOperand(b, view, ad, aShape...)
	bo := newOperand(b, view, bd, bShape...)
	co := newOperand(b, view, nil, m, n)
	defer ao.free(b)
	defer bo.free(b)
	defer co.free(b)
	var bias kernels.Tensor
	if withBias {
		bio := newOperand(b, view, biasData, n)
		defer bio.free(b)
		bias = bio.t
	}
	b.MatMul(co.t, ao.t, bo.t, bias, transA, transB)
	got := readOutput(t, b, co)
	want := make([]float64, m*n)
	ref.MatMul(want, kerneltest.F64(ad), kerneltest.F64(bd), kerneltest.F64(biasData), m, n, k, transA, transB)
	if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
		t.Error(msg)
	}
}

// TestMatMulNaive checks the benchmark's baseline kernel.
func TestMatMulNaive(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		m, n, k := 33, 17, 20
		aShape, bShape := []int{m, k}, []int{k, n}
		if tr[0] {
			aShape = []int{k, m}
		}
		if tr[1] {
			bShape = []int{n, k}
		}
		ad, bd, bias := randData(rng, m*k), randData(rng, k*n), randData(rng, n)
		at, bt, ct, biast := b.Alloc(kernels.Float32, aShape...), b.Alloc(kernels.Float32, bShape...), b.Alloc(kernels.Float32, m, n), b.Alloc(kernels.Float32, n)
		b.Write(at, ad)
		b.Write(bt, bd)
		b.Write(biast, bias)
		b.matmulNaive(ct, at, bt, biast, tr[0], tr[1])
		got, err := b.Read(ct)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, m*n)
		ref.MatMul(want, kerneltest.F64(ad), kerneltest.F64(bd), kerneltest.F64(bias), m, n, k, tr[0], tr[1])
		if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
			t.Errorf("transA %v, transB %v: %s", tr[0], tr[1], msg)
		}
	}
}

func TestBiasGrad(t *testing.T) {
	b := openBackend(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][]int{{1, 1}, {256, 10}, {3, 5}, {300, 17}, {16, 33, 7, 7}, {2, 3, 28, 28}, {5, 64, 1, 3}, {1, 129, 255}, {4, 2, 257}} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			n := kernels.Numel(s)
			inner := kernels.Numel(s[2:])
			d := randData(rng, n)
			view := len(s)%2 == 0
			dyo := newOperand(b, view, d, s...)
			dbo := newOperand(b, !view, nil, s[1])
			defer dyo.free(b)
			defer dbo.free(b)
			b.BiasGrad(dbo.t, dyo.t)
			got := readOutput(t, b, dbo)
			want := make([]float64, s[1])
			ref.BiasGrad(want, kerneltest.F64(d), s[0], s[1], inner)
			if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// expectMismatch runs f and checks that it panics with a kernels.Mismatch
// message containing op.
func expectMismatch(t *testing.T, op string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg, ok := r.(string)
		if !ok || !strings.HasPrefix(msg, "kernels: "+op+":") {
			t.Errorf("want a kernels: %s: panic, got %v", op, r)
		}
	}()
	f()
}

// TestMatMulOverlap checks that an output overlapping an input panics
// (wgpu binds no buffer both writable and read-only); the shape checks
// shared by every backend are kerneltest's.
func TestMatMulOverlap(t *testing.T) {
	b := openBackend(t)
	a := b.Alloc(kernels.Float32, 3, 4)
	expectMismatch(t, "MatMul", func() { b.MatMul(a, a, b.Alloc(kernels.Float32, 4, 4), nil, false, false) })
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}

// matmulFlops is the work of an m x n x k product.
func matmulFlops(m, n, k int) float64 { return 2 * float64(m) * float64(n) * float64(k) }

func BenchmarkMatMul(bb *testing.B) {
	b := openBackend(bb)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{256, 512, 1024} {
		x, y, z := b.Alloc(kernels.Float32, n, n), b.Alloc(kernels.Float32, n, n), b.Alloc(kernels.Float32, n, n)
		b.Write(x, randData(rng, n*n))
		b.Write(y, randData(rng, n*n))
		for _, impl := range []struct {
			name string
			run  func()
		}{
			{"tuned", func() { b.MatMul(z, x, y, nil, false, false) }},
			{"naive", func() { b.matmulNaive(z, x, y, nil, false, false) }},
		} {
			bb.Run(fmt.Sprintf("%d/%s", n, impl.name), func(bb *testing.B) {
				impl.run() // compile the pipeline outside the timing
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.ResetTimer()
				for range bb.N {
					impl.run()
				}
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.StopTimer()
				if _, err := b.Read(b.View(z, 0, 1)); err != nil {
					bb.Fatal(err)
				}
				bb.ReportMetric(matmulFlops(n, n, n)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		b.Free(x)
		b.Free(y)
		b.Free(z)
	}
}

// TestSpreadGrid runs the kernels of this file and of conv.wgsl on dispatch
// grids spread over y with a row of 3 workgroups, as grid does past 65535
// workgroups (which would be slow to run on a CPU implementation).
func TestSpreadGrid(t *testing.T) {
	b := openBackend(t)
	defer func(g func(int) (groups, int)) { gemmGrid = g }(gemmGrid)
	gemmGrid = func(n int) (groups, int) { return groups{3, (n + 2) / 3, 1}, 3 }
	rng := rand.New(rand.NewPCG(9, 10))
	testMatMul(t, b, rng, 130, 520, 9, false, true, true, false)
	testMatMul(t, b, rng, 1, 1000, 3, true, false, false, true)
	for _, s := range [][]int{{3, 7}, {2, 5, 3, 3}} {
		d := randData(rng, kernels.Numel(s))
		dy, db := b.Alloc(kernels.Float32, s...), b.Alloc(kernels.Float32, s[1])
		b.Write(dy, d)
		b.BiasGrad(db, dy)
		got, err := b.Read(db)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, s[1])
		ref.BiasGrad(want, kerneltest.F64(d), s[0], s[1], kernels.Numel(s[2:]))
		if msg := gpuTol.Mismatch(nil, got, want); msg != "" {
			t.Errorf("BiasGrad %v: %s", s, msg)
		}
	}
	c := convCase{3, 5, 9, 10, 130, 3, 1, 1}
	t.Run("conv", func(t *testing.T) { testConv2D(t, b, rng, c, true, false) })
	t.Run("conv-data", func(t *testing.T) { testConv2DBackwardData(t, b, rng, convCase{3, 130, 9, 10, 5, 3, 1, 1}, false) })
	t.Run("conv-filter", func(t *testing.T) { testConv2DBackwardFilter(t, b, rng, convCase{2, 70, 6, 6, 67, 3, 1, 1}, true) })
}

// TestTileConstants checks that the tile of shaders/tile.wgsl is the one
// that the dispatches of matmul.go and conv.go assume.
func TestTileConstants(t *testing.T) {
	src := shaders.Source("tile.wgsl")
	for name, want := range map[string]int{"TM": gemmTileM, "TN": gemmTileN, "TK": gemmDepth} {
		if decl := fmt.Sprintf("const %s = %du;", name, want); !strings.Contains(src, decl) {
			t.Errorf("tile.wgsl does not declare %q", decl)
		}
	}
}
