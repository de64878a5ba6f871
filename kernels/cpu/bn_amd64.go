//go:build amd64 && !purego

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// The AVX routines of bn_amd64.s.

//go:noescape
func sumAVX(x *float32, n int) float64

//go:noescape
func sumSqDevAVX(x *float32, n int, mu float32) float64

//go:noescape
func scaleShiftAVX(y, x *float32, n int, alpha, shift float32)

//go:noescape
func bnGradSumsAVX(dy, x *float32, n int, mean, invStd float32) (db, dg float64)

//go:noescape
func bnGradInputAVX(dx, dy, x *float32, n int, mean, invStd, k, m, db, dg float32)

// avxPlanes are the passes of bnPlanes in AVX, plane by plane.
type avxPlanes struct{}

func (avxPlanes) sum(x []float32, n, hw, stride int) float64 {
	var s float64
	for i := range n {
		s += sumAVX(&x[i*stride], hw)
	}
	return s
}

func (avxPlanes) sumSqDev(x []float32, n, hw, stride int, mu float32) float64 {
	var s float64
	for i := range n {
		s += sumSqDevAVX(&x[i*stride], hw, mu)
	}
	return s
}

func (avxPlanes) scaleShift(y, x []float32, n, hw, stride int, alpha, shift float32) {
	for i := range n {
		scaleShiftAVX(&y[i*stride], &x[i*stride], hw, alpha, shift)
	}
}

func (avxPlanes) gradSums(dy, x []float32, n, hw, stride int, mean, invStd float32) (db, dg float64) {
	for i := range n {
		b, g := bnGradSumsAVX(&dy[i*stride], &x[i*stride], hw, mean, invStd)
		db += b
		dg += g
	}
	return db, dg
}

func (avxPlanes) gradInput(dx, dy, x []float32, n, hw, stride int, mean, invStd, k, m, db, dg float32) {
	for i := range n {
		bnGradInputAVX(&dx[i*stride], &dy[i*stride], &x[i*stride], hw, mean, invStd, k, m, db, dg)
	}
}

// bnTrainChannel is ref.BatchNormTrainChannel with its passes over the
// planes of channel ch in AVX: the same float32 arithmetic, and float64
// sums added in another order.
func bnTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32) {
	if !hasAVX || hw == 0 {
		ref.BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
		return
	}
	bnTrainPlanes(avxPlanes{}, y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
}

// bnBackwardChannel is ref.BatchNormBackwardChannel with its passes over
// the planes of channel ch in AVX, like bnTrainChannel.
func bnBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int) {
	if !hasAVX || hw == 0 {
		ref.BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
		return
	}
	bnBackwardPlanes(avxPlanes{}, dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
}

// bnTrainShared does nothing: the channels are shared out between threads
// in a JavaScript host only (see bn_wasm.go).
func bnTrainShared(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw int, momentum, eps float32) bool {
	return false
}

// bnBackwardShared does nothing, as bnTrainShared.
func bnBackwardShared(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw int) bool {
	return false
}

// biasGradSums does nothing: BiasGrad sums with sum64 here (see
// bn_wasm.go).
func biasGradSums(db, dy []float32, outer, ch, inner int) bool { return false }
