package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sampleTempered draws n rows of c logits and labels from softmax(logits/t0).
func sampleTempered(n, c int, t0 float64, seed uint64) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	logits := make([]float32, n*c)
	y := make([]int32, n)
	for i := 0; i < n; i++ {
		row := logits[i*c : (i+1)*c]
		for j := range row {
			row[j] = float32(3 * rng.NormFloat64())
		}
		p := Softmax(ScaleLogits(row, t0), c)
		u, acc := rng.Float64(), 0.0
		y[i] = int32(c - 1)
		for j, v := range p {
			if acc += v; u < acc {
				y[i] = int32(j)
				break
			}
		}
	}
	return logits, y
}

// TestFitTemperatureRecovers checks that labels drawn from softmax(l/T0)
// give back T0, and that the fit is the minimum of a fine grid search.
func TestFitTemperatureRecovers(t *testing.T) {
	for _, t0 := range []float64{0.5, 1, 2.5} {
		logits, y := sampleTempered(20000, 5, t0, uint64(10*t0))
		fit, err := FitTemperature(logits, y, 5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fit.T-t0) > 0.05*t0 {
			t.Errorf("T0 = %g: fitted T = %g", t0, fit.T)
		}
		if fit.NLLAfter > fit.NLLBefore+1e-12 {
			t.Errorf("T0 = %g: NLL rose from %g to %g", t0, fit.NLLBefore, fit.NLLAfter)
		}
		if want := NLL(logits, y, 5); math.Abs(fit.NLLBefore-want) > 1e-9 {
			t.Errorf("NLLBefore %g, NLL of the raw logits %g", fit.NLLBefore, want)
		}
		if got := NLL(ScaleLogits(logits, fit.T), y, 5); math.Abs(got-fit.NLLAfter) > 1e-5 {
			t.Errorf("NLLAfter %g, NLL of the scaled logits %g", fit.NLLAfter, got)
		}
		best := math.Inf(1)
		for k := -50; k <= 50; k++ { // the NLL is convex in 1/T: a local grid suffices
			best = min(best, temperedNLL(logits, y, 5, math.Exp(float64(k)/100)/fit.T))
		}
		if fit.NLLAfter > best+1e-9 {
			t.Errorf("T0 = %g: NLL after the fit %.12g, grid minimum %.12g", t0, fit.NLLAfter, best)
		}
		if fit.Iterations > 50 {
			t.Errorf("T0 = %g: %d iterations", t0, fit.Iterations)
		}
	}
}

// TestFitTemperatureOverconfident checks the usual direction: logits twice
// too sharp are cooled by T ~ 2, which lowers the ECE.
func TestFitTemperatureOverconfident(t *testing.T) {
	logits, y := sampleTempered(20000, 10, 1, 7)
	sharp := ScaleLogits(logits, 0.5)
	fit, err := FitTemperature(sharp, y, 10)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.T-2) > 0.1 {
		t.Errorf("T = %g, want about 2", fit.T)
	}
	ece := func(l []float32) float64 {
		conf, pred := Confidences(Softmax(l, 10), 10)
		correct := make([]bool, len(y))
		for i := range y {
			correct[i] = pred[i] == int(y[i])
		}
		return ECE(conf, correct, 10)
	}
	before, after := ece(sharp), ece(ScaleLogits(sharp, fit.T))
	if !(after < before/3) {
		t.Errorf("ECE %g before, %g after temperature scaling", before, after)
	}
}

func TestFitTemperatureEdges(t *testing.T) {
	// Every example right with a margin: sharper is always better.
	fit, err := FitTemperature([]float32{5, 0, 0, 5}, []int32{0, 1}, 2)
	if err != nil || fit.T != MinTemperature {
		t.Errorf("separable: %+v, %v; want T = %g", fit, err, MinTemperature)
	}
	// Every example wrong: flatter is always better.
	fit, err = FitTemperature([]float32{5, 0, 0, 5}, []int32{1, 0}, 2)
	if err != nil || fit.T != MaxTemperature {
		t.Errorf("all wrong: %+v, %v; want T = %g", fit, err, MaxTemperature)
	}
	// Constant logits: the NLL does not depend on T; any T is a minimum.
	fit, err = FitTemperature([]float32{1, 1, 1, 1}, []int32{1, 0}, 2)
	if err != nil || !(fit.T > 0) || math.Abs(fit.NLLAfter-math.Log(2)) > 1e-12 {
		t.Errorf("constant logits: %+v, %v", fit, err)
	}
	if _, err := FitTemperature(nil, nil, 3); err == nil {
		t.Error("no examples: no error")
	}
	if _, err := FitTemperature([]float32{1, float32(math.NaN())}, []int32{0}, 2); err == nil {
		t.Error("NaN logit: no error")
	}
	expectPanic(t, "label count", func() { FitTemperature([]float32{1, 2}, []int32{0, 1}, 2) })
	expectPanic(t, "label range", func() { FitTemperature([]float32{1, 2}, []int32{2}, 2) })
	expectPanic(t, "bad T", func() { ScaleLogits([]float32{1}, 0) })
	expectPanic(t, "bad T", func() { ScaleLogits([]float32{1}, math.Inf(1)) })
}
