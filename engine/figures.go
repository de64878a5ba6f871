package engine

import (
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/report"
)

// The figures below only draw what the runs report (report.Report and the
// run's evaluation outputs); the numbers come from package experiment.

// overviewFigures returns the figures a session draws across its runs
// (protocol.Start's Overview): nil for a single run.
func (s *session) overviewFigures() map[string][]byte {
	if len(s.runs) < 2 {
		return nil
	}
	switch s.start.Overview {
	case protocol.OverviewSweep:
		return sweepFigures(s.runs)
	case protocol.OverviewHeads:
		return s.comparison().Figures()
	case protocol.OverviewRuns:
		figs := compareFigures(s.runs)
		if figs == nil {
			figs = map[string][]byte{}
		}
		for i, jr := range s.runs {
			figs[fmt.Sprintf("run%d-embedding.svg", i+1)] = jr.figs["embedding.svg"]
		}
		return figs
	}
	return nil
}

// consistencyFigure draws the test embeddings with the learned Gaussians
// (class colours) and the closed-form LDA refit on the training embeddings
// (grey), with the mean shift and KL of the report in the caption. It
// returns nil until the run has a consistency report for a 2-D embedding.
func consistencyFigure(r *experiment.Run) []byte {
	rep := r.Report
	c := rep.Consistency
	if c == nil || len(rep.Head.Mu) == 0 || len(c.RefitMu) != len(rep.Head.Mu) || r.TestOut.D != 2 || len(r.TestOut.Z) == 0 {
		return nil
	}
	fig := plot.Figure{
		Title:   "Consistency: learned head (colour) vs closed-form refit (grey)",
		XLabel:  "z₁",
		YLabel:  "z₂",
		Caption: fmt.Sprintf("mean shift %.3g · KL %.3g", float64(c.MeanShift), float64(c.KL)),
	}
	if r.Model.Spec.Encoder == model.EncoderNone {
		fig.XLabel, fig.YLabel = "x₁", "x₂"
	}
	pts := plot.Points{}
	for i, y := range r.TestSet.Y {
		pts.X = append(pts.X, float64(r.TestOut.Z[2*i]))
		pts.Y = append(pts.Y, float64(r.TestOut.Z[2*i+1]))
		pts.Class = append(pts.Class, int(y))
	}
	var ellipses []plot.Ellipse
	var means []plot.Mean
	add := func(class int, mu []report.Float, cov [][]report.Float) {
		if len(mu) != 2 || len(cov) != 2 || len(cov[0]) != 2 || len(cov[1]) != 2 {
			return
		}
		m := []float64{float64(mu[0]), float64(mu[1])}
		s := []float64{float64(cov[0][0]), float64(cov[0][1]), float64(cov[1][0]), float64(cov[1][1])}
		if e, err := metrics.Ellipse(m, s, 0.9, 96); err == nil {
			ellipses = append(ellipses, plot.Ellipse{Class: class, Points: e})
		}
		means = append(means, plot.Mean{Class: class, X: m[0], Y: m[1]})
	}
	for k := range rep.Head.Mu {
		add(-1, c.RefitMu[k], c.RefitCov)
		add(k, rep.Head.Mu[k], rep.Head.Cov)
	}
	return plot.Embedding(fig, pts, nil, ellipses, means, nil)
}

// compareFigures draws the runs' histories on shared axes: log det Sigma
// and test accuracy (in percent, as every figure gives it) per epoch, one
// curve per run.
func compareFigures(runs []*jobRun) map[string][]byte {
	var logdet, acc []plot.Series
	for _, jr := range runs {
		if jr.run == nil || len(jr.run.Report.History) == 0 {
			continue
		}
		ld := plot.Series{Name: jr.job.Label}
		ta := plot.Series{Name: jr.job.Label}
		for _, h := range jr.run.Report.History {
			if h.LogDetCov != nil {
				ld.X, ld.Y = append(ld.X, float64(h.Epoch)), append(ld.Y, float64(*h.LogDetCov))
			}
			ta.X, ta.Y = append(ta.X, float64(h.Epoch)), append(ta.Y, 100*float64(h.TestAccuracy))
		}
		logdet, acc = append(logdet, ld), append(acc, ta)
	}
	if len(acc) == 0 {
		return nil
	}
	return map[string][]byte{
		"compare-logdet.svg":   plot.Lines(plot.Figure{Title: "log det Σ per epoch", XLabel: "epoch", YLabel: "log det Σ", IntegerX: true}, logdet, false),
		"compare-accuracy.svg": plot.Lines(plot.Figure{Title: "Test accuracy per epoch", XLabel: "epoch", YLabel: "test accuracy (%)", IntegerX: true, ZeroY: true}, acc, false),
	}
}

// comparison returns the comparison of an images session's two
// heads (experiment.CompareHeads), from the reports of the runs built so
// far.
func (s *session) comparison() *experiment.Comparison {
	reps := make([]*report.Report, len(s.runs))
	for i, jr := range s.runs {
		if jr.run != nil {
			reps[i] = jr.run.Report
		}
	}
	return experiment.NewComparison(*s.runs[0].job.Image, *s.runs[1].job.Image, reps[0], reps[1])
}

// sweepFigures draws the finished runs of a lambda sweep of toy runs
// against lambda (experiment.SweepFigures): test accuracy and ECE, and the
// learned sigma of the spherical head.
func sweepFigures(runs []*jobRun) map[string][]byte {
	res := experiment.NewSweepResult(experiment.SweepConfig{Seeds: 1}, kernels.Info{})
	for _, jr := range runs {
		if jr.status != statusDone || jr.run == nil {
			continue
		}
		rep := jr.run.Report
		res.AddPoint(experiment.SweepPoint{Lambda: jr.job.Synth.Lambda, Seed: jr.job.Synth.Seed,
			Accuracy: rep.Test.Accuracy, ECE: rep.Test.ECE, NLL: rep.Test.NLL, Sigma: rep.Head.Sigma})
	}
	if len(res.Points) == 0 {
		return nil
	}
	return experiment.SweepFigures(res.Summary, "toy data", "")
}
