package webgpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/webgpu/webgputest"
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

// naiveBackend is the backend with MatMul run by the benchmark's baseline
// kernel, matmul_naive.
type naiveBackend struct{ *Backend }

// MatMul runs matmulNaive.
func (b naiveBackend) MatMul(c, a, bm, bias kernels.Tensor, transA, transB bool) {
	b.matmulNaive(c, a, bm, bias, transA, transB)
}

// TestMatMulNaive checks the benchmark's baseline kernel with the MatMul
// tests of the conformance suite.
func TestMatMulNaive(t *testing.T) {
	kerneltest.TestOps(t, naiveBackend{openBackend(t)}, gpuTol, "MatMul")
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
				kerneltest.BenchOp(bb, b, matmulFlops(n, n, n), z, impl.run)
			})
		}
		b.Free(x)
		b.Free(y)
		b.Free(z)
	}
}

// TestSpreadGrid runs the conformance tests of the kernels of matmul.wgsl
// and conv.wgsl on dispatch grids spread over y with a row of 3 workgroups,
// as grid does past 65535 workgroups (which would be slow to run on a CPU
// implementation).
func TestSpreadGrid(t *testing.T) {
	b := openBackend(t)
	defer func(g func(int) (groups, int)) { gemmGrid = g }(gemmGrid)
	gemmGrid = func(n int) (groups, int) { return groups{3, (n + 2) / 3, 1}, 3 }
	kerneltest.TestOps(t, b, gpuTol, "MatMul", "BiasGrad", "Conv2D", "Conv2DBackwardData", "Conv2DBackwardFilter")
}
