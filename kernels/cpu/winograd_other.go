//go:build !(js && wasm) || purego

package cpu

// winogradDefault is false: natively the unfolded GEMMs, on vectors of 8
// or 16 floats, are faster than F(2x2, 3x3)'s smaller ones with its
// transforms in Go (the ConvNet's step at batch 64 on one core of an
// AVX-512 machine: 92-110 images/s against 79-82).
const winogradDefault = false

// frameSIMD does nothing: the SIMD module runs in a JavaScript host only
// (see winograd_wasm.go).
func frameSIMD(wg *winograd, planes, x []float32, n0, imgs, c int) bool { return false }

// inputSIMD does nothing, as frameSIMD.
func inputSIMD(wg *winograd, v, planes []float32, imgs, c int) bool { return false }

// outputSIMD does nothing, as frameSIMD.
func outputSIMD(wg *winograd, out, m []float32, imgs, d int) bool { return false }

// gradSIMD does nothing, as frameSIMD.
func gradSIMD(wg *winograd, z, dyt []float32, imgs, d int) bool { return false }

// winogradConvCalls does nothing, as frameSIMD.
func (b *Backend) winogradConvCalls(out, in, u, bias []float32, wg winograd, c, d int) bool {
	return false
}

// winogradFilterCalls does nothing, as frameSIMD.
func (b *Backend) winogradFilterCalls(dw, acc, dy, x []float32, wg winograd, ci, co, parts int) bool {
	return false
}
