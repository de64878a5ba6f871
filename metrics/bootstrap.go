package metrics

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Interval is a confidence interval [Lo, Hi].
type Interval struct{ Lo, Hi float64 }

// Bootstrap returns percentile bootstrap intervals at level (0.95 for 95%)
// of the accuracy and of the ECE with bins equal-width bins (as ECE
// computes it) of predictions with confidences conf and correctness
// correct: each of resamples resamples draws len(conf) predictions with
// replacement from a PCG seeded with seed, so the intervals are the same
// for the same arguments. Both intervals are [0, 0] for no predictions. It
// panics if the lengths differ, bins < 1, resamples < 1 or level is not in
// (0, 1).
func Bootstrap(conf []float64, correct []bool, bins, resamples int, level float64, seed uint64) (accuracy, ece Interval) {
	if len(conf) != len(correct) {
		panic(fmt.Sprintf("metrics: Bootstrap: %d confidences, %d correctness flags", len(conf), len(correct)))
	}
	if resamples < 1 || !(level > 0 && level < 1) {
		panic(fmt.Sprintf("metrics: Bootstrap: %d resamples at level %v", resamples, level))
	}
	edges := binEdges("Bootstrap", bins)
	n := len(conf)
	if n == 0 {
		return Interval{}, Interval{}
	}
	bin := make([]int, n) // -1: in no bin (counted in n only)
	for i, v := range conf {
		bin[i] = binOf(edges, v)
	}
	rng := bootstrapRNG(seed)
	hits := make([]float64, bins) // per bin: correct predictions drawn
	sums := make([]float64, bins) // per bin: their confidences' sum
	accs := make([]float64, resamples)
	eces := make([]float64, resamples)
	for r := range resamples {
		clear(hits)
		clear(sums)
		right := 0
		for range n {
			i := draw(rng, n)
			ok := correct[i]
			if ok {
				right++
			}
			if b := bin[i]; b >= 0 {
				sums[b] += conf[i]
				if ok {
					hits[b]++
				}
			}
		}
		// |B|/n * |acc(B) - conf(B)| = |hits(B) - sum(B)| / n
		e := 0.0
		for b := range bins {
			d := hits[b] - sums[b]
			if d < 0 {
				d = -d
			}
			e += d
		}
		accs[r], eces[r] = float64(right)/float64(n), e/float64(n)
	}
	tail := (1 - level) / 2
	return percentiles(accs, tail), percentiles(eces, tail)
}

// percentiles sorts v and returns its tail and 1-tail quantiles, linearly
// interpolated between order statistics (numpy's default).
func percentiles(v []float64, tail float64) Interval {
	slices.Sort(v)
	q := func(p float64) float64 {
		h := p * float64(len(v)-1)
		i := int(h)
		if i+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[i] + (h-float64(i))*(v[i+1]-v[i])
	}
	return Interval{q(tail), q(1 - tail)}
}

// bootstrapRNG is the generator of Bootstrap's draws.
func bootstrapRNG(seed uint64) *rand.PCG { return rand.NewPCG(seed, 0x9e3779b97f4a7c15) }

// draw returns an index in [0, n) from the high half of a 128-bit product
// (Lemire's method without its rejection step: a bias of n/2^64).
func draw(rng *rand.PCG, n int) int {
	hi, _ := bits.Mul64(rng.Uint64(), uint64(n))
	return int(hi)
}
