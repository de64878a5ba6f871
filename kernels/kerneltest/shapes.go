package kerneltest

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// testShapes checks that operands of the wrong shape or type panic with a
// "kernels: OP:" message (the shared checks of package kernels), for every
// operation, so that every backend rejects the same calls.
func testShapes(t *testing.T, b kernels.Backend, _ Tolerance) {
	var allocs []kernels.Tensor
	alloc := func(dt kernels.DType, shape ...int) kernels.Tensor {
		x := b.Alloc(dt, shape...)
		allocs = append(allocs, x)
		return x
	}
	defer func() {
		for _, x := range allocs {
			b.Free(x)
		}
	}()
	f := func(shape ...int) kernels.Tensor { return alloc(kernels.Float32, shape...) }
	i := func(shape ...int) kernels.Tensor { return alloc(kernels.Int32, shape...) }
	a, bm := f(3, 4), f(4, 5)
	p := kernels.ConvParams{Stride: 1, Pad: 1}
	x, w := f(2, 3, 8, 8), f(4, 3, 3, 3)
	bx, by, c3, c4 := f(2, 3, 4, 4), f(2, 3, 4, 4), f(3), f(4)
	px := f(2, 3, 5, 5)
	adam := kernels.AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1}
	for _, c := range []struct {
		op, what string
		fn       func()
	}{
		{"MatMul", "c of the wrong shape", func() { b.MatMul(f(3, 4), a, bm, nil, false, false) }},
		{"MatMul", "a transposed", func() { b.MatMul(f(3, 5), a, bm, nil, true, false) }},
		{"MatMul", "bias of the wrong size", func() { b.MatMul(f(3, 5), a, bm, f(4), false, false) }},
		{"MatMul", "rank-1 c", func() { b.MatMul(f(15), a, bm, nil, false, false) }},
		{"MatMul", "Int32 a", func() { b.MatMul(f(3, 5), i(3, 4), bm, nil, false, false) }},
		{"BiasGrad", "db of the wrong size", func() { b.BiasGrad(f(3), f(2, 4, 5)) }},
		{"BiasGrad", "rank-1 dy", func() { b.BiasGrad(f(3), f(3)) }},
		{"Conv2D", "y of the wrong height", func() { b.Conv2D(f(2, 4, 7, 8), x, w, nil, p) }},
		{"Conv2D", "w of the wrong Ci", func() { b.Conv2D(f(2, 4, 8, 8), x, f(4, 2, 3, 3), nil, p) }},
		{"Conv2D", "bias of the wrong size", func() { b.Conv2D(f(2, 4, 8, 8), x, w, f(3), p) }},
		{"Conv2D", "stride 0", func() { b.Conv2D(f(2, 4, 8, 8), x, w, nil, kernels.ConvParams{Stride: 0, Pad: 1}) }},
		{"Conv2D", "rank-3 y", func() { b.Conv2D(f(2, 4, 64), x, w, nil, p) }},
		{"Conv2DBackwardData", "dy of the wrong size", func() { b.Conv2DBackwardData(f(2, 3, 8, 8), f(2, 4, 4, 4), w, p) }},
		{"Conv2DBackwardFilter", "dw of the wrong K", func() { b.Conv2DBackwardFilter(f(4, 3, 2, 2), f(2, 4, 8, 8), x, p) }},
		{"BatchNormTrain", "gamma of 4 for 3 channels", func() { b.BatchNormTrain(by, c3, c3, bx, c4, c3, c3, c3, 0.1, 1e-5) }},
		{"BatchNormTrain", "mean of 4 for 3 channels", func() { b.BatchNormTrain(by, c4, c3, bx, c3, c3, c3, c3, 0.1, 1e-5) }},
		{"BatchNormEval", "runVar of 4 for 3 channels", func() { b.BatchNormEval(by, bx, c3, c3, c3, c4, 1e-5) }},
		{"BatchNormEval", "y of another size", func() { b.BatchNormEval(f(2, 3, 4), bx, c3, c3, c3, c3, 1e-5) }},
		{"BatchNormEval", "rank-1 x", func() { b.BatchNormEval(c3, c3, c3, c3, c3, c3, 1e-5) }},
		{"BatchNormBackward", "dbeta of 4 for 3 channels", func() { b.BatchNormBackward(by, c3, c4, by, bx, c3, c3, c3) }},
		{"BatchNormBackward", "Int32 dy", func() { b.BatchNormBackward(by, c3, c3, i(2, 3, 4, 4), bx, c3, c3, c3) }},
		{"ReLU", "y of another size", func() { b.ReLU(f(5), f(6)) }},
		{"ReLU", "Int32 x", func() { b.ReLU(f(6), i(6)) }},
		{"ReLUBackward", "dy of another size", func() { b.ReLUBackward(f(6), f(5), f(6)) }},
		{"MaxPool2", "y rounded up", func() { b.MaxPool2(f(2, 3, 3, 3), px) }},
		{"MaxPool2", "rank-3 x", func() { b.MaxPool2(f(3, 2, 2), f(3, 5, 5)) }},
		{"MaxPool2Backward", "dx too small", func() { b.MaxPool2Backward(f(2, 3, 4, 4), f(2, 3, 2, 2), px) }},
		{"MaxPool2Backward", "dy too large", func() { b.MaxPool2Backward(f(2, 3, 5, 5), f(2, 3, 3, 3), px) }},
		{"GlobalAvgPool", "y [N]", func() { b.GlobalAvgPool(f(2), px) }},
		{"GlobalAvgPool", "Int32 y", func() { b.GlobalAvgPool(i(2, 3), px) }},
		{"GlobalAvgPoolBackward", "dy [C]", func() { b.GlobalAvgPoolBackward(px, f(3)) }},
		{"LDA", "a full cov for the diagonal head", func() { b.LDA(f(2, 3), f(2, 4), f(3), f(3, 4), f(4, 4), kernels.Diagonal) }},
		{"LDA", "prior of the wrong size", func() { b.LDA(f(2, 3), f(2, 4), f(2), f(3, 4), f(), kernels.Spherical) }},
		{"LDA", "delta of the wrong size", func() { b.LDA(f(2, 2), f(2, 4), f(3), f(3, 4), f(4, 4), kernels.Full) }},
		{"LDA", "unknown covariance", func() { b.LDA(f(2, 3), f(2, 4), f(3), f(3, 4), f(4), kernels.CovKind(7)) }},
		{"LDABackward", "dmu of the wrong size", func() {
			b.LDABackward(f(2, 4), f(3), f(3, 3), f(4), f(2, 3), f(2, 4), f(3), f(3, 4), f(4), kernels.Diagonal)
		}},
		{"LDABackward", "dz of the wrong size", func() {
			b.LDABackward(f(2, 3), f(3), f(3, 4), f(4), f(2, 3), f(2, 4), f(3), f(3, 4), f(4), kernels.Diagonal)
		}},
		{"LDABackward", "ddelta of the wrong size", func() {
			b.LDABackward(f(2, 4), f(3), f(3, 4), f(4), f(3, 3), f(2, 4), f(3), f(3, 4), f(4), kernels.Diagonal)
		}},
		{"Loss", "y of the wrong size", func() { b.Loss(nil, f(4), f(2, 3), i(3), kernels.CE, 0, 1) }},
		{"Loss", "Float32 y", func() { b.Loss(nil, f(4), f(2, 3), f(2), kernels.CE, 0, 1) }},
		{"Loss", "dscores of the wrong size", func() { b.Loss(f(3, 3), f(4), f(2, 3), i(2), kernels.CE, 0, 1) }},
		{"Loss", "stats of 3", func() { b.Loss(nil, f(3), f(2, 3), i(2), kernels.CE, 0, 1) }},
		{"Loss", "no classes", func() { b.Loss(nil, f(4), f(2, 0), i(2), kernels.CE, 0, 1) }},
		{"Loss", "unknown loss", func() { b.Loss(nil, f(4), f(2, 3), i(2), kernels.LossKind(9), 0, 1) }},
		{"Adam", "v of another size", func() { b.Adam(f(5), f(5), f(5), f(4), adam) }},
	} {
		t.Run(c.op+"/"+strings.ReplaceAll(c.what, " ", "_"), func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "kernels: "+c.op+": ") {
					t.Errorf("%s with %s: recovered %v, want a %q panic", c.op, c.what, r, "kernels: "+c.op+": ")
				}
			}()
			c.fn()
		})
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after the rejected calls: %v", err)
	}
}
