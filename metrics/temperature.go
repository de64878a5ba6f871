package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Temperature bounds: FitTemperature searches T in [MinTemperature,
// MaxTemperature].
const (
	MinTemperature = 1e-3
	MaxTemperature = 1e3
)

// TemperatureFit is the result of FitTemperature: the temperature T that
// divides the logits, and the mean NLL of the labels before (T = 1) and
// after scaling on the split it was fitted on.
type TemperatureFit struct {
	T          float64 `json:"temperature"`
	NLLBefore  float64 `json:"nll_before"`
	NLLAfter   float64 `json:"nll_after"`
	Iterations int     `json:"iterations"`
}

// FitTemperature fits temperature scaling (Guo et al. 2017) on a held-out
// split: the T > 0 that minimises the mean negative log-likelihood of the
// labels y under softmax(logits / T), for the row-major [N,c] logits. The
// accuracy is unchanged by T; only the confidences move.
//
// The NLL is convex in beta = 1/T (a log-sum-exp of functions linear in
// beta), with derivative mean(E_p[l] - l_y) and second derivative
// mean(Var_p[l]) >= 0. FitTemperature finds its root by Newton's method in
// beta, safeguarded by bisection (in log beta) on a bracket of
// [1/MaxTemperature, 1/MinTemperature], in float64. When the minimum lies
// outside the bracket (for example every example correct with a margin, so
// that sharper is always better), T is the bound.
//
// It returns an error for no rows or a non-finite logit, and panics if
// len(y) is not the number of rows or a label is outside [0,c).
func FitTemperature(logits []float32, y []int32, c int) (TemperatureFit, error) {
	n := rows("FitTemperature", len(logits), c)
	if n != len(y) {
		panic(fmt.Sprintf("metrics: FitTemperature: %d rows, %d labels", n, len(y)))
	}
	for i, l := range y {
		if l < 0 || int(l) >= c {
			panic(fmt.Sprintf("metrics: FitTemperature: label %d of row %d is outside [0,%d)", l, i, c))
		}
	}
	if n == 0 {
		return TemperatureFit{}, errors.New("metrics: FitTemperature: no examples")
	}
	for i, v := range logits {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return TemperatureFit{}, fmt.Errorf("metrics: FitTemperature: logit %d of row %d is %v", i%c, i/c, v)
		}
	}
	fit := TemperatureFit{NLLBefore: temperedNLL(logits, y, c, 1)}
	lo, hi := 1/MaxTemperature, 1/MinTemperature
	if _, g, _ := temperedDerivs(logits, y, c, lo); g >= 0 {
		fit.T, fit.NLLAfter = MaxTemperature, temperedNLL(logits, y, c, lo)
		return fit, nil
	}
	if _, g, _ := temperedDerivs(logits, y, c, hi); g <= 0 {
		fit.T, fit.NLLAfter = MinTemperature, temperedNLL(logits, y, c, hi)
		return fit, nil
	}
	beta := 1.0
	for fit.Iterations = 1; fit.Iterations <= 200; fit.Iterations++ {
		_, g, h := temperedDerivs(logits, y, c, beta)
		if g == 0 {
			break
		}
		if g < 0 {
			lo = beta
		} else {
			hi = beta
		}
		next := beta - g/h
		if !(h > 0) || !(next > lo && next < hi) {
			next = math.Sqrt(lo * hi) // bisection in log beta
		}
		if math.Abs(next-beta) <= 1e-12*beta || hi-lo <= 1e-12*lo {
			beta = next
			break
		}
		beta = next
	}
	fit.T, fit.NLLAfter = 1/beta, temperedNLL(logits, y, c, beta)
	return fit, nil
}

// temperedNLL returns the mean NLL of softmax(beta * logits).
func temperedNLL(logits []float32, y []int32, c int, beta float64) float64 {
	f, _, _ := temperedDerivs(logits, y, c, beta)
	return f
}

// temperedDerivs returns the mean NLL of softmax(beta * logits) and its
// first and second derivatives in beta.
func temperedDerivs(logits []float32, y []int32, c int, beta float64) (f, g, h float64) {
	n := len(y)
	for i := 0; i < n; i++ {
		row := logits[i*c : (i+1)*c]
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, beta*float64(v))
		}
		var s, s1, s2 float64
		for _, v := range row {
			l := float64(v)
			e := math.Exp(beta*l - m)
			s += e
			s1 += e * l
			s2 += e * l * l
		}
		ly := float64(row[y[i]])
		mean := s1 / s
		f += m + math.Log(s) - beta*ly
		g += mean - ly
		h += max(s2/s-mean*mean, 0)
	}
	return f / float64(n), g / float64(n), h / float64(n)
}

// ScaleLogits returns logits divided by the temperature t (in float32). It
// panics unless t is a finite number > 0.
func ScaleLogits(logits []float32, t float64) []float32 {
	if !(t > 0) || math.IsInf(t, 0) {
		panic(fmt.Sprintf("metrics: ScaleLogits: temperature %v", t))
	}
	out := make([]float32, len(logits))
	for i, v := range logits {
		out[i] = float32(float64(v) / t)
	}
	return out
}
