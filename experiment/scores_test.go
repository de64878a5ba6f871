package experiment

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/metrics"
)

// TestScoresList checks the list of scores: unique keys, one function
// each, no heads on a calibration metric (evaluateSplit gives every split
// all of them), and a label that names the bins of every ECE and MCE.
func TestScoresList(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Scores {
		if s.Name == "" || s.Label == "" || seen[s.Name] {
			t.Errorf("score %q (label %q): empty or repeated", s.Name, s.Label)
		}
		seen[s.Name] = true
		if (s.Calibration == nil) == (s.OOD == nil) {
			t.Errorf("%s: has %v a calibration function and %v an out-of-distribution one, want one of them", s.Name, s.Calibration != nil, s.OOD != nil)
		}
		if s.Calibration != nil && s.Heads != nil {
			t.Errorf("%s: a calibration metric restricted to heads %v", s.Name, s.Heads)
		}
		if (strings.Contains(s.Label, "ECE") || strings.Contains(s.Label, "MCE")) && !strings.Contains(s.Label, " bins)") {
			t.Errorf("%s: label %q does not say its bins", s.Name, s.Label)
		}
	}
	if n, m := len(CalibrationScores()), len(OODScores()); n != 6 || m != 6 {
		t.Errorf("%d calibration metrics and %d out-of-distribution scores, want 6 and 6", n, m)
	}
}

// TestDummyScore adds a calibration metric and an out-of-distribution
// score to the list, nowhere else, and finds them in every split of an
// image run's report.json (test, train, both BatchNorm evaluations, the
// temperature-scaled test), in its ood part and in the figures; the
// list's metrics are those of metrics on the run's outputs.
func TestDummyScore(t *testing.T) {
	withDummyScores(t)
	c := DefaultImages()
	c.Epochs, c.Batch, c.LimitTrain, c.Val, c.EvalBatch, c.BNRecalibrate = 1, 32, 64, 32, 64, 1
	r, err := NewImagesFrom(cpu.New(), c, fakeImages(96, 48, 1))
	if err != nil {
		t.Fatal(err)
	}
	if r.OOD, err = NewOODSet("mnist", fakeImages(1, 40, 2).Test, c.Data, 0); err != nil {
		t.Fatal(err)
	}
	if err := (Driver{}).Drive(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	at := func(path string) any {
		var v any = rep
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	for _, split := range []string{"test", "train", "batchnorm.running_stats", "batchnorm.recalibrated", "temperature_scaling.test_after"} {
		if got := at(split + ".dummy_calibration"); got != 0.25 {
			t.Errorf("%s.dummy_calibration = %v, want 0.25", split, got)
		}
		for _, k := range []string{"ece", "ece15", "brier", "ece_adaptive", "mce", "ece_classwise"} {
			if v, ok := at(split + "." + k).(float64); !ok || v < 0 || v > 2 {
				t.Errorf("%s.%s = %v, want a number in [0,2]", split, k, at(split+"."+k))
			}
		}
	}
	probs := metrics.Softmax(r.TestOut.Scores, 10)
	if got, want := at("test.brier"), metrics.Brier(probs, r.TestSet.Y, 10); math.Abs(got.(float64)-want) > 1e-12 {
		t.Errorf("test.brier = %v, want %v", got, want)
	}
	if got := at("ood.dummy_ood.auroc"); got != 0.5 {
		t.Errorf("ood.dummy_ood.auroc = %v, want 0.5 (every image scores 0)", got)
	}
	if !strings.Contains(string(r.Figures()["ood_roc.svg"]), "dummy_ood") {
		t.Error("ood_roc.svg lacks the dummy score")
	}
}

// withDummyScores appends to Scores, until t ends, a calibration metric
// dummy_calibration (always 0.25) and an out-of-distribution score
// dummy_ood (0 for every example).
func withDummyScores(t *testing.T) {
	saved := Scores
	t.Cleanup(func() { Scores = saved })
	Scores = append(Scores[:len(Scores):len(Scores)],
		Score{Name: "dummy_calibration", Label: "dummy calibration", Calibration: func(Predictions) float64 { return 0.25 }},
		Score{Name: "dummy_ood", Label: "dummy score", OOD: func(o HeadOutputs) ([]float64, error) {
			return make([]float64, len(o.Scores)/o.C), nil
		}})
}

// TestScoreFormat checks how people read a score: a calibration error in
// percent, Brier's score as a number.
func TestScoreFormat(t *testing.T) {
	for _, tc := range []struct {
		s    Score
		v    float64
		want string
	}{
		{Score{Percent: true}, 0.025649, "2.56%"},
		{Score{Percent: true}, 0.5044, "50.44%"},
		{Score{}, 0.0851, "0.0851"},
	} {
		if got := tc.s.Format(tc.v); got != tc.want {
			t.Errorf("Format(%v), Percent %v: %q, want %q", tc.v, tc.s.Percent, got, tc.want)
		}
	}
}
