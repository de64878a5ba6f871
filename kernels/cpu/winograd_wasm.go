//go:build js && wasm && !purego

package cpu

import (
	"math"
	"runtime"
	"syscall/js"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// winogradDefault is true: in WebAssembly, with 128-bit vectors, the
// products are most of a step, and F(2x2, 3x3) makes 2.25 times fewer of
// them in the ConvNet's 28x28 and 14x14 convolutions (1.7 in the 7x7
// ones), for transforms that the SIMD module does in a few percent of
// the step.
const winogradDefault = true

// winogradLists is true: winogradConv makes its calls of the SIMD module
// as lists (winogradConvCalls) where it can; tests turn it off to compare.
var winogradLists = true

// The SIMD module's transforms of the F(2x2, 3x3) convolutions (see
// wasmsimd's winograd.go), undefined where no module runs, and their job
// numbers.
var (
	wgFrameFn, hasWgFrameFn = gemm.SIMDFunc("wgframe")
	wgInFn, hasWgInFn       = gemm.SIMDFunc("wgin")
	wgOutFn, hasWgOutFn     = gemm.SIMDFunc("wgout")
	wgGradFn, hasWgGradFn   = gemm.SIMDFunc("wggrad")
	jobWgFrame              = gemm.SIMDJob("wgframe")
	jobWgIn                 = gemm.SIMDJob("wgin")
	jobWgOut                = gemm.SIMDJob("wgout")
	jobWgGrad               = gemm.SIMDJob("wggrad")
)

// simdCalls makes count calls of the SIMD module's routine fn (job number
// job), args(i, slot) the arguments of call i: shared out between the
// module's threads where several serve (slot numbering the calls that run
// at once, below gemm.Threads()), else one after the other here (slot 0).
// The arguments are i32 values.
func simdCalls(fn js.Value, job, count int, args func(i, slot int) []int32) {
	simdCallsFloats(fn, job, count, math.MaxInt, args)
}

// simdCallsFloats is simdCalls for routines whose arguments from
// floatsFrom on are f32 values, given as their bits.
func simdCallsFloats(fn js.Value, job, count, floatsFrom int, args func(i, slot int) []int32) {
	if gemm.SIMDCalls(job, count, count, func(i, slot int, a []int32) { copy(a, args(i, slot)) }) {
		return
	}
	vals := make([]any, 0, 16)
	for i := 0; i < count; i++ {
		vals = vals[:0]
		for k, a := range args(i, 0) {
			if k >= floatsFrom {
				vals = append(vals, float64(math.Float32frombits(uint32(a))))
				continue
			}
			vals = append(vals, int(a))
		}
		fn.Invoke(vals...)
	}
}

// frameSIMD does frameChannelsLast's work (the frame cleared) in the
// SIMD module, one call an image, and reports whether it did.
func frameSIMD(wg *winograd, planes, x []float32, n0, imgs, c int) bool {
	if !hasWgFrameFn {
		return false
	}
	hw := wg.h * wg.w
	_, _ = planes[imgs*wg.hp*wg.wp*c-1], x[(n0+imgs)*c*hw-1]
	simdCalls(wgFrameFn, jobWgFrame, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(planes[i*wg.hp*wg.wp*c:])), int32(at(x[(n0+i)*c*hw:])), int32(c), int32(wg.h), int32(wg.w), int32(wg.wp)}
	})
	runtime.KeepAlive(planes)
	runtime.KeepAlive(x)
	return true
}

// inputSIMD does inputTransform's work in the SIMD module, one call an
// image, and reports whether it did (c a multiple of 4).
func inputSIMD(wg *winograd, v, planes []float32, imgs, c int) bool {
	if !hasWgInFn || c%4 != 0 {
		return false
	}
	nt, per := wg.tiles(imgs), wg.th*wg.tw
	_, _ = v[16*pointLen(nt, c)-1], planes[imgs*wg.hp*wg.wp*c-1]
	simdCalls(wgInFn, jobWgIn, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(v[i*per*c:])), int32(at(planes[i*wg.hp*wg.wp*c:])), int32(c), int32(wg.th), int32(wg.tw), int32(wg.wp), int32(4 * pointLen(nt, c))}
	})
	runtime.KeepAlive(v)
	runtime.KeepAlive(planes)
	return true
}

// outputSIMD does outputTransform's work in the SIMD module, one call an
// image, and reports whether it did (d a multiple of 4).
func outputSIMD(wg *winograd, out, m []float32, imgs, d int) bool {
	if !hasWgOutFn || d%4 != 0 {
		return false
	}
	nt, per, hw := wg.tiles(imgs), wg.th*wg.tw, wg.h*wg.w
	_, _ = out[imgs*hw*d-1], m[16*pointLen(nt, d)-1]
	spare := make([]float32, gemm.Threads()*d) // each slot's pixels past the edges
	simdCalls(wgOutFn, jobWgOut, imgs, func(i, slot int) []int32 {
		return []int32{int32(at(out[i*hw*d:])), int32(at(m[i*per*d:])), int32(d), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4 * pointLen(nt, d)), int32(at(spare[slot*d:]))}
	})
	runtime.KeepAlive(out)
	runtime.KeepAlive(m)
	runtime.KeepAlive(spare)
	return true
}

