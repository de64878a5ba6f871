package experiment

import (
	"fmt"
	"slices"

	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

// Score is one calibration metric or out-of-distribution score of a run:
// its key in report.json, its name for people, the heads it applies to and
// its function, exactly one of Calibration and OOD.
type Score struct {
	// Name is the key: in every evaluated split ("test", "train", the
	// batchnorm and temperature_scaling splits) for a calibration metric,
	// in "ood" for an out-of-distribution score.
	Name string
	// Label names it in deeplda eval's output and on the page, with its
	// bins where it has some.
	Label string
	// Heads are the heads an out-of-distribution score applies to; nil:
	// every head. Calibration metrics read the posteriors, which every
	// head has, and have none.
	Heads []model.HeadKind
	// Calibration returns the metric of a split's predictions, 0 for a
	// perfectly calibrated model.
	Calibration func(Predictions) float64
	// Percent says that people read the metric as a percentage, as
	// accuracy: the calibration errors, not Brier's score.
	Percent bool
	// OOD returns a set's score per example, higher for in-distribution
	// examples, or an error where the head's parameters do not allow it
	// (a numerically singular covariance).
	OOD func(HeadOutputs) ([]float64, error)
}

// Predictions are a split's posteriors and labels: what a calibration
// metric reads.
type Predictions struct {
	Probs   []float64 // N×C posteriors (the softmax of the scores), row-major
	C       int
	Y       []int32
	Conf    []float64 // each example's largest posterior
	Correct []bool    // whether its prediction (the first largest posterior) is its label
}

// HeadOutputs are a model's outputs on one set and its head's parameters:
// what an out-of-distribution score reads.
type HeadOutputs struct {
	train.Outputs
	LDA *metrics.LDA // the LDA head's Gaussian model; nil for a softmax head
}

// calibrationBins are the bins of the 15-bin calibration metrics (ece15
// and the newer ones), the usual count since Guo et al. (2017).
const calibrationBins = 15

// Scores are the calibration metrics and out-of-distribution scores of
// every run, in the order that report.json, deeplda eval, cmd/results and
// the page give them: a new one is an entry here and its function in
// metrics.
//
// For the LDA head max_logit equals max_delta and energy equals density
// (the largest and the logsumexp of the discriminants): the two heads'
// reports share max_softmax, max_logit and energy, the keys that compare
// heads, and the LDA head's also name what its scores mean (density,
// max_delta), six scores in all.
var Scores = []Score{
	{Name: "ece", Label: "ECE (10 bins)", Percent: true, Calibration: func(p Predictions) float64 { return metrics.ECE(p.Conf, p.Correct, reliabilityBins) }},
	{Name: "ece15", Label: "ECE (15 bins)", Percent: true, Calibration: func(p Predictions) float64 { return metrics.ECE(p.Conf, p.Correct, calibrationBins) }},
	{Name: "brier", Label: "Brier score", Calibration: func(p Predictions) float64 { return metrics.Brier(p.Probs, p.Y, p.C) }},
	{Name: "ece_adaptive", Label: "adaptive ECE (15 equal-mass bins)", Percent: true, Calibration: func(p Predictions) float64 {
		return metrics.AdaptiveECE(p.Conf, p.Correct, calibrationBins)
	}},
	{Name: "mce", Label: "MCE (15 bins)", Percent: true, Calibration: func(p Predictions) float64 { return metrics.MCE(p.Conf, p.Correct, calibrationBins) }},
	{Name: "ece_classwise", Label: "classwise ECE (15 bins)", Percent: true, Calibration: func(p Predictions) float64 {
		return metrics.ClasswiseECE(p.Probs, p.Y, p.C, calibrationBins)
	}},

	{Name: "max_softmax", Label: "largest softmax probability", OOD: func(o HeadOutputs) ([]float64, error) {
		conf, _ := metrics.Confidences(metrics.Softmax(o.Scores, o.C), o.C)
		return conf, nil
	}},
	{Name: "max_logit", Label: "largest score", OOD: maxScore},
	{Name: "energy", Label: "energy (logsumexp of the scores)", OOD: logSumExp},
	{Name: "density", Label: "density", Heads: ldaHead, OOD: logSumExp},
	{Name: "max_delta", Label: "largest discriminant", Heads: ldaHead, OOD: maxScore},
	{Name: "mahalanobis", Label: "minus the squared Mahalanobis distance to the nearest mean", Heads: ldaHead, OOD: func(o HeadOutputs) ([]float64, error) {
		return o.LDA.MahalanobisScore(metrics.Float64s(o.Z))
	}},
}

// ldaHead are the Heads of the scores that need the LDA head's Gaussians.
var ldaHead = []model.HeadKind{model.HeadLDA}

// maxScore is the largest score of each example (MaxScore).
func maxScore(o HeadOutputs) ([]float64, error) { return metrics.MaxScore(o.Scores, o.C), nil }

// logSumExp is the logsumexp of each example's scores (LogSumExp).
func logSumExp(o HeadOutputs) ([]float64, error) { return metrics.LogSumExp(o.Scores, o.C), nil }

// AppliesTo reports whether s applies to a model of head h.
func (s Score) AppliesTo(h model.HeadKind) bool { return s.Heads == nil || slices.Contains(s.Heads, h) }

// Format writes a value of s as people read it: in percent with two
// decimals (Percent), else with four decimals.
func (s Score) Format(v float64) string {
	if s.Percent {
		return fmt.Sprintf("%.2f%%", 100*v)
	}
	return fmt.Sprintf("%.4f", v)
}

// CalibrationScores returns the calibration metrics of Scores, in order.
func CalibrationScores() []Score {
	return scoresWith(func(s Score) bool { return s.Calibration != nil })
}

// OODScores returns the out-of-distribution scores of Scores, in order.
func OODScores() []Score { return scoresWith(func(s Score) bool { return s.OOD != nil }) }

// scoresWith returns the scores of Scores that keep keeps, in order.
func scoresWith(keep func(Score) bool) []Score {
	var out []Score
	for _, s := range Scores {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}
