package metrics

import (
	"fmt"
	"math"
	"sort"
)

// Bin is one equal-width confidence bin (Lo, Hi] of a reliability diagram:
// how many predictions fell in it, their accuracy and their mean confidence.
// Accuracy and Confidence are 0 for an empty bin.
type Bin struct {
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Count      int     `json:"count"`
	Accuracy   float64 `json:"accuracy"`
	Confidence float64 `json:"confidence"`
}

// binEdges returns the bins+1 edges of equal-width bins on [0,1], computed
// as numpy.linspace(0, 1, bins+1) does (i*(1/bins), last edge exactly 1),
// so that confidences on an edge fall in the same bin as in gen_golden.py.
func binEdges(fn string, bins int) []float64 {
	if bins < 1 {
		panic(fmt.Sprintf("metrics: %s: %d bins", fn, bins))
	}
	edges := make([]float64, bins+1)
	step := 1.0 / float64(bins)
	for i := range edges {
		edges[i] = float64(i) * step
	}
	edges[bins] = 1
	return edges
}

// binOf returns the index of the bin (lo, hi] holding v, or -1 when v is
// not in (0, 1] (a confidence of exactly 0, or NaN, falls in no bin).
func binOf(edges []float64, v float64) int {
	i := sort.SearchFloat64s(edges, v) // first edge >= v
	if i == 0 || i == len(edges) {
		return -1
	}
	return i - 1
}

// Reliability returns the reliability diagram of confidences conf (the max
// posterior of each prediction) and whether each prediction was correct,
// over bins equal-width bins (lo, hi] of [0,1] (Guo et al. 2017).
// Confidences outside (0,1] are counted in no bin. It panics if the lengths
// differ or bins < 1.
func Reliability(conf []float64, correct []bool, bins int) []Bin {
	return reliability("Reliability", conf, correct, bins, false)
}

// reliability is Reliability; with zeroInFirst, a value of exactly 0
// counts in the first bin, [0, hi].
func reliability(fn string, conf []float64, correct []bool, bins int, zeroInFirst bool) []Bin {
	if len(conf) != len(correct) {
		panic(fmt.Sprintf("metrics: %s: %d confidences, %d correctness flags", fn, len(conf), len(correct)))
	}
	edges := binEdges(fn, bins)
	out := make([]Bin, bins)
	for i := range out {
		out[i].Lo, out[i].Hi = edges[i], edges[i+1]
	}
	for i, v := range conf {
		b := binOf(edges, v)
		if b < 0 && zeroInFirst && v == 0 {
			b = 0
		}
		if b < 0 {
			continue
		}
		out[b].Count++
		out[b].Confidence += v
		if correct[i] {
			out[b].Accuracy++
		}
	}
	for i := range out {
		if n := out[i].Count; n > 0 {
			out[i].Accuracy /= float64(n)
			out[i].Confidence /= float64(n)
		}
	}
	return out
}

// ECE returns the expected calibration error of Guo et al. (2017) with bins
// equal-width bins (lo, hi]: sum over bins of |B|/n * |acc(B) - conf(B)|,
// where n = len(conf) counts every prediction, including any whose
// confidence falls in no bin (exactly 0), as in gen_golden.py. It is 0 for
// no predictions and panics if the lengths differ or bins < 1.
func ECE(conf []float64, correct []bool, bins int) float64 {
	return binnedError(Reliability(conf, correct, bins), len(conf))
}

// binnedError returns sum over bins of |B|/n * |acc(B) - conf(B)|, 0 for
// n = 0.
func binnedError(bins []Bin, n int) float64 {
	e := 0.0
	for _, b := range bins {
		if b.Count > 0 {
			e += float64(b.Count) / float64(n) * math.Abs(b.Accuracy-b.Confidence)
		}
	}
	return e
}

// MCE returns the maximum calibration error (Naeini et al. 2015): the
// largest |acc(B) - conf(B)| over the equal-width bins of Reliability that
// hold a prediction; 0 when none does. It panics if the lengths differ or
// bins < 1.
func MCE(conf []float64, correct []bool, bins int) float64 {
	m := 0.0
	for _, b := range Reliability(conf, correct, bins) {
		if b.Count > 0 {
			m = math.Max(m, math.Abs(b.Accuracy-b.Confidence))
		}
	}
	return m
}