// gradSIMD does gradTransform's work in the SIMD module, one call an
// image, and reports whether it did (d a multiple of 4).
func gradSIMD(wg *winograd, z, dyt []float32, imgs, d int) bool {
	if !hasWgGradFn || d%4 != 0 {
		return false
	}
	nt, per, hw := wg.tiles(imgs), wg.th*wg.tw, wg.h*wg.w
	_, _ = z[16*pointLen(nt, d)-1], dyt[imgs*hw*d-1]
	zero := make([]float32, d) // the gradients past the edges
	simdCalls(wgGradFn, jobWgGrad, imgs, func(i, _ int) []int32 {
		return []int32{int32(at(z[i*per*d:])), int32(at(dyt[i*hw*d:])), int32(d), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4 * pointLen(nt, d)), int32(at(zero))}
	})
	runtime.KeepAlive(z)
	runtime.KeepAlive(dyt)
	runtime.KeepAlive(zero)
	return true
}

// winogradConvCalls does winogradConv's work, u the transformed filters
// ([16][c][d]), as lists of the SIMD module's calls (gemm.Calls) that the
// threads claim (gemm.RunCalls), each list a group of images from their
// framing to the output's transposition: the threads wait for each other
// twice (once for the packed filters), where sharing out every call of
// every group between them made them wait after each. It computes the
// same bits on any number of threads: the products are Sgemm's where it
// packs (gemm.Calls.Product), over the tiles padded to whole
// micro-panels, whose extra rows no transform reads. It reports whether
// it did.
func (b *Backend) winogradConvCalls(out, in, u, bias []float32, wg winograd, c, d int) bool {
	if !winogradLists || !gemm.CallsReady() || !hasWgFrameFn || !hasWgInFn || !hasWgOutFn || !hasTransposeFn || c%4 != 0 || d%gemm.PanelCols != 0 {
		return false
	}
	hw, per := wg.h*wg.w, wg.th*wg.tw
	_, _, _ = out[wg.n*d*hw-1], in[wg.n*c*hw-1], u[16*c*d-1]
	bp := 0
	if bias != nil {
		bp = at(bias[:d])
	}
	pool := pooled{b: b}
	defer pool.put()
	plen := gemm.PackedBLen(c, d)
	packed := pool.get(16 * plen)
	lists := callLists(16)
	for xi := range lists {
		lists[xi].PackB(packed[xi*plen:], u[xi*c*d:], d, c, d)
	}
	gemm.RunCalls(lists, len(lists), 0)
	ntp := ceilDiv(wg.tiles(wg.group), gemm.ProductRows) * gemm.ProductRows
	vLen, mLen := pointLen(ntp, c), pointLen(ntp, d)
	sc := pool.slab(wg.group*wg.hp*wg.wp*c, 16*vLen, 16*mLen, wg.group*hw*d, gemm.PackedALen(), gemm.TileLen(), d)
	for t := range sc.threads {
		wg.clearFrame(sc.piece(t, 0), wg.group, c)
	}
	planes, v, m, yt, bufA, tile, spare := sc.piece(0, 0), sc.piece(0, 1), sc.piece(0, 2), sc.piece(0, 3), sc.piece(0, 4), sc.piece(0, 5), sc.piece(0, 6)
	lists = callLists(wg.groups())
	for grp := range lists {
		l := &lists[grp]
		l.Local(sc.first())
		n0, imgs := wg.images(grp)
		wg.transformCalls(l, v, planes, in, n0, imgs, c, vLen)
		rows := ceilDiv(wg.tiles(imgs), gemm.ProductRows) * gemm.ProductRows
		for xi := 0; xi < 16; xi++ {
			l.Product(false, rows, d, c, v[xi*vLen:], c, packed[xi*plen:], 0, m[xi*mLen:], d, bufA, tile)
		}
		for i := 0; i < imgs; i++ {
			l.Add(jobWgOut, int32(at(yt[i*hw*d:])), int32(at(m[i*per*d:])), int32(d), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4*mLen), int32(at(spare)))
			l.Add(jobTranspose, int32(at(out[(n0+i)*d*hw:])), int32(at(yt[i*hw*d:])), int32(hw), int32(d), int32(d), int32(hw), int32(bp))
		}
	}
	sc.run(lists)
	runtime.KeepAlive(out)
	runtime.KeepAlive(in)
	runtime.KeepAlive(u)
	runtime.KeepAlive(bias)
	return true
}

