//go:build !(js && wasm) || purego

package cpu

import "github.com/deeplda/deeplda/kernels"

// reluSIMD does nothing: the SIMD module runs in a JavaScript host only
// (see elem_simd.go).
func reluSIMD(y, x []float32) bool { return false }

// reluBackwardSIMD does nothing, as reluSIMD.
func reluBackwardSIMD(dx, dy, y []float32) bool { return false }

// adamSIMD does nothing, as reluSIMD.
func adamSIMD(param, grad, m, v []float32, p kernels.AdamParams) bool { return false }
