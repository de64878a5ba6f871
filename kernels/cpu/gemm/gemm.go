package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices, where op(X) is X or X^T.
// op(A) is m×k, op(B) is k×n, C is m×n. lda/ldb/ldc are row strides. beta == 0 means C is overwritten (NaNs in C ignored).
//
// A is stored as an m×k matrix (row stride lda) when transA is false and as
// a k×m matrix when it is true; likewise B is k×n or n×k depending on
// transB. The semantics match BLAS sgemm (and gonum's blas32.Gemm) with
// row-major storage. When alpha or k is zero, A and B are not read and C is
// just scaled by beta.
//
// Sgemm panics with a message starting with "gemm: " if a dimension is
// negative, a stride is smaller than the number of columns of its matrix, or
// a slice is too short for the matrix it holds. It is safe for concurrent
// use by multiple goroutines as long as their C matrices do not overlap.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, nil, epilogue{}, c, ldc)
}

// SgemmBias computes C = alpha*op(A)*op(B) + bias, where bias, a row of n
// values (or nil for none), is added to every row of C, which is
// overwritten: Sgemm with beta = 0 followed by the addition, which the
// products small enough to skip packing fold into their last pass over C.
// It panics as Sgemm does, and if bias is shorter than n.
func SgemmBias(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, bias, c []float32, ldc int) {
	if bias != nil && len(bias) < n {
		panic("gemm: insufficient length of bias")
	}
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, 0, bias, epilogue{}, c, ldc)
}

// sgemm is Sgemm, then adds bias (if not nil, with beta zero) to every row
// of C and applies epi (with beta zero).
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, bias []float32, epi epilogue, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		addBias(m, n, bias, c, ldc)
		epi.rows(m, n, c, ldc)
		return
	}
	p := problem{
		transA: transA, transB: transB,
		m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda,
		b: b, ldb: ldb,
		beta: beta, c: c, ldc: ldc,
	}
	kern := activeKernel
	if beta == 0 && int64(m)*int64(n)*int64(k) <= int64(kern.direct) {
		p.direct(p.bestOrder(), bias, epi)
		return
	}
	if n <= kern.nr/4 && m > 2*n {
		// A very narrow C wastes most of every micro-tile (which is nr
		// columns wide). Compute C^T = op(B)^T*op(A)^T instead, so that the
		// short side runs along the micro-tile rows, where the kernels
		// have finer-grained variants.
		p = problem{
			transA: !transB, transB: !transA, transC: true,
			m: n, n: m, k: k,
			alpha: alpha, a: b, lda: ldb,
			b: a, ldb: lda,
			beta: beta, c: c, ldc: ldc,
		}
	}
	p.run(kern)
	addBias(m, n, bias, c, ldc)
	epi.rows(m, n, c, ldc)
}

// addBias adds bias (n values, or nil for none) to every row of the m×n
// matrix C.
func addBias(m, n int, bias, c []float32, ldc int) {
	if bias == nil {
		return
	}
	for i := 0; i < m; i++ {
		scaleAddRow(c[i*ldc:i*ldc+n], 1, bias)
	}
}

// checkArgs panics if the arguments of Sgemm do not describe valid
// matrices.
func checkArgs(transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) {
	switch {
	case m < 0:
		panic("gemm: m < 0")
	case n < 0:
		panic("gemm: n < 0")
	case k < 0:
		panic("gemm: k < 0")
	}
	// Stored shapes of A and B (rows × cols).
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	switch {
	case lda < max(1, colsA):
		panic("gemm: bad lda")
	case ldb < max(1, colsB):
		panic("gemm: bad ldb")
	case ldc < max(1, n):
		panic("gemm: bad ldc")
	}
	// Like BLAS, only the parts of the slices that will be read need exist.
	if m == 0 || n == 0 {
		return
	}
	if k > 0 {
		if lenA < (rowsA-1)*lda+colsA {
			panic("gemm: insufficient length of a")
		}
		if lenB < (rowsB-1)*ldb+colsB {
			panic("gemm: insufficient length of b")
		}
	}
	if lenC < (m-1)*ldc+n {
		panic("gemm: insufficient length of c")
	}
}

// scaleC computes C = beta*C for the m×n matrix C. With beta == 0, C is
// zeroed without being read.
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// problem holds the (already validated) arguments of one Sgemm call.
// When transC is set, element (i, j) of C is c[j*ldc+i] instead of
// c[i*ldc+j] (the problem computes the transpose of the caller's C).
type problem struct {
	transA, transB bool
	transC         bool
	m, n, k        int
	alpha          float32
	a              []float32
	lda            int
	b              []float32
	ldb            int
	beta           float32
	c              []float32
	ldc            int
}

