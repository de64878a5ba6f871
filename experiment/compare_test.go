package experiment

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
)

// TestDriveCompare trains both heads on the same tiny data and checks the
// heads' folders, compare.json's keys and the gap, and the figures.
func TestDriveCompare(t *testing.T) {
	be := cpu.New()
	c := DefaultImages()
	c.Loss, c.Head = "", "softmax" // the comparison picks each head's loss itself
	c.LimitTrain, c.LimitTest, c.Epochs, c.Batch, c.Val, c.EvalBatch = 256, 64, 2, 64, 0, 64
	runs, err := NewCompare(be, c, fakeImages(256, 64, 1))
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Config.Head != "lda" || runs[0].Config.Loss != "dnll" || runs[1].Config.Head != "softmax" || runs[1].Config.Loss != "ce" {
		t.Fatalf("heads %s/%s and %s/%s, want lda/dnll and softmax/ce", runs[0].Config.Head, runs[0].Config.Loss, runs[1].Config.Head, runs[1].Config.Loss)
	}
	dir := t.TempDir()
	cmp, err := DriveCompare(context.Background(), runs, dir, func(ctx context.Context, r *ImageRun, sub string) error {
		return Driver{Dir: sub, Save: true, Figures: true}.Drive(ctx, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, head := range CompareHeads {
		for _, f := range []string{"report.json", CheckpointFile, ResumeFile, "reliability.svg"} {
			if _, err := os.Stat(filepath.Join(dir, head, f)); err != nil {
				t.Errorf("%s: %v", head, err)
			}
		}
	}
	for _, f := range []string{CompareECEFigure, CompareAccuracyFigure, CompareReliabilityFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, label := range []string{"LDA head, DNLL (λ = 0.01)", "softmax head, CE"} {
			if !strings.Contains(string(b), label) {
				t.Errorf("%s does not name %q", f, label)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, CompareFile))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		LDA, Softmax struct {
			Head, Loss, Status string
			History            []map[string]any
			Test               struct{ Accuracy, ECE, NLL *float64 }
		}
		Gap struct{ Accuracy, ECE *float64 }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		name       string
		head, loss string
		status     string
		hist       int
		acc, ece   *float64
		nll        *float64
	}{
		{"lda", got.LDA.Head, got.LDA.Loss, got.LDA.Status, len(got.LDA.History), got.LDA.Test.Accuracy, got.LDA.Test.ECE, got.LDA.Test.NLL},
		{"softmax", got.Softmax.Head, got.Softmax.Loss, got.Softmax.Status, len(got.Softmax.History), got.Softmax.Test.Accuracy, got.Softmax.Test.ECE, got.Softmax.Test.NLL},
	} {
		if h.head != h.name || h.status != "done" || h.hist != 2 || h.acc == nil || h.ece == nil || h.nll == nil {
			t.Errorf("compare.json %s: head %q, status %q, %d epochs, test %v %v %v", h.name, h.head, h.status, h.hist, h.acc, h.ece, h.nll)
		}
	}
	if got.Gap.Accuracy == nil || got.Gap.ECE == nil {
		t.Fatalf("compare.json has no gap: %s", b)
	}
	if want := *got.LDA.Test.Accuracy - *got.Softmax.Test.Accuracy; math.Abs(*got.Gap.Accuracy-want) > 1e-6 {
		t.Errorf("gap accuracy %v, want %v", *got.Gap.Accuracy, want)
	}
	if want := *got.LDA.Test.ECE - *got.Softmax.Test.ECE; math.Abs(*got.Gap.ECE-want) > 1e-6 {
		t.Errorf("gap ECE %v, want %v", *got.Gap.ECE, want)
	}
	if float64(cmp.LDA.Test.Accuracy) != float64(runs[0].Report.Test.Accuracy) {
		t.Errorf("comparison's LDA accuracy %v, the run's %v", cmp.LDA.Test.Accuracy, runs[0].Report.Test.Accuracy)
	}
}

// TestComparisonWaiting checks the comparison of a head not started yet:
// "waiting", no reliability diagram for it.
func TestComparisonWaiting(t *testing.T) {
	c := NewComparison(CompareConfig(DefaultImages(), "lda"), CompareConfig(DefaultImages(), "softmax"), nil, nil)
	if c.LDA.Status != "waiting" || c.Softmax.Loss != "ce" {
		t.Errorf("empty comparison: %+v", c)
	}
	if _, ok := c.Figures()[CompareReliabilityFile]; ok {
		t.Error("a reliability figure without any evaluation")
	}
}
