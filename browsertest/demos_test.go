package browsertest

import (
	"testing"
	"time"
)

// TestDeepDNLLOnCPU trains the default demo (Deep LDA with DNLL) on the CPU
// backend with small sizes and checks the report, the figures, the page's
// responsiveness and its console.
func TestDeepDNLLOnCPU(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep&backend=cpu&epochs=20&train=4000&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	r := b.report()
	if r.Test.Accuracy < 0.97 {
		t.Errorf("test accuracy %.4f, want >= 0.97", r.Test.Accuracy)
	}
	if r.Backend.Name != "cpu" || r.Status != "done" || r.Kind != "synth" || len(r.History) != 20 {
		t.Errorf("report: backend %q, status %q, kind %q, %d epochs", r.Backend.Name, r.Status, r.Kind, len(r.History))
	}
	if r.Config["loss"] != "dnll" || r.Config["train"] != 4000.0 || r.Config["epochs"] != 20.0 {
		t.Errorf("report config %v", r.Config)
	}
	if r.Consistency == nil || r.Head.LogDetCov == nil {
		t.Error("the report has no consistency or log det")
	}
	b.checkFigures("#figures", 7, 3000)
	b.checkResponsive()
	b.screenshot("deep-dnll-cpu.png")
	b.checkClean()
}

// TestClassicalSideBySide trains classical LDA (identity encoder) with
// full-batch NLL and CE side by side: NLL's head must match the
// closed-form fit, CE's must not.
func TestClassicalSideBySide(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=classical&backend=cpu&train=4000&epochs=300&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	b.checkFigures("#overview", 4, 3000)
	b.checkFigures("#figures", 6, 500)
	b.checkResponsive()
	b.screenshot("classical-nll-vs-ce.png")
	reps := b.runReports()
	if len(reps) != 2 {
		t.Fatalf("%d runs, want 2", len(reps))
	}
	nll, ce := reps[0], reps[1]
	if nll.Config["loss"] != "nll" || ce.Config["loss"] != "ce" || nll.Config["encoder"] != "none" {
		t.Errorf("configs %v and %v", nll.Config, ce.Config)
	}
	if nll.Consistency == nil || ce.Consistency == nil {
		t.Fatal("no consistency in the reports")
	}
	t.Logf("mean shift from the closed-form fit: NLL %.3g, CE %.3g", nll.Consistency.MeanShift, ce.Consistency.MeanShift)
	if nll.Consistency.MeanShift > 0.1 || ce.Consistency.MeanShift < 1 {
		t.Errorf("mean shift NLL %.3g (want < 0.1), CE %.3g (want > 1)", nll.Consistency.MeanShift, ce.Consistency.MeanShift)
	}
	for _, r := range reps {
		if r.Test.Accuracy < 0.97 {
			t.Errorf("%v: test accuracy %.4f", r.Config["loss"], r.Test.Accuracy)
		}
	}
	b.checkClean()
}

// TestDeepSideBySide trains NLL, CE and DNLL on the toy MLP one after the
// other and shows them side by side.
func TestDeepSideBySide(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep&compare=1&backend=cpu&epochs=20&train=4000&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	b.checkFigures("#overview", 5, 6000)
	b.checkResponsive()
	b.screenshot("deep-side-by-side.png")
	reps := b.runReports()
	if len(reps) != 3 {
		t.Fatalf("%d runs, want 3", len(reps))
	}
	for i, loss := range []string{"nll", "ce", "dnll"} {
		if reps[i].Config["loss"] != loss || reps[i].Status != "done" || len(reps[i].History) != 20 {
			t.Errorf("run %d: loss %v, status %q, %d epochs", i+1, reps[i].Config["loss"], reps[i].Status, len(reps[i].History))
		}
	}
	b.checkClean()
}

// TestLambdaSweep trains the spherical head for three values of lambda:
// the learned sigma must grow with lambda.
func TestLambdaSweep(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=sweep&backend=cpu&epochs=30&train=4000&lambdas=0.01,1,10&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	b.checkFigures("#overview", 2, 60)
	b.checkResponsive()
	b.screenshot("lambda-sweep.png")
	reps := b.runReports()
	if len(reps) != 3 {
		t.Fatalf("%d runs, want 3", len(reps))
	}
	var prev float64
	for i, r := range reps {
		if r.Head.Sigma == nil || r.Config["cov"] != "spherical" {
			t.Fatalf("run %d: no sigma, or cov %v", i+1, r.Config["cov"])
		}
		t.Logf("lambda %v: sigma %.3g, test accuracy %.4f, ECE %.4f", r.Config["lambda"], *r.Head.Sigma, r.Test.Accuracy, r.Test.ECE)
		if *r.Head.Sigma <= prev {
			t.Errorf("sigma %.3g at lambda %v is not above %.3g", *r.Head.Sigma, r.Config["lambda"], prev)
		}
		prev = *r.Head.Sigma
	}
	b.checkClean()
}
