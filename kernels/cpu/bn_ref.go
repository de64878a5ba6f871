//go:build (!amd64 && !(js && wasm)) || purego

package cpu

import "github.com/deeplda/deeplda/kernels/ref"

// bnTrainChannel is ref.BatchNormTrainChannel.
func bnTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32) {
	ref.BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
}

// bnBackwardChannel is ref.BatchNormBackwardChannel.
func bnBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int) {
	ref.BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
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
