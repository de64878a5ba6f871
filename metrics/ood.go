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

// ROCPoint is one threshold of a score: the fractions of in-distribution
// (TPR) and out-of-distribution (FPR) examples that score at or above it.
type ROCPoint struct {
	FPR float64 `json:"fpr"`
	TPR float64 `json:"tpr"`
}

// ROC returns the ROC curve of scores in (in-distribution examples, the
// positives) against out: one point per distinct score, from the highest
// down, after the point (0, 0). Tied scores form one threshold. It returns
// an error when either set is empty or a score is NaN.
func ROC(in, out []float64) ([]ROCPoint, error) {
	if len(in) == 0 || len(out) == 0 {
		return nil, fmt.Errorf("metrics: scoring out-of-distribution detection needs both sets: %d in-distribution, %d out-of-distribution scores", len(in), len(out))
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
				return nil, fmt.Errorf("metrics: an out-of-distribution score is NaN")
			}
			all = append(all, scored{s, set.in})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	nIn, nOut := float64(len(in)), float64(len(out))
	curve := []ROCPoint{{}}
	tp, fp := 0, 0
	for i := 0; i < len(all); {
		j := i
		for ; j < len(all) && all[j].s == all[i].s; j++ {
			if all[j].in {
				tp++
			} else {
				fp++
			}
		}
		i = j
		curve = append(curve, ROCPoint{FPR: float64(fp) / nOut, TPR: float64(tp) / nIn})
	}
	return curve, nil
}

// Detect returns the detection figures of scores in (in-distribution
// examples) against out (out-of-distribution ones), from their ROC curve.
// It returns ROC's errors.
func Detect(in, out []float64) (Detection, error) {
	curve, err := ROC(in, out)
	if err != nil {
		return Detection{}, err
	}
	nIn, nOut := float64(len(in)), float64(len(out))
	var d Detection
	fprFound := false
	// The area in whole counts (twice the trapezoids' areas in units of one
	// in-distribution by one out-of-distribution score), so that it is
	// exact: a tie of everything gives 0.5, not 0.5 give or take a bit.
	var area int64
	count := func(frac, n float64) int64 { return int64(math.Round(frac * n)) }
	for k := 1; k < len(curve); k++ {
		p, q := curve[k-1], curve[k]
		// Trapezoid between thresholds: ties inside a threshold get half.
		area += (count(q.FPR, nOut) - count(p.FPR, nOut)) * (count(q.TPR, nIn) + count(p.TPR, nIn))
		if q.TPR > p.TPR {
			d.AUPR += (q.TPR - p.TPR) * q.TPR * nIn / (q.TPR*nIn + q.FPR*nOut)
		}
		if !fprFound && q.TPR >= 0.95 {
			d.FPRAt95TPR, fprFound = q.FPR, true
		}
	}
	d.AUROC = float64(area) / (2 * nIn * nOut)
	return d, nil
}

// LogDensity returns, for each row of the row-major [N,c] discriminants
// delta of an LDA head, log p(z) = logsumexp_c delta_c(z): the log density
// of the embedding under the head's mixture of Gaussians, the quantity
// whose exponential DNLL's penalty sums (LogSumExp of the discriminants).
// It panics if len(delta) is not a multiple of c.
func LogDensity(delta []float32, c int) []float64 { return LogSumExp(delta, c) }

// LogSumExp returns, for each row of the row-major [N,c] scores,
// logsumexp_k scores_k: for a softmax head's logits the energy score of Liu
// et al. (2020) (minus the free energy, higher for in-distribution
// examples), for an LDA head's discriminants the log density (LogDensity).
// A row of -Inf gives -Inf. It panics if len(scores) is not a multiple of
// c.
func LogSumExp(scores []float32, c int) []float64 {
	n := rows("LogSumExp", len(scores), c)
	out := make([]float64, n)
	for i := range out {
		row := scores[i*c : (i+1)*c]
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

// MaxScore returns, for each row of the row-major [N,c] scores, the largest
// one: a softmax head's largest logit (Hendrycks et al. 2022's MaxLogit) or
// an LDA head's largest discriminant. It panics if len(scores) is not a
// multiple of c.
func MaxScore(scores []float32, c int) []float64 {
	n := rows("MaxScore", len(scores), c)
	out := make([]float64, n)
	for i := range out {
		m := math.Inf(-1)
		for _, v := range scores[i*c : (i+1)*c] {
			m = math.Max(m, float64(v))
		}
		out[i] = m
	}
	return out
}
