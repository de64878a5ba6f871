//go:build !amd64 || purego

package gemm

// reluVec does nothing here: ReLU's Go loop does every element.
func reluVec(y, x []float32) int { return 0 }

// reluBackwardVec does nothing here: ReLUBackward's Go loop does every
// element.
func reluBackwardVec(dx, dy, y []float32) int { return 0 }
