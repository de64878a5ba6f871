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
