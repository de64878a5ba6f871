// Package metrics holds host-side float64 evaluation math on plain slices:
// accuracy, softmax and negative log-likelihood of logits, calibration
// (expected calibration error and reliability bins), the closed-form LDA
// maximum-likelihood fit and its discriminants, PCA, the consistency of a
// learned LDA head with a refit one, and covariance ellipses for plots.
//
// Matrices of N rows and C (or D) columns are row-major flat slices unless a
// type says otherwise. Mismatched lengths and invalid sizes are programmer
// errors and panic with a "metrics: " message; problems with the data
// themselves (an empty class, a covariance that is not positive definite)
// are returned as errors.
package metrics

import (
	"fmt"
	"math"
)

// Float64s returns x converted to float64.
func Float64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// rows checks that a flat matrix of n×c values has c > 0 columns and
// returns n.
func rows(fn string, n, c int) int {
	if c <= 0 {
		panic(fmt.Sprintf("metrics: %s: %d columns", fn, c))
	}
	if n%c != 0 {
		panic(fmt.Sprintf("metrics: %s: %d values do not make rows of %d", fn, n, c))
	}
	return n / c
}

// Accuracy returns the fraction of i with pred[i] == y[i], or 0 when there
// are no predictions. It panics if the lengths differ.
func Accuracy(pred []int, y []int32) float64 {
	if len(pred) != len(y) {
		panic(fmt.Sprintf("metrics: Accuracy: %d predictions, %d labels", len(pred), len(y)))
	}
	if len(y) == 0 {
		return 0
	}
	k := 0
	for i, p := range pred {
		if p == int(y[i]) {
			k++
		}
	}
	return float64(k) / float64(len(y))
}

// Argmax returns, for each row of the row-major [N,c] logits, the index of
// its largest entry (the first one on ties). NaN entries are never chosen
// unless a whole row is NaN, which gives 0.
func Argmax(logits []float32, c int) []int {
	n := rows("Argmax", len(logits), c)
	out := make([]int, n)
	for i := range out {
		row := logits[i*c : (i+1)*c]
		best := -1
		for j, v := range row {
			if v != v { // NaN
				continue
			}
			if best < 0 || v > row[best] {
				best = j
			}
		}
		if best < 0 {
			best = 0
		}
		out[i] = best
	}
	return out
}

// LogSoftmax returns the row-wise log-softmax of the row-major [N,c] logits
// in float64, computed stably (the row maximum is subtracted first).
func LogSoftmax(logits []float32, c int) []float64 {
	n := rows("LogSoftmax", len(logits), c)
	out := make([]float64, len(logits))
	for i := 0; i < n; i++ {
		row := logits[i*c : (i+1)*c]
		o := out[i*c : (i+1)*c]
		m := math.Inf(-1)
		for _, v := range row {
			if float64(v) > m {
				m = float64(v)
			}
		}
		if math.IsInf(m, 0) {
			// All -Inf (or a +Inf): fall back to the plain formula, which
			// gives NaN or -Inf as appropriate.
			m = 0
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		lse := m + math.Log(s)
		for j, v := range row {
			o[j] = float64(v) - lse
		}
	}
	return out
}

// Softmax returns the row-wise softmax (posterior probabilities) of the
// row-major [N,c] logits in float64.
func Softmax(logits []float32, c int) []float64 {
	out := LogSoftmax(logits, c)
	for i, v := range out {
		out[i] = math.Exp(v)
	}
	return out
}

// NLL returns the mean negative log posterior of the true class, -log
// softmax(logits)[y], over the rows of the row-major [N,c] logits (the
// cross-entropy loss); 0 when there are no rows. It panics if len(y) is not
// the number of rows or a label is outside [0,c).
func NLL(logits []float32, y []int32, c int) float64 {
	n := rows("NLL", len(logits), c)
	if n != len(y) {
		panic(fmt.Sprintf("metrics: NLL: %d rows, %d labels", n, len(y)))
	}
	if n == 0 {
		return 0
	}
	ls := LogSoftmax(logits, c)
	s := 0.0
	for i, l := range y {
		if l < 0 || int(l) >= c {
			panic(fmt.Sprintf("metrics: NLL: label %d of row %d is outside [0,%d)", l, i, c))
		}
		s -= ls[i*c+int(l)]
	}
	return s / float64(n)
}

// Confidences returns, for each row of the row-major [N,c] probabilities,
// the largest probability (the confidence of ECE) and its index (the
// prediction; the first one on ties).
func Confidences(probs []float64, c int) (conf []float64, pred []int) {
	n := rows("Confidences", len(probs), c)
	conf = make([]float64, n)
	pred = make([]int, n)
	for i := 0; i < n; i++ {
		row := probs[i*c : (i+1)*c]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		conf[i], pred[i] = row[best], best
	}
	return conf, pred
}
