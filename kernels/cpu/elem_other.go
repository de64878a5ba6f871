//go:build !amd64 || purego

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// relu computes y = max(x, 0) with ref.ReLU.
func relu(y, x []float32) { ref.ReLU(y, x) }

// reluBackward computes dx = dy where y > 0 with ref.ReLUBackward.
func reluBackward(dx, dy, y []float32) { ref.ReLUBackward(dx, dy, y) }

// maxPool2 computes the max pool with ref.MaxPool2.
func maxPool2(y, x []float32, nc, h, w int) { ref.MaxPool2(y, x, nc, h, w) }

// maxPool2Backward computes its gradient with ref.MaxPool2Backward.
func maxPool2Backward(dx, dy, x []float32, nc, h, w int) { ref.MaxPool2Backward(dx, dy, x, nc, h, w) }
