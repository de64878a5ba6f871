//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// hasAVX reports whether the ReLU routines of relu_amd64.s can run.
var hasAVX = cpu.X86.HasAVX

// reluAVX and reluBackwardAVX process the first n&^7 elements; see
// relu_amd64.s.
//
//go:noescape
func reluAVX(n int, y, x *float32)

//go:noescape
func reluBackwardAVX(n int, dx, dy, y *float32)

// reluVec applies ReLU's rule to the first len(x)&^7 elements of x with
// AVX, if there is any, and returns how many it did. len(y) == len(x).
func reluVec(y, x []float32) int {
	n := len(x) &^ 7
	if !hasAVX || n == 0 {
		return 0
	}
	reluAVX(n, &y[0], &x[0])
	return n
}

// reluBackwardVec applies ReLUBackward's rule to the first len(y)&^7
// elements with AVX, if there is any, and returns how many it did.
// len(dx) == len(dy) == len(y).
func reluBackwardVec(dx, dy, y []float32) int {
	n := len(y) &^ 7
	if !hasAVX || n == 0 {
		return 0
	}
	reluBackwardAVX(n, &dx[0], &dy[0], &y[0])
	return n
}
