package main

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestDummyScore adds a calibration metric and an out-of-distribution
// score to experiment.Scores, nowhere else, and finds both in a report.json
// read as the tables read it (the report's own types) and the score in the
// ood table, after the list's scores that the report has.
func TestDummyScore(t *testing.T) {
	saved := experiment.Scores
	t.Cleanup(func() { experiment.Scores = saved })
	experiment.Scores = append(saved[:len(saved):len(saved)],
		experiment.Score{Name: "dummy_calibration", Label: "dummy calibration", Calibration: func(experiment.Predictions) float64 { return 0 }},
		experiment.Score{Name: "dummy_ood", Label: "dummy score", OOD: func(experiment.HeadOutputs) ([]float64, error) { return nil, nil }})
	dir := writeRun(t, t.TempDir(), "lda", `{"config":{"head":"lda"},"test":{"accuracy":0.9,"ece":0.03,"brier":0.2,"dummy_calibration":0.25},
		"ood":{"dataset":"mnist","n_in":4,"n_out":4,"max_softmax":{"auroc":0.8,"aupr":0.7,"fpr_at_95_tpr":0.6},
		"dummy_ood":{"auroc":0.5,"aupr":0.25,"fpr_at_95_tpr":1},"mahalanobis":{"auroc":0.9,"aupr":0.9,"fpr_at_95_tpr":0.1}}}`)
	r, err := loadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Test.Metric("dummy_calibration"); !ok || v != 0.25 {
		t.Errorf("test's dummy_calibration %v (%v), want 0.25", v, ok)
	}
	if v, ok := r.Test.Metric("brier"); !ok || v != 0.2 || r.Test.ECE != 0.03 {
		t.Errorf("test's brier %v (%v), ece %v; want 0.2 and 0.03", v, ok, r.Test.ECE)
	}
	want := "| lda | mnist | max_softmax | 80.00 | 70.00 | 60.00 |\n" +
		"| lda | mnist | mahalanobis | 90.00 | 90.00 | 10.00 |\n" +
		"| lda | mnist | dummy_ood | 50.00 | 25.00 | 100.00 |\n"
	if got := oodTable([]*runReport{r}); !strings.HasSuffix(got, want) {
		t.Errorf("ood table:\n%s\nwant its rows:\n%s", got, want)
	}
}