// maxPackedB bounds, in floats, the packed copy of B shared by all the
// goroutines of a call (8 MiB, a quarter of the L3 cache). Wider B matrices
// are processed in column blocks of at most that size.
const maxPackedB = 1 << 21

// minParallelWork is the minimum number of multiply-adds (m*n*k) per
// goroutine for a parallel split to pay for itself: about 8 µs of work for
// the AVX-512 kernel (16 µs for AVX2), several times the cost of handing a
// job to a helper goroutine (see pool.go). Smaller problems, such as those
// of a small MLP, run entirely on the calling goroutine.
const minParallelWork = 1 << 20

// run computes p, in parallel if it is large enough.
//
// The columns of C are processed in blocks whose packed B fits in
// maxPackedB. For each block, op(B) is packed once into a buffer shared by
// all workers, then the block of C is cut into chunks of whole micro-tiles
// (at most mc rows); each chunk packs its rows of op(A) kc columns at a
// time and runs the micro-kernel over them. Packing B and computing chunks
// are both handed out dynamically through an atomic counter, so a goroutine
// that starts late (or is descheduled) just takes fewer items and the work
// stays balanced.
func (p *problem) run(kern *microKernel) {
	mr, nr := kern.mr, kern.nr

	// Number of goroutines: one per minParallelWork multiply-adds, up to
	// GOMAXPROCS.
	w := 1
	if work := int64(p.m) * int64(p.n) * int64(p.k); work >= 2*minParallelWork {
		w = int(min(int64(runtime.GOMAXPROCS(0)), work/minParallelWork))
	}

	// Column block width: all of n if its packed B fits in maxPackedB.
	nc := roundUp(p.n, nr)
	if p.k*nc > maxPackedB {
		nc = max(nr, maxPackedB/p.k/nr*nr)
	}

	// Chunks of chunkTiles×pieceTiles micro-tiles: one per mc rows of the
	// block when serial. With w workers, halve the longer side of the
	// chunks until there are about 4w of them: enough to balance, yet each
	// B micro-panel is still used by several A micro-panels and vice versa.
	tilesM, tilesN := ceilDiv(p.m, mr), ceilDiv(min(nc, p.n), nr)
	chunkTiles, pieceTiles := min(kern.mc/mr, tilesM), tilesN
	for w > 1 && ceilDiv(tilesM, chunkTiles)*ceilDiv(tilesN, pieceTiles) < 4*w {
		if chunkTiles > 1 && chunkTiles >= pieceTiles {
			chunkTiles = ceilDiv(chunkTiles, 2)
		} else if pieceTiles > 1 {
			pieceTiles = ceilDiv(pieceTiles, 2)
		} else {
			break
		}
	}

	bufB := getBuffer(&poolB, p.k*nc)
	defer putBuffer(&poolB, bufB)
	for jc := 0; jc < p.n; jc += nc {
		if w == 1 {
			// A local job does not escape: no allocation for small calls.
			var j job
			p.setup(&j, kern, bufB.s, jc, min(nc, p.n-jc), chunkTiles*mr, pieceTiles*nr)
			j.work()
			continue
		}
		j := new(job)
		p.setup(j, kern, bufB.s, jc, min(nc, p.n-jc), chunkTiles*mr, pieceTiles*nr)
		j.run(w)
	}
}

// setup prepares j to compute columns jc..jc+nb-1 of C in chunks of mChunk
// rows by pieceLen columns, packing B into bufB.
func (p *problem) setup(j *job, kern *microKernel, bufB []float32, jc, nb, mChunk, pieceLen int) {
	nr := kern.nr
	j.p, j.kern = *p, kern
	j.kc = min(kern.kc, p.k)
	j.jc, j.nb = jc, nb
	j.packedB = bufB[:p.k*roundUp(nb, nr)]
	j.panels = ceilDiv(nb, nr)
	j.packPanels = 1
	if kern.macro != nil {
		// One packing item per k block: packB then copies every whole
		// micro-panel of it in one call (see copyPanels).
		j.packPanels = j.panels
	}
	j.mChunk, j.mChunks = mChunk, ceilDiv(p.m, mChunk)
	j.pieceLen, j.nPieces = pieceLen, ceilDiv(nb, pieceLen)
	j.nPack = ceilDiv(p.k, j.kc) * ceilDiv(j.panels, j.packPanels)
	j.items = j.nPack + j.mChunks*j.nPieces
}

