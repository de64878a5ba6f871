//go:build amd64 && !purego

package cpu

import (
	"golang.org/x/sys/cpu"

	"github.com/deeplda/deeplda/kernels/ref"
)

// hasAVX reports whether the AVX routines of elem_amd64.s and bn_amd64.s
// can run.
var hasAVX = cpu.X86.HasAVX

// hasAVX2 reports whether the max-pool routines of elem_amd64.s can run.
var hasAVX2 = cpu.X86.HasAVX2

// maxPool2AVX and maxPool2BackwardAVX process rows output rows of wo
// windows; see elem_amd64.s.
//
//go:noescape
func maxPool2AVX(rows, wo int, y, x *float32, w int, tail *[24]int32)

//go:noescape
func maxPool2BackwardAVX(rows, wo int, dx, dy, x *float32, w int, tail *[24]int32)

// poolTail returns the lane masks of the last wo%8 windows of a row for
// maxPool2AVX: those of its first and second 8 input floats, then of its
// output floats.
func poolTail(wo int) *[24]int32 {
	var m [24]int32
	rem := wo % 8
	for l := range 8 {
		m[l] = -int32(b2i(l < 2*rem))
		m[8+l] = -int32(b2i(l+8 < 2*rem))
		m[16+l] = -int32(b2i(l < rem))
	}
	return &m
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// poolRuns calls f for runs of row pairs that share one row stride: all the
// planes at once when h is even, plane by plane otherwise (the odd last row
// of each plane is outside every window).
func poolRuns(nc, h, w int, f func(rows, in, out int)) {
	ho, wo := h/2, w/2
	if h%2 == 0 {
		f(nc*ho, 0, 0)
		return
	}
	for p := 0; p < nc; p++ {
		f(ho, p*h*w, p*ho*wo)
	}
}

// maxPool2 computes ref.MaxPool2 for nc planes of h×w, eight windows at a
// time without branches.
func maxPool2(y, x []float32, nc, h, w int) {
	ho, wo := h/2, w/2
	if !hasAVX2 || nc*ho*wo == 0 {
		ref.MaxPool2(y, x, nc, h, w)
		return
	}
	_, _ = y[nc*ho*wo-1], x[nc*h*w-1]
	tail := poolTail(wo)
	poolRuns(nc, h, w, func(rows, in, out int) {
		maxPool2AVX(rows, wo, &y[out], &x[in], w, tail)
	})
}

// maxPool2Backward computes ref.MaxPool2Backward for nc planes of h×w: each
// window gets dy at its first maximum and zeros elsewhere (the windows do
// not overlap), and the odd last row or column is cleared.
func maxPool2Backward(dx, dy, x []float32, nc, h, w int) {
	ho, wo := h/2, w/2
	if !hasAVX2 || nc*ho*wo == 0 {
		ref.MaxPool2Backward(dx, dy, x, nc, h, w)
		return
	}
	_, _, _ = dx[nc*h*w-1], dy[nc*ho*wo-1], x[nc*h*w-1]
	tail := poolTail(wo)
	poolRuns(nc, h, w, func(rows, in, out int) {
		maxPool2BackwardAVX(rows, wo, &dx[in], &dy[out], &x[in], w, tail)
	})
	for p := 0; p < nc; p++ {
		plane := dx[p*h*w : (p+1)*h*w]
		if w%2 != 0 {
			for i := 0; i < 2*ho; i++ {
				plane[i*w+w-1] = 0
			}
		}
		if h%2 != 0 {
			clear(plane[(h-1)*w:])
		}
	}
}

// sum64 returns the float64 sum of x.
func sum64(x []float32) float64 {
	if !hasAVX || len(x) == 0 {
		return sum64Go(x)
	}
	return sumAVX(&x[0], len(x))
}

//go:noescape
func gatherRowsAVX(rows, w int, dst, src *float32, stride int)

// gatherRows copies rows rows of w floats, src[r*stride:][:w], to the
// contiguous dst[:rows*w]. It may read up to 7 floats past the end of the
// last row of src and write up to 7 floats past dst[rows*w-1]: both must
// lie within the slices, and the caller must write what it wants there
// afterwards.
func gatherRows(dst, src []float32, rows, w, stride int) {
	if !hasAVX || rows == 0 || w == 0 {
		gatherRowsGo(dst, src, rows, w, stride)
		return
	}
	_, _ = dst[rows*w-1+7], src[(rows-1)*stride+w-1+7]
	gatherRowsAVX(rows, w, &dst[0], &src[0], stride)
}
