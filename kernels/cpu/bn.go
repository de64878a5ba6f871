//go:build (amd64 || (js && wasm)) && !purego

package cpu

import "math"

// bnPlanes are the passes of BatchNorm over the n planes of one channel,
// hw floats each and stride floats apart from the slices' starts, in a
// backend's vector routines (AVX, WebAssembly SIMD): the float32
// operations of ref.BatchNormTrainChannel and ref.BatchNormBackwardChannel
// in their order, and float64 sums added in another.
type bnPlanes interface {
	// sum returns Σ x.
	sum(x []float32, n, hw, stride int) float64
	// sumSqDev returns Σ (x-mu)², each difference a float32.
	sumSqDev(x []float32, n, hw, stride int, mu float32) float64
	// scaleShift sets y = x*alpha + shift.
	scaleShift(y, x []float32, n, hw, stride int, alpha, shift float32)
	// gradSums returns Σ dy and Σ dy*(x-mean)*invStd.
	gradSums(dy, x []float32, n, hw, stride int, mean, invStd float32) (db, dg float64)
	// gradInput sets dx = k*(m*dy - db - (x-mean)*invStd*dg).
	gradInput(dx, dy, x []float32, n, hw, stride int, mean, invStd, k, m, db, dg float32)
}

// bnTrainPlanes is ref.BatchNormTrainChannel with its passes by p.
func bnTrainPlanes(p bnPlanes, y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32) {
	off, stride := ch*hw, c*hw
	last := (n-1)*stride + off + hw - 1
	_, _ = x[last], y[last]
	mu := float32(p.sum(x[off:], n, hw, stride) / float64(n*hw))
	ss := p.sumSqDev(x[off:], n, hw, stride, mu)
	alpha, shift := bnTrainScalars(mu, ss, n*hw, ch, mean, invStd, gamma, beta, runMean, runVar, momentum, eps)
	p.scaleShift(y[off:], x[off:], n, hw, stride, alpha, shift)
}

// bnTrainScalars is ref.BatchNormTrainChannel between its passes over
// channel ch's m values, from their mean mu and Σ (x-mu)² (ss): it sets
// the channel's mean, invStd and running estimates, and returns the
// scale and shift of its last pass.
func bnTrainScalars(mu float32, ss float64, m, ch int, mean, invStd, gamma, beta, runMean, runVar []float32, momentum, eps float32) (alpha, shift float32) {
	variance := float32(ss / float64(m))
	is := 1 / float32(math.Sqrt(float64(variance+eps)))
	mean[ch], invStd[ch] = mu, is
	alpha = is * gamma[ch]
	shift = beta[ch] - mu*alpha
	unbiased := variance
	if m > 1 {
		unbiased = float32(ss / float64(m-1))
	}
	runMean[ch] = (1-momentum)*runMean[ch] + momentum*mu
	runVar[ch] = (1-momentum)*runVar[ch] + momentum*unbiased
	return alpha, shift
}

// bnBackwardPlanes is ref.BatchNormBackwardChannel with its passes by p.
func bnBackwardPlanes(p bnPlanes, dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int) {
	off, stride := ch*hw, c*hw
	last := (n-1)*stride + off + hw - 1
	_, _, _ = dx[last], dy[last], x[last]
	db64, dg64 := p.gradSums(dy[off:], x[off:], n, hw, stride, mean[ch], invStd[ch])
	k, m, db, dg := bnGradScalars(db64, dg64, n*hw, ch, dgamma, dbeta, gamma, invStd)
	p.gradInput(dx[off:], dy[off:], x[off:], n, hw, stride, mean[ch], invStd[ch], k, m, db, dg)
}

// bnGradScalars is ref.BatchNormBackwardChannel between its passes over
// channel ch's m values, from Σ dy and Σ dy*(x-mean)*invStd: it sets the
// channel's dgamma and dbeta, and returns the factors of its last pass.
func bnGradScalars(db64, dg64 float64, m, ch int, dgamma, dbeta, gamma, invStd []float32) (k, mf, db, dg float32) {
	mf = float32(m)
	db, dg = float32(db64), float32(dg64)
	dgamma[ch], dbeta[ch] = dg, db
	k = gamma[ch] * invStd[ch] / mf
	return k, mf, db, dg
}