// job is one column block of a problem, shared by the goroutines that
// compute it. Its work items are, in order: packing packPanels kc×nr
// micro-panels of B (nPack items), then computing one chunk of C (mChunk
// rows × pieceLen columns).
type job struct {
	p       problem
	kern    *microKernel
	kc      int       // depth of a k block
	jc, nb  int       // columns jc..jc+nb-1 of C
	packedB []float32 // op(B) packed: k blocks of kb × roundUp(nb, nr)
	panels  int       // micro-panels of B per k block

	packPanels int // micro-panels of B per packing item

	mChunk, mChunks   int // rows per chunk, number of row chunks
	pieceLen, nPieces int // columns per chunk, number of column chunks

	nPack, items int   // number of packing items, of all items
	maxHelpers   int64 // helper goroutines wanted
	id           uint64

	_      [64]byte     // keep the counters off the read-mostly fields' cache line
	next   atomic.Int64 // next item to hand out
	packed atomic.Int64 // packing items finished
	state  atomic.Int64 // helpers inside work, | jobClosed once closed
}

// jobClosed is the bit of job.state set when a job takes no more helpers.
const jobClosed = 1 << 62

// run completes the job with up to w goroutines: the caller and up to w-1
// helpers from the pool.
func (j *job) run(w int) {
	w = min(w, j.items-j.nPack)
	if w <= 1 {
		j.work()
		return
	}
	j.maxHelpers = int64(w - 1)
	helpers.offer(j, w-1)
	j.work()
	helpers.withdraw(j)
	// Close the job to new helpers and wait for those inside work: each is
	// finishing its last item.
	j.state.Or(jobClosed)
	for j.state.Load() != jobClosed {
		runtime.Gosched()
	}
}

// help is called by a helper goroutine that found j on offer: it joins the
// computation unless the job is closed or has all the helpers it wants.
func (j *job) help() {
	for {
		s := j.state.Load()
		if s&jobClosed != 0 || s >= j.maxHelpers {
			return
		}
		if j.state.CompareAndSwap(s, s+1) {
			break
		}
	}
	j.work()
	j.state.Add(-1)
}

// work takes items from the job until there are none left.
func (j *job) work() {
	p, kern := &j.p, j.kern
	mr, nr := kern.mr, kern.nr
	var bufA *buffer
	for {
		it := int(j.next.Add(1) - 1)
		if it >= j.items {
			break
		}
		if it < j.nPack {
			// Pack the micro-panels from jr on of k block pc into their
			// place.
			items := ceilDiv(j.panels, j.packPanels)
			pc, jr := it/items*j.kc, it%items*j.packPanels*nr
			kb, nb := min(j.kc, p.k-pc), min(j.packPanels*nr, j.nb-jr)
			off := pc*roundUp(j.nb, nr) + jr*kb
			packB(j.packedB[off:off+kb*roundUp(nb, nr)], p.transB, p.b, p.ldb, pc, j.jc+jr, kb, nb, nr)
			j.packed.Add(1)
			continue
		}
		// All packing items have been handed out; wait for the last ones
		// to finish (they take microseconds).
		for j.packed.Load() < int64(j.nPack) {
			runtime.Gosched()
		}
		if bufA == nil {
			bufA = getBuffer(&poolA, roundUp(j.mChunk, mr)*j.kc+maxTile)
		}
		it -= j.nPack
		i0 := it / j.nPieces * j.mChunk
		j0 := it % j.nPieces * j.pieceLen
		mb := min(j.mChunk, p.m-i0)
		nb := min(j.pieceLen, j.nb-j0)
		for pc := 0; pc < p.k; pc += j.kc {
			kb := min(j.kc, p.k-pc)
			packA(bufA.s[maxTile:], p.transA, p.a, p.lda, i0, pc, mb, kb, mr)
			beta := p.beta
			if pc > 0 {
				beta = 1 // later k blocks accumulate into C
			}
			off := pc*roundUp(j.nb, nr) + j0*kb
			cOff := i0*p.ldc + j.jc + j0
			if p.transC {
				cOff = (j.jc+j0)*p.ldc + i0
			}
			macroKernel(kern, mb, nb, kb, bufA.s[maxTile:], j.packedB[off:], bufA.s[:maxTile], p.alpha, beta, p.c[cOff:], p.ldc, p.transC)
		}
	}
	if bufA != nil {
		putBuffer(&poolA, bufA)
	}
}

