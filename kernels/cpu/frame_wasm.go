//go:build js && wasm && !purego

package cpu

import (
	"runtime"

	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// unfoldFn and transposeFn are the SIMD module's unfold and transpose
// routines, undefined where no module runs.
var (
	unfoldFn, hasUnfoldFn       = gemm.SIMDFunc("unfold")
	transposeFn, hasTransposeFn = gemm.SIMDFunc("transpose")
)

// unfoldSIMD does unfold's work for channel c in the SIMD module (one call:
// the framing and every tap's gathering) and reports whether it did.
func unfoldSIMD(f *frame, col, planes, x []float32, n0, imgs, c int) bool {
	if !hasUnfoldFn {
		return false
	}
	g := f.g
	kk, ld := g.K*g.K, imgs*f.hw
	// The module reads the images' planes of channel c, writes the
	// channel's rows of col (and up to 3 floats past them: col has 7 of
	// slack) and the framed planes.
	_ = x[((n0+imgs-1)*g.Ci+c)*g.H*g.W+g.H*g.W-1]
	_ = col[(c+1)*kk*ld-1+3]
	_ = planes[imgs*f.plane-1]
	unfoldFn.Invoke(at(col[c*kk*ld:]), at(planes), at(x[(n0*g.Ci+c)*g.H*g.W:]), imgs, g.H, g.W, 4*g.Ci*g.H*g.W, 4*f.plane,
		g.Pad, f.wq, g.K, g.Ho, g.Wo, f.hw, ld)
	runtime.KeepAlive(col)
	runtime.KeepAlive(planes)
	runtime.KeepAlive(x)
	return true
}

// transposeSIMD does transposeBias's work (d and s of rows*cols floats,
// bias nil or of cols) in the SIMD module and reports whether it did.
func transposeSIMD(d, s []float32, rows, cols int, bias []float32) bool {
	if !hasTransposeFn || rows == 0 || cols == 0 {
		return false
	}
	b := 0
	if bias != nil {
		b = at(bias)
	}
	transposeFn.Invoke(at(d), at(s), rows, cols, cols, rows, b)
	runtime.KeepAlive(d)
	runtime.KeepAlive(s)
	runtime.KeepAlive(bias)
	return true
}

// The job numbers of the routines that run on several threads.
var (
	jobUnfold    = gemm.SIMDJob("unfold")
	jobTranspose = gemm.SIMDJob("transpose")
)

// sharedPlanes holds the framed planes of unfoldShared's calls beyond the
// first (which uses the caller's): the module's threads run at most
// gemm.Threads() calls at once, each on planes of its own.
var sharedPlanes []float32

// unfoldShared does unfold's work (planes cleared) with the channels
// shared out between the SIMD module's threads (gemm.SIMDCalls), and
// reports whether it did. A channel's call writes up to 3 floats past its
// last row, into the first row of the next channel, which another thread
// may have written already: those floats are set again once all have
// finished.
func unfoldShared(f *frame, col, planes, x []float32, n0, imgs int) bool {
	g := f.g
	n := min(gemm.Threads(), g.Ci)
	if !hasUnfoldFn || n < 2 {
		return false
	}
	kk, ld, np := g.K*g.K, imgs*f.hw, imgs*f.plane
	_ = x[((n0+imgs-1)*g.Ci+g.Ci-1)*g.H*g.W+g.H*g.W-1]
	_ = col[g.Ci*kk*ld-1+3]
	_ = planes[np-1]
	if cap(sharedPlanes) < (n-1)*np {
		sharedPlanes = make([]float32, (n-1)*np)
	}
	sharedPlanes = sharedPlanes[:(n-1)*np]
	clear(sharedPlanes)
	done := gemm.SIMDCalls(jobUnfold, g.Ci, n, func(c, slot int, a []int32) {
		p := planes
		if slot > 0 {
			p = sharedPlanes[(slot-1)*np:]
		}
		copy(a, []int32{int32(at(col[c*kk*ld:])), int32(at(p)), int32(at(x[(n0*g.Ci+c)*g.H*g.W:])), int32(imgs), int32(g.H), int32(g.W),
			int32(4 * g.Ci * g.H * g.W), int32(4 * f.plane), int32(g.Pad), int32(f.wq), int32(g.K), int32(g.Ho), int32(g.Wo), int32(f.hw), int32(ld)})
	})
	runtime.KeepAlive(col)
	runtime.KeepAlive(planes)
	runtime.KeepAlive(x)
	if !done {
		return false
	}
	for c := 1; c < g.Ci; c++ {
		for p := range min(3, ld) {
			col[c*kk*ld+p] = f.colValue(x, n0, c, 0, p)
		}
	}
	return true
}

// transposeShared does transposeImages' work as lists of calls, one an
// image, that the SIMD module's threads claim (gemm.RunCalls), and reports
// whether it did.
func transposeShared(d, s []float32, imgs, rows, cols int, bias []float32) bool {
	if !hasTransposeFn || rows == 0 || cols == 0 || !gemm.CallsReady() {
		return false
	}
	_, _ = d[imgs*rows*cols-1], s[imgs*rows*cols-1]
	b := 0
	if bias != nil {
		b = at(bias[:cols])
	}
	lists := callLists(imgs)
	for i := range lists {
		lists[i].Add(jobTranspose, int32(at(d[i*rows*cols:])), int32(at(s[i*rows*cols:])), int32(rows), int32(cols), int32(cols), int32(rows), int32(b))
	}
	gemm.RunCalls(lists, gemm.Threads(), 0)
	runtime.KeepAlive(d)
	runtime.KeepAlive(s)
	runtime.KeepAlive(bias)
	return true
}
