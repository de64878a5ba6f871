//go:build (!amd64 || purego) && !wasm

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// relu computes y = max(x, 0) with ref.ReLU.
func relu(y, x []float32) { ref.ReLU(y, x) }

// reluBackward computes dx = dy where y > 0 with ref.ReLUBackward.
func reluBackward(dx, dy, y []float32) { ref.ReLUBackward(dx, dy, y) }
