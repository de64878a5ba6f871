//go:build !(js && wasm) || purego

package cpu

// unfoldSIMD does nothing: the SIMD module runs in a JavaScript host only
// (see frame_wasm.go).
func unfoldSIMD(f *frame, col, planes, x []float32, n0, imgs, c int) bool { return false }

// transposeSIMD does nothing, as unfoldSIMD.
func transposeSIMD(d, s []float32, rows, cols int, bias []float32) bool { return false }

// unfoldShared does nothing, as unfoldSIMD.
func unfoldShared(f *frame, col, planes, x []float32, n0, imgs int) bool { return false }

// transposeShared does nothing, as unfoldSIMD.
func transposeShared(d, s []float32, imgs, rows, cols int, bias []float32) bool { return false }
