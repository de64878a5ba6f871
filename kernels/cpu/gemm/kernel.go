package gemm

import "time"

// kernelFunc computes one tile of C, of some fixed size rows×cols, from
// packed micro-panels of A and B:
//
//	C[i][j] = alpha * sum_p a[p*mr+i]*b[p*nr+j] + beta*C[i][j]
//
// for 0 <= i < rows, 0 <= j < cols, where C[i][j] is c[i*ldc+j] and mr×nr
// is the full tile of the kernel's family (the packing layout). When beta
// is zero C is not read, so NaNs or infinities already in C are ignored.
// k must be at least 1, len(a) >= k*mr, len(b) >= k*nr and
// len(c) >= (rows-1)*ldc+cols.
type kernelFunc func(k int, a, b, c []float32, ldc int, alpha, beta float32)

// microKernel describes a family of micro-kernels sharing a packing layout,
// together with the cache-blocking parameters that suit it.
type microKernel struct {
	name   string
	mr, nr int // full register tile, and packing layout
	kc     int // depth of a packed block
	mc     int // rows of a packed A block (multiple of mr)

	// direct is the largest product, in multiply-adds m*n*k, that Sgemm
	// computes without packing when beta is zero (see direct.go); 0 for
	// none.
	direct int

	// fns[i][j] computes a rows[i]×cols[j] tile. rows and cols are
	// ascending and end with mr and nr; the smaller variants serve the
	// bottom and right edges of C.
	rows, cols []int
	fns        [][]kernelFunc

	// macro, when not nil, replaces macroKernel for this family: it runs
	// the whole loop over the tiles of a block in one call (see
	// simd_js.go).
	macro func(mb, nb, kb int, packedA, packedB, tile []float32, alpha, beta float32, c []float32, ldc int, transC bool)
}

// goKernel is the portable micro-kernel used when no assembly kernel is
// available. It keeps a 4×4 tile of C in 16 scalar accumulators.
var goKernel = &microKernel{
	name:   "go4x4",
	mr:     4,
	nr:     4,
	kc:     256,
	mc:     128,
	direct: directWork,
	rows:   []int{4},
	cols:   []int{4},
	fns:    [][]kernelFunc{{kernelGo4x4}},
}

// Threads returns how many threads compute the products besides Go's own:
// in a JavaScript host whose memory is shared, the main thread and the Web
// Workers that serve the WebAssembly SIMD kernel (simd_js.go); 1 anywhere
// else (natively Sgemm uses goroutines instead, up to GOMAXPROCS).
func Threads() int {
	if jsThreads == nil {
		return 1
	}
	return jsThreads()
}

// SharedTime returns the time spent so far in calls of the SIMD module
// shared out between its threads, from handing them out to the end of
// the last (see simd_js.go): the parallel part of a step, whose rest is
// the serial part; and the number of rounds of such calls, each ended by
// the threads waiting for each other. Zero where fewer than two threads
// serve.
func SharedTime() (time.Duration, int) { return sharedTime, sharedRounds }

// sharedTime and sharedRounds are SharedTime's sums.
var (
	sharedTime   time.Duration
	sharedRounds int
)

// SIMD reports whether the products run in the WebAssembly SIMD module
// (see simd_js.go): in a JavaScript host that has WebAssembly SIMD.
func SIMD() bool { return activeKernel.macro != nil }

// SetThreads sets how many threads may compute the products in a
// JavaScript host whose memory is shared (see Threads), at most its cores;
// n < 1 restores the default, one fewer than its cores. It does nothing
// elsewhere.
func SetThreads(n int) {
	if jsSetThreads != nil {
		jsSetThreads(n)
	}
}

// jsThreads, when not nil, counts the threads that serve the SIMD kernel,
// and jsSetThreads sets how many may.
var (
	jsThreads    func() int
	jsSetThreads func(int)
)

// activeKernel is the micro-kernel Sgemm uses. It is chosen once at
// initialisation (see the architecture-specific files); tests may swap it.
var activeKernel = bestKernel()

// variant returns the index of the smallest size in sizes that is >= n.
func variant(sizes []int, n int) int {
	i := 0
	for sizes[i] < n {
		i++
	}
	return i
}

// kernelGo4x4 is the portable 4×4 micro-kernel. See kernelFunc.
func kernelGo4x4(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	a = a[:4*k]
	b = b[:4*k]
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	for len(a) >= 4 && len(b) >= 4 {
		ap := a[:4:4]
		bp := b[:4:4]
		a, b = a[4:], b[4:]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := ap[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := ap[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := ap[2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := ap[3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	storeRow4(c[0*ldc:], c00, c01, c02, c03, alpha, beta)
	storeRow4(c[1*ldc:], c10, c11, c12, c13, alpha, beta)
	storeRow4(c[2*ldc:], c20, c21, c22, c23, alpha, beta)
	storeRow4(c[3*ldc:], c30, c31, c32, c33, alpha, beta)
}

// storeRow4 writes alpha*(v0..v3) (+ beta times the old values) to c[0:4].
func storeRow4(c []float32, v0, v1, v2, v3, alpha, beta float32) {
	c = c[:4]
	v0, v1, v2, v3 = alpha*v0, alpha*v1, alpha*v2, alpha*v3
	if beta != 0 {
		v0 += beta * c[0]
		v1 += beta * c[1]
		v2 += beta * c[2]
		v3 += beta * c[3]
	}
	c[0], c[1], c[2], c[3] = v0, v1, v2, v3
}
