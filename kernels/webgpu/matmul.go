package webgpu

import "github.com/deeplda/deeplda/kernels"

// The kernels of matmul.wgsl. matmulNaive is the one-output-per-invocation
// baseline that the benchmarks compare the tiled kernel with.
var matmulKernels = struct {
	tiled, naive kernel
}{
	tiled: kernel{File: "matmul.wgsl", Entry: "matmul", Slots: []slot{out(1), in(2), in(3), in(4)}},
	naive: kernel{File: "matmul.wgsl", Entry: "matmul_naive", Slots: []slot{out(1), in(2), in(3), in(4)}},
}

// gemmNaiveTile is the side of matmul_naive's square output tile (the
// tiled kernels' tiles are tile.go's).
const gemmNaiveTile = 16

// gemmGrid spreads the workgroups of the kernels of matmul.wgsl and
// conv.wgsl over the dispatch grid (a variable so that the tests can spread
// small dispatches the way grid spreads those past 65535 workgroups).
var gemmGrid = grid

// gemmOverlap reports whether two tensors share bytes of one buffer.
func gemmOverlap(x, y kernels.Tensor) bool {
	a, b := gt(x), gt(y)
	return a.buf == b.buf && a.offset < b.offset+b.bytes() && b.offset < a.offset+a.bytes()
}

// gemmDisjoint panics when the output dst overlaps one of the inputs (a
// writable binding may not alias another binding of the dispatch).
func gemmDisjoint(op string, dst kernels.Tensor, srcs ...kernels.Tensor) {
	for _, s := range srcs {
		if s != nil && gemmOverlap(dst, s) {
			kernels.Mismatch(op, "the output overlaps an input", dst.Shape(), s.Shape())
		}
	}
}

// MatMul computes c[M,N] = op(a) op(b) (+ bias[N] on every row) with the
// tiled kernel of matmul.wgsl, on the tile that M calls for (tileFor).
func (b *Backend) MatMul(c, a, bm, bias kernels.Tensor, transA, transB bool) {
	b.matmul(matmulKernels.tiled, true, c, a, bm, bias, transA, transB)
}

// matmulNaive is MatMul with the one-output-per-invocation kernel (for the
// benchmarks).
func (b *Backend) matmulNaive(c, a, bm, bias kernels.Tensor, transA, transB bool) {
	b.matmul(matmulKernels.naive, false, c, a, bm, bias, transA, transB)
}

// matmul dispatches kernel k of matmul.wgsl: on the tile that M calls for
// when tiled, else on matmul_naive's square tiles.
func (b *Backend) matmul(k kernel, tiled bool, c, a, bm, bias kernels.Tensor, transA, transB bool) {
	m, n, depth := kernels.MatMulDims("MatMul", c, a, bm, bias, transA, transB)
	gemmDisjoint("MatMul", c, a, bm, bias)
	if m == 0 || n == 0 {
		return
	}
	hasBias := 1
	if bias == nil {
		bias, hasBias = a, 0 // bound read-only and never read
	}
	tileM, tileN := gemmNaiveTile, gemmNaiveTile
	if tiled {
		t := b.tileFor(m)
		k, tileM, tileN = k.on(t), t.M, gemmTileN
	}
	tilesN := (n + tileN - 1) / tileN
	g, row := gemmGrid((m + tileM - 1) / tileM * tilesN)
	p := params{}.u(m, n, depth, gemmFlag(transA), gemmFlag(transB), hasBias, tilesN, row)
	b.dispatch("MatMul", k, g, p, c, a, bm, bias)
}

// gemmFlag converts a bool to a shader flag.
func gemmFlag(v bool) int {
	if v {
		return 1
	}
	return 0
}
