package cpu

// Portable loops, the fallbacks of the AVX routines that have no
// counterpart in package ref.

// sum64Go returns the float64 sum of x, in order.
func sum64Go(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// gatherRowsGo copies rows rows of w floats, src[r*stride:][:w], to the
// contiguous dst[:rows*w].
func gatherRowsGo(dst, src []float32, rows, w, stride int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*w:][:w], src[r*stride:][:w])
	}
}
