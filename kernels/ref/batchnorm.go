package ref

// BatchNormTrain normalises x[n,c,hw] with batch statistics; see
// kernels.Backend.BatchNormTrain.
func BatchNormTrain[T Float](y, mean, invStd, x, gamma, beta, runMean, runVar []T, n, c, hw int, momentum, eps T) {
	need("BatchNormTrain", x, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormTrainChannel(y, mean, invStd, x, gamma, beta, runMean, runVar, n, c, hw, ch, momentum, eps)
	}
}

// BatchNormTrainChannel is BatchNormTrain for channel ch alone.
func BatchNormTrainChannel[T Float](y, mean, invStd, x, gamma, beta, runMean, runVar []T, n, c, hw, ch int, momentum, eps T) {
	// The sums run in float64 whatever T is, as PyTorch's CPU kernels do:
	// a float32 sum over N*H*W (50,176 values for the first layer at batch
	// 64) drifts by more than the rest of the step's rounding.
	m := T(n * hw)
	var s float64
	for i := 0; i < n; i++ {
		for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
			s += float64(v)
		}
	}
	mu := T(s / float64(n*hw))
	var ss float64
	for i := 0; i < n; i++ {
		for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
			d := float64(v - mu)
			ss += d * d
		}
	}
	variance := T(ss / float64(n*hw))
	is := 1 / sqrt(variance+eps)
	mean[ch], invStd[ch] = mu, is
	// y = x alpha + shift with alpha = gamma/std, as PyTorch evaluates it,
	// so that outputs near zero round the same way before a ReLU.
	alpha := is * gamma[ch]
	shift := beta[ch] - mu*alpha
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			y[off+j] = x[off+j]*alpha + shift
		}
	}
	unbiased := variance
	if m > 1 {
		unbiased = T(ss / float64(n*hw-1))
	}
	runMean[ch] = (1-momentum)*runMean[ch] + momentum*mu
	runVar[ch] = (1-momentum)*runVar[ch] + momentum*unbiased
}

// BatchNormEval normalises x[n,c,hw] with the running estimates.
func BatchNormEval[T Float](y, x, gamma, beta, runMean, runVar []T, n, c, hw int, eps T) {
	need("BatchNormEval", x, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormEvalChannel(y, x, gamma, beta, runMean, runVar, n, c, hw, ch, eps)
	}
}

// BatchNormEvalChannel is BatchNormEval for channel ch alone.
func BatchNormEvalChannel[T Float](y, x, gamma, beta, runMean, runVar []T, n, c, hw, ch int, eps T) {
	alpha := gamma[ch] / sqrt(runVar[ch]+eps)
	shift := beta[ch] - runMean[ch]*alpha
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			y[off+j] = x[off+j]*alpha + shift
		}
	}
}

// BatchNormBackward computes the gradients of BatchNormTrain.
func BatchNormBackward[T Float](dx, dgamma, dbeta, dy, x, gamma, mean, invStd []T, n, c, hw int) {
	need("BatchNormBackward", dy, n*c*hw)
	for ch := 0; ch < c; ch++ {
		BatchNormBackwardChannel(dx, dgamma, dbeta, dy, x, gamma, mean, invStd, n, c, hw, ch)
	}
}

// BatchNormBackwardChannel is BatchNormBackward for channel ch alone.
func BatchNormBackwardChannel[T Float](dx, dgamma, dbeta, dy, x, gamma, mean, invStd []T, n, c, hw, ch int) {
	m := T(n * hw)
	var db64, dg64 float64 // float64 sums, as in BatchNormTrainChannel
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			db64 += float64(dy[off+j])
			dg64 += float64(dy[off+j] * (x[off+j] - mean[ch]) * invStd[ch])
		}
	}
	db, dg := T(db64), T(dg64)
	dgamma[ch], dbeta[ch] = dg, db
	k := gamma[ch] * invStd[ch] / m
	for i := 0; i < n; i++ {
		off := (i*c + ch) * hw
		for j := 0; j < hw; j++ {
			xhat := (x[off+j] - mean[ch]) * invStd[ch]
			dx[off+j] = k * (m*dy[off+j] - db - xhat*dg)
		}
	}
}
