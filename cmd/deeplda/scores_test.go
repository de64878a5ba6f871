package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/report"
)

// TestEvalDummyScore adds a calibration metric and an out-of-distribution
// score to experiment.Scores, nowhere else, runs deeplda eval -ood mnist on
// the golden Fashion-MNIST checkpoint with 64 images of each test set, and
// finds both in report.json, in eval's printed lines and in report.json
// read back into the report's own types (as cmd/results reads it), beside
// the list's other scores.
func TestEvalDummyScore(t *testing.T) {
	datasets := sharedtest.Dir(t, "datasets")
	saved := experiment.Scores
	t.Cleanup(func() { experiment.Scores = saved })
	experiment.Scores = append(saved[:len(saved):len(saved)],
		experiment.Score{Name: "dummy_calibration", Label: "dummy calibration", Calibration: func(experiment.Predictions) float64 { return 0.25 }},
		experiment.Score{Name: "dummy_ood", Label: "dummy score", OOD: func(o experiment.HeadOutputs) ([]float64, error) {
			return make([]float64, len(o.Scores)/o.C), nil
		}})
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out, stdout := evalGolden(t, ckpt, "-ood", "mnist", "-ood-datadir", filepath.Join(datasets, "mnist"), "-limit-test", "64")
	for _, want := range []string{
		"64 test images: accuracy ", ", ECE (10 bins) ",
		"test calibration: ECE (10 bins) ", ", dummy calibration 0.2500 (report.json's test: ece, ece15, brier, ece_adaptive, mce, ece_classwise, dummy_calibration)",
		"out-of-distribution (64 test images against 64 of mnist), dummy_ood: AUROC 0.5000, AUPR ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	r := readReport(t, out)
	// The calibration errors printed in percent, report.json's fractions.
	if ece, ok := lookup(r, "test.ece").(float64); !ok || ece <= 0 || ece >= 1 ||
		!strings.Contains(stdout, fmt.Sprintf("test calibration: ECE (10 bins) %.2f%%, ", 100*ece)) {
		t.Errorf("test.ece %v: stdout does not give it in percent:\n%s", lookup(r, "test.ece"), stdout)
	}
	if got := lookup(r, "test.dummy_calibration"); got != 0.25 {
		t.Errorf("test.dummy_calibration = %v, want 0.25", got)
	}
	if got := lookup(r, "ood.dummy_ood.auroc"); got != 0.5 {
		t.Errorf("ood.dummy_ood.auroc = %v, want 0.5", got)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var typed struct {
		report.Report
		experiment.ImageExtras
	}
	if err := json.Unmarshal(b, &typed); err != nil {
		t.Fatal(err)
	}
	if v, ok := typed.Test.Metric("dummy_calibration"); !ok || v != 0.25 {
		t.Errorf("read back: test's dummy_calibration %v (%v), want 0.25", v, ok)
	}
	if d, ok := typed.OOD.Detection("dummy_ood"); !ok || d.AUROC != 0.5 {
		t.Errorf("read back: ood's dummy_ood %+v (%v), want AUROC 0.5", d, ok)
	}
}

// TestPrintCalibration checks deeplda eval's calibration line: the
// calibration errors in percent, as the rest of the project gives them,
// Brier's score as a number, then report.json's keys.
func TestPrintCalibration(t *testing.T) {
	var split report.Split
	for _, s := range experiment.CalibrationScores() {
		split.SetMetric(s.Name, 0.0256)
	}
	split.SetMetric("mce", 0.5044)
	var b strings.Builder
	printCalibration(&b, "test", split)
	want := "test calibration: ECE (10 bins) 2.56%, ECE (15 bins) 2.56%, Brier score 0.0256, adaptive ECE (15 equal-mass bins) 2.56%, " +
		"MCE (15 bins) 50.44%, classwise ECE (15 bins) 2.56% (report.json's test: ece, ece15, brier, ece_adaptive, mce, ece_classwise)\n"
	if b.String() != want {
		t.Errorf("printed\n%q\nwant\n%q", b.String(), want)
	}
}
