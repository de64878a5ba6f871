//go:build !amd64 || purego

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// maxPool2 computes the max pool with ref.MaxPool2.
func maxPool2(y, x []float32, nc, h, w int) { ref.MaxPool2(y, x, nc, h, w) }

// maxPool2Backward computes its gradient with ref.MaxPool2Backward.
func maxPool2Backward(dx, dy, x []float32, nc, h, w int) { ref.MaxPool2Backward(dx, dy, x, nc, h, w) }

// sum64 returns the float64 sum of x.
func sum64(x []float32) float64 { return sum64Go(x) }

// gatherRows copies rows rows of w floats, src[r*stride:][:w], to the
// contiguous dst[:rows*w]. (The AVX version may write up to 7 floats past
// it.)
func gatherRows(dst, src []float32, rows, w, stride int) { gatherRowsGo(dst, src, rows, w, stride) }
