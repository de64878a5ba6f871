package metrics

import (
	"math"
	"testing"
)

// TestBrierHand checks the multi-class Brier score against sums done by
// hand, and its ends: 0 for certain right answers, 2 for certain wrong ones.
func TestBrierHand(t *testing.T) {
	probs := []float64{0.7, 0.2, 0.1, 0.5, 0.5, 0}
	// Row 0 (label 0): 0.3² + 0.2² + 0.1² = 0.14; row 1 (label 1): 0.5² + 0.5² = 0.5.
	if got := Brier(probs, []int32{0, 1}, 3); !close(got, 0.32, 1e-15, 1e-14) {
		t.Errorf("Brier = %v, want 0.32", got)
	}
	if got := Brier([]float64{1, 0}, []int32{0}, 2); got != 0 {
		t.Errorf("Brier of a certain right answer = %v, want 0", got)
	}
	if got := Brier([]float64{1, 0}, []int32{1}, 2); got != 2 {
		t.Errorf("Brier of a certain wrong answer = %v, want 2", got)
	}
	if Brier(nil, nil, 3) != 0 {
		t.Error("Brier of nothing is not 0")
	}
	expectPanic(t, "Brier label", func() { Brier([]float64{1, 0}, []int32{2}, 2) })
	expectPanic(t, "Brier rows", func() { Brier([]float64{1, 0}, []int32{0, 1}, 2) })
}

// TestMCEHand checks the maximum calibration error on TestECEHand's
// predictions and that empty bins do not count.
func TestMCEHand(t *testing.T) {
	conf := []float64{0.05, 0.1, 0.3, 0.5, 0.95, 1, 0, 0.5}
	correct := []bool{false, true, true, false, true, true, true, true}
	// (0,0.5]: accuracy 0.6, confidence 0.29; (0.5,1]: 1 and 0.975.
	if got := MCE(conf, correct, 2); !close(got, 0.31, 1e-15, 1e-12) {
		t.Errorf("MCE = %v, want 0.31", got)
	}
	// One bin of four holds both: accuracy 0.5, confidence 0.85.
	if got := MCE([]float64{0.9, 0.8}, []bool{true, false}, 4); !close(got, 0.35, 1e-15, 1e-12) {
		t.Errorf("MCE = %v, want 0.35", got)
	}
	if MCE(nil, nil, 15) != 0 {
		t.Error("MCE of nothing is not 0")
	}
}

// TestAdaptiveECEHand checks the equal-mass ECE against bins formed by
// hand, with fewer predictions than bins too.
func TestAdaptiveECEHand(t *testing.T) {
	conf := []float64{0.9, 0.2, 0.6, 0.4, 0.8}
	correct := []bool{true, false, true, true, false}
	// Sorted: 0.2 (wrong), 0.4, 0.6, 0.8 (wrong), 0.9; positions 0-2 in bin
	// 0 (floor(i*2/5)), 3-4 in bin 1. Bin 0: accuracy 2/3, confidence 0.4;
	// bin 1: accuracy 1/2, confidence 0.85.
	want := 3.0/5*math.Abs(2.0/3-0.4) + 2.0/5*math.Abs(0.5-0.85)
	if got := AdaptiveECE(conf, correct, 2); !close(got, want, 1e-15, 1e-12) {
		t.Errorf("AdaptiveECE = %v, want %v", got, want)
	}
	// One prediction, 15 bins: one bin holds it.
	if got := AdaptiveECE([]float64{0.5}, []bool{true}, 15); got != 0.5 {
		t.Errorf("AdaptiveECE of one prediction = %v, want 0.5", got)
	}
	// A confidence of 0 counts (equal-width bins leave it out).
	if got := AdaptiveECE([]float64{0}, []bool{true}, 15); got != 1 {
		t.Errorf("AdaptiveECE of a confidence of 0, right = %v, want 1", got)
	}
	if AdaptiveECE(nil, nil, 15) != 0 {
		t.Error("AdaptiveECE of nothing is not 0")
	}
	expectPanic(t, "AdaptiveECE bins", func() { AdaptiveECE([]float64{0.5}, []bool{true}, 0) })
	expectPanic(t, "AdaptiveECE lengths", func() { AdaptiveECE([]float64{0.5}, nil, 2) })
}

// TestClasswiseECEHand checks the classwise ECE against the three classes'
// ECEs computed by hand, and that a probability of 0 counts in the first
// bin.
func TestClasswiseECEHand(t *testing.T) {
	probs := []float64{0.6, 0.3, 0.1, 0.2, 0.2, 0.6}
	y := []int32{0, 1}
	// Two bins, (0,0.5] and (0.5,1]; n = 2.
	// Class 0: p (0.6, 0.2), label 0 (yes, no): |0-0.2|/2 + |1-0.6|/2 = 0.3.
	// Class 1: p (0.3, 0.2), (no, yes): one bin, |0.5-0.25| = 0.25.
	// Class 2: p (0.1, 0.6), (no, no): |0-0.1|/2 + |0-0.6|/2 = 0.35.
	if got := ClasswiseECE(probs, y, 3, 2); !close(got, 0.3, 1e-15, 1e-12) {
		t.Errorf("ClasswiseECE = %v, want 0.3", got)
	}
	// p = (1, 0), label 1: class 0 errs by 1 in the last bin, class 1 by
	// 1 in the first, where its 0 counts.
	if got := ClasswiseECE([]float64{1, 0}, []int32{1}, 2, 2); got != 1 {
		t.Errorf("ClasswiseECE = %v, want 1", got)
	}
	if ClasswiseECE(nil, nil, 3, 15) != 0 {
		t.Error("ClasswiseECE of nothing is not 0")
	}
	expectPanic(t, "ClasswiseECE rows", func() { ClasswiseECE([]float64{1, 0}, []int32{0, 1}, 2, 15) })
}
