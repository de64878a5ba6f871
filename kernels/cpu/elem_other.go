//go:build !amd64 || purego

package cpu

// sum64 returns the float64 sum of x.
func sum64(x []float32) float64 { return sum64Go(x) }

// gatherRows copies rows rows of w floats, src[r*stride:][:w], to the
// contiguous dst[:rows*w]. (The AVX version may write up to 7 floats past
// it.)
func gatherRows(dst, src []float32, rows, w, stride int) { gatherRowsGo(dst, src, rows, w, stride) }
