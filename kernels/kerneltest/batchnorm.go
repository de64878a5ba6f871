package kerneltest

import (
	"fmt"
	"math"
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
// and [N,C,H,W], with 1 to 65 channels of m = N*H*W = 1 to 50,176 values:
// m = 1 and 2 (see bnRoundingK), more than 256 (several passes of a
// workgroup), and more than 4,096, which the WebGPU backend cuts into
// segments (2 of 2,813 and 2,812 values, 4 of 3,136, 13 of 3,860 but the
// last of 3,856).
var bnShapes = [][]int{
	{1, 1}, {2, 64}, {5, 3}, {16, 65}, {1, 65, 1, 1}, {2, 3, 1, 1},
	{2, 1, 7, 7}, {2, 65, 7, 7}, {3, 5, 8, 9}, {1, 3, 28, 28}, {5, 64, 28, 28},
	{9, 3, 25, 25}, {64, 16, 14, 14}, {64, 3, 28, 28},
}

// bnFarShapes are the BatchNormTrain inputs whose channels are far from zero
// relative to their spread (means around 100, standard deviations around
// 0.01): a one-pass variance (E[x^2] - mean^2) would lose every digit there.
var bnFarShapes = [][]int{{5, 3, 28, 28}, {7, 65}}

// bnWideShape has more channels than a dispatch grid row holds workgroups
// (65535 for WebGPU); it runs without -short (seconds on a software GPU).
var bnWideShape = []int{2, 70000}

// bnViewShape is the shape of the BatchNorm subtests whose operands are
// views.
var bnViewShape = []int{2, 65, 7, 7}

// bnInput returns x[N,C,...] with a different mean and scale per channel
// (means center + N(0,1), standard deviations spread * U(0.5, 2)), so that a
// backend that mixes channels up or centres badly is caught.
func bnInput(e *env, shape []int, center, spread float64) []float32 {
	n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
	mean, std := e.normal(c, center, 1), e.uniform(c, 0.5*spread, 2*spread)
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

// bnRoundingK times the float32 unit roundoff is the bound that the tests
// allow, per unit of magnitude of the terms, for the float32 evaluation of
// expressions that cancel. ref's order y = x alpha + (beta - mean alpha)
// (PyTorch's) cancels when |x alpha| is large next to y: with one value per
// channel (alpha = gamma/sqrt(eps) ~ 316) or channels whose mean is large
// next to their spread. So does dx = k (m dy - dbeta - xhat dgamma) for m =
// 2, where the bracket is 0 in exact arithmetic. ref's float32
// instantiation is off by as much there (it was checked to agree with the
// WebGPU backend bit for bit for m = 1, and to be 10 times further than
// that backend from float64 at mean 100, spread 0.01, with its sequential
// sums).
const bnRoundingK = 8

// bnYRounding returns the extra bound for y = x alpha + shift:
// K u (|x alpha| + |mean alpha|) with alpha = gamma invStd.
func bnYRounding(x []float32, gamma, mean, invStd []float64, c, hw int) []float64 {
	const u = 0x1p-24
	extra := make([]float64, len(x))
	for i := range extra {
		ch := i / hw % c
		alpha := gamma[ch] * invStd[ch]
		extra[i] = bnRoundingK * u * (math.Abs(float64(x[i])*alpha) + math.Abs(mean[ch]*alpha))
	}
	return extra
}

// bnDxRounding returns the extra bound for dx = k (m dy - dbeta - xhat
// dgamma): K u |k| (m |dy| + |dbeta| + |xhat dgamma|), k = gamma invStd / m.
func bnDxRounding(dy, x []float32, gamma, mean, invStd, dgamma, dbeta []float64, n, c, hw int) []float64 {
	const u = 0x1p-24
	m := float64(n * hw)
	extra := make([]float64, len(x))
	for i := range extra {
		ch := i / hw % c
		k := gamma[ch] * invStd[ch] / m
		xhat := (float64(x[i]) - mean[ch]) * invStd[ch]
		extra[i] = bnRoundingK * u * math.Abs(k) * (m*math.Abs(float64(dy[i])) + math.Abs(dbeta[ch]) + math.Abs(xhat*dgamma[ch]))
	}
	return extra
}

// testBatchNormTrain checks y, the batch mean and inverse standard deviation
// and the running statistics (momentum 0.1, eps 1e-5) after each of two
// calls, the second updating the running statistics of the first; also
// with channels far from zero, and with every operand a view (the inputs
// views of one tensor, mean and invStd of another, runMean and runVar of a
// third, as in the model's arenas).
func testBatchNormTrain(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkBatchNormTrain(newEnv(t, b, tol), shape, 0, 1) })
	}
	for _, shape := range bnFarShapes {
		t.Run(dimsName(shape...)+",mean100,std0.01", func(t *testing.T) { checkBatchNormTrain(newEnv(t, b, tol), shape, 100, 0.01) })
	}
	t.Run(dimsName(bnWideShape...), func(t *testing.T) {
		if testing.Short() {
			t.Skip("SKIPPED: 70,000 channels (-short)")
		}
		checkBatchNormTrain(newEnv(t, b, tol), bnWideShape, 0, 1)
	})
	t.Run("views/"+dimsName(bnViewShape...), func(t *testing.T) { checkBatchNormTrain(newViewEnv(t, b, tol), bnViewShape, 0, 1) })
}

