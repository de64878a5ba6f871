package experiment

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/metrics"
)

// runSynth trains a toy configuration to the end and returns the run.
func runSynth(t *testing.T, c SynthConfig) *Run {
	t.Helper()
	r, err := NewSynth(cpu.New(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Driver{}).Drive(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestClassicalLDA checks the paper's first experiment: with the identity
// encoder, gradient MLE (NLL, full batch) recovers the closed-form MLE, and
// CE moves the means and shrinks the covariance.
func TestClassicalLDA(t *testing.T) {
	c := DefaultSynth()
	c.Encoder, c.Loss, c.Batch, c.Epochs, c.LR = "none", "nll", c.Train, 3000, 0.01
	r := runSynth(t, c)
	g, err := r.Model.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	mle, err := metrics.FitLDA32(r.TrainSet.X, r.TrainSet.Y, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for k := range mle.Mu {
		for j := range mle.Mu[k] {
			worst = max(worst, math.Abs(g.Mu[k][j]-mle.Mu[k][j]))
		}
	}
	for i := range mle.Sigma {
		for j := range mle.Sigma[i] {
			worst = max(worst, math.Abs(g.Sigma[i][j]-mle.Sigma[i][j]))
		}
	}
	if worst >= 1e-3 {
		t.Errorf("gradient MLE differs from the closed form by %.3g (want < 1e-3)", worst)
	}

	c.Loss, c.Batch, c.Epochs, c.LR = "ce", 256, 100, 1e-3
	ce := runSynth(t, c)
	if shift := float64(ce.Report.Consistency.MeanShift); shift < 1 {
		t.Errorf("CE's means moved only %.3g Mahalanobis units from the MLE", shift)
	}
	gce, _ := ce.Model.Gaussian()
	if gce.LogDet >= logDet2(mle.Sigma) {
		t.Errorf("CE's covariance (log det %.3g) did not shrink below the MLE's (%.3g)", gce.LogDet, logDet2(mle.Sigma))
	}
}

func logDet2(s [][]float64) float64 { return math.Log(s[0][0]*s[1][1] - s[0][1]*s[1][0]) }

// TestDeepToy checks the paper's second experiment over five seeds: DNLL is
// accurate, calibrated and consistent; CE is accurate but its head is far
// from the refit; NLL's log det Sigma keeps falling below DNLL's.
func TestDeepToy(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short mode: 15 runs of 100 epochs")
	}
	for seed := uint64(1); seed <= 5; seed++ {
		c := DefaultSynth()
		c.Seed = seed
		dnll := runSynth(t, c).Report
		c.Loss = "ce"
		ce := runSynth(t, c).Report
		c.Loss = "nll"
		nll := runSynth(t, c).Report
		if dnll.Test.Accuracy < 0.99 || dnll.Consistency.MeanShift >= 1 || dnll.Test.ECE >= 0.01 {
			t.Errorf("seed %d: DNLL test accuracy %.4f, mean shift %.3g, ECE %.4f", seed, dnll.Test.Accuracy, dnll.Consistency.MeanShift, dnll.Test.ECE)
		}
		if ce.Test.Accuracy < 0.99 || ce.Consistency.MeanShift <= 10*dnll.Consistency.MeanShift {
			t.Errorf("seed %d: CE test accuracy %.4f, mean shift %.3g (DNLL's %.3g)", seed, ce.Test.Accuracy, ce.Consistency.MeanShift, dnll.Consistency.MeanShift)
		}
		h := nll.History
		first, mid, last := *h[9].LogDetCov, *h[49].LogDetCov, *h[len(h)-1].LogDetCov
		if !(last < mid && mid < first) || last >= *dnll.Head.LogDetCov-2 {
			t.Errorf("seed %d: NLL log det Sigma at epochs 10, 50, 100: %.3g, %.3g, %.3g; DNLL ends at %.3g", seed, first, mid, last, *dnll.Head.LogDetCov)
		}
		t.Logf("seed %d: test accuracy dnll %.4f ce %.4f nll %.4f; mean shift dnll %.3g ce %.3g; log det dnll %.3g nll %.3g",
			seed, dnll.Test.Accuracy, ce.Test.Accuracy, nll.Test.Accuracy, dnll.Consistency.MeanShift, ce.Consistency.MeanShift, *dnll.Head.LogDetCov, last)
	}
}

// TestToyFigures checks the figures the page draws of toy runs beyond
// Run.Figures: the consistency figure of a run with a 2-D embedding, and
// the histories of runs side by side (one curve per run with a history,
// none without).
func TestToyFigures(t *testing.T) {
	c := DefaultSynth()
	c.Train, c.Test, c.Epochs, c.Batch = 256, 128, 2, 64
	r := runSynth(t, c)
	if svg := string(r.ConsistencyFigure()); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "mean shift ") {
		t.Errorf("consistency figure %.200q", svg)
	}
	figs := HistoryFigures([]Curves{{Label: "first", History: r.Report.History}, {Label: "waiting"}, {Label: "second", History: r.Report.History}})
	for _, name := range []string{"compare-logdet.svg", "compare-accuracy.svg"} {
		svg := string(figs[name])
		if !strings.Contains(svg, ">first<") || !strings.Contains(svg, ">second<") || strings.Contains(svg, ">waiting<") {
			t.Errorf("%s does not have the curves of the two runs with a history alone:\n%.400s", name, svg)
		}
	}
	if !strings.Contains(string(figs["compare-accuracy.svg"]), ">test accuracy (%)<") {
		t.Error("compare-accuracy.svg does not give accuracy in percent")
	}
	// The third run keeps its colour, the waiting one's none.
	if svg := string(figs["compare-accuracy.svg"]); !strings.Contains(svg, `stroke="`+RunColor(2)+`"`) || strings.Contains(svg, `stroke="`+RunColor(1)+`"`) {
		t.Errorf("the run after one without a history is not drawn in RunColor(2) %s:\n%s", RunColor(2), svg)
	}
	size := fmt.Sprintf(`width="%d" height="%d"`, SideWidth, SideHeight)
	for name, svg := range map[string][]byte{"compare-logdet.svg": figs["compare-logdet.svg"], "the side-by-side embedding": r.SideEmbedding()} {
		if !strings.Contains(string(svg), size) {
			t.Errorf("%s is not drawn at %s: %.200s", name, size, svg)
		}
	}
	if figs := HistoryFigures([]Curves{{Label: "waiting"}}); figs != nil {
		t.Errorf("no history, figures %v", figs)
	}
	r.Report.Consistency = nil
	if r.ConsistencyFigure() != nil {
		t.Error("a consistency figure without the consistency report")
	}
}
