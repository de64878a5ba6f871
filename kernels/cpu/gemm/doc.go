// Package gemm provides a fast single-precision general matrix multiply
// (SGEMM) for row-major matrices, written in Go with a small amount of
// assembly for the inner loop.
//
// The single entry point is [Sgemm], which has the same semantics as BLAS
// sgemm (and gonum's blas32.Gemm) for row-major storage:
//
//	C = alpha*op(A)*op(B) + beta*C
//
// # Design
//
// The implementation follows the classic GotoBLAS/BLIS structure.
//
// Packing. For every block of the computation the operands are copied
// ("packed") into contiguous, 64-byte aligned scratch buffers taken from a
// sync.Pool. A is packed into micro-panels of mr rows (for each k index the
// mr values of one column are adjacent) and alpha is folded into A while
// packing; B is packed into micro-panels of nr columns (for each k index the
// nr values of one row are adjacent). Transposition is absorbed by the
// packing routines, so a single micro-kernel serves all four combinations of
// transA and transB. Partial panels at the right and bottom edges are padded
// with zeros.
//
// Blocking. Three loops around the micro-kernel partition the problem so
// that each operand lives in the cache level where it is reused: a kc×nc
// block of B is packed once and stays in L3, an mc×kc block of A is packed
// and stays in L2, and a kc×nr micro-panel of B stays in L1 while the
// micro-kernel streams the mr-row micro-panels of A past it. The block sizes
// are chosen per micro-kernel for a core with 48 KiB of L1d and 1 MiB of L2.
//
// Micro-kernel. The micro-kernel computes an mr×nr tile of C entirely in
// registers, as a sequence of rank-1 updates (one per k index), and then
// writes alpha*A*B (+ beta*C) to memory. On amd64 two assembly kernels are
// available and selected at run time with golang.org/x/sys/cpu: a 12×32
// AVX-512 kernel (24 ZMM accumulators) and a 6×16 AVX2+FMA kernel (12 YMM
// accumulators). On other architectures, with the purego build tag, or on
// CPUs without AVX2/FMA, a portable 4×4 Go kernel is used. Edge tiles are
// computed into a small temporary tile and then merged into C, so the
// kernels themselves only ever handle full tiles.
//
// Parallelism. Problems with enough arithmetic (see minParallelWork) are
// split into up to runtime.GOMAXPROCS(0) independent slabs of C, along
// whichever of m and n is larger, each computed by its own goroutine with
// its own packing buffers. Small problems, such as the tiny matrices of a
// small MLP, always run on the calling goroutine with no synchronisation.
package gemm
