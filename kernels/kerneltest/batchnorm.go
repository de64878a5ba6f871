package kerneltest

import (
	"fmt"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// The BatchNorm hyper-parameters, as float32 (the reference uses the same
// float32 values widened).
const (
	bnMomentum float32 = 0.1
	bnEps      float32 = 1e-5
)

// bnShapes are the BatchNorm inputs: [N,C] (hw 1, as after a Linear layer)
// and [N,C,H,W] with hw 49 and 72.
var bnShapes = [][]int{{16, 65}, {2, 65, 7, 7}, {3, 5, 8, 9}}

// bnInput returns x[N,C,...] with a different mean and scale per channel
// (means up to about ±2, standard deviations 0.5 to 2), so that a backend
// that mixes channels up or centres badly is caught.
func bnInput(e *env, shape []int) []float32 {
	n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
	mean, std := e.normal(c, 0, 1), e.uniform(c, 0.5, 2)
	x := make([]float32, n*c*hw)
	for i := 0; i < n; i++ {
		for ch := 0; ch < c; ch++ {
			for j := 0; j < hw; j++ {
				x[(i*c+ch)*hw+j] = float32(float64(mean[ch]) + float64(std[ch])*e.rng.NormFloat64())
			}
		}
	}
	return x
}

// testBatchNormTrain checks y, the batch mean and inverse standard deviation
// and the updated running statistics (momentum 0.1, eps 1e-5). The channel
// sums have at most 147 terms.
func testBatchNormTrain(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
			xd := bnInput(e, shape)
			gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
			rmd, rvd := e.normal(c, 0, 0.1), e.uniform(c, 0.5, 1.5)
			x, gamma, beta := e.in("x", xd, shape...), e.in("gamma", gd, c), e.in("beta", bd, c)
			runMean, runVar := Upload(b, []int{c}, rmd), Upload(b, []int{c}, rvd)
			y, mean, invStd := e.out(shape...), e.out(c), e.out(c)
			e.desc = fmt.Sprintf("BatchNormTrain(x %v, momentum %g, eps %g)", shape, bnMomentum, bnEps)
			b.BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar, bnMomentum, bnEps)
			wy, wm, wis := make([]float64, len(xd)), make([]float64, c), make([]float64, c)
			wrm, wrv := F64(rmd), F64(rvd)
			ref.BatchNormTrain(wy, wm, wis, F64(xd), F64(gd), F64(bd), wrm, wrv, n, c, hw, float64(bnMomentum), float64(bnEps))
			e.check("y", y, wy)
			e.check("mean", mean, wm)
			e.check("invStd", invStd, wis)
			e.check("runMean", runMean, wrm)
			e.check("runVar", runVar, wrv)
			e.unchanged()
		})
	}
}

// testBatchNormEval checks the normalisation with running statistics.
func testBatchNormEval(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
			xd := bnInput(e, shape)
			gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
			rmd, rvd := e.normal(c, 0, 1), e.uniform(c, 0.5, 2)
			x, gamma, beta := e.in("x", xd, shape...), e.in("gamma", gd, c), e.in("beta", bd, c)
			runMean, runVar := e.in("runMean", rmd, c), e.in("runVar", rvd, c)
			y := e.out(shape...)
			e.desc = fmt.Sprintf("BatchNormEval(x %v, eps %g)", shape, bnEps)
			b.BatchNormEval(y, x, gamma, beta, runMean, runVar, bnEps)
			want := make([]float64, len(xd))
			ref.BatchNormEval(want, F64(xd), F64(gd), F64(bd), F64(rmd), F64(rvd), n, c, hw, float64(bnEps))
			e.check("y", y, want)
			e.unchanged()
		})
	}
}

// testBatchNormBackward checks dx, dgamma and dbeta, with the batch
// statistics of x (computed in float64, rounded to float32) as mean and
// invStd.
func testBatchNormBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) {
			e := newEnv(t, b, tol)
			n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
			xd := bnInput(e, shape)
			gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
			wm, wis := make([]float64, c), make([]float64, c)
			ref.BatchNormTrain(make([]float64, len(xd)), wm, wis, F64(xd), F64(gd), F64(bd), make([]float64, c), make([]float64, c), n, c, hw, 0.1, float64(bnEps))
			md, isd := F32(wm), F32(wis)
			dyd := e.normal(len(xd), 0, 1)
			dy, x, gamma := e.in("dy", dyd, shape...), e.in("x", xd, shape...), e.in("gamma", gd, c)
			mean, invStd := e.in("mean", md, c), e.in("invStd", isd, c)
			dx, dgamma, dbeta := e.out(shape...), e.out(c), e.out(c)
			e.desc = fmt.Sprintf("BatchNormBackward(dy %v)", shape)
			b.BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd)
			wdx, wdg, wdb := make([]float64, len(xd)), make([]float64, c), make([]float64, c)
			ref.BatchNormBackward(wdx, wdg, wdb, F64(dyd), F64(xd), F64(gd), F64(md), F64(isd), n, c, hw)
			e.check("dx", dx, wdx)
			e.check("dgamma", dgamma, wdg)
			e.check("dbeta", dbeta, wdb)
			e.unchanged()
		})
	}
}
