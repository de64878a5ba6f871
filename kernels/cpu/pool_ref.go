//go:build (!amd64 && !(js && wasm)) || purego

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// maxPool2 computes the max pool with ref.MaxPool2.
func maxPool2(y, x []float32, nc, h, w int) { ref.MaxPool2(y, x, nc, h, w) }

// maxPool2Backward computes its gradient with ref.MaxPool2Backward.
func maxPool2Backward(dx, dy, x []float32, nc, h, w int) { ref.MaxPool2Backward(dx, dy, x, nc, h, w) }