// maxTile is the largest mr*nr of any micro-kernel.
const maxTile = 12 * 32

// macroKernel multiplies a packed mb×kb block of A by a packed kb×nb block
// of B into the mb×nb block of C at c (row stride ldc), tile by tile:
// C = alpha*A*B + beta*C. Edge tiles use the smallest kernel variant that
// covers them; when it is larger than the tile, it writes into the scratch
// tile (maxTile floats) which is then merged into C. With transC, element
// (i, j) of the block is c[j*ldc+i] and every tile goes through the scratch
// tile. A family with its own macro function runs that instead.
func macroKernel(kern *microKernel, mb, nb, kb int, packedA, packedB, tile []float32, alpha, beta float32, c []float32, ldc int, transC bool) {
	if kern.macro != nil {
		kern.macro(mb, nb, kb, packedA, packedB, tile, alpha, beta, c, ldc, transC)
		return
	}
	mr, nr := kern.mr, kern.nr
	full := kern.fns[len(kern.rows)-1]
	for jr := 0; jr < nb; jr += nr {
		cols := min(nr, nb-jr)
		vc := variant(kern.cols, cols)
		bp := packedB[jr*kb : (jr+nr)*kb]
		for ir := 0; ir < mb; ir += mr {
			rows := min(mr, mb-ir)
			ap := packedA[ir*kb : (ir+mr)*kb]
			vr := variant(kern.rows, rows)
			fn := kern.fns[vr][vc]
			if transC {
				fn(kb, ap, bp, tile, nr, alpha, 0)
				mergeTileT(tile, nr, rows, cols, c[jr*ldc+ir:], ldc, beta)
				continue
			}
			ct := c[ir*ldc+jr:]
			if rows == mr && cols == nr {
				full[len(full)-1](kb, ap, bp, ct, ldc, alpha, beta)
				continue
			}
			if kern.rows[vr] == rows && kern.cols[vc] == cols {
				fn(kb, ap, bp, ct, ldc, alpha, beta)
				continue
			}
			fn(kb, ap, bp, tile, nr, alpha, 0)
			mergeTile(tile, nr, rows, cols, ct, ldc, beta)
		}
	}
}

// mergeTile computes C = T + beta*C for the rows×cols matrices T (in tile,
// row stride nr) and C (in c, row stride ldc). With beta == 0, C is not
// read.
func mergeTile(tile []float32, nr, rows, cols int, c []float32, ldc int, beta float32) {
	for i := 0; i < rows; i++ {
		src := tile[i*nr : i*nr+cols]
		dst := c[i*ldc : i*ldc+cols]
		switch beta {
		case 0:
			copy(dst, src)
		case 1:
			for j, v := range src {
				dst[j] += v
			}
		default:
			for j, v := range src {
				dst[j] = beta*dst[j] + v
			}
		}
	}
}

// mergeTileT is mergeTile for a transposed C: it computes C = T^T + beta*C
// where C is cols×rows.
func mergeTileT(tile []float32, nr, rows, cols int, c []float32, ldc int, beta float32) {
	for j := 0; j < cols; j++ {
		dst := c[j*ldc : j*ldc+rows]
		if beta == 0 {
			for i := range dst {
				dst[i] = tile[i*nr+j]
			}
			continue
		}
		for i := range dst {
			dst[i] = beta*dst[i] + tile[i*nr+j]
		}
	}
}

// buffer is a packing buffer; s is a 64-byte aligned window into mem.
type buffer struct {
	mem []float32
	s   []float32
}

// poolA and poolB recycle the packing buffers of A and B between calls.
// They are separate because their sizes differ widely.
var poolA, poolB sync.Pool

// getBuffer returns a buffer from pool whose s field holds n 64-byte
// aligned floats.
func getBuffer(pool *sync.Pool, n int) *buffer {
	buf, _ := pool.Get().(*buffer)
	if buf == nil || cap(buf.mem) < n+16 {
		buf = &buffer{mem: make([]float32, n+16)}
	}
	mem := buf.mem[:cap(buf.mem)]
	off := int(uintptr(unsafe.Pointer(&mem[0]))&63) / 4
	if off != 0 {
		off = 16 - off
	}
	buf.s = mem[off : off+n]
	return buf
}

// putBuffer returns buf to pool.
func putBuffer(pool *sync.Pool, buf *buffer) {
	buf.s = nil
	pool.Put(buf)
}

// ceilDiv returns ceil(a/b) for a >= 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// roundUp rounds a up to a multiple of b.
func roundUp(a, b int) int { return ceilDiv(a, b) * b }
