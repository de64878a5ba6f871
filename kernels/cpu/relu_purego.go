//go:build js && wasm && purego

package cpu

// reluSIMD does nothing: the purego build has no SIMD module.
func reluSIMD(y, x []float32) bool { return false }

// reluBackwardSIMD does nothing, as reluSIMD.
func reluBackwardSIMD(dx, dy, y []float32) bool { return false }