// AdaptiveECE returns the expected calibration error over bins equal-mass
// bins (Nguyen and O'Connor 2015; Mukhoti et al. 2020): with the n
// predictions sorted by confidence (ties in their given order), the one at
// position i (from 0) falls in bin floor(i*bins/n), so that each bin holds
// n/bins of them give or take one, and the error is the sum over non-empty
// bins of |B|/n * |acc(B) - conf(B)|. Every prediction counts, a confidence
// of 0 too. It is 0 for no predictions and
// panics if the lengths differ or bins < 1.
func AdaptiveECE(conf []float64, correct []bool, bins int) float64 {
	if len(conf) != len(correct) {
		panic(fmt.Sprintf("metrics: AdaptiveECE: %d confidences, %d correctness flags", len(conf), len(correct)))
	}
	if bins < 1 {
		panic(fmt.Sprintf("metrics: AdaptiveECE: %d bins", bins))
	}
	n := len(conf)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { // stable: ties by index
		i, j := order[a], order[b]
		return conf[i] < conf[j] || conf[i] == conf[j] && i < j
	})
	out := make([]Bin, bins)
	for pos, i := range order {
		b := &out[pos*bins/n]
		b.Count++
		b.Confidence += conf[i]
		if correct[i] {
			b.Accuracy++
		}
	}
	for i := range out {
		if c := out[i].Count; c > 0 {
			out[i].Accuracy /= float64(c)
			out[i].Confidence /= float64(c)
		}
	}
	return binnedError(out, n)
}

// ClasswiseECE returns the classwise expected calibration error (Kull et
// al. 2019): the mean over the c classes k of the ECE, over bins
// equal-width bins, of the probabilities p_k of the row-major [N,c]
// posteriors probs against whether the label is k. A probability of
// exactly 0 counts in the first bin. It is 0 for no rows and panics if
// len(probs) is not len(y) rows of c, or bins < 1.
func ClasswiseECE(probs []float64, y []int32, c, bins int) float64 {
	n := rows("ClasswiseECE", len(probs), c)
	if n != len(y) {
		panic(fmt.Sprintf("metrics: ClasswiseECE: %d rows, %d labels", n, len(y)))
	}
	p := make([]float64, n)
	is := make([]bool, n)
	sum := 0.0
	for k := 0; k < c; k++ {
		for i := range p {
			p[i], is[i] = probs[i*c+k], int(y[i]) == k
		}
		sum += binnedError(reliability("ClasswiseECE", p, is, bins, true), n)
	}
	return sum / float64(c)
}

// Brier returns the multi-class Brier score (Brier 1950): the mean over the
// rows of the row-major [N,c] posteriors probs of sum_k (p_k - [y = k])^2,
// between 0 (certain and right) and 2 (certain and wrong). It is 0 for no
// rows and panics if len(probs) is not len(y) rows of c or a label is
// outside [0,c).
func Brier(probs []float64, y []int32, c int) float64 {
	n := rows("Brier", len(probs), c)
	if n != len(y) {
		panic(fmt.Sprintf("metrics: Brier: %d rows, %d labels", n, len(y)))
	}
	if n == 0 {
		return 0
	}
	s := 0.0
	for i, l := range y {
		if l < 0 || int(l) >= c {
			panic(fmt.Sprintf("metrics: Brier: label %d of row %d is outside [0,%d)", l, i, c))
		}
		for k, p := range probs[i*c : (i+1)*c] {
			if k == int(l) {
				p--
			}
			s += p * p
		}
	}
	return s / float64(n)
}

// ConfidenceHistogram returns how many confidences fall in each of bins
// equal-width bins (lo, hi] of [0,1], the same bins as Reliability and ECE.
func ConfidenceHistogram(conf []float64, bins int) []int {
	edges := binEdges("ConfidenceHistogram", bins)
	out := make([]int, bins)
	for _, v := range conf {
		if b := binOf(edges, v); b >= 0 {
			out[b]++
		}
	}
	return out
}
