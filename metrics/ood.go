package metrics

import (
	"fmt"
	"math"
	"sort"
)

// Detection is how well a score tells in-distribution examples (the
// positives, expected to score higher) from out-of-distribution ones.
type Detection struct {
	// AUROC is the area under the ROC curve: the probability that an
	// in-distribution example scores higher than an out-of-distribution
	// one, ties counting one half.
	AUROC float64 `json:"auroc"`
	// AUPR is the average precision with the in-distribution examples as
	// positives: the precision at each distinct score, weighted by the
	// recall gained there (tied scores form one threshold).
	AUPR float64 `json:"aupr"`
	// FPRAt95TPR is the fraction of out-of-distribution examples that
	// score at or above the highest threshold keeping at least 95% of the
	// in-distribution examples.
	FPRAt95TPR float64 `json:"fpr_at_95_tpr"`
}

// Detect returns the detection figures of scores in (in-distribution
// examples) against out (out-of-distribution ones). It returns an error
// when either set is empty or a score is NaN.
func Detect(in, out []float64) (Detection, error) {
	if len(in) == 0 || len(out) == 0 {
		return Detection{}, fmt.Errorf("metrics: Detect needs both sets: %d in-distribution, %d out-of-distribution scores", len(in), len(out))
	}
	type scored struct {
		s  float64
		in bool
	}
	all := make([]scored, 0, len(in)+len(out))
	for _, set := range []struct {
		v  []float64
		in bool
	}{{in, true}, {out, false}} {
		for _, s := range set.v {
			if math.IsNaN(s) {
				return Detection{}, fmt.Errorf("metrics: Detect: a score is NaN")
			}
			all = append(all, scored{s, set.in})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	nIn, nOut := float64(len(in)), float64(len(out))
	var d Detection
	fprFound := false
	tp, fp := 0.0, 0.0
	for i := 0; i < len(all); {
		// One threshold per distinct score: take the whole tied group.
		tp0, fp0 := tp, fp
		j := i
		for ; j < len(all) && all[j].s == all[i].s; j++ {
			if all[j].in {
				tp++
			} else {
				fp++
			}
		}
		i = j
		// Trapezoid between ROC points: ties inside the group get half.
		d.AUROC += (fp - fp0) / nOut * (tp + tp0) / 2 / nIn
		d.AUPR += (tp - tp0) / nIn * tp / (tp + fp)
		if !fprFound && tp/nIn >= 0.95 {
			d.FPRAt95TPR, fprFound = fp/nOut, true
		}
	}
	return d, nil
}

// LogDensity returns, for each row of the row-major [N,c] discriminants
// delta of an LDA head, log p(z) = logsumexp_c delta_c(z): the log density
// of the embedding under the head's mixture of Gaussians, the quantity
// whose exponential DNLL's penalty sums. It panics if len(delta) is not a
// multiple of c.
func LogDensity(delta []float32, c int) []float64 {
	n := rows("LogDensity", len(delta), c)
	out := make([]float64, n)
	for i := range out {
		row := delta[i*c : (i+1)*c]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		if math.IsInf(m, 0) {
			out[i] = m
			continue
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		out[i] = m + math.Log(s)
	}
	return out
}