// winogradFilterCalls does winogradFilter's work as lists of the SIMD
// module's calls that the threads claim, and reports whether it did (see
// winogradConvCalls): the partial sums into acc (parts of [16][co][ci]),
// a list a part, each summing its groups in order as winogradFilter's,
// then their sums with the inverse transform into dw, a list a run of its
// rows. The same bits on any number of threads.
func (b *Backend) winogradFilterCalls(dw, acc, dy, x []float32, wg winograd, ci, co, parts int) bool {
	if !winogradLists || !gemm.CallsReady() || !hasWgFrameFn || !hasWgInFn || !hasWgGradFn || !hasTransposeFn || co%gemm.ProductRows != 0 || ci%gemm.PanelCols != 0 {
		return false
	}
	hw, per, cc := wg.h*wg.w, wg.th*wg.tw, ci*co
	_, _, _, _ = dw[cc*9-1], acc[parts*16*cc-1], dy[wg.n*co*hw-1], x[wg.n*ci*hw-1]
	pool := pooled{b: b}
	defer pool.put()
	nt := wg.tiles(wg.group)
	vLen, zLen := pointLen(nt, ci), pointLen(nt, co)
	sc := pool.slab(wg.group*wg.hp*wg.wp*ci, 16*vLen, wg.group*hw*co, 16*zLen, gemm.PackedALen(), gemm.PackedBLen(nt, ci), gemm.TileLen(), co)
	for t := range sc.threads {
		wg.clearFrame(sc.piece(t, 0), wg.group, ci)
		clear(sc.piece(t, 7))
	}
	planes, v, dyt, z, bufA, bufB, tile, zero := sc.piece(0, 0), sc.piece(0, 1), sc.piece(0, 2), sc.piece(0, 3), sc.piece(0, 4), sc.piece(0, 5), sc.piece(0, 6), sc.piece(0, 7)
	lists := callLists(parts)
	for part := range lists {
		l := &lists[part]
		l.Local(sc.first())
		m := acc[part*16*cc:]
		beta := float32(0)
		for grp := part * wg.groups() / parts; grp < (part+1)*wg.groups()/parts; grp++ {
			n0, imgs := wg.images(grp)
			nt := wg.tiles(imgs)
			wg.transformCalls(l, v, planes, x, n0, imgs, ci, vLen)
			for i := 0; i < imgs; i++ {
				l.Add(jobTranspose, int32(at(dyt[i*hw*co:])), int32(at(dy[(n0+i)*co*hw:])), int32(co), int32(hw), int32(hw), int32(co), 0)
				l.Add(jobWgGrad, int32(at(z[i*per*co:])), int32(at(dyt[i*hw*co:])), int32(co), int32(wg.th), int32(wg.tw), int32(wg.h), int32(wg.w), int32(4*zLen), int32(at(zero)))
			}
			for xi := 0; xi < 16; xi++ {
				l.PackB(bufB, v[xi*vLen:], ci, nt, ci)
				l.Product(true, co, ci, nt, z[xi*zLen:], co, bufB, beta, m[xi*cc:], ci, bufA, tile)
			}
			beta = 1
		}
	}
	sc.run(lists)
	// dw = acc^T winogradSums, a list a run of whole micro-panels of rows.
	k := parts * 16
	sums := pool.get(gemm.PackedBLen(k, 9))
	gemm.PackB(sums, winogradSums, 9, k, 9)
	panels := cc / gemm.ProductRows
	lists = callLists(min(panels, filterRuns))
	for i := range lists {
		l := &lists[i]
		l.Local(sc.first())
		p0, p1 := panels*i/len(lists), panels*(i+1)/len(lists)
		r0 := p0 * gemm.ProductRows
		l.Product(true, (p1-p0)*gemm.ProductRows, 9, k, acc[r0:], cc, sums, 0, dw[r0*9:], 9, bufA, tile)
	}
	sc.run(lists)
	runtime.KeepAlive(dw)
	runtime.KeepAlive(acc)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(x)
	return true
}

// filterRuns is how many runs of rows the threads claim in the last
// product of winogradFilterCalls.
const filterRuns = 8

// transformCalls appends to l the calls that frame images n0..n0+imgs-1
// of x[N, c, h, w] into planes (whose frame is clear) and transform them
// into v, the points vLen floats apart (frameSIMD's and inputSIMD's).
func (wg *winograd) transformCalls(l *gemm.Calls, v, planes, x []float32, n0, imgs, c, vLen int) {
	hw, per, plane := wg.h*wg.w, wg.th*wg.tw, wg.hp*wg.wp*c
	for i := 0; i < imgs; i++ {
		l.Add(jobWgFrame, int32(at(planes[i*plane:])), int32(at(x[(n0+i)*c*hw:])), int32(c), int32(wg.h), int32(wg.w), int32(wg.wp))
		l.Add(jobWgIn, int32(at(v[i*per*c:])), int32(at(planes[i*plane:])), int32(c), int32(wg.th), int32(wg.tw), int32(wg.wp), int32(4*vLen))
	}
}
