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
	if len(conf) != len(correct) {
		panic(fmt.Sprintf("metrics: Reliability: %d confidences, %d correctness flags", len(conf), len(correct)))
	}
	edges := binEdges("Reliability", bins)
	out := make([]Bin, bins)
	for i := range out {
		out[i].Lo, out[i].Hi = edges[i], edges[i+1]
	}
	for i, v := range conf {
		b := binOf(edges, v)
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
	rel := Reliability(conf, correct, bins)
	if len(conf) == 0 {
		return 0
	}
	e := 0.0
	for _, b := range rel {
		if b.Count > 0 {
			e += float64(b.Count) / float64(len(conf)) * math.Abs(b.Accuracy-b.Confidence)
		}
	}
	return e
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