// checkBatchNormTrain runs one case of BatchNormTrain in e (its operands views when e has views) and compares the outputs with package ref's.
func checkBatchNormTrain(e *env, shape []int, center, spread float64) {
	n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
	gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
	rmd, rvd := e.normal(c, 0, 0.1), e.uniform(c, 0.5, 1.5)
	run := e.state(arg{"runMean", rmd, []int{c}}, arg{"runVar", rvd, []int{c}})
	wrm, wrv := F64(rmd), F64(rvd)
	for call := 1; call <= 2; call++ {
		xd := bnInput(e, shape, center, spread)
		ins := e.ins(arg{"x", xd, shape}, arg{"gamma", gd, []int{c}}, arg{"beta", bd, []int{c}})
		y, stats := e.out(shape...), e.outs([]int{c}, []int{c})
		mean, invStd := stats[0], stats[1]
		e.desc = fmt.Sprintf("BatchNormTrain(x %v, call %d, channel means %g, momentum %g, eps %g, views %v)", shape, call, center, bnMomentum, bnEps, e.views)
		e.b.BatchNormTrain(y, mean, invStd, ins[0], ins[1], ins[2], run[0], run[1], bnMomentum, bnEps)
		wy, wm, wis := make([]float64, len(xd)), make([]float64, c), make([]float64, c)
		ref.BatchNormTrain(wy, wm, wis, F64(xd), F64(gd), F64(bd), wrm, wrv, n, c, hw, float64(bnMomentum), float64(bnEps))
		e.checkWithin("y", y, wy, bnYRounding(xd, F64(gd), wm, wis, c, hw))
		e.checkStat("mean", mean, wm)
		e.checkStat("invStd", invStd, wis)
		e.checkStat("runMean", run[0], wrm)
		e.checkStat("runVar", run[1], wrv)
		e.unchanged()
	}
}

// testBatchNormEval checks the normalisation with running statistics, and
// with every operand a view.
func testBatchNormEval(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkBatchNormEval(newEnv(t, b, tol), shape) })
	}
	t.Run("views/"+dimsName(bnViewShape...), func(t *testing.T) { checkBatchNormEval(newViewEnv(t, b, tol), bnViewShape) })
}

// checkBatchNormEval runs one case of BatchNormEval in e (its operands views when e has views) and compares the outputs with package ref's.
func checkBatchNormEval(e *env, shape []int) {
	n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
	xd := bnInput(e, shape, 0, 1)
	gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
	rmd, rvd := e.normal(c, 0, 1), e.uniform(c, 0.5, 2)
	cs := []int{c}
	ins := e.ins(arg{"x", xd, shape}, arg{"gamma", gd, cs}, arg{"beta", bd, cs}, arg{"runMean", rmd, cs}, arg{"runVar", rvd, cs})
	y := e.out(shape...)
	e.desc = fmt.Sprintf("BatchNormEval(x %v, eps %g, views %v)", shape, bnEps, e.views)
	e.b.BatchNormEval(y, ins[0], ins[1], ins[2], ins[3], ins[4], bnEps)
	want := make([]float64, len(xd))
	ref.BatchNormEval(want, F64(xd), F64(gd), F64(bd), F64(rmd), F64(rvd), n, c, hw, float64(bnEps))
	e.check("y", y, want)
	e.unchanged()
}

// testBatchNormBackward checks dx, dgamma and dbeta, with the batch
// statistics of x (computed in float64, rounded to float32) as mean and
// invStd, and with every operand a view (dgamma and dbeta views of one
// tensor, as in the model's gradient arena).
func testBatchNormBackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, shape := range bnShapes {
		t.Run(dimsName(shape...), func(t *testing.T) { checkBatchNormBackward(newEnv(t, b, tol), shape) })
	}
	t.Run(dimsName(bnWideShape...), func(t *testing.T) {
		if testing.Short() {
			t.Skip("SKIPPED: 70,000 channels (-short)")
		}
		checkBatchNormBackward(newEnv(t, b, tol), bnWideShape)
	})
	t.Run("views/"+dimsName(bnViewShape...), func(t *testing.T) { checkBatchNormBackward(newViewEnv(t, b, tol), bnViewShape) })
}

// checkBatchNormBackward runs one case of BatchNormBackward in e (its operands views when e has views) and compares the outputs with package ref's.
func checkBatchNormBackward(e *env, shape []int) {
	n, c, hw := shape[0], shape[1], kernels.Numel(shape[2:])
	xd := bnInput(e, shape, 0, 1)
	gd, bd := e.normal(c, 1, 0.2), e.normal(c, 0, 0.2)
	wm, wis := make([]float64, c), make([]float64, c)
	ref.BatchNormTrain(make([]float64, len(xd)), wm, wis, F64(xd), F64(gd), F64(bd), make([]float64, c), make([]float64, c), n, c, hw, 0.1, float64(bnEps))
	md, isd := F32(wm), F32(wis)
	dyd := e.normal(len(xd), 0, 1)
	cs := []int{c}
	ins := e.ins(arg{"dy", dyd, shape}, arg{"x", xd, shape}, arg{"gamma", gd, cs}, arg{"mean", md, cs}, arg{"invStd", isd, cs})
	dx, grads := e.out(shape...), e.outs(cs, cs)
	e.desc = fmt.Sprintf("BatchNormBackward(dy %v, views %v)", shape, e.views)
	e.b.BatchNormBackward(dx, grads[0], grads[1], ins[0], ins[1], ins[2], ins[3], ins[4])
	wdx, wdg, wdb := make([]float64, len(xd)), make([]float64, c), make([]float64, c)
	ref.BatchNormBackward(wdx, wdg, wdb, F64(dyd), F64(xd), F64(gd), F64(md), F64(isd), n, c, hw)
	e.checkWithin("dx", dx, wdx, bnDxRounding(dyd, xd, F64(gd), F64(md), F64(isd), wdg, wdb, n, c, hw))
	e.checkStat("dgamma", grads[0], wdg)
	e.checkStat("dbeta", grads[1], wdb)
	e.unchanged()
}
