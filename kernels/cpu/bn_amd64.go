//go:build amd64 && !purego

package cpu

import (
	"math"

	"github.com/deeplda/deeplda/kernels/ref"
)

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

// bnTrainChannel is ref.BatchNormTrainChannel with its passes over the
// planes of channel ch in AVX: the same float32 arithmetic, and float64
// sums added in another order.
func bnTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32) {
	if !hasAVX || hw == 0 {
		ref.BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
		return
	}
	_, _ = x[(n*c-1)*hw+hw-1], y[(n*c-1)*hw+hw-1]
	var s, ss float64
	for i := 0; i < n; i++ {
		s += sumAVX(&x[(i*c+ch)*hw], hw)
	}
	mu := float32(s / float64(n*hw))
	for i := 0; i < n; i++ {
		ss += sumSqDevAVX(&x[(i*c+ch)*hw], hw, mu)
	}
	// As ref.BatchNormTrainChannel from here.
	variance := float32(ss / float64(n*hw))
	is := 1 / float32(math.Sqrt(float64(variance+eps)))
	mean[ch], invStd[ch] = mu, is
	alpha := is * gamma[ch]
	shift := beta[ch] - mu*alpha
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		scaleShiftAVX(&y[off], &x[off], hw, alpha, shift)
	}
	unbiased := variance
	if n*hw > 1 {
		unbiased = float32(ss / float64(n*hw-1))
	}
	runMean[ch] = (1-momentum)*runMean[ch] + momentum*mu
	runVar[ch] = (1-momentum)*runVar[ch] + momentum*unbiased
}

// bnBackwardChannel is ref.BatchNormBackwardChannel with its passes over
// the planes of channel ch in AVX, like bnTrainChannel.
func bnBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int) {
	if !hasAVX || hw == 0 {
		ref.BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
		return
	}
	last := (n*c-1)*hw + hw - 1
	_, _, _ = dx[last], dy[last], x[last]
	var db64, dg64 float64
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		db, dg := bnGradSumsAVX(&dy[off], &x[off], hw, mean[ch], invStd[ch])
		db64 += db
		dg64 += dg
	}
	m := float32(n * hw)
	db, dg := float32(db64), float32(dg64)
	dgamma[ch], dbeta[ch] = dg, db
	k := gamma[ch] * invStd[ch] / m
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		bnGradInputAVX(&dx[off], &dy[off], &x[off], hw, mean[ch], invStd[ch], k, m, db, dg)
	}
}
